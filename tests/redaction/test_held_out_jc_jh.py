"""The round of corpora JC (government and public services), JD (the gig economy and identity
verification), JE (nonprofits and fundraising), JF (security operations), JG (media and
subscriptions) and JH (research computing and clinical trials): each shape they found left,
redacted in process, and the lines near them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # government: a French login form's password, DigiD's BSN in SAML, NCIC's SSN and
    # licence, an SSN with dots, a voter portal's magic link, an A-number with dashes
    ("identifiant=benoit%40free.fr&mot_de_passe=Bengals2020%21&csrf=364b9bfc",
     "Bengals2020"),
    ("<saml:AttributeValue>s00000000:111222333</saml:AttributeValue>", "111222333"),
    ("2C14 -> CJIS: QW.TXDPS00.NAM/CASTILLO,GUADALUPE.SEX/M.DOB/19941004"
     ".OLN/Q136-478-58-336-2.SOC/755214356\n", "755214356"),
    (".OLN/Q136-478-58-336-2.SOC/755214356\n", "Q136-478-58-336-2"),
    ("hi i need to check on my unemployment claim, my social is 822.42.6421 and", "822.42.6421"),
    ("magic_link sent url=https://vote.example.gov/portal/login/magic/"
     "74c7b1baad69fcb2b2795322b0bf49a3c5c907bf?next=%2Fballot", "74c7b1baad69fcb2b2795322b0bf"),
    ("Case status inquiry — A-Number: A950-008-714, Receipt: IOE1556515842", "A950-008-714"),
    # the gig economy: Stripe Connect's person's SSN, a W-8BEN's foreign TIN, Veriff's key,
    # a card read off a photo over two lines
    ('-d "individual[id_number]"=643492448', "643492448"),
    ('{\\"tax_form\\":\\"W-8BEN\\",\\"foreign_tin\\":\\"ZJLPL2125W\\"}', "ZJLPL2125W"),
    ("request headers={'x-auth-client': '878fb00a-d10e-48e0-8020-2863f005d069'}",
     "878fb00a-d10e-48e0-8020-2863f005d069"),
    ("[attachment OCR]\nVALID THRU 01/27\n5577 4132\n6611 5523\nDEBIT", "6611 5523"),
    # nonprofits: Authorize.net's transaction key, an IBAN over two lines without spaces
    ("<merchantAuthentication>\n  <name>u0NMhNQuRG</name>\n"
     "  <transactionKey>HVcAIZmdxVeBq4tm</transactionKey>", "HVcAIZmdxVeBq4tm"),
    ("anbei meine neue Bankverbindung:\nDE7370150000\n2304140250\nBitte ab", "2304140250"),
    # security operations: combo lists' other separators, recovery codes an infostealer
    # found, a card dump's CVV, FTP's PASS, PyMISP's key, a VirusTotal key in a prompt
    ("sample:\nolga1998@corvid-systems.nl;Winter2024!\nyusuf@norrland.se | Moreau#1455\n",
     "Moreau#1455"),
    ("Stealer log -> Autofills/Files/Desktop/github-recovery-codes.txt:\ncuq8-e47v\n3tg8-5qc0\n",
     "3tg8-5qc0"),
    ("5455302669038738|08|2029|665|Tampa|TX|84141|US", "|665|"),
    ("220 ProFTPD Server ready.\nUSER backupsvc\n331 Password required for backupsvc\n"
     "PASS wsai-pcjc-fabr-vpnh\n230 User backupsvc logged in", "wsai-pcjc-fabr-vpnh"),
    ("misp = PyMISP('https://misp.soc.internal', 'Z0kRk8HTlKF8pVjFSa6fz0TgcNilVlcKmsaXvST2')",
     "Z0kRk8HTlKF8pVjFSa6fz0TgcNilVlcKmsaXvST2"),
    ("Use this VirusTotal key 9688b8c0cf51332d5750f91530ccae153c46067b16a9981d84e2a883922a4463",
     "9688b8c0cf51332d5750f91530ccae15"),
    ("cookie de session rejoué (roundcube_sessid=f8d06221600d09c8ad48d1f6fd86a1f2).",
     "f8d06221600d09c8ad48d1f6fd86a1f2"),
    # media: Akismet's key as its host, WordPress' application password, a login after an
    # e-mail and a slash, an htpasswd note's password
    ("POST https://a821e768cf5d.rest.akismet.com/1.1/comment-check", "a821e768cf5d"),
    ("use user `isla` and application password `dx0q chzj mwTR TkqJ xXMl Anyn` (created",
     "dx0q chzj mwTR TkqJ xXMl Anyn"),
    ("Hat mir Login gegeben: zielinski.jonas72@mail.ru / #rB_-Ar%o_d7lPPN_^. Habe",
     "#rB_-Ar%o_d7lPPN_^"),
    ("# staging password for embargo previews\n# user: embargo\n# pass: meadow-oyster-violin44\n",
     "meadow-oyster-violin44"),
    # research computing: Dataverse's key header, a cookie secret from hex, RWS's password,
    # a conda channel's token, Oracle's EZConnect, a JupyterHub pod's escaped e-mail
    ('curl -H "X-Dataverse-key:424d22d7-6f35-4597-aec2-41569b57308a" -X POST',
     "424d22d7-6f35-4597-aec2-41569b57308a"),
    ("c.JupyterHub.cookie_secret = bytes.fromhex('df62d709fa989d54dca58ad9c4f9a01e6a0c55cf')",
     "df62d709fa989d54dca58ad9c4f9a01e6a0c55cf"),
    ("rws = RWSConnection('https://sponsorx.mdsol.com', 'cro_dm_kpatel', 'Kaffee!1452?')",
     "Kaffee!1452?"),
    ("channels:\n  - https://conda.anaconda.org/t/su9r5y9plkul0p5n3cwd3ka7jno50h/bioinf-private",
     "su9r5y9plkul0p5n3cwd3ka7jno50h"),
    ("LIMS_DB_CONNECT=lims_app/glacier-mango-quasar85@//ora-lims01.lab.local:1521/LIMSPRD",
     "glacier-mango-quasar85"),
    ("jupyter-marie-2elefevre-40free-2efr   1/1     Running   0          6d",
     "marie-2elefevre-40free-2efr"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # a licence's mailing date, a format's NINO example, a commit's SHA after a phone's
    # word, a form's placeholder phone, Spring's cipher of a variable
    "USPS tracking 9400 1577 9423 5480 6803 64 — your new driver licence was mailed 2024-05-05.",
    "| nino | 2 letters, 6 digits, 1 letter | `AA 00 00 00 A` |",
    '"browser_mobile": false, "git_sha": "065943807f948fc6f193d19470fe63d9da6e144d"',
    '"kyc.phone.placeholder": "+55 (00) 00000-0000",',
    "spring.datasource.password={cipher}${VR_DB_PASSWORD_ENC}",
    # a membership card's number, a cookie with a page's slug, a dedupe job's sample keys, a
    # sandbox's zeros CVV, a reset link's path before its query
    "membership_card_no=6206801649676661 loyalty_id=4160780272514051",
    "Cookie: cookie_consent=necessary%2Cpreferences; lang=en-GB; "
    "last_visited_event=summer-fete-2024",
    "newsletter.dedupe merged 12 duplicates; sample keys: c99e09c977409c9180f3f2da992dc57d",
    "- any card, CVV 000 → declined (sandbox rule)",
    "credential stuffing on /api/auth/login: 21287 attempts from 897 sources, top /16s: 185.x",
    # an instrument's firmware, and a card dump's header
    "Firmware: 3.10.30.1\nBaseSpace Sequence Hub agent",
    "number|MM|YYYY|CVV|city|state|zip|country",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
