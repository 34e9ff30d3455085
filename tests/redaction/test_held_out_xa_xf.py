"""The round of corpora XA (online retail and marketplaces), XB (cloud infrastructure,
Kubernetes and CI/CD), XC (team chat and messaging exports), XD (networking gear and security
appliances), XE (source code and configuration in repositories) and XF (OCR'd documents): each
shape they found left, redacted in process, and the lines near them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # network gear: an ASA's LDAP bind, a Wi-Fi PSK, EdgeOS' IPsec secret, HSRP's key, VyOS'
    # WireGuard key, a tac_plus accounting record of a typed command
    (" ldap-login-password P2Xp%LO_%wk^\n ldap-login-dn CN=svc,DC=corp", "P2Xp%LO_%wk^"),
    ("dot11 ssid Lab-IoT\n wpa-psk ascii 0 velvet-glacier-thistle-84\n guest-mode",
     "velvet-glacier-thistle-84"),
    ("authentication {\n  mode pre-shared-secret\n  pre-shared-secret 4AZI4Ju5UjxE0cdQvTPQFQaFM\n}",
     "4AZI4Ju5UjxE0cdQvTPQFQaFM"),
    (" standby 1 priority 110\n standby 1 authentication md5 key-string tsyQHqo6Oy", "tsyQHqo6Oy"),
    ("set interfaces wireguard wg01 private-key 'kGnIDUL1+BO7GoBi0cUmp8GsawpN0E4C3jSzf/BBRG4='",
     "kGnIDUL1+BO7GoBi0cUmp8GsawpN0E4C3jSzf/BBRG4="),
    ("priv-lvl=15\tcmd=username backup privilege 15 secret 0 7?np&9KLAHhbgWdy <cr>",
     "7?np&9KLAHhbgWdy"),
    # IPsec's keys as ip xfrm state prints them
    ("\tauth-trunc hmac(sha256) 0x7e83d3da25b7dde63d7bbc21f2ec09c733c32c608ef6d6854168d359d571e24f"
     " 128\n", "7e83d3da25b7dde63d7bbc21f2ec09c733c32c608ef6d6854168d359d571e24f"),
    # an ASA's IPv6 peer with its port
    ("%ASA-4-106023: Deny tcp src outside:2003:40eb:98d2:1d57:8f5e:6fc5:ab62:da27/30936 dst",
     "2003:40eb:98d2:1d57:8f5e:6fc5:ab62:da27"),
    # what a DLP engine matched
    ('{"dlpdictionaries": "Aadhaar Number", "dlpmatch": "...record contains 4088 4539 2882 ..."}',
     "4088 4539 2882"),
    ('policy="Steuer-IdNr detection" violation_triggers=1 matched_value="46063852915" file=x',
     "46063852915"),
    ('[DLP] 送信元=10.73.51.151 一致文字列="7632 2192 9490" 処理=ブロック', "7632 2192 9490"),
    # credentials and cookies in code and tests
    ('var cred = new NetworkCredential("svc-backup", "8&RBb7qeLAxlw#dC", "CORP");',
     "8&RBb7qeLAxlw#dC"),
    ("auth = HTTPBasicAuth('svc-reports', 'Tulip-Harbor-2291')", "Tulip-Harbor-2291"),
    ("cy.setCookie('_storefront_session', 'shQ%2FfRlMD%2BcEipi63I7SsJ7R7406uWrU3Z60mni4ZwUf4k"
     "--55b83295c2fd5a6e14aedab47bb431f452e1c0e3');", "55b83295c2fd5a6e14aedab47bb431f452e1c0e3"),
    ('client.DefaultRequestHeaders.Add("Cookie", ".AspNetCore.Cookies=CfDJ8C9zwdf7VVcpvY-nXmw7I1mc'
     'coRLCC_xqIakENqrfPNHfyk269dSEo2IvZAd1WBunO");', "CfDJ8C9zwdf7VVcpvY-nXmw7I1mc"),
    ("jar.set('https://shop.example.ca', 'session_id', "
     "'yhqQFny8W6eNLNw7cl6mSdG_psPFotjDzquri4-A8nQ');",
     "yhqQFny8W6eNLNw7cl6mSdG_psPFotjDzquri4-A8nQ"),
    # curl's -u with the user and the password each quoted
    ('curl -s -k -u "ZZyQ18bsziuK1NClHvATjq1l6OQ":"DpB1u0zpvzaTFxQmGpIKCqMhJjhmdMyq11ZW" https://h/api',
     "DpB1u0zpvzaTFxQmGpIKCqMhJjhmdMyq11ZW"),
    # a Slack webhook as JSON escapes it
    ('"text":"<https:\\/\\/hooks.slack.com\\/services\\/T0YJOGZ4ZRCS\\/B0WFIRY7EHU\\/kMvfTBtvIgu7u6aL'
     'ak1SjOt5>"', "kMvfTBtvIgu7u6aLak1SjOt5"),
    # recovery codes: "and" before the last and a full stop after it, in Portuguese, in Japanese
    ("These are the backup codes I saved when I set up 2-step verification: cpvvx-vxbj9, "
     "2fmvl-4q6eh and rk4p4-tur0c. Can you log me in?", "rk4p4-tur0c"),
    ("códigos de recuperação do GitHub (guarda aí): 6f6e6-fbb88 59432-59832", "59432-59832"),
    ("管理者アカウント用リカバリーコード: 3yle-x3ya, kw8g-edvg, sxjm-fkz3"
     "（各コードは一度のみ使用可能）",
     "sxjm-fkz3"),
    # IRC: NickServ's IDENTIFY, WeeChat's /set of a SASL password
    ("01:04 <zeynep> /msg NickServ IDENTIFY noodle_girassol98\n01:04 <bob> change that now",
     "noodle_girassol98"),
    ('2024-08-03 20:42:24\tderek\t/set irc.server.libera.sasl_password "Rh6PtCXGSLa6TF"',
     "Rh6PtCXGSLa6TF"),
    # vendors' shapes: age's secret key, a k3s node token, a Twitter app's bearer token (its
    # percent escapes inside), Consul's gossip key, a WordPress salt
    ("# created: 2024-05-01\nAGE-SECRET-KEY-1398AJWGSSAAATZJ70RRAFEM5LLUV5A2MHL4TE6HWKXURGLTRZ9064X"
     "7TJ5", "RRAFEM5LLUV5A2MHL4TE6HWKXURGLTRZ9064X7TJ5"),
    ("K3S_TOKEN=K102288c0a7b6c7f14e7e2826f97d91b4da0986219bdc9d9f0c3d027df25ed5a596::server:610e93"
     "343b36df227a3a7578b0712f89 sh -", "610e93343b36df227a3a7578b0712f89"),
    ('-H "Authorization: Bearer AAAAAAAAAAAAAAAAAAAAA8Nf7V7qBgMaJDUhpgNaKq%7OIxNcprWzztpsbD0CRJga2'
     'NxbS3C1xw9tQCwAOc4nqKJF1r2p8tyCq91iGUPUxjgc2P"', "tQCwAOc4nqKJF1r2p8tyCq91iGUPUxjgc2P"),
    ('{"server": true, "encrypt": "PPRn3pmzRbx/j2cXRv9Iqp/WQm9QF/bHszW1YCf4tlM="}',
     "PPRn3pmzRbx/j2cXRv9Iqp/WQm9QF/bHszW1YCf4tlM="),
    ("define( 'AUTH_KEY',         'GD[dwOCV>foNm_Pe[[|*|>M!~Z7|09~t-GcN#BqkKg(mdP4x2t4qfsOi8++b)"
     "yKP' );",
     "GcN#BqkKg(mdP4x2t4qfsOi8++b)yKP"),
    # a new password printed on the line after saying so; a US taxpayer id under its short
    # name and as an XML element
    ("Password for the [elastic] user successfully reset.\nNew value: rs6pcM0yg6YiIarYx3C=",
     "rs6pcM0yg6YiIarYx3C="),
    ('level=error msg="TIN match failed" tin=544789933 irs_code=5', "544789933"),
    ("    <ns:TaxId>814862213</ns:TaxId>\n    <ns:Phone>213.352.3242</ns:Phone>", "814862213"),
    # a card beside what follows it, a Sri Lankan NIC ending in X that is no ISBN
    ("Card: 4532 0151 1283 0366 0427 123", "4532 0151 1283 0366"),
    ("NIC 853400937X", "853400937X"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # a key file's path, a credential cache, a DLP field with nothing matched, a stand-in for
    # NickServ's password, a secret reference in WeeChat, an SPI and a sequence in ip xfrm
    "set interfaces wireguard wg01 private-key /config/auth/wg01.key",
    "var client = new HttpClient(new NetworkCredential(user, CredentialCache.DefaultCredentials))",
    'action=allowed matched_value="none" policy="PCI"',
    "/msg NickServ IDENTIFY <password>",
    '/set irc.server.libera.sasl_password "${sec.data.libera}"',
    "\tproto esp spi 0x5f934028 reqid 1 mode tunnel\n\tanti-replay context: seq 0x0, oseq 0x2f1",
    # a network's prefix, and an address's prefix length read as a network's
    "route 2600:1f18::/56 via fe80::1",
    "backup codes: none generated yet",
    # WordPress' stand-in for a salt, a flag named encrypt, a TIN of zeros
    "define( 'AUTH_KEY', 'put your unique phrase here' );",
    '{"encrypt": "true", "verify_incoming": true}',
    "tin=000000000 (not yet issued)",
    # code that reads a key, a prompt for one (JSON-escaped in a notebook), .NET's secret
    # store id, a CI's masks, Ansible's no_log stand-in, FortiOS' one-way admin hash
    'var key = builder.Configuration["Jwt:SigningKey"]\n    ?? throw new Exception("unset");',
    '  "token = getpass(\\"HF token: \\")"',
    "  <UserSecretsId>87fb1331-8114-430d-b6ec-19d56de2d189</UserSecretsId>",
    "  AWS_SECRET_ACCESS_KEY=xxxxa5t1\n  CODECOV_TOKEN=xxxxZw8j",
    '"login_password": "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER", "password": "NOT_LOGGING_PARAMETER"',
    "        set password ENC SH2kvcfZYbX2Z+xgoJ5FimbcJOc7tvyMzqhSMqUdxo1CCBTvp0vORKAHoKpujsZ",
    # an NF-e's access key (eleven groups of four digits), a book's ISBN-10 ending in X
    "CHAVE DE ACESSO: 3523 1151 5782 6200 0179 5500 1864 3217 3319 1362 6358",
    '978-3-4410-8584-3,655460104X,"La Vie devant soi",Taschenbuch,8.41,39',
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
