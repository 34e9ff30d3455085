"""The round of corpora FR (agents and developer tools), FS (cloud operations), FT (southern
and western Europe's back offices), FU (health cover in the English-speaking world), FV (Japan
and Korea) and FW (money and crypto): each shape they found left or wrongly changed, redacted or
kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor
from servescope.redaction.tables import column_kind

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # Japan and Korea
    ("\uace0\uac1d: 730417\uc5d0 1178615\uc774\uc694. \uadf8\ub7ec\ub2c8\uae4c 730417-1"
     "178615.\n\uc0c1\ub2f4\uc6d0: \ub124 \ud655\uc778\ub418\uc5c8\uc2b5\ub2c8\ub2e4.",
     "730417-1178615"),
    ("[ERROR] hometax.YearEndTaxService - \uc870\ud68c \uc2e4\ud328 resNo=6805282305773"
     " userNm=\ud669\uc601\uc218",
     "6805282305773"),
    ("\uc790\ub3d9\ucc28\uc6b4\uc804\uba74\ud5c8\uc99d\n18-05-242515-41\n1\uc885\ubcf4"
     "\ud1b5\n\ud55c\ud604\uc6b0",
     "18-05-242515-41"),
    ("\ud658\uc790\uba85: \uc870\ud61c\uc9c4\n\uac74\uac15\ubcf4\ud5d8\uc99d\ubc88"
     "\ud638: 4-2717853885\n\uc5f0\ub77d\ucc98:",
     "4-2717853885"),
    ("\uc5c4\ub9c8 \ud1a0\uc2a4 \uac04\ud3b8\ube44\ubc88 870464 \ub9de\uc9c0? \ub85c"
     "\uadf8\uc778\uc774 \uc548 \ub3fc",
     "870464"),
    ("\u904b\u8ee2\u8005: \u963f\u90e8 \u3055\u304f\u3089\n\u904b\u8ee2\u514d\u8a31"
     "\u8a3c\u756a\u53f7: 500241127020\n\u643a\u5e2f:",
     "500241127020"),
    ("{\"query\": \"\u89e3\u7d04\u624b\u7d9a\u304d\", \"residence_card_no\": \"ZK443142"
     "25ZM\"}",
     "ZK44314225ZM"),
    ("\"address\": \"\u611b\u77e5\u770c\u540d\u53e4\u5c4b\u5e02\u4e2d\u6751\u533a\u540d"
     "\u99c54-7-1\", \"basic_pension_no\": \"7252-163385\", \"hire_date\"",
     "7252-163385"),
    ("\u4fdd\u967a\u8005\u756a\u53f7: 56933724\n\u88ab\u4fdd\u967a\u8005\u8a18\u53f7"
     "\u30fb\u756a\u53f7: 7612\u30fb4075744\uff08\u679d\u756a 01\uff09",
     "7612\u30fb4075744"),
    ("resp={\"insurerNumber\": \"90205259\", \"insuredSymbol\": \"134614\", \"insuredNu"
     "mber\": \"602178\"}",
     "602178"),
    ("{\"individualNumber\": \"402553218803\", \"name\": \"\u6e21\u8fba \u3055\u304f"
     "\u3089\"}",
     "402553218803"),
    ("\u7f72\u540d\u7528\u96fb\u5b50\u8a3c\u660e\u66f8\u306e\u6697\u8a3c\u756a\u53f7"
     "\uff1aPOHHGYZ7XE\n\u30b3\u30f3\u30d3\u30cb\u3067",
     "POHHGYZ7XE"),
    # health cover in the English-speaking world
    ("Member name: NGUYEN, GUADALUPE   DOB: 10/08/1991\nMember ID: M0265531770   Group "
     "#: 635680",
     "M0265531770"),
    ("Thanks, bye.\" [member id entered via IVR: ZGP751960011]",
     "ZGP751960011"),
    ("Policyholder: P\u00e1draig O'Sullivan\nMembership no: 79520974\nPay to IBAN",
     "79520974"),
    ("member_id,last,first,dob\nWXR30044920,Reyes,Tyrone,1975-09-22",
     "WXR30044920"),
    ("\"name\": \"check_ohip_eligibility\", \"input\": {\"ohip\": \"4784945349\", \"ver"
     "sion_code\": \"NC\"}",
     "4784945349"),
    ("agent=mlavoie lang=fr client=\"Priya Chen\" nam=CHEP 4961 2385 nas=231908542",
     "CHEP 4961 2385"),
    ("teleplan-submit claim_seq=4486 prac=X5367 phn=9039 025 836 name=",
     "9039 025 836"),
    ("Assistance case opened. Pt THOMPSON/MEGAN pp# A94103587 requires medevac",
     "A94103587"),
    ("{\"security_question\": \"What was the name of your first pet?\", \"answer\": \"B"
     "iscuit\", \"x\": 1}",
     "Biscuit"),
    ("NM1*IL*1*REYES*ROBERT~REF*SY*446-70-4506~DMG*D8*19791114",
     "446-70-4506"),
    # southern and western Europe's back offices
    ("Employee: Luke Borg\nID Card Number: 510512P\nSocial Security No.: D866560B\nBank",
     "510512P"),
    ("Employee: Luke Borg\nID Card Number: 510512P\nSocial Security No.: D866560B\nBank",
     "D866560B"),
    ("Jiena \u010aensu Zammit. In-numru tal-karta tal-identit\u00e0 tieg\u0127i huwa 70"
     "8277A. Nixtieq",
     "708277A"),
    ("Fakturaren kopia bat behar dut. Nire NAN zenbakia: 35901998X. Telefono",
     "35901998X"),
    ("contribuinte n.\u00ba 372221157, benefici\u00e1rio da Seguran\u00e7a Social n."
     "\u00ba 16250947764, residente",
     "16250947764"),
    ("\"input\": {\"numero_secu\": \"196123439095801\", \"email\": \"x@example.org\"}",
     "196123439095801"),
    ("Conducente: Elisa Marino\nPatente n.: RM8872428Z rilasciata da MIT-UCO",
     "RM8872428Z"),
    ("He provat amb la contrasenya hJA5uFyeUh i em diu que \u00e9s incorrecta",
     "hJA5uFyeUh"),
    ("O contrasinal da wifi que me puxestes \u00e9 Kalokairi4066!, cambi\u00e1deo por f"
     "avor.",
     "Kalokairi4066!"),
    ("Kaixo, ezin naiz sartu. Nire pasahitza Saudade1150$ da eta errorea",
     "Saudade1150$"),
    # operations and money
    ("connectionString=\"Server=tcp:kintai-db.database.windows.net,1433;User ID=app;Pas"
     "sword=Neko@8001a;Encrypt=True;\"",
     "Neko@8001a"),
    ("  \"id\": \"https://kv-prod-weu-01.vault.azure.net/secrets/app/550ce2da0c140cd743"
     "7aff0ad56347d6\",\n  \"name\": \"app\",\n  \"value\": \"493WmZ.0Ku.yZB90gwJBXrdCc"
     "FuWd9hj9RqT9jMy\"\n}",
     "493WmZ.0Ku.yZB90gwJBXrdCcFuWd9hj9RqT9jMy"),
    ("{3400}026870340CITIBANK NA\n{4100}BBCMXMXMM\n{4200}DDE95700202705655853964*EMILY "
     "FOSTER*LONDON GB*",
     "DE95700202705655853964"),
    ("\u0631\u0642\u0645 \u0627\u0644\u062d\u0633\u0627\u0628: 86002731\n\u0643\u0644"
     "\u0645\u0629 \u0645\u0631\u0648\u0631 \u0627\u0644\u0645\u0633\u062a\u062b\u0645"
     "\u0631: eeBvP0gLy2\n\u0627\u0644\u062e\u0627\u062f\u0645: FxPrime-Live",
     "eeBvP0gLy2"),
])
def test_the_rounds_values_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # an Envoy access log's byte counts and durations in a CNS's spaced shape
    "[2024-06-04T18:01:28.532Z] \"POST /v1/embeddings HTTP/2\" 503 UO 740 5895 1189 203"
    "6 \"192.168.150.124\" \"python-httpx/0.27.0\"",
    # an X12 remittance's trace number
    "BPR*I*30294.90*C*ACH*CCP*01*639120988*DA*3548312456*1970807221**01*518233868*DA*03"
    "773912*20241221~\nTRN*1*01803962884*1744805918~",
    # a payroll's amount after the contributions' names (CC: Colombia's cédula's abbreviation)
    "Total cotizaci\u00f3n empresa (CC + desempleo + FP + FOGASA): 175.439,47 \u20ac",
    # a Portuguese invoice's series and number
    "Fatura n.\u00ba FAT 0446/4206690\nPot\u00eancia contratada: 3,45 kVA",
    # a record's number in a resident number's shape, its check passing
    "Shipment reference 841014-2727470 created for Busan \u2192 Hamburg lane",
    # an evaluation set's answer (no security question)
    "{\"id\": \"gsm8k-test-0237\", \"question\": \"A bakery sells 9 trays of 672 cookie"
    "s each. How many cookies?\", \"answer\": \"6048\", \"prediction\": \"6048\"}",
    # a documentation placeholder's zeros; an AWS account id under a subscriber key
    "# response: {\"member_id\":\"M000000000\",\"points\":0}",
    "\"encryptionContext\": {\"aws:dynamodb:subscriberId\": \"256338262202\"}, \"keyId"
    "\": \"alias/aws/dynamodb\"",
    # a shop's member number, shorter than a plan's
    "member_id,card_no,tier,points\n3188593,6878329459527,GOLD,1484",
    # Java objects as Android prints them
    "password=android.os.BinderProxy@2bd79ce",
    "token=Token{a64f992 ActivityRecord{2c1f u0 com.example/.Main}}",
])
def test_the_rounds_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text


@pytest.mark.parametrize(("header", "kind"), [
    ("member_id", "member"), ("fund_member_no", "member"), ("Membership No", "member"),
    ("member", None), ("group_id", None),
])
def test_a_plans_member_column_is_named(header: str, kind: str | None) -> None:
    assert column_kind(header) == kind
