"""The round of corpora IC (hospitals and clinical systems), ID (field service and access
control), IE (mobile carriers' retail and care), IF (developers' credential files), IG (LLM
serving infrastructure) and IH (ERP and accounting): each shape they found left, redacted in
process, and the lines near them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # access control and alarm monitoring
    ("The alarm panel by the loading dock needs code 1502 to disarm, otherwise", "1502"),
    ('"site_access": {"keybox_code": "5807", "parking": "visitor bay"}', "5807"),
    ('open the app, tap "Add key" and enter invitation code ZU96-4APK-FD96. It expires',
     "ZU96-4APK-FD96"),
    ('body={"user_code":"6052","name":"Cleaner","areas":[1,2]}', "6052"),
    ("    secure_channel: true\n    scbk: 4711562A43D0D69DA7AD873A24E0DE8E\n",
     "4711562A43D0D69DA7AD873A24E0DE8E"),
    ("PASSWORD: BLUEBIRD   DURESS WORD: RAINCOAT\nINSTR: If no answer", "RAINCOAT"),
    ("Caja de llaves junto al portal, combinación 2488. Presidenta", "2488"),
    ("Sleutelkluis naast voordeur, code 6483. CV-ketel storing", "6483"),
    ("DESCRIPTION:Access via rear gate\\, keypad 12788. Sign in at reception.", "12788"),
    # mobile carriers: unlock codes, PUK1 and CHV1, porting numbers and NIPs, RIO, STAC
    ("Device IMEI: 356762113624329\nNetwork unlock code (NCK): 7871525355079744\n",
     "7871525355079744"),
    ("flow=PUK_RETRIEVE step=read_puk puk1=93390487 tts_lang=pt-PT", "93390487"),
    ("OTA job 90775603 cmd=DISABLE_CHV1 chv1=1355 result=9000", "1355"),
    ("np-gateway PortOutRequest received spid=4701 tn=4697485487 acct=247521568", "4697485487"),
    ("[portabilidad] solicitud=PORT-MX-899102071 nip=9491 curp=x", "9491"),
    ("Conseiller : Pas de souci. Votre code RIO est 03P2KW2PXIJJ, vous pouvez", "03P2KW2PXIJJ"),
    ('render tmpl=stac_v2 lang=en-GB vars={"stac":"293518VVP","msisdn":"+447817326381"}',
     "293518VVP"),
    # ... while a key's value with digits under such a name is still a key
    ("minio:\n  secretKey: minio4Fq9ZrT2x\n", "minio4Fq9ZrT2x"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # LiteLLM's key record (the hash before its info), a shipment's serial numbers, a GS1
    # barcode's GTIN, an Oracle database link, a NetSuite deployment, SAP's payroll columns
    '{"key": "8060db839084e72ff663bf131bc65ec1eb2d71f5560a9490fb10dee38ad80078", "info": '
    '{"key_name": "sk-...wr3R"}}',
    "Serial numbers: 5592496486634, 1000961895510\nDelivery window: 2024-09-21",
    '[BCMA] scan raw="]d2(01)0097357811452(17)251131(10)WHUK884" parsed',
    "SELECT invoice_id FROM ap_invoices_all@EBSPRD_LINK.WORLD WHERE org_id = 204",
    "processed vendorbill id=507032 usage=10 key=customdeploy_mr_invoice_sync_3",
    "PERNR     LGART  BETRG       BUKRS\n23562808  /101  21753,19  1000",
    # a template's stand-ins, a cell's tracking area code, a bearer's downlink rate, a
    # "password" that is a key's name
    'test render pac_issued -> "Your PAC is AAA000000. It is valid until dd/mm/yyyy."',
    "enb_id=349233 cell_id=6 eci=65006028 pci=398 earfcn=3050 tac=16962 plmn=21401",
    "QCI=9 APN-AMBR-UL=83300463 APN-AMBR-DL=256336971",
    "input_value={'model': 'google/gemma-2-27b-it', 'password': None, 'timeout': 30.0}",
    '  <SMTP name="Mail" smtpPassword="${env:SMTP_PASS}" bufferSize="50">',
    "Firmware: 3.10.30.1\nBaseSpace",
    '{"user": {"password": "[hidden]", "pin_set": true, "mfa_secret": "(not shown)"}}',
    "SENDGRID_API_KEY=SG.xxxxx.yyyyy",
    # a chart's names of a Secret's entries (LiteLLM's Helm values)
    "masterkeySecretName: litellm-masterkey\nmasterkeySecretKey: masterkey\n"
    "  secret:\n    usernameKey: username\n    passwordKey: password\nresources:",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
