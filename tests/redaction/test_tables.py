"""Values in a table's columns, told by the header (redaction/tables.py): each layout a tool
prints, through the redactor, and the tables whose header names a kind but whose cells are
not values."""

from __future__ import annotations

import json

import pytest

from servescope.redaction import Redactor
from servescope.redaction.tables import column_kind, table_findings


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    return Redactor(hash_key=b"test")


def _values(text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.value) for f in table_findings(text)]


MARKDOWN = """Przygotuj przelewy zbiorcze:

| Imię i nazwisko | E-mail | Telefon | Kwota | Status |
|---|---|---|---|---|
| Magdalena Wiśniewska | mw@example.pl | 638 930 698 | 80,56 | oczekuje |
| Piotr Kowalczyk | pk@example.pl | 570 172 399 | 108,50 | zapłacono |
"""

PSQL = """ customer_id | full_name            | phone       | created
-------------+----------------------+-------------+------------
 6965        | Agnieszka Wiśniewska | 584-554-372 | 2025-05-27
 30644       | Marta Zielińska      |             | 2025-03-23
(2 rows)"""

CSV = """Id,FirstName,LastName,Phone,MobilePhone,MailingCity,CreatedDate
003HHHwNQpiE9ygYuC,Ines,Whitaker,605 10 04 98,0428 654 614,Milano,2024-06-19T06:52:40.008Z
003HHHwNQpiE9ygYuD,Ola,Berg,,+47 912 34 567,Oslo,2024-06-20T08:00:00.000Z"""

PANDAS = """          name          city             phone
0   Ana Silva        Lisboa  +351 912 345 678
1    Li Wei        Shanghai     138 0013 8000
2  Jan Novak          Praha       602 123 456"""


def test_a_markdown_tables_phone_column(redactor: Redactor) -> None:
    assert _values(MARKDOWN) == [("phone", "638 930 698"), ("phone", "570 172 399")]
    out = redactor.redact_text(MARKDOWN, {})
    assert "638 930 698" not in out and "570 172 399" not in out
    assert "80,56" in out and "108,50" in out and "oczekuje" in out


def test_a_psql_result_and_an_empty_cell() -> None:
    assert _values(PSQL) == [("phone", "584-554-372")]


def test_a_csv_exports_two_phone_columns() -> None:
    assert _values(CSV) == [("phone", "605 10 04 98"), ("phone", "0428 654 614"),
                            ("phone", "+47 912 34 567")]


def test_an_aligned_dataframe_print() -> None:
    assert _values(PANDAS) == [("phone", "+351 912 345 678"), ("phone", "138 0013 8000"),
                               ("phone", "602 123 456")]


def test_a_table_pasted_into_a_json_string(redactor: Redactor) -> None:
    """Escaped rows ("\\n", "\\t") in a request body; the last row ends at the string's end."""
    sheet = ("订单号\t收件人\t手机号\t地址\n"
             "DD97495226591944\t刘洋\t186-7491-8966\t杭州市西湖区\n"
             "DD21297825605914\t赵丽娜\t135 0862 1544\t上海市徐汇区")
    body = json.dumps({"messages": [{"role": "user", "content": "按城市分组：\n\n" + sheet}],
                       "max_tokens": 256}, ensure_ascii=False)
    assert _values(body) == [("phone", "186-7491-8966"), ("phone", "135 0862 1544")]
    out = redactor.redact_text(body, {})
    assert "186-7491-8966" not in out and "DD97495226591944" in out
    assert json.loads(out)["max_tokens"] == 256


def test_ssn_password_and_token_columns() -> None:
    text = ("employee | ssn         | vpn_password | api_token\n"
            "---------+-------------+--------------+---------------------------------\n"
            "jdoe     | 219-09-9999 | Tr0ub4dor&3  | xK9fP2mQ7vL4sT8wR1nB6cJ3hD5g\n"
            "asmith   | 078-05-1120 | hunter2!X    | Zq3Wm8Rt2Yp6Lk9Vb4Nx7Cs1Hf5j\n")
    assert _values(text) == [
        ("us_ssn", "219-09-9999"), ("secret_assignment", "Tr0ub4dor&3"),
        ("secret_assignment", "xK9fP2mQ7vL4sT8wR1nB6cJ3hD5g"),
        ("us_ssn", "078-05-1120"), ("secret_assignment", "hunter2!X"),
        ("secret_assignment", "Zq3Wm8Rt2Yp6Lk9Vb4Nx7Cs1Hf5j")]


def test_only_the_kinds_asked_for() -> None:
    assert table_findings(MARKDOWN, frozenset({"email"})) == []
    assert len(table_findings(MARKDOWN, frozenset({"phone"}))) == 2


@pytest.mark.parametrize("header,kind", [
    ("Phone", "phone"), ("MobilePhone", "phone"), ("phone_number", "phone"),
    ("Telefonnummer", "phone"), ("Numer telefonu", "phone"), ("手机号", "phone"),
    ("Téléphone", "phone"), ("SSN", "us_ssn"), ("Social Security No", "us_ssn"),
    ("password", "password"), ("Mot de passe", "password"), ("Contraseña", "password"),
    ("api_key", "secret"), ("Access Token", "secret"),
    ("phone_verified", None), ("phone_country_code", None), ("password_hash", None),
    ("PasswordLastSet", None), ("prompt_tokens", None), ("token_id", None), ("hotel", None),
    ("full_name", None), ("a@b.example", None)])
