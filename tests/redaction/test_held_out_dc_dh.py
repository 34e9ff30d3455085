"""The round of corpora DC (consumer payments), DD (penetration tests and red-team output),
DE (contact lists as spreadsheets), DF (Canada's, Australia's and New Zealand's services), DG
(India's consumer services) and DH (forwarded e-mails): each shape they found left, redacted
in process, and the lines near them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # consumer payments: a payerSSN, a Pix key that is a phone
    ('{"status": "PAID", "payerSSN": "810705-9928"}', "810705-9928"),
    ("Pix copia e cola: 00020126360014br.gov.bcb.pix0114+5521917734833520400005303986",
     "+5521917734833"),
    # penetration tests: NT hashes, pass-the-hash, DCC2, AES and DPAPI keys, cracked
    # passwords (john --show, hashcat, CLEARTEXT, aircrack-ng, onesixtyone, kpcli,
    # Responder, a decoded Basic header, gpp-decrypt, impacket)
    ("[*] Got hash for 'adm@orionm.local': aad3b435b51404eeaad3b435b51404ee:"
     "ad0d1ea6b65f83db45ebcc5cc6b591d4", "ad0d1ea6b65f83db45ebcc5cc6b591d4"),
    ("Credentials:\n  Hash NTLM: ea158e501595234ac084a85c6badad19\n",
     "ea158e501595234ac084a85c6badad19"),
    ("$ nxc smb 10.32.0.0/24 -u sofia -H 4c6bd2791cd338baa1be6c214baade48 --local-auth",
     "4c6bd2791cd338baa1be6c214baade48"),
    ("NOVA.LOCAL/dvandam:$DCC2$10240#dvandam#378c19cd5840f1aec544ad77bf397689: (2024)",
     "378c19cd5840f1aec544ad77bf397689"),
    ("krbtgt:aes256-cts-hmac-sha1-96:2b2c5e0093e1a99d54f44d5eb7be5d17bfc4f6e75bcc05bf159a7ed685"
     "3668b0\n", "2b2c5e0093e1a99d54f44d5eb7be5d17"),
    ("dpapi_machinekey:0x9205574ad60ca8308f3a2d5b79d4930e918aa18e\n",
     "9205574ad60ca8308f3a2d5b79d4930e918aa18e"),
    ("$ john --show unshadowed.txt\nnadia.nowak:Summer12#:1930:958::/home/nadia.nowak:/bin/bash",
     "Summer12#"),
    ("2c04fcb2bcb341e0b7749b4c6f18027e:D8giDN9IbvQ2icT\n", "D8giDN9IbvQ2icT"),
    ("bwe.local\\vandamo:CLEARTEXT:Bienvenue1$\n[*] Cleaning up...", "Bienvenue1$"),
    ("                               KEY FOUND! [ Hallo123$ ]\n", "Hallo123$"),
    ("98.191.186.21 [s3cr3tC0mm] Cisco IOS Software, C2960", "s3cr3tC0mm"),
    ("kpcli:/> show -f Root/Network/fw01\n Title: fw01\n  Uname: admin\n"
     "   Pass: lMvKo)JEpif0#{bE\n", "lMvKo)JEpif0#{bE"),
    ("[HTTP] Basic Username : BWE\\svc_sccm\n[HTTP] Basic Password : QPzB:[qIDgp2sx0*v}OQHlm\n",
     "QPzB:[qIDgp2sx0*v}OQHlm"),
    ("[*] decoded -> svc_iis:Spring123\n", "Spring123"),
    ("$ gpp-decrypt wXFwJNJY6pCyBrwH1E2zFgQBJnWhyaTLyX18YbUl2v+\nJc}Qo]_#6Ek)R?9g\n",
     "Jc}Qo]_#6Ek)R?9g"),
    ("impacket-wmiexec 'corp.local/adm_rchen:Stahlwerk#557!@10.115.16.151'", "Stahlwerk#557!"),
    ("sg1MqdiL1sR!      ($krb5asrep$iokafor@CORP.LOCAL)", "sg1MqdiL1sR!"),
    # contact sheets: backup codes, an Italian mobile column, a passport column in German
    ("Dienst\tBenutzer\tPasswort\tBackup-Codes\nGoogle Workspace\tvorstand@tsv.de\tPizza1974!\t"
     "4387-2500 4574-9699", "4574-9699"),
    ("Nome;email;cellulare\nFrancesca Esposito;fesposito@tiscali.it;335-7021487", "335-7021487"),
    ("Name;Geburtsdatum;Reisepassnr.;gültig bis\nBeatriz Oliveira;06.06.1956;FO326311;2031-08",
     "FO326311"),
    # Canada, Australia and New Zealand: OHIP in a query and an HL7 PID, a Centrelink CRN,
    # IRCC's UCI, Alberta's ULI, an NHI, an IHI in its URI, RAMQ, myIR's IR number, Moneris'
    # cvd
    ("https://booking.clinicmed.ca/confirm?first=Raj&ohip=8263561485&slot=2024-06-12",
     "8263561485"),
    ("Dear Services Australia, my CRN is 381849331O. I reported", "381849331O"),
    ('{"applicationType": "TRV", "uci": "4021-1652", "applicant": {}}', "4021-1652"),
    ("Alberta Health Care # (ULI): 39219-5582\nPatient: Fatima Haddad", "39219-5582"),
    ("<qualifiedIdentifier>http://ns.electronichealth.net.au/id/hi/ihi/1.0/8003609299001337"
     "</qualifiedIdentifier>", "8003609299001337"),
    ('{"noAssuranceMaladie": "ZHAW04060638", "nom": "Zhang"}', "ZHAW04060638"),
    ("[Moneris] declined order=IRCC-FEE-47259802 exp=0927 cvd=236 resp=051", "236"),
    # India: a registered number in Hinglish
    ("Meri UPI id debjani257@ibl hai aur registered number 9331883683. Refund", "9331883683"),
    # forwarded e-mails: a VERP bounce's address, a Received header's IPv6, Spain's
    # affiliation number
    ("Return-Path: <bounce+1db92530-kenji.nowak+bank=hotmail.es@em.sparkasse.de>",
     "kenji.nowak"),
    ("Received: from x (y [IPv6:2607:f8b0:58d2:4637:2e1f:d6d:b107:8436])",
     "2607:f8b0:58d2:4637:2e1f:d6d:b107:8436"),
    ("Nº afiliación SS: 28/12650363/53\nLíquido a percibir: 722,", "28/12650363/53"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # India's postal PIN code, a masked UPI id, a reply's message id, the empty LM hash alone
    "DOB: 03/09/1997 | Age: 57 | Gender: M | Pincode: 380015 | City: Hyderabad",
    '{"customer":{"phone":"+91-XXXXXX1950","vpa":"xxxx@ybl"},"masked":true}',
    "In-Reply-To: <CA+uAjqPxLPY425OKkdG9Rx@mail.gmail.com>",
    "LM hash of an empty password: aad3b435b51404eeaad3b435b51404ee",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
