"""The round of corpora SC (scientific laboratories and LIMS), SD (maritime shipping, ports and
yacht charters) and SE (political campaigns and NGOs): each shape they found left, redacted in
process, and the lines near them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor
from servescope.redaction.national_ids import titulo_eleitor_ok
from servescope.redaction.tables import column_kind

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # a seafarer's documents: the seaman's book, the SIRB, India's CDC and INDoS number, in a
    # letter, a chat, and a crew list's columns; passports after a crew list's "pp"
    ("Dear Sir,\nMy details for the contract:\nINDoS No: 27H5432\nCDC No: MUM 714431\n",
     "27H5432"),
    ("Dear Sir,\nMy details for the contract:\nINDoS No: 27H5432\nCDC No: MUM 714431\n",
     "MUM 714431"),
    ("Sir gud pm po, ito po passport ko P9176654A tsaka seaman book C8079316", "C8079316"),
    ("my passport no. P8716033B exp 2031, SIRB C2276742", "C2276742"),
    ("No,Rank,Surname,DOB,Passport No,Seaman Book No\n1,Messman,BENNETT,25/05/1983,P1244831B,"
     "C3412720\n2,Oiler,NAIR,01/01/1979,P1279613A,AB 899582", "AB 899582"),
    ("SEQ;RANK;FAMILY NAME;PASSPORT;SIRB\n1;C/O;REYES;NX618758;AB 181981\n2;2/E;KOVACIC;"
     "IZ109833;MUM 658730", "MUM 658730"),
    ("Jerome Ashworth 2/O Indian pp M5226333\nAna Ferrari 3/O Indian pp S8139133", "S8139133"),
    ("Ahmed Harrington OS Filipino pp P3484136A", "P3484136A"),
    # Brazil's voter card by its name and check; India's EPIC and a WhatsApp number in a
    # sheet's columns
    ("Fiscal: Emily Menon\nCPF: 032.293.340-43\nTítulo de eleitor: 1263 4861 0485",
     "1263 4861 0485"),
    ('{"titulo_eleitor": "517086830221"}', "517086830221"),
    ("part_no\tserial\tname\tepic_no\tmobile\n262\t885\tEoin Garcia\tDDC7310853\t09497062970",
     "DDC7310853"),
    ("Nome | CPF | WhatsApp\nYusuf Garcia | 516.456.311-84 | (41) 90880-7853\nInes Silva | "
     "972.469.129-24 | 5551934463946", "5551934463946"),
    ('Registered participant mrn=RX4483266 nhsNumber="159 564 1904" email=x', "159 564 1904"),
    # a password typed at sshd's user prompt; a built-in account's after its name and a slash;
    # "pw for ... is"; a Terraform variable's default
    ("sshd[10744]: Failed password for invalid user Dgyot7427!Ma from 109.8.66.18 port 22 ssh2",
     "Dgyot7427!Ma"),
    ("sshd[21572]: Connection closed by invalid user x@nzAc3twVVNF 81.239.176.74 port 34449",
     "x@nzAc3twVVNF"),
    ("- NAS (Synology, lab-nas01): admin / khswpLj9Gi1iuf", "khswpLj9Gi1iuf"),
    ("- NAS (Synology, lab-nas01): admin / pPIUhuyuCrnDoBlk", "pPIUhuyuCrnDoBlk"),
    ("VENUS admin login: Administrator / ^Iblni=PhMsLewIt", "^Iblni=PhMsLewIt"),
    ("default creds root/Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("pw for the CCTV NVR is Capitan_104Qbq", "Capitan_104Qbq"),
    ('variable "db_password" { default = "fzLdjuHHSa0Dh4KV" }', "fzLdjuHHSa0Dh4KV"),
    # security answers: given, after an arrow, after a bracketed question, a manager's SecQ
    ("Caller verified identity. Security answer given: 'Bartolina'", "Bartolina"),
    ('security Q: name of first pet -> "Oxford Road"', "Oxford Road"),
    ("User ID: cmte427991\nSecurity Q (first pet / school): Springfield High",
     "Springfield High"),
    ('FastLane,https://www.fastlane.nsf.gov,pieter74,"SecQ pet=Ardbeg; SecQ city=Leuven"',
     "Ardbeg"),
    ('FastLane,https://www.fastlane.nsf.gov,pieter74,"SecQ pet=Ardbeg; SecQ city=Leuven"',
     "Leuven"),
    # codes: a PIN after an arrow, a cold room's code from Monday, a login code of four digits
    ("anyone know the LN2 dewar fill station PIN? -> it's 7214, same as the freezer keypad",
     "7214"),
    ("Hallo zusammen, der Code für den Zugang zum Kühlraum 2.114 ist ab Montag 1016. Bitte",
     "1016"),
    ("the door code is now 4471", "4471"),
    ("who has the comms phone?? Meta sent the login code 8355 to it", "8355"),
    # a magic link's token of lower-case letters and digits; an IBAN broken by an escaped line
    ("Sign in to Field HQ: https://fieldhq.example.org.br/auth/magic?t=xltjm88a132do0hzyjue&n=1",
     "xltjm88a132do0hzyjue"),
    ("page_content='Kaution auf das Konto\\nIBAN PL04 0594\\n0345 4031 3903 3324 2134\\nVermieter",
     "3903 3324 2134"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # a record's id beside a seafarer; a firmware version; a DOI; a project's code in SQL
    "IllegalStateException: Passport expiry before sign-off date for seafarer id=872302",
    "Modem SN: 54195  FW 4.8.20.4",
    "Refs: doi:10.7039/j.cell.4562.84634; ArrayExpress E-MTAB-81179; ENA ERR8354984",
    "AND s.project_code IN ('ONC-148','CVD-677');",
    # India's postal PIN code after the state; an NF-e's access key in groups of four
    "Jan Vikas Sanstha, Plot 70, Sector 43, Noida, Uttar Pradesh\nPIN: 600017\nAC No. 324",
    "Chave de acesso: 0265 3794 6235 1562 0323 2422 7827 0740 3259 0252 7877",
    "2024-06-08 18:02:11 exit-3 scan ticket=0112 4481 0093 2218 7 entry=2024-06-08 14:41",
    # what sshd logs of user names; what a slash after an account's name also joins
    "sshd[1]: Invalid user ec2-user from 10.0.0.5 port 22",
    "sshd[1]: Failed password for invalid user admin from 10.0.0.5 port 22 ssh2",
    "see /admin/Dashboard2024 and admin / user roles, root/sudo",
    "admin / AdminPanelSettings",
    # a Terraform variable that names no secret's value; a page range; a code's lines
    'variable "db_password_length" { default = "16abcdef" }',
    "see pp 12-15 and pp. 233",
    "the login code 2048 lines",
    "security answer given was wrong",
    "CDC analysis: seaman book not found in 2024",
    "https://x.io/invite/release20240101notes",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text


@pytest.mark.parametrize(("number", "valid"), [
    ("1263 4861 0485", True), ("5170 8683 0221", True), ("0043 5687 0906", True),
    ("1263 4861 0486", False), ("1263 4861 2985", False), ("12634861048", False),
])
def test_the_voter_cards_check(number: str, valid: bool) -> None:
    assert titulo_eleitor_ok(number) is valid


@pytest.mark.parametrize(("header", "kind"), [
    ("Seaman Book No", "document"), ("SIRB", "document"), ("epic_no", "document"),
    ("CDC No", "document"), ("WhatsApp", "phone"), ("cdc", None), ("Seaman", None),
])
def test_the_columns_named(header: str, kind: str | None) -> None:
    assert column_kind(header) == kind