def test_which_headers_name_a_kind(header: str, kind: str | None) -> None:
    assert column_kind(header) == kind


@pytest.mark.parametrize("text", [
    # a key and its value beside it: no header row (kubectl describe secret, Pulumi outputs)
    "Data\n====\npassword:      31 bytes\nusername:      7 bytes\napi-key:       164 bytes\n",
    "Outputs:\n    apiToken     [secret]\n    bucketName   catalog-assets-9b289bd\n"
    "    clusterName  catalog-eks-7273c42\n",
    # rows of data where a header would be (/etc/services, a PAM stack)
    "passwd-server\t752/udp\t\tpasswd_server\t# Kerberos passwd server\n"
    "krb-prop\t754/tcp\t\tkrb_prop krb5_prop hprop # Kerberos slave propagation\n",
    "auth\t\tinclude\t\tsu\naccount\t\tinclude\t\tsu\npassword\tinclude\t\tsu\n"
    "session\t\toptional\tpam_keyinit.so force revoke\n",
    # code and identifiers under a header's words
    "        ('pw','pwd'),\n        ('py3eval','py3eval'),\n        ('pyeval','pyeval'),\n",
    "    Effect tokens     ForwardTokenAOTInput     ForwardTokenAOTOutput\n"
    "                      BackwardTokenAOTInput    BackwardTokenAOTOutput\n",
    # columns about the kind, not the value: flags, hashes, test results, counts
    "user | phone_verified | password_hash\n-----+----------------+--------------\n"
    "ann  | true           | $2y$10$1VXy0tlGTDA3.k0xD.H.O/A6eZcyXAv81eLykPTR0xUGM9VZ4VT4L\n",
    "test,pass,duration\ntest_login,PASS,0.31\ntest_logout,FAIL,0.12\n",
    "| model | prompt_tokens | completion_tokens |\n|---|---|---|\n| llama | 5120931 | 8812300 |\n",
    # a phone column of dates and times, of addresses, of placeholders
    "name\tphone\tcalled_at\nann\t2025-05-27\t12:30:45\nbob\t10.1.2.3\t13:00\n",
    "| name | password | note |\n|---|---|---|\n| ann | ******** | reset |\n"
    "| bob | <redacted> | n/a |\n",
])
def test_tables_with_nothing_to_report(text: str) -> None:
    assert table_findings(text) == []


def test_a_column_whose_cells_disagree_with_its_header_reports_nothing() -> None:
    """A header row that is really a row of data: most cells under it lack the shape."""
    text = ("host\tpassword\tnote\n"
            "a\tsession\tx\nb\toptional\ty\nc\tinclude\tz\nd\tS3cret!pw\tw\n")
    assert table_findings(text) == []


def test_box_drawn_tables_and_a_cookie_jar() -> None:
    """duckdb's and ClickHouse's box borders; a table of names and values, where the value of
    a session cookie is a secret and the others (a theme, a time zone) are not."""
    duck = ("┌──────────┬──────────────────────────────┐\n"
            "│   name   │        client_secret         │\n"
            "│ varchar  │           varchar            │\n"
            "├──────────┼──────────────────────────────┤\n"
            "│ ios      │ cs_9sJfQtoZ0XLSsOUIMDL7xBnb0 │\n"
            "└──────────┴──────────────────────────────┘")
    assert _values(duck) == [("secret_assignment", "cs_9sJfQtoZ0XLSsOUIMDL7xBnb0")]
    clickhouse = (
        "┌─host─────────┬─name───────┬─value────────────────────────────┬─path─┐\n"
        "│ .contoso.com │ tz         │ Europe%2FBerlin                  │ /    │\n"
        "│ .contoso.com │ theme      │ dark                             │ /    │\n"
        "│ .contoso.com │ JSESSIONID │ q5vbk_jdsTo38FFyf0Vzx5PKQ5Ik3iQx │ /    │\n"
        "│ .contoso.com │ csrftoken  │ Yt5Rk2Lm9Qx3Vb7Nc1Zp8Wd4Hs6Jf0Ga │ /    │\n"
        "└──────────────┴────────────┴──────────────────────────────────┴──────┘")
    assert _values(clickhouse) == [("secret_assignment", "q5vbk_jdsTo38FFyf0Vzx5PKQ5Ik3iQx")]
    devtools = ("Name\tValue\tDomain\tPath\n"
                "cookie_consent\tnecessary\tapp.example.io\t/\n"
                "laravel_session\tgdAU0SS4yZrxgYdPi_8N5F50OKt78V\tapp.example.io\t/\n")
    assert _values(devtools) == [("secret_assignment", "gdAU0SS4yZrxgYdPi_8N5F50OKt78V")]


def test_psql_expanded_records() -> None:
    """Rows of a name and its value: the name tells the kind."""
    text = ("-[ RECORD 1 ]+-----------------------------\n"
            "id         | 1773\n"
            "username   | jose773\n"
            "phone      | +34 612 345 678\n"
            "password   | yZAS_0mi%Brj=3cL%\n"
            "last_login | 2024-08-25 13:35:42\n")
    assert _values(text) == [("phone", "+34 612 345 678"),
                             ("secret_assignment", "yZAS_0mi%Brj=3cL%")]
    # one such row alone is a sentence with a bar in it, not a record
    assert table_findings("note\npassword | hunter2!X is what he typed\n") == []
