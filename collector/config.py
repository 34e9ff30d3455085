"""Generates ``agent.yaml`` and ``gateway.yaml`` beside this module (OpenTelemetry Collector
contrib) from the redaction policy and the SLO spec, so the Collector tier enforces the same
policy a second time (defense in depth, one source of truth).

Topology: the server exports OTLP to an *agent* next to it (memory_limiter, redaction, batch),
which spreads traces over the *gateway* replicas with the trace-id-aware ``loadbalancing``
exporter; each gateway sees whole traces, so it can tail-sample (errors, deadline/cancel
finishes, slow TTFT, slow end-to-end, every trace an exemplar points to, a probabilistic
baseline), redact once more and export to Tempo over OTLP.

The Collector cannot run the Python validators (Luhn, mod-97, ...), so its value patterns are
RE2 approximations of the detectors: broader, never narrower, on the corpus the tests use.
Component names, fields and field types are checked against the pinned release's typed model
(``otelcol_contrib.schema.json``, written down from the upstream source).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from servescope.instrumentation.slo import SLOSpec
from servescope.redaction.policy import ContentCapture, Policy, load_policy

__all__ = [
    "CONTRIB_VERSION",
    "RE2_PATTERNS",
    "SCHEMA_FILE",
    "collector_configs",
    "contrib_schema",
    "generate_collector_configs",
    "redaction_processor",
    "validate_config",
]

CONTRIB_VERSION = "0.135.0"
IMAGE = f"otel/opentelemetry-collector-contrib:{CONTRIB_VERSION}"

# Field names and Go types of every component used, written down from the upstream source of
# the pinned release (each definition cites its file): otelcol_contrib.schema.json beside this
# module. confmap decodes strictly (unknown keys fail, a YAML int is not a string), so the
# generated configs are checked against it before they are written.
SCHEMA_FILE = Path(__file__).with_name("otelcol_contrib.schema.json")


@functools.cache
def contrib_schema() -> dict[str, Any]:
    """The typed model of the pinned contrib release (JSON Schema, draft 2020-12)."""
    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    if schema.get("x-version") != CONTRIB_VERSION:
        raise ValueError(f"{SCHEMA_FILE.name} describes contrib {schema.get('x-version')}, "
                         f"the configs target {CONTRIB_VERSION}")
    return schema


_OCTET = r"(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
# A routed IPv4 address (the ipv4 detector's; ipv4_private takes the rest) without lookaround:
# the first octets that are never private, then 100, 169, 172 and 192 with the second octets
# outside 100.64/10, 169.254/16, 172.16/12 and 192.168/16. 0/8, 127/8 and 224-255 never match.
_PUBLIC_V4 = (
    r"\b((1[1-9]|[2-9][0-9]|[1-9]|10[1-9]|11[0-9]|12[0-689]|1[3-5][0-9]|16[0-8]|17[013-9]"
    r"|18[0-9]|19[013-9]|2[01][0-9]|22[0-3])\." + _OCTET +
    r"|100\.([0-9]|[1-5][0-9]|6[0-3]|12[89]|1[3-9][0-9]|2[0-4][0-9]|25[0-5])"
    r"|169\.([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-35])"
    r"|172\.([0-9]|1[0-5]|3[2-9]|[4-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])"
    r"|192\.([0-9]|[1-9][0-9]|1[0-5][0-9]|16[0-79]|1[7-9][0-9]|2[0-4][0-9]|25[0-5]))"
    r"(\." + _OCTET + r"){2}\b")
# A first group that cannot start fc00::/7, fe80::/10 or ff00::/8 (those need four hex digits
# and an "f" then "c" to "f"). What follows "::" still matches wherever it is (fails closed:
# "fd00::1" loses its "::1", "::1" is masked whole).
_V6_ROUTED_HEAD = "[0-9a-eA-E][0-9A-Fa-f]{0,3}|[fF][0-9A-Fa-f]{0,2}|[fF][0-9a-bA-B][0-9A-Fa-f]{2}"
_V6_TAIL = r"::([0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4})*)?(\.[0-9]{1,3}){0,3}(%[A-Za-z0-9.]+)?"


def _v6(head: str) -> str:
    return (rf"\b({head})(:[0-9A-Fa-f]{{1,4}}){{7}}\b|\b({head})(:[0-9A-Fa-f]{{1,4}})*{_V6_TAIL}"
            rf"|{_V6_TAIL}")


# Digits said as words (English, Spanish, French, German, Italian, Portuguese, Dutch).
_DIGIT_WORDS = ("zero|oh|one|two|three|four|five|six|seven|eight|nine|double|triple|cero|uno|dos"
                "|tres|cuatro|cinco|seis|siete|ocho|nueve|z(é|e)ro|un|deux|trois|quatre|cinq|sept"
                "|huit|neuf|null|eins|zwei|drei|vier|f(ü|u)nf|sechs|sieben|acht|neun|due|tre"
                "|quattro|cinque|sei|sette|otto|nove|dois|tr(ê|e)s|sete|oito|nul|een|twee|drie"
                "|vijf|zes|zeven|negen")

# The words between a security question's words and its answer ("first pet was X").
_SAID_IS = "(is|was|it'?s|that'?s|es|era|c'est|ist|war|jest|(è|é|e))"

# RE2 (Go regexp) approximations of the detectors: no lookaround, no backreferences.
RE2_PATTERNS: dict[str, str] = {
    "private_key": r"(-{4,5} ?BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-{4,5}[^-]*(-{4,5} ?END "
                   r"[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-{4,5})?|PuTTY-User-Key-File-[0-9]+:[\s\S]*)",
    "jwt": r"eyJ[A-Za-z0-9_-]{5,}={0,2}\.[A-Za-z0-9_-]+={0,2}(\.[A-Za-z0-9_-]*={0,2}){0,3}",
    "aws_access_key": r"\b(AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA|A3T[A-Z0-9])"
                      r"[A-Z0-9]{16}\b",
    "github_token": r"\b(gh[pousr]_[A-Za-z0-9_]{36,251}|github_pat_[A-Za-z0-9_]{22,255})\b",
    "api_key": r"\b((sk|rk)[-_](live_|test_|proj-|svcacct-|ant-api03-|ant-)?[A-Za-z0-9_-]{20,}"
               r"|xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,}"
               r"|AIza[0-9A-Za-z_-]{35}|hf_[A-Za-z0-9]{34,}"
               r"|https://hooks\.slack\.com/(services|workflows|triggers)/[A-Za-z0-9_/-]+"
               r"|/services/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/[A-Za-z0-9]{24}"
               r"|pypi-[A-Za-z0-9_-]{50,}|SK[0-9a-fA-F]{32}|ya29\.[A-Za-z0-9_-]{20,}"
               r"|lsv2_(pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}|do[por]_v1_[0-9a-f]{64}"
               r"|nvapi-[A-Za-z0-9_-]{40,}"
               r"|sk\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
               r"|AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}|[0-9]{8,10}:AA[A-Za-z0-9_-]{33}"
               r"|https://(canary\.|ptb\.)?discord(app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{60,}"
               # (Splunk's HEC token in its Authorization scheme)
               r"|Splunk[ \t]+[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
               r"-[0-9a-fA-F]{12}"
               # (the eleventh round: a Stripe PaymentIntent's client secret, LaunchDarkly's
               # SDK keys, Elasticsearch's ApiKey scheme)
               r"|(pi|seti)_[A-Za-z0-9]{14,}_secret_[A-Za-z0-9]{10,}"
               r"|(sdk|mob)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
               r"|ApiKey[ \t]+[A-Za-z0-9+/_-]{16,}={0,2}"
               # (the thirteenth round: age's secret key, a k3s node token, a Slack webhook as
               # JSON escapes its slashes)
               r"|AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}|K10[0-9a-f]{64}::[a-z]+:[0-9a-f]{16,64}"
               # (the fourteenth round: a Meta access token, Heroku's and HubSpot's tokens)
               r"|\bEAA[A-Za-z0-9]{60,}"
               r"|\b(HRKU|pat-(na|eu|ap)[0-9])-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}"
               r"-[0-9a-f]{12}\b"
               r"|hooks\.slack\.com\\/services\\/T[A-Z0-9]{8,12}\\/B[A-Z0-9]{8,12}\\/[A-Za-z0-9]{24}"
               # (the fifteenth round: Shopify's, Atlassian's, Typeform's, Asana's, GitLab's
               # runner and DeepL's keys; Make's and Zapier's hook paths)
               r"|\bshp(at|ss|ca|pa)_[0-9a-fA-F]{32}\b|\bATATT3[A-Za-z0-9_=-]{40,}"
               r"|\btfp_[A-Za-z0-9_]{40,}|\b[12]/[0-9]{10,20}(/[0-9]{10,20})?:[0-9a-f]{32}\b"
               r"|\bgl(rt|ptt|dt|cbt|imt|agent|soat|ffct|oas)-[A-Za-z0-9_-]{20,}"
               r"|\bGR1348941[A-Za-z0-9_-]{20}"
               r"|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:fx\b"
               r"|\bhook\.([a-z]{2}[0-9]\.)?(make|integromat)\.com/[A-Za-z0-9]{6,40}"
               r"|hooks\.zapier\.com/hooks/catch/[0-9]+/[A-Za-z0-9]{6,40}"
               # (and the NC-NH corpora's: RPC providers' keys in their URLs, WeCom's and
               # Feishu's bot hooks)
               r"|infura\.io/v3/[0-9a-f]{32}\b|alchemy\.com/v2/[A-Za-z0-9_-]{32}\b"
               r"|quiknode\.pro/[0-9a-f]{40}\b"
               r"|qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=[A-Za-z0-9-]{20,}"
               r"|open-apis/bot/v2/hook/[A-Za-z0-9-]{20,}"
               # (and the MC-MH corpora's: Tailscale's, OneSignal's, Scale AI's and GOV.UK
               # Notify's keys)
               r"|\btskey-(auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}"
               r"|\bos_v2_(app|org)_[a-z2-7]{50,}|\blive_[0-9a-f]{32}\b"
               r"|-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-[0-9a-f]{8}"
               r"-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
               # (and the PC-PH corpora's: Dropbox's short-lived token, a Facebook Live
               # stream key, Slack's invite link's token)
               r"|\bsl\.(u\.)?[A-Za-z0-9_-]{100,}|\bFB-[0-9]{15,17}-[0-9]-[A-Za-z0-9_-]{20,}"
               r"|join\.slack\.com/t/[A-Za-z0-9_-]+/shared_invite/[A-Za-z0-9_-]{16,})",
    # (also "Bearer-Token lautet X", "jeton bearer est X")
    "bearer_token": r"\b([Bb]earer|BEARER|[Bb]asic|BASIC)"
                    r"([\s-]+([Tt]oken|TOKEN|is|was|lautet|ist|est|es|é|è))*[\s:=]+"
                    # (a "|" inside: Laravel Sanctum's and Netatmo's tokens)
                    # (and a percent-encoded one's escapes: a Twitter app's token)
                    r"[A-Za-z0-9._~+/-][A-Za-z0-9._~+/|%-]{15,}=*|"
                    r"(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?([A-Za-z][\w-]*[ \t]+)?"
                    r"[A-Za-z0-9._~+/=-][A-Za-z0-9._~+/=|%-]{11,}",
    # (Windows' autologon password as reg query prints it first: an alternative before it
    # would take "Password    REG_SZ" alone, leftmost-first)
    "secret_assignment": r"(?i:password)[ \t]+REG_SZ[ \t]+[^\s]+|"
                         # (RC-RH: a key-value store's write of a secret, before the generic
                         # key=value below would take its name alone)
                         r"(?i:key=[a-z0-9_]*(token|pin|password|secret|passcode|credential)"
                         r"[a-z0-9_]*[ \t]+value=)[^\s\"',;]{4,}|"
                         r"(?i)(api[_-]?key|apikey|secret|token|passw(or)?d|pwd|credentials?|"
                         r"auth[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|key"
                         r"|x-honeycomb-team|pass[_-]?phrase)"
                         r"[\"']?\s*[:=]\s*[\"']?[^\s\"',;&<>]{6,}"
                         # (a quote inside doubled or escaped, as SQL writes it)
                         r"|(password|identified\s+by)\s+('([^'\\\n]|''|\\.)+'"
                         r"|\"([^\"\\\n]|\"\"|\\.)+\")"
                         # (the sixth round: a 1C connection string's doubled quotes, an
                         # eSIM's activation code, Bitrix24's webhook code)
                         r"|(?i:pwd)=\"\"[^\"\n]+\"\"|LPA:1\$[^$\s]+\$[A-Za-z0-9-]{4,}"
                         r"|\.bitrix24\.[a-z.]{2,6}/rest/[0-9]+/[a-z0-9]{16}"
                         r"|(password|passwd|passcode|pwd|api[ _-]?key|secret|token)\s+(is|was)"
                         r"\s*:?\s+[^\s\"',;<>]{6,}"
                         r"|(AKIA|ASIA)[A-Z0-9]{16}[\s:/,|;\"']{1,5}[A-Za-z0-9/+]{40}"
                         r"|(password|passwd|passcode|api[ _-]?key|secret|token)[ \t]+"
                         r"[A-Za-z0-9/+_=.-]{16,}"
                         r"|(key|secret|token|password|credential)s?[^\n;!?]{0,24}new[ \t]+value"
                         r"[ \t]*:?[ \t]+[A-Za-z0-9/+_=.-]{16,}"
                         r"|password([ \t]+[a-z]+){0,2}[ \t]+(è|é|e')[ \t]+[^\s\"',;<>]{8,}"
                         r"|cookies?[^\r\n:=]{0,12}[:=][ \t]*[\"']?[^\r\n\"'=]+=[^\r\n\"']*"
                         r"|login[ \t]+[^ \t\r\n]+[ \t]+password[ \t]+[^ \t\r\n]+"
                         # a PIN under its name (a card's, an IVR's collect_pin dtmf=)
                         r"|\b(pin([ _-]?(code|number|no))?|pincode|(card|atm|sim)[ _-]?pin"
                         r"|collect[ _-]pin|puk2?|at\+cpin|(alarm|door|gate|entry|garage|keypad"
                         r"|lockbox|key[ _-]?safe|building)[ _-]?code|pass[ _-]?code"
                         # (the seventh round: a door's or a parcel locker's code as couriers
                         # and concierges write it in French, Spanish, Polish and German)
                         r"|digicode|c(o|ó)digo[ \t]+de(l|[ \t]+la)?[ \t]+(portal|puerta"
                         r"|port(o|ó)n)|kod[ \t]+(do[ \t]+(drzwi|domofonu|bramy)|odbioru"
                         r"([ \t]+paczki)?)|(haus)?t(u|ü)rcode|torcode)"
                         r"([^a-z0-9_]|$)[^0-9\n]{0,40}[0-9]{4,8}"
                         # (... and Japanese's, which RE2's ASCII \b cannot open)
                         "|(オートロック)?暗証番号"
                         r"[^0-9\n]{0,12}[0-9]{4,8}"
                         # a security question's answer after the question's words
                         r"|(?i:(mother'?s |mom'?s |mum'?s )?maiden name|first (pet|dog|cat|school"
                         r"|car|teacher|boss|employer)('?s name)?|memorable (word|place"
                         r"|name|date|phrase)|(security|secret) (answer|word|phrase)|answer to"
                         r" (my|the|your) (security|secret) question|primera mascota|apellido de"
                         r" soltera|nom de jeune fille|premier animal|m(ä|a)dchenname"
                         r"|sicherheitsfrage|meisjesnaam|beveiligingsvraag"
                         r"|nazwisko panie(ń|n)skie|pytanie"
                         r" bezpiecze(ń|n)stwa|nome de solteira|cognome da nubile)"
                         rf"([ \t]*[:=,-][ \t]*({_SAID_IS}[ \t]+)?|[ \t]+{_SAID_IS}[ \t]+)"
                         r"[^\s,.;:!?\"'()]{2,40}"
                         r"|at\+clck=\"sc\",[012],\"[0-9]{4,8}"
                         r"|[\"'](name|key)[\"'][ \t]*:[ \t]*[\"'][^\"']*(sess|sid|token|auth|key"
                         r"|secret|passw|cookie)[^\"']*[\"'][ \t]*,[ \t]*[\"']value[\"'][ \t]*:"
                         r"[ \t]*(\{[ \t]*[\"']stringValue[\"'][ \t]*:[ \t]*)?[\"'][^\"']{6,}"
                         r"|(-u|--user)[ \t]+['\"]?[^\s:'\"]*:[^\s'\"]+"
                         # a registry's user:password (skopeo, podman, buildah), Vault's
                         # unseal and recovery keys
                         r"|--(src-|dest-)?creds[ \t=]+['\"]?[^\s:'\"]+:[^\s'\"]+"
                         r"|(Unseal|Recovery) Key [0-9]{1,2}:[ \t]*[A-Za-z0-9+/]{20,}={0,2}"
                         # a password a browser agent types into a form's password field
                         r"|passw(or)?d[^\n;]{0,60}\.(fill|type|send_keys)\([ \t]*['\"][^'\"\n]+"
                         r"|textbox[ \t]+\"[^\"\n]*passw[^\"\n]*\"([ \t]+\[[^\]\n]*\])*:[ \t]*\S+"
                         r"|[?&](?i:x-amz-signature|x-goog-signature|x-amz-security-token"
                         r"|signature)="
                         r"[^&\s\"'#<>]{16,}"
                         r"|\"(?i:auth)\"([ \t]+\"[^\"\n]*\")?[ \t]+\"[^\"\n]+\""
                         r"|(?i:[\w-]*_session|sessionid|session_id|jsessionid|phpsessid"
                         r"|connect\.sid|sid)=[^;\s\"'&,]{16,}"
                         r"|AUTH[ \t]+PLAIN[ \t]+[A-Za-z0-9+/]{8,}={0,2}"
                         r"|(?i:userPassword)::?[ \t]*[^\s\\]+"
                         r"|[?&](?i:appid)=[0-9a-fA-F]{32}"
                         r"|(?i:callback|oauth)[^\s?\"'#]*\?([^\s\"'#&]*&)*code=[^&\s\"'#]{16,}"
                         r"|(secret|token|passw(or)?d|pwd|key)[\w.-]*[\"']?[ \t]*[:=][ \t]*"
                         r"[\"'][^\"'\n]+[\"']"
                         # network gear's config lines (Cisco, Junos, FortiOS, EdgeOS, BIRD,
                         # keepalived, FreeRADIUS, BIND, Redis, snmpd), masked from the keyword
                         r"|(enable[ \t]+(secret|password)|username[ \t]+[^\s]+([ \t]+privilege"
                         r"[ \t]+[0-9]+)?[ \t]+(secret|password)|community"
                         r"|crypto[ \t]+isakmp[ \t]+key|pre-shared-key|psksecret|authentication-key"
                         r"|key-string|key[ \t]+[0-9]|password|secret|auth_pass|requirepass"
                         r"|masterauth|nhrp[ \t]+authentication|private-key|wpa-psk[ \t]+ascii)"
                         r"[ \t]+(([0-9]|ENC|ascii-text|hex|clear|local|remote)[ \t]+)?\"?"
                         r"[^\s\"]{4,}"
                         r"|:[ \t]*(PSK|EAP|XAUTH)[ \t]+\"[^\"\n]{4,}\""
                         r"|snmp-server[ \t]+user[^\n]*|createUser[^\n]*"
                         r"|snmp[a-z]*[ \t][^\n|;&]*[ \t]-[cAX][ \t]*[^\s]+[^\n|;&]*"
                         r"|(?i:community)[^\n=]*=[ \t]*STRING:[ \t]*\"[^\"\n]+\""
                         r"|add[ \t]+s?password[ \t][^\n]*"
                         r"|Login (incorrect|OK)[^\n]*\]"
                         # (the thirteenth round: what a DLP engine matched, NickServ's
                         # password, a credential built in code)
                         r"|(?i:dlp_?match|matched?_value)[\"']?[ \t]*[:=][ \t]*[\"'][^\"'\n]+"
                         r"|(?i:NickServ[ \t]+(IDENTIFY|REGISTER))[^\n]*"
                         r"|(NetworkCredential|HTTPBasicAuth|PasswordAuthentication)\([^)\n]*"
                         # (the fourteenth round: more tools' password arguments, Dovecot's
                         # plain passwords, SMTP's AUTH answers, BitLocker's recovery key, NT
                         # hashes and Kerberos keys, a Wi-Fi profile's key, a one-time code in
                         # a query, CloudFront's signature, CrowdStrike's customer id)
                         r"|--password[12][= \t]+[^\s]+|insecure-password[ \t]+[^\s]+"
                         r"|(?i:stats[ \t]+auth[ \t]+[^\s:]+:[^\s]+)"
                         r"|\{(PLAIN|CLEARTEXT)\}[^\s:\"']+"
                         r"|334[ \t]+UGFzc3dvcmQ6[ \t]*\r?\n[^\r\n]+"
                         r"|dXNlcj1[A-Za-z0-9+/]{20,}={0,2}"
                         r"|\b[0-9]{6}(-[0-9]{6}){7}\b"
                         r"|(?i:-hashes[\"' \t]+(a[0-9]{1,2}=)?[\"']?([0-9a-f]{32})?:[0-9a-f]{32})"
                         r"|(?i:(aes256_hmac|aes128_hmac|rc4_hmac(_nt|_old)?|des_cbc_md5)[ \t]*"
                         r"(\([0-9]+\))?[ \t]*:[ \t]*[0-9a-f]{16,64})"
                         r"|(?i:<keyMaterial>[^<\n]+)"
                         r"|(?i:(totp|otp|mfa_?code|otp_?code|2fa_?code)=[0-9]{4,8})"
                         r"|CloudFront-Signature=[A-Za-z0-9~_-]{40,}"
                         r"|\b[0-9A-F]{32}-[0-9A-F]{2}\b"
                         # (and the YA-YF corpora's: Jenkins' and MySQL's first passwords,
                         # wpa_passphrase, PuTTY's -pw, IMAP's LOGIN, Alibaba's secret)
                         r"|(?i:use the following password to proceed to installation:"
                         r"\s+[0-9a-f]{32})"
                         r"|(?i:temporary password is generated for [^\s:]+:[ \t]*[^\s]+)"
                         r"|wpa_passphrase[ \t]+(\"[^\"\n]*\"|[^\s]+)[ \t]+[^\s|]+"
                         r"|\b(plink|pscp|psftp)(\.exe)?\b[^\n|;&]*[ \t]-pw[ \t]+[^\s]+"
                         r"|\b[A-Za-z]?[0-9]{1,4}[ \t]+LOGIN[ \t]+[^\s]+[ \t]+[^\s]+"
                         r"|LTAI[A-Za-z0-9]{12,20}[ \t]*[/:,|][ \t]*[A-Za-z0-9]{30}"
                         # (and the QC-QH corpora's: Twilio's token beside its SID, SQL-hashed,
                         # Redis ACL and sqlplus passwords)
                         r"|\bAC[0-9a-f]{32}['\"]?[ \t]*[,:][ \t]*['\"]?[0-9a-f]{32}\b"
                         r"|(?i:passw(or)?d[\"'`]?[ \t]*=[ \t]*(sha[12]?|md5|password|crypt"
                         r"|encrypt|aes_encrypt|digest)[ \t]*\([ \t]*'[^'\n]{4,128}')"
                         r"|(?m:^[ \t]*(ACL[ \t]+SETUSER|user)[ \t]+[^\s>]+([ \t]+[^\s>]+)*"
                         r"[ \t]+>[^\s]{4,})"
                         r"|\b(sqlplus|sqlldr|expdp|impdp|rman)[ \t]+['\"]?[A-Za-z0-9_]+/"
                         r"[^\s@/'\"]{4,}"
                         # (NC-NH: wallets' extended keys, WalletConnect's symKey, a Lightning
                         # macaroon, an exchange's withdrawal codes)
                         r"|\b[xyzt]prv[1-9A-HJ-NP-Za-km-z]{100,}"
                         r"|[?&]symKey=[0-9a-f]{40,}"
                         r"|(?i:macaroon[\"']?[ \t]*[:=][ \t]*[\"']?[0-9a-f]{40,})"
                         r"|(?i:\b(email|sms|google)_code=[0-9]{4,8})"
                         # (RC-RH: device secrets (Huawei's SNMP agent, a ZTE OLT's ONU
                         # password, a SIM's Ki, a Zabbix macro, radclient's secret), creds
                         # user/password, Peru's clave SOL, keys and codes by their names, an
                         # ASP.NET Core session, a SQL session token, macOS keychains)
                         r"|(?i:snmp-agent[ \t]+community[ \t]+(read|write)([ \t]+cipher)?)"
                         r"[ \t]+[^\s]+"
                         r"|registration-method[ \t]+pw[ \t]+[^\s]+|KIVALUE=\"[0-9A-Fa-f]{32}\""
                         r"|\{\$[A-Z0-9_.]*(PASSWORD|SECRET|COMMUNITY|TOKEN|KEY|PSK|PASS)"
                         r"[A-Z0-9_.]*\}\\?\"[ \t]*,[ \t]*\\?\"value\\?\"[ \t]*:[ \t]*\\?\""
                         r"[^\"\\\n]{4,}"
                         r"|radclient[^\n|;]*[ \t](auth|acct|status|coa|disconnect)[ \t]+'?"
                         r"[^'\s]{4,}"
                         r"|(?i:\bcreds?)[ \t]*:?[ \t]+[^\s/]{1,40}/[^\s/]{4,64}"
                         r"|(?i:clave[ \t]+(sol|api|de[ \t]+acceso))[ \t]*:?[ \t]*[^\s,]{6,64}"
                         r"|(?i:(merchant[_-]?key|devkey|appsflyer[_-]?key|fernet[_-]?key"
                         r"|(invitation|authorization|verification)[_-]?code"
                         r"|keystore[_-]?(base64|b64)))[\"']?[ \t]*[:=][ \t]*[\"']?[^\s\"',;]{8,}"
                         r"|\.AspNetCore\.(Session|Cookies|Identity\.Application)=[^;\s\"']{16,}"
                         r"|(?i:(session|security)_token)[ \t]+'[^'\s]{16,}'"
                         r"|security[ \t]+(create-keychain|unlock-keychain|import|export"
                         r"|set-keychain-password)[^\n|;&]*[ \t]-[pP][ \t]+[^\s-][^\s]*"
                         # (KC-KH: a Z-Wave controller's keys, a Zigbee link key seed, a
                         # Thread dataset, an install code, Telegram's api_hash, a Home
                         # Assistant webhook's path, a lock's code in home automation, a
                         # WooCommerce order key, a share code, eBay's cert name)
                         r"|(S[02]_(Unauthenticated|Authenticated|AccessControl|Legacy)|tclk_seed)"
                         r"\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?[0-9A-Fa-f]{32}"
                         r"|(?i:(active_)?dataset_tlvs)[\"']?[ \t]*[:=][ \t]*[\"']?[0-9A-Fa-f]{64,}"
                         r"|(?i:install[ _-]?code)[ \t]*[:;=][ \t]*[\"']?[0-9A-Fa-f]{4}"
                         r"([ \t]?[0-9A-Fa-f]{4}){3,8}"
                         r"|(?i:api[_-]?hash)[\"']?[ \t]*[:=][ \t]*[\"']?[0-9a-f]{32}"
                         r"|(/api/webhook/|hooks\.nabu\.casa/)[A-Za-z0-9_-]{16,}"
                         r"|(code_slot|alarm_(dis)?arm|alarm_control_panel\.|lock\.[a-z])[^\n]{0,200}?"
                         r"\bcode\\?[\"']?[ \t]*[:=][ \t]*\\?[\"'][0-9]{4,8}"
                         r"|\bwc_order_[A-Za-z0-9]{10,16}"
                         r"|(?i:share[ \t]+code)[ \t]*[:=][ \t]*"
                         r"[A-Z0-9]{3} ?[A-Z0-9]{3} ?[A-Z0-9]{3}"
                         r"|(?i:X-EBAY-API-CERT-NAME)[ \t]*:[ \t]*[A-Za-z0-9-]{16,}"
                         # (JC-JH: a combo list's line with ";" or " | ", PyMISP's key, a
                         # conda channel's token, Oracle EZConnect's password, DigiD's BSN)
                         r"|(?m:^[\w.+-]{1,64}@[\w-]+(\.[\w-]+)+(;|[ \t]\|[ \t])[^\s|/:;]{6,64})"
                         r"|PyMISP\([^,\n]{1,200},[ \t]*['\"][A-Za-z0-9]{40}"
                         r"|anaconda\.org/t/[A-Za-z0-9-]{20,}"
                         r"|\b[A-Za-z][\w$#]{0,29}/[^\s/@\"']{4,64}@//[\w.-]"
                         r"|\bs00000000:[0-9]{9}\b"
                         # (HC-HH, FC-FH: SSSD's bind password, kadmin's -pw, SSM's
                         # SecureString, 1Password's Secret Key, Slack's d cookie, KeePass'
                         # and FileZilla's passwords, a PIN block under its name, Alibaba
                         # Cloud's STS key id)
                         r"|(?i:ldap_default_authtok)[ \t]*[:=][ \t]*[^\s#]{4,}"
                         r"|\b(addprinc|add_principal|cpw)\b[^\n]*[ \t]-pw[ \t]+[^\s]+"
                         r"|SecureString\\?\"[^{}]{0,200}?\\?\"Value\\?\"[ \t]*:[ \t]*"
                         r"\\?\"[^\"\\]{4,}"
                         r"|\bA3-[A-Z0-9]{6}-[A-Z0-9]{6}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}"
                         r"-[A-Z0-9]{5}\b"
                         r"|xoxd-[A-Za-z0-9%/+=-]{20,}"
                         r"|<Key>(?i:password|pin)</Key>[ \t]*<Value[^>\n]*>[^<\n]+"
                         r"|<Pass( encoding=\"base64\")?>[^<\n]+"
                         r"|(?i:pin[ _-]?block)[\"']?[ \t]*[:=][ \t]*[\"']?[0-9A-F]{16}"
                         r"|\bSTS\.[A-Za-z0-9]{20,40}\b"
                         # (EC-EH, DC-DH: an NT hash after the empty LM hash or mimikatz's
                         # "Hash NTLM:", DCC2 and KeePass hashes, secretsdump's CLEARTEXT,
                         # aircrack-ng's key, smsc.ru's psw=, Twilio's Digits=, Yandex Cloud's
                         # IAM token, a Salesforce session)
                         r"|(?i:aad3b435b51404eeaad3b435b51404ee):[0-9a-fA-F]{32}"
                         r"|(?i:hash ntlm)[ \t]*:[ \t]*[0-9a-fA-F]{32}"
                         r"|\$DCC2\$[0-9]+#[^#\s]{1,64}#[0-9a-f]{32}"
                         r"|\$keepass\$\*[^\s:]{20,}"
                         r"|:CLEARTEXT:[^\s]{3,128}"
                         r"|KEY FOUND! \[ [^\]\n]{4,63} \]"
                         r"|[?&](psw|Digits)=[^&\s#\"']{4,128}"
                         r"|\bt1\.9euel[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{40,}"
                         r"|\b00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{40,}"
                         # (CC-CH: Cisco's type 7 wherever its type says so, type 6 and
                         # Huawei's ciphers, PAN-OS' encrypted values and API keys, WLC and
                         # MikroTik PSKs, Extreme's and a cable modem's communities, Werkzeug's
                         # PIN, PHP_AUTH_PW, Workspace ONE's tenant code, Apple's push magic and
                         # unlock token, a Temporary Access Pass, LinkedIn's JSESSIONID, a
                         # right-to-work share code, a locker's and a climbing wall's codes)
                         r"|(?i:password|secret|key)[ \t]+7[ \t]+\\?\"?(0[0-9]|1[0-5])"
                         r"([0-9A-Fa-f]{2}){2,}"
                         r"|(?i:authentication-key)[ \t]+[0-9]+[ \t]+md5[ \t]+[0-9A-F]{4,}[ \t]+7\b"
                         r"|%\^%#[^\s%]{8,}%\^%#"
                         r"|(?i:password|key|secret|shared-key)[ \t]+(?i:cipher(text)?|6)[ \t]+"
                         r"[!-~]{16,}"
                         r"|-AQ==[A-Za-z0-9+/=]{16,}|<key>LUFRPT[A-Za-z0-9+/=]{20,}"
                         r"|(?i:set-key)[ \t]+(?i:ascii|hex)[ \t]+(0[ \t]+)?[^\s]{8,63}"
                         r"|(?i:pre-shared-key)=\"?[^\s\"\\]{8,63}"
                         r"|(?i:snmpv3)[ \t]+add[ \t]+community[ \t]+[^\s]+"
                         r"|Community(\.[0-9]+)*[ \t]+String[ \t]+\"[^\"\n]+"
                         r"|Debugger PIN: [0-9]{3}-[0-9]{3}-[0-9]{3}"
                         r"|\[\"PHP_AUTH_PW\"\]=>\s*string\([0-9]+\)\s*\"[^\"\n]+"
                         r"|(?i:aw-tenant-code)[ \t]*:[ \t]*[A-Za-z0-9+/=]{16,}"
                         r"|<key>(PushMagic|UnlockToken)</key>\s*<(string|data)>\s*[A-Za-z0-9+/=-]{16,}"
                         r"|(?i:temporary access pass)[^\n]{0,60}[ \t](is|:)[ \t]+[^\s]{8,48}"
                         r"|JSESSIONID=\\?\"?ajax:[0-9]{15,20}"
                         r"|(?i:share[ _-]?code)[^\n:]{0,40}:[ \t]*[A-Z0-9]{3}[ -]?[A-Z0-9]{3}"
                         r"[ -]?[A-Z0-9]{3}"
                         r"|action=SET_CODE[ \t]+code=[0-9]{4,8}"
                         r"|(?i:zugangscode)[^\n:0-9]{0,40}:?[ \t]*[0-9]{4,8}"
                         # (BC-BH: a meeting's passcode by its name, Zoom's recording and
                         # registrant tokens, kubeadm's certificate key, secretsdump's boot key,
                         # MEGA's file key, Android's aas_et token, Winlogon's DefaultPassword,
                         # Graph's clientState, a Telethon session)
                         r"|(?i:passcode)\\?\"?[ \t]*[:=][ \t]*\\?\"?[^\s\"'<>,;\\]{4,64}"
                         r"|zoom\.us/rec/(share|play)/[A-Za-z0-9_.-]{30,}"
                         r"|zoom\.us/w/[0-9]+\?([^\s\"'#]*&)?tk=[A-Za-z0-9_.-]{20,}"
                         r"|--certificate-key[ \t=]+[0-9a-f]{64}"
                         r"|(?i:bootkey):[ \t]*0x[0-9a-f]{32}"
                         r"|mega\.(nz|co\.nz)/(file|folder)/[A-Za-z0-9_-]{8}#[A-Za-z0-9_-]{22,43}"
                         r"|aas_et/[A-Za-z0-9_./-]{40,}"
                         r"|DefaultPassword,Reg_?Sz,[^,\n]+"
                         r"|\"clientState\\?\"[ \t]*:[ \t]*\\?\"[^\"\\\n]{8,}"
                         r"|StringSession\([ \t]*['\"][A-Za-z0-9_=+/-]{40,}"
                         # (MC-MH: a password after its short name or a login and a slash, a
                         # basic-auth setting's, ASP.NET's machine key, Agora's certificate, an
                         # authenticator's setup key, a print job's PIN, a release PIN or an
                         # activation code in capitals and digits, issued access and refresh
                         # tokens, a password said to have changed)
                         r"|(?i:\b(pwd?|passwd|password|passwort)"
                         r"([ \t]*[:=][ \t]*|[ \t]+-[ \t]+"
                         r"|[ \t]+))[A-Za-z0-9!#$%&*^@+?=._~-]*[0-9!#$%&*^@+?][^\s\"',;<>]*"
                         r"|\b[Pp]ass[ \t]*[:=][ \t]*[A-Za-z][A-Za-z0-9._~-]*[0-9!#$%&*^@+?]"
                         r"[^\s\"',;<>]*"
                         r"|@[A-Za-z0-9-]+\.[A-Za-z0-9.-]+[ \t]+/[ \t]+[^\s\"',;<>()]{5,64}"
                         r"|(?i:basic[_-]?auth)[A-Za-z0-9_-]*[ \t]*[=:][ \t]*[^\s:\"'/]+:"
                         r"[^\s\"']{4,}"
                         r"|(validationKey|decryptionKey)=\"[0-9A-Fa-f]{16,}"
                         r"|(?i:app[_-]?certificate)[\"']?[ \t]*[:=][ \t]*[\"']?[0-9a-f]{32}"
                         r"|(?i:(setup|secret|authenticator|2fa|mfa|totp|otp)[ \t-]*key)"
                         r"[^:\n]{0,50}[:=]?[ \t]*([a-z2-7]{4} ){3,7}[a-z2-7]{4}"
                         r"|@PJL[ \t]+SET[ \t]+(JOBPASSWORD|HOLDKEY)[ \t]*=[ \t]*\"?[0-9]{4,12}"
                         r"|(?i:pin(code)?|(activation|registration|release)[ _.-]?code)"
                         r"([ \t]*[:=][ \t]*|[ \t]+is:?[ \t]+|[ \t]+)"
                         r"[A-Z0-9]*[0-9][A-Z0-9]*[A-Z][A-Z0-9]*"
                         r"|\b(access|refresh)=[A-Za-z0-9_.~+/-]{24,}"
                         r"|(?i:(passw|pwd|kennwort|passwort)[^\n]{0,80}(changed|reset|set|updated)"
                         r"([ \t]+it)?[ \t]+to)[ \t]+[`'\"]?[^\s`'\",;<>]{5,64}"
                         # (PC-PH: voicemail.conf's PINs, Grandstream's P2 and P34, Yealink's
                         # user_password, an SBC's SNMP passwords, Cisco's "password 0", a
                         # Twilio SID/token pair, a lock's combination, a call's credentials
                         # tuple, Haystack's Secret.from_token, redis-cli's AUTH)
                         r"|(?m:^[ \t]*[0-9]{2,10}[ \t]*=>[ \t]*[0-9]{3,10},)"
                         r"|(?m:^[ \t]*P(2|34)[ \t]*=[ \t]*[^<\s]{4,64})|<P(2|34)>[^<\s]{4,64}"
                         r"|(?i:user_password)[ \t]*=[ \t]*[^:\s]{1,40}:[^\s]{4,64}"
                         r"|(?im:^[ \t]*(auth|priv)-password[ \t]+[^\s]{6,64})"
                         r"|\bpassword[ \t]+0[ \t]+[^\s]{4,64}"
                         r"|\bAC[0-9a-f]{32}[/:][0-9a-f]{32}"
                         r"|(?i:combo|combination|zahlenschloss|safe|tresor)[^\n0-9.;,\"']{0,40}"
                         r"[ \t][0-9]{1,2}-[0-9]{1,2}-[0-9]{1,2}"
                         r"|\b(basic_|http_)?auth[ \t]*=[ \t]*\([ \t]*[\"'][^\"'\n]{1,80}[\"']"
                         r"[ \t]*,[ \t]*[\"'][^\"'\n]{4,128}"
                         r"|\.login\([ \t]*[\"'][^\"'\n]{1,80}[\"'][ \t]*,"
                         r"[ \t]*[\"'][^\"'\n]{4,128}"
                         r"|Secret\.from_token\([ \t]*[\"'][^\"'\s]{8,}"
                         r"|>[ \t]*AUTH[ \t]+[^\s]{6,128}"
                         # (SC-SE: a password typed at sshd's user prompt, a built-in account's
                         # after a slash, "pw for ... is", a Terraform variable's default, a
                         # security answer given, a password manager's SecQ)
                         r"|(?i:invalid|illegal)[ \t]+user[ \t]+([^\s]*[!#$%&*^@+?=~][^\s]*"
                         r"|(?-i:[^\s]*[A-Z][^\s]*[0-9][^\s]*|[^\s]*[0-9][^\s]*[A-Z][^\s]*))[ \t]"
                         r"|(?i:\b(admin|administrator|root))[ \t]+/[ \t]+[^\s/]*[0-9!#$%&*^@+?=~]"
                         r"[^\s/]*"
                         r"|(?i:\bpwd?[ \t]+(for|to)[ \t]+[^\n.!?]{1,80}[ \t]+(is|was))[ \t]+"
                         r"[^\s]{6,64}"
                         r"|(?i:variable[ \t]+\\?\"[^\"\n]*(passw|secret|token|api_?key)"
                         r"[^\"\n]*\"[ \t]*\{[^}]{0,400}default[ \t]*=[ \t]*)\\?\"[^\"\\\n]{6,}"
                         r"|(?i:answer[ \t]+given[ \t]*:[ \t]*)['\"]?[^\s'\".,;]{2,40}"
                         r"|\bSecQ[ \t]*[a-z]{0,12}[ \t]*=[ \t]*[^;\s\"]{2,40}"
                         # (OC-OH: EPP's authInfo, cPanel's session and API tokens,
                         # GoDaddy's sso-key, WHMCS's hash, RCON and Steam passwords, a GSLT,
                         # ScholarOne's URL_MASK, EZproxy's cookie, an EPP code told)
                         r"|<(domain|contact|host):pw>[^<\s]{4,64}|/cpsess[0-9]{10}"
                         r"|(?i:authorization:[ \t]*(whm|cpanel)[ \t]+)[\w.@-]+:[A-Z0-9]{32}"
                         r"|(?i:sso-key)[ \t]+[\w-]{8,}:[\w-]{8,}"
                         r"|\$(cc_encryption_hash|license)[ \t]*=[ \t]*'[^'\s]{16,128}"
                         r"|(?i:rcon[_ .]?password|steampass|sv_password)([ \t]*=[ \t]*|[ \t]+)"
                         r"[\"']?[^\s\"']{4,64}"
                         r"|\bGSLT[ \t]*[:=]?[ \t]*[0-9A-F]{32}|URL_MASK=[0-9a-f]{32}"
                         r"|(?i:ezproxy)[a-z0-9]*=[A-Za-z0-9]{12,64}"
                         r"|(?i:\bEPP[ -]?code)[^\n:=]{0,60}[:=][ \t]*[^\s]{6,64}"
                         # (AF-SH: a C define's key, Postman's key, a vendor's live_sk_,
                         # Confluent's basic auth, OpenWrt's Wi-Fi key, TTLock's keyboardPwd)
                         r"|#define[ \t]+\w*(KEY|SECRET|TOKEN|PASS|PSK)\w*[ \t]+\"[^\"\s]{8,}"
                         r"|\bPMAK-[0-9a-f]{24}-[0-9a-f]{34}"
                         r"|\b[a-z][a-z0-9]{1,11}_(live|test|prod)_sk_[A-Za-z0-9]{20,}"
                         r"|basic\.auth\.user\.info[ \t]*[=:][ \t]*[^\s:\"';]+:[^\s\"';]+"
                         r"|option[ \t]+key[ \t]+'[^'\n]{8,63}"
                         r"|\"keyboardPwd\"[ \t]*:[ \t]*\"[0-9]{4,10}"
                         # (AK-TI: a SIP2 message's PIN and passwords to its checksum, B2's,
                         # Alma's, IT Glue's and Mailgun's keys, wskey and its kin in a query,
                         # mail relays' passwords, FreeRADIUS' radcheck, ONTs' registration
                         # passwords, ssh's echoed passphrase)
                         r"|\|(AD|CO|AC)[^|\r\n*][^|\r\n]{0,63}\|[^\n]*AZ[0-9A-F]{4}"
                         r"|\bK00[0-9][A-Za-z0-9+/]{27}\b|\bl7xx[0-9a-f]{32}\b"
                         r"|\bITG\.[0-9a-f]{32}\.[A-Za-z0-9_-]{32,}|\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b"
                         r"|[?&](wskey|uniqueKey|passhash|requestor_id)=[A-Za-z0-9_-]{8,}"
                         r"|smtp_sasl_password_maps[ \t]*=[ \t]*static:[^:\s]+:\S+"
                         r"|AuthInfo:[^\n]*\"P:[^\"\n]+"
                         r"|'Cleartext-Password'[ \t]*,[ \t]*'[:=+]{1,2}'[ \t]*,[ \t]*'[^'\n]+"
                         r"|\b(password-auth|subslocid)[ \t]+[^\s\"]{4,}"
                         r"|Enter passphrase for key '[^'\n]*':[ \t]*\S+"
                         # (AP-TK: NuGet's, JFrog's and crates.io's keys, Yarn's npmAuthIdent,
                         # SQL Server's CREATE LOGIN, Maven's master password, an alarm
                         # receiver's AES key, a verbal passcode's or code word's name)
                         r"|\boy2[a-z0-9]{43}\b|\bAKCp[A-Za-z0-9]{60,80}\b|\bcio[A-Za-z0-9]{32}\b"
                         r"|npmAuthIdent[ \t]*:[ \t]*[\"']?[^:\s\"']+:[^\s\"']+"
                         r"|(?i:with[ \t]+password[ \t]*=[ \t]*N?'[^'\n]{4,128})"
                         r"|<master>\{[A-Za-z0-9+/=]{20,}\}"
                         r"|(?i:(aes[ \t-]?key|encryption[ \t]+key)[^\n0-9a-f]{0,12}[0-9a-f]{32})"
                         r"|(?i:(verbal[ \t]+(password|passcode)|code[ \t]?word|codewoord|kodeord)"
                         r"[ \t]*:[ \t]*[^\s]{4,20})"
                         # (AR-AW: a proxy list's user and password, bot managers' clearance
                         # cookies, Airtable's token, curl's proxy user)
                         r"|\b([0-9]{1,3}\.){3}[0-9]{1,3}:[0-9]{2,5}[:@][A-Za-z0-9_.+-]{2,64}:"
                         r"[^\s:@'\"`]{6,128}"
                         r"|\b(_abck|bm_s[zv]|ak_bmsc|_px[23]|_pxhd|datadome|cf_clearance)(=|\t)"
                         r"[^\s;,\"']{20,}"
                         r"|\bpat[A-Za-z0-9]{14}\.[0-9a-f]{64}\b"
                         r"|--proxy-user[ \t]+[\"']?[^\s:\"']+:[^\s\"']+"
                         # (AX-BK: devices' secrets as their tools print them, Paddle's key,
                         # Cloudflare's bot cookie, a device's claim code)
                         r"|AT%CMNG=0,[0-9]+,3,\"[0-9A-Fa-f]{8,128}|wps_pin[ \t]+\S+[ \t]+[0-9]{8}"
                         r"|(?i:setup[ _-]?code)[ \t]*[:=][ \t]*[0-9]{3}-[0-9]{2}-[0-9]{3}"
                         r"|(fw_)?setenv[ \t]+[\w.-]*(pass|pswd|pwd|token|secret|psk)[\w.-]*"
                         r"[ \t]+\S+"
                         r"|fastboot[ \t]+(oem|flashing)[ \t]+unlock[ \t]+[0-9A-Fa-f]{8,64}"
                         r"|\bpdl_(live|sdbx|test)_apikey_[A-Za-z0-9_]{30,}|__cf_bm=[^\s;,\"']{20,}"
                         r"|\"claim_code\"[ \t]*:[ \t]*\"[^\"\n]{4,64}"
                         # (BL-BQ: a Windows program's password switch, Agora's RTC token, a
                         # vehicle's immobiliser and key codes, an authenticator's seed)
                         r"|[ \t](?i:/(password|passwd|pwd)[:=])[^\s\"']{4,128}"
                         r"|\b007eJ[A-Za-z0-9+/]{60,}"
                         r"|(?i:(key[ \t]*code|incode|immobili[sz]er[ \t]*(pin|code)"
                         r"|code[ \t]+carte)[ \t]*[:=]?[ \t]*)[0-9]{4,6}"
                         r"|(?i:(manual[ \t]+entry[ \t]+key|mfa[ \t]+seed)[^\n:]{0,30}:?[ \t]*)"
                         r"[A-Z2-7]{16,64}"
                         # (BR-BW: remote support tools' passwords on their command lines, Chrome
                         # Remote Desktop's PIN prompt and Google's authorization code, a
                         # BitLocker recovery key, a release code, an app password, an
                         # emergency code for a second factor)
                         r"|(?i:setpassword|teamviewer[ \t]+passwd)[ \t]+['\"]?[^\s'\"]*"
                         r"[0-9!@#$%^&*][^\s'\"]*"
                         r"|--set-password[ \t]+_[a-z_]*access[ \t]+\S+"
                         r"|Enter (a PIN of at least six digits|the same PIN again):[ \t]*[0-9]{6,}"
                         r"|\b4/0A[A-Za-z0-9_-]{40,}|\b[0-9]{6}(-[0-9]{6}){7}\b"
                         r"|(?i:(release|claim|redemption|unlock)[ \t]+code[ \t]*:[ \t]*)"
                         r"[A-Z0-9]{4,6}(-[A-Z0-9]{4,6}){1,4}"
                         r"|(?i:app[ \t-]*passwor[dt]|has[łl]o[ \t]+aplikacji)[^\n]{0,40}"
                         r"[a-z]{4} [a-z]{4} [a-z]{4} [a-z]{4}"
                         r"|(?i:notfallcode)[ \t]*:[ \t]*[A-Za-z0-9-]{6,}"
                         # (BX-CK: Ghost's Admin API key, FIX's passwords, Alpaca's key id and
                         # headers, ELSTER's activation id, a cancellation code, GitLab's CI
                         # variables, a PUK, a Teams passcode in German)
                         r"|\b[0-9a-f]{24}:[0-9a-f]{64}\b|(^|[\x01|( ]|\^A)(554|925)=[^\x01|\s()]+"
                         r"|\b(PK|AK)[A-Z0-9]{18}\b"
                         r"|(?i:APCA[_-]API[_-](KEY[_-]ID|SECRET[_-]KEY))[\"']?[ \t]*[:=][ \t]*"
                         r"[\"']?[A-Za-z0-9/+]{16,64}"
                         r"|(?i:aktivierungs[ -]?(id|code))[^\n]{0,40}"
                         r"[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}"
                         r"|(?i:(absage|storno|cancel(lation)?)[ -]?code)[ \t]*:[ \t]*"
                         r"[A-Za-z0-9]{6,64}"
                         r"|(?i:variable:[ \t]*\w*(secret|password|token|api_?key|pin)\w*[ \t]+"
                         r"value:)"
                         r"[ \t]*\S{4,256}"
                         r"|PUK\b[^\n0-9:]{0,30}:[ \t]*[0-9]{8,10}|Kennung:[ \t]*[A-Za-z0-9]{5,12}"
                         # (CL-CQ: PASETO tokens, xAI's and Perplexity's keys, LoRaWAN root keys
                         # on The Things Stack's command line, APRS-IS passcodes, IFTTT's
                         # webhook key, eQSL's password, a right-to-work share code)
                         r"|\bv[1-4]\.(local|public)\.[A-Za-z0-9_-]{20,}"
                         r"|\b(xai-[A-Za-z0-9]{70,90}|pplx-[A-Za-z0-9]{40,56})\b"
                         r"|--root-keys\.(app|nwk)-key\.key[ \t=]+[0-9A-Fa-f]{32}"
                         r"|IGLOGIN[ \t]+\S+[ \t]+[0-9]{4,5}"
                         r"|maker\.ifttt\.com/trigger/[^/\s]+/with/key/[A-Za-z0-9_-]{16,}"
                         r"|(?i:pswd)=[^&\s]{4,128}"
                         r"|share_code=[A-Z0-9]{3} ?[A-Z0-9]{3} ?[A-Z0-9]{3}"
                         # (CR-CW: ntfy's and Porkbun's keys, a Proxmox ticket, a Bitwarden Send
                         # link's key, qm's --cipassword, a parcel locker's collection code)
                         r"|\btk_[a-z0-9]{29}\b|\b[ps]k1_[0-9a-f]{64}\b"
                         r"|PVE:[^\s:]{1,64}@[^\s:]{1,32}:[0-9A-F]{8}::[A-Za-z0-9+/=]{40,}"
                         r"|/#/send/[A-Za-z0-9_-]{16,32}/[A-Za-z0-9+/_-]{20,}"
                         r"|--cipassword[ \t=]+\S{4,128}"
                         r"|(?i:(collection|pick-?up|drop-?off|locker)[ _-]?code)"
                         r"[\"' \t:#=]*[0-9]{4,8}"
                         # Windows and XML configs: name/value pairs, plists, cmdkey, PowerShell
                         r"|(?i:(key|name)=[\"'][^\"'\n]*(passw|pwd|secret|token|api_?key|shared"
                         r"|passphrase)[^\"'\n]*[\"'][ \t]+value=[\"'][^\"'\n]+)"
                         r"|(?i:<key>[^<\n]*(passw|pwd|secret|token|key|psk|passphrase)[^<\n]*"
                         r"</key>\s*<string>[^<\n]+)"
                         r"|(?i:(cmdkey|schtasks)[^\n]*/(pass|rp)[: ][^\s<]+)"
                         r"|(?i:ConvertTo-SecureString[ \t]+(-String[ \t]+)?[\"'][^\"'\n]+)"
                         r"|-[A-Za-z]*(Password|Secret|Token|Passphrase)[ \t]+[\"'][^\"'\n]+"
                         r"|Key Content[ \t]*:[ \t]*[^\s]+"
                         r"|(?i:key:[ \t]+[^\s]*(session|token|sid|auth)[^\s]*[ \t]+value:[ \t]+"
                         r"[^\s;]{8,})"
                         # Mailchimp's keys, Akamai's token HMAC, Segment's writeKey
                         r"|[0-9a-f]{32}-us[0-9]{1,2}\b|[~?&;](?i:hmac)=[0-9a-fA-F]{32,}"
                         r"|(?i:write_?key)[\"']?[ \t]*[:=][ \t]*[\"']?[A-Za-z0-9]{16,}"
                         # a reset link's token, a one-time code in a verify URL or its SMS
                         r"|(?i:/(password/)?reset(/[A-Za-z0-9_-]{1,12})?(/|\?([^\s&#]*&)*[tkc]=))"
                         r"[A-Za-z0-9_-]{20,}"
                         r"|(?i:/(otp|totp|2fa|mfa|verify|verification)[^\s?\"'#]*\?"
                         r"([^\s\"'#&]*&)*(code|otp|pin|token)=)[0-9]{4,8}"
                         r"|[0-9]{4,8}[ \t]+(?i:is[ \t]+your|ist[ \t]+ihr|est[ \t]+votre|es[ \t]+tu"
                         r"|(e|è)[ \t]+il[ \t]+tuo|is[ \t]+uw|(e|é)[ \t]+(o[ \t]+)?seu)[ \t]+"
                         r"([^\s.!]+[ \t]+){0,3}[^\s.!]*(?i:code|c(o|ó)digo|codice|kod|pin|otp)"
                         # PHP's PDO made with its password; a PowerShell session cookie
                         r"|(new[ \t]+PDO|PDO(->|-&gt;)__construct)\([^,()\n]{1,200},[ \t]*['\"]"
                         r"[^'\"\n]*['\"][ \t]*,[ \t]*['\"][^'\"\n]{1,200}['\"]"
                         r"|(?i:Net\.Cookie\([ \t]*[\"'][\w.-]*(sess|sid|token|auth|jwt)"
                         r"[\w.-]*[\"'])[ \t]*,[ \t]*[\"'][^\"'\s]{8,}"
                         # Windows' credential material: Kerberos and NetNTLMv2 hashes, NT
                         # hashes (secretsdump, mimikatz); Entra ID's client secrets
                         r"|\$krb5(asrep|tgs|pa)\$[0-9]{1,2}\$[^\s\"'<>]{20,}"
                         r"|::[\w.-]{1,64}:[0-9a-fA-F]{16}:[0-9a-fA-F]{32}:[0-9a-fA-F]{20,}"
                         r"|:[0-9]{1,10}:[0-9a-fA-F]{32}:[0-9a-fA-F]{32}:::"
                         r"|\*[ \t]+(NTLM|LM|SHA1)[ \t]*:[ \t]*[0-9a-fA-F]{32,40}"
                         r"|[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}"
                         # (the tenth round: a password flag in a quoted argument list, an exec
                         # probe's, a container's, an audit record's; net use's password before
                         # /user; a signature pasted without its URL; a one-time code in a
                         # dispatch log; a key named in a refusal; a CEF field named for a secret)
                         r"|[\"'](?i:--(password|passwd|pass|requirepass|masterauth|client-secret"
                         r"|api-key|auth-token|access-token|secret))[\"']"
                         r"([ \t]*,[ \t]*|[ \t]+a[0-9]{1,2}=)[\"'][^\"'\s]+"
                         r"|(mysql|mariadb|mysqldump|mysqladmin)[\"'][^\n]*?[\"']-p[^\"'\s]+"
                         r"|(redis-cli[\"'][^\n]*?[\"']-a|(sshpass|cqlsh)[\"'][^\n]*?"
                         r"[\"']-p)[\"']([ \t]*,[ \t]*|[ \t]+a[0-9]{1,2}=)[\"'][^\"'\s]+"
                         r"|net[ \t]+use([ \t]+[A-Za-z]:)?[ \t]+\\\\[^\s]+[ \t]+[^/\s*][^\s]*"
                         r"[ \t]+/(?i:user|u):"
                         r"|(?i:x-(amz|goog)-(signature|security-token))=[^&\s\"'#<>]{16,}"
                         r"|(?i:otp|2fa|mfa|verification)[^\n]*?\bcode=[0-9]{6}([0-9]{2})?\b"
                         r"|(?i:key[ \t]+[\"'][0-9a-f]{32,64}[\"'][ \t]+(was[ \t]+|is[ \t]+"
                         r"|has[ \t]+been[ \t]+)?(revoked|expired|invalid|rejected|disabled))"
                         r"|(?i:cs[0-9]Label=[\w.-]*(cvv|cvc|passw|secret|token|pin)[\w.-]*)[^\n]*?"
                         r"cs[0-9]=[^\s=\\|]+"
                         # (the eleventh round: express-session's signed id; a dump's dotted
                         # leader after a password's name; Rails' binds)
                         r"|s(%3A|:)[\w-]{16,64}\.[A-Za-z0-9+/]{43}"
                         r"|(?i:passw(or)?d|secret|token)\.{4,}[^\s.][^\s]*"
                         r"|\[\\?\"[\w.-]*(?i:secret|token|passw(or)?d|api_?key)[\w.-]*\\?\",[ \t]*"
                         r"\\?\"[^\"\\\n]{6,}"
                         # (the twelfth round: Windows' autologon password as reg query prints
                         # it and unattend.xml holds it, LDAP's bind password, a Teams webhook,
                         # ASP.NET's auth cookie, a Source server's token, 7-Zip's -p, a
                         # Minecraft server's AuthMe commands, OAuth 1.0's signature)
                         r"|(?i:password>)\s*<Value>[^<\s][^<]*"
                         r"|(?im:^[ \t]*(bind_?pw|rootpw)[ \t]+[^\s{][^\s]{3,})"
                         r"|/IncomingWebhook/[0-9a-fA-F]{32}/[0-9a-fA-F-]{36}"
                         r"|(?i:\.aspxauth|fedauth)=[^;\s&\"']{16,}"
                         r"|(?i:sv_setsteamaccount)[ \t]+\"?[0-9A-Fa-f]{32}"
                         r"|7z[ar]?(\.exe)?\"?[ \t]+[adeux][ \t][^\n]*?[ \t]-p[^\s\"]{3,}"
                         r"|issued server command: /(register|login|changepassword|l|reg)[ \t]+"
                         r"[^\n]{3,}"
                         r"|(?i:oauth_signature)=[^&\s\"'#<>]{16,}",
    "email": r"[A-Za-z0-9._%+-]{1,64}@([A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}"
             # (an address rewritten for forwarding, SRS0=...=domain=user@forwarder, and an
             # Entra guest's user principal name, name_domain#EXT#@tenant: the first's
             # characters before the plain address's)
             r"|SRS[01][=+-][^\s@<>\"']{4,200}@([A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}"
             r"|[A-Za-z0-9._%+-]{1,64}#EXT#@([A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}"
             # (a UPI id at a bank's handle)
             r"|[A-Za-z0-9._-]{2,64}@(ybl|ibl|axl|paytm|upi|apl|okhdfcbank|okicici|oksbi|okaxis)\b"
             # said or disguised: its at and dot in brackets, or said in words beside a
             # mailbox provider's name ("anna.k AT proton DOT me", "maria arroba hotmail punto
             # com"); the in-process reader takes more (redaction/spoken.py)
             r"|(?i:[a-z0-9._%+-]{1,64}[ \t]*[\[({<][ \t]*(at|@)[ \t]*[\])}>][ \t]*[a-z0-9-]{1,63}"
             r"(([ \t]*[\[({<][ \t]*(dot|punkt|punto|point)[ \t]*[\])}>][ \t]*|\.)"
             r"[a-z0-9-]{2,63})+)"
             r"|(?i:[a-z0-9._%+-]{1,64}[ \t]+(at|arroba|arobase|(ä|a)t|chiocciola|ma(ł|l)pa)[ \t]+"
             r"(gmail|googlemail|yahoo|hotmail|outlook|live|icloud|aol|proton|protonmail|gmx|web"
             r"|orange|free|wp|o2|onet|interia|yandex|zoho|fastmail|libero|t-online|posteo"
             r"|hey)([ \t]+(dot|punkt|punto|point|kropka|punt|ponto)[ \t]+|\.)[a-z]{2,6})",
    "iban": r"\b[A-Z]{2}[0-9]{2}( ?[A-Z0-9]{4}){2,7}( ?[A-Z0-9]{1,3})?\b"
            # (RC-RH: a bank account under a name that is a bank account's alone)
            r"|(?i:bank[ ._-]?(account|acct|a/c)([ _-]?(number|no|num))?\.?|bankdetails)"
            r"[\"']?[ \t]*[:=#>]?[ \t]*[\"']?[0-9]{6,18}",
    "credit_card": r"\b(4[0-9]{3}|5[1-5][0-9]{2}|2[2-7][0-9]{2}|6011|6[245][0-9]{2}|3[0-9]{3}|"
                   r"50[0-9]{2}|67[0-9]{2})([ -]?[0-9]{4}){2,3}[ -]?[0-9]{1,7}\b|"
                   r"\b3[0-9]{3}[ -]?[0-9]{6}[ -]?[0-9]{4,5}\b|"
                   # a card's security code under its name
                   r"(?i:\b(cvc2?|cvv2?|cvn|security[ _-]?code|card[ _-]?verification"
                   r"|card[ _-]?security[ _-]?(code|value)|[34]-digit( security)? code"
                   r"|code on the (back|front)|c[oó]digo de (seguran[cç]a|seguridad)"
                   r"|(karten)?pr[uü]fnummer|code de s[eé]curit[eé]|cryptogramme"
                   r"|codice di sicurezza)([^a-z]|$)[^0-9\n]{0,32}[0-9]{3,4}\b)|"
                   # (RC-RH: a card's groups joined by dots)
                   r"\b[1-9][0-9]{3}\.[0-9]{4}\.[0-9]{4}\.[0-9]{4}\b",
    # dashed anywhere; nine bare digits only after the word for one (a few words between)
    # or under a taxpayer id's key
    "us_ssn": r"\b[0-9]{3}[- ][0-9]{2}[- ][0-9]{4}\b"
              r"|(?i:\b(ssn|social[ _-]?security([ _-]?(number|no))?)\b)[^0-9\n=|,;]{0,40}"
              r"\b[0-9]{9}\b|\bI?TIN\b[\"']?[ \t]*[:=]?[ \t]*[\"']?[0-9]{9}\b"
              # (JC-JH: NCIC's .SOC/ field, Stripe Connect's individual[id_number])
              r"|\.SOC/[0-9]{9}\b|individual\[id_number\]\\?\"?[ \t]*=[ \t]*\\?\"?[0-9]{9}\b",
    # A document's name, then the first number within reach (the detectors check it); the
    # two shapes found without a name as they are.
    "national_id": r"(?i)(\b(pesel|cpf|bsn|burgerservicenummer|sofi.?nummer|dni|nie|nif|"
                   r"documento nacional|aadhaa?r|uidai|pan|permanent account|t\.?c\.?.?kimlik|"
                   r"tckn|kimlik.?no|steuer.?id|identifikationsnummer|idnr|nik|ktp|nomor induk|"
                   r"rrn|resident.?registration|national insurance|ni.?number|ni.?no|nino|"
                   r"yswiriant gwladol|foreign tax identifying number|foreign tin|"
                   r"my.?number|resident.?id|id.?card|shenfenzheng|passport|pasaporte|"
                   r"passaporte|passeport|reisepass|passaporto|paspoort|paszport|pasaport|paspor|"
                   r"pass.?(nummer|nr)|ppt|(personal)?ausweis|s.curit. sociale|nir|insee|"
                   r"carte vitale|assur.|"
                   r"rijksregister|registre national|num.ro national|national number|insz|rut|"
                   r"personnummer|personnr|national.?id|document.?(number|no)|tax.?id|"
                   r"id.?(number|no)|personal.?(id|number)|identity.?(number|no)|"
                   # (the second round: Canada, the UK's NHS, Australia, Singapore, Hong Kong,
                   # South Africa, the ITIN, the Nordics, Thailand, Argentina, Israel,
                   # Romania, Ireland, New Zealand; not their short words that are others'
                   # too: "sin", "fin", "pps", "ird")
                   r"social insurance|sin.?(number|no)|nhs|tfn|tax file number|medicare|nric|"
                   r"hkid|hk.?id|identity card|south african id|r?sa.?id|itin|"
                   r"individual taxpayer|henkil.tunnus|hetu|sotu|personal identity code|"
                   r"personbeteckning|f.dselsnummer|foedselsnummer|fnr|d-nummer|cpr|"
                   r"thai.?(national.?)?id|cui[tl]|teudat.?zehut|israeli id|cnp|"
                   r"cod numeric personal|ppsn|pps.?(number|no)|personal public service|"
                   r"ird.?(number|no)|inland revenue|mykad|no\.? ?(ic|kp)|curp|uinfin|"
                   r"social.insurance|cnp|"
                   # (the third round: Spain's NAF, Korea's jumin, Saudi Arabia's iqama, the
                   # UAE's, Iran's, Viet Nam's, Nigeria's, Kenya's, a c\u00e9dula, Ghana's)
                   r"afiliaci.n|nuss|jumin|iqama(.?no)?|emirates.?id|melli|cccd|cmnd|nin|bvn|"
                   r"kra.?pin|c.dula|dpi|nrc|ghana card|"
                   # (the fourth round: Mexico's NSS, Peru's RUC, Kenya's and Rwanda's in
                   # Swahili and Kinyarwanda; not Angola's "BI" nor Mauritius' "NIC")
                   r"nss|imss|ruc|kitambulisho|indangamuntu|bilhete de identidade|"
                   # (the fifth round: Central and Eastern Europe, the Baltics, the Balkans,
                   # Central Asia)
                   # (their short names in capitals only: "Holiday Inn", "Taj")
                   "snils|(?-i:INN|IIN|EGN|OIB|JMBG|JMB|TAJ|IDNP)|emso|em\u0161o|isikukood|"
                   "asmens kod|personas kod|ad\u00f3azonos\u00edt\u00f3|jshshir|pinfl|"
                   # (the seventh round: Germany's health insurance number, the KVNR, under
                   # its names and FHIR's identifier system)
                   r"(?-i:KVNR|eGK)|versicherten.?n(umme)?r|kvid-10|insured.?id|"
                   # (the eighth round: Pakistan's, Sri Lanka's, Kuwait's, India's health,
                   # Bangladesh's, Qatar's, the Philippines', Indonesia's tax, Austria's,
                   # Germany's pension, Switzerland's, Luxembourg's and Iceland's numbers)
                   r"cnic|(?-i:NIC|NID|QID|PSN|PCN|SSS|NPWP|SVNR|VSNR|AHV|AVS|StNr)|civil.?id|"
                   r"abha|philsys|kennital[a-z]*|matricule|versicherungs-?n(umme)?r|"
                   r"sozialversicherungs-?n(umme)?r|ausweis.?n(umme)?r|"
                   # (the ninth round: the US's, Canada's, the UK's, Ireland's, Australia's and
                   # New Zealand's health, tax and driving numbers)
                   r"(?-i:OHIP|HCN|PHN|RAMQ|CHI|UTR|NHI|CIN|DL)|health.?card|assurance maladie|"
                   # (the CC-CH round: Germany's residence title, France's identity card,
                   # a BRP's and a passport's keys)
                   r"aufenthaltstitels?|carte d.identit.|(?-i:CNI)|brp.?no|pp.?num|"
                   r"a-?number|driver'?s?.?licen[cs]e|permis de conduire|licencia|"
                   # (the AR-AW round: an A-File's number, a service member's DoD ID)
                   r"a-?file|edipi|dod.?id|"
                   # (the BR-BW round: Spain's and Portugal's tax numbers in e-invoices'
                   # elements, Facturae's and SAF-T's)
                   r"taxidentificationnumber|customertaxid|"
                   r"unique taxpayer reference|personal health number|"
                   # (the MC-MH round: Centrelink's CRN, a KV-Nr., a driver's licence's short
                   # names, a Medicaid id)
                   r"(?-i:CRN|KV-?Nr)|customer reference number|driver'?s?.?lic|rijbewijs|"
                   r"medica(id|re).?(id|number|no|#))([^a-z]|$)|"
                   # (the SC-SE round: a seafarer's documents, Brazil's voter card)
                   r"(?-i:INDoS|SIRB)|cdc.?no|seam[ae]n'?s?.?book|t.tulo.(de.)?eleitor|"
                   # (the OC-OH round: Australia's DVA and NDIS numbers, Belgium's NISS,
                   # Germany's Vers.-Nr.)
                   r"(?-i:DVA|NISS)|ndis.?(number|no)|vers\.?.?-?nr|"
                   # (their Cyrillic names: SNILS, INN, RNOKPP, IIN, ZhSN, EGN, JMBG, LNCh)
                   "\u0421\u041d\u0418\u041b\u0421|\u0418\u041d\u041d|"
                   "\u0420\u041d\u041e\u041a\u041f\u041f|\u0418\u0418\u041d|\u0416\u0421\u041d|"
                   "\u0415\u0413\u041d|\u0408\u041c\u0411\u0413|\u0415\u041c\u0411\u0413|"
                   "\u041b\u041d\u0427|"
                   # (the sixth round: Ukraine's UNZR, Russian and Kazakh passports and
                   # identity cards, a Russian driver's licence)
                   "\u0423\u041d\u0417\u0420|\u0404\u0414\u0414\u0420|"
                   "[\u041f\u043f]\u0430\u0441\u043f\u043e\u0440\u0442|"
                   "\u0443\u0434\u043e\u0441\u0442\u043e\u0432\u0435\u0440\u0435\u043d\u0438|"
                   "\u0412\u0423 |"
                   # (Morocco's national card in Arabic)
                   "\u0627\u0644\u0628\u0637\u0627\u0642\u0629 "
                   "\u0627\u0644\u0648\u0637\u0646\u064a\u0629|"
                   # (their own scripts' names: Aadhaar, Korea's, Japan's, China's, passports,
                   # Thailand's, Israel's)
                   "\u0906\u0927\u093e\u0930|\uc8fc\ubbfc|\u30de\u30a4\u30ca\u30f3\u30d0\u30fc|"
                   "\u500b\u4eba\u756a\u53f7|\u8eab\u4efd|\u516c\u6c11|\u30d1\u30b9\u30dd\u30fc\u30c8|"
                   "\u62a4\u7167|\u8b77\u7167|\uc5ec\uad8c|\u65c5\u5238|"
                   "\u0e40\u0e25\u0e02\u0e1b\u0e23\u0e30\u0e08\u0e33\u0e15\u0e31\u0e27|"
                   "\u0e1a\u0e31\u0e15\u0e23\u0e1b\u0e23\u0e30\u0e0a\u0e32\u0e0a\u0e19|"
                   "\u05ea\u05e2\u05d5\u05d3\u05ea \u05d6\u05d4\u05d5\u05ea|"
                   "\u05de\u05e1\u05e4\u05e8 \u05d6\u05d4\u05d5\u05ea"
                   r")[^\n]{0,64}?(\n[^\n]{0,64}?){0,2}[0-9A-Z]{0,6}[0-9][0-9A-Z .()-]{3,20}|"
                   r"\b[0-9]{3}\.[0-9]{3}\.[0-9]{3}-[0-9]{2}\b|"
                   # (Russia's SNILS and a rodné číslo with its slash, in their own shapes)
                   r"\b[0-9]{3}-[0-9]{3}-[0-9]{3}[ -][0-9]{2}\b|\b[0-9]{6}/[0-9]{3,4}\b|"
                   # (Brazil's NIS and Zimbabwe's id, in their own shapes)
                   r"\b[0-9]{3}\.[0-9]{5}\.[0-9]{2}-[0-9]\b|\b[0-9]{2}-[0-9]{6,7}-?[A-Z]-?[0-9]{2}\b|"
                   r"SSR DOCS [A-Z0-9]{2} HK[0-9]+ P/[A-Z]{3}/[A-Z0-9]+|"
                   # (the seventh round: Medicare's MBI in its shape; an HL7 v2 patient's or
                   # insured's segment whole, to its end or a JSON string's escaped one: its
                   # fields are the person's ids, name, birth date and address)
                   r"\b(?-i:[1-9][AC-HJKMNP-RT-Y][AC-HJKMNP-RT-Y0-9][0-9]-?[AC-HJKMNP-RT-Y]"
                   r"[AC-HJKMNP-RT-Y0-9][0-9]-?[AC-HJKMNP-RT-Y]{2}[0-9]{2})\b|"
                   r"(\b|\\[rn])(?-i:PID|IN1)\|([^\r\n\\]|\\[^rn])*|"
                   # (the eighth round's shapes: a CNIC's dashes, Sri Lanka's old NIC, a
                   # MyKad's dashes, Germany's pension insurance number, Switzerland's AHV)
                   r"\b[1-7][0-9]{4}-[0-9]{7}-[1-9]\b|\b[0-9]{9}[VX]\b|\b[0-9]{6}-[0-9]{2}-[0-9]{4}\b|"
                   r"\b[0-9]{8}[A-Z][0-9]{3}\b|\b756\.[0-9]{4}\.[0-9]{4}\.[0-9]{2}\b|"
                   # (a British driving licence number, a New Zealand bank account)
                   r"\b[A-Z9]{5}[0-9][0156][0-9][0-3][0-9]{2}[A-Z9]{2}[0-9][A-Z]{2}\b|"
                   r"\b[0-9]{2}-[0-9]{4}-[0-9]{7}-[0-9]{2,3}\b|"
                   r"\b[A-Z]{6}[0-9LMNP-V]{2}[ABCDEHLMPRST][0-9LMNP-V]{2}[A-Z][0-9LMNP-V]{3}[A-Z]\b|"
                   r"\b[A-Z]{4}[0-9]{6}[HM][A-Z]{5}[0-9A-Z][0-9]\b|"
                   # (Spain's NIE in its shape)
                   r"\b[XYZ][0-9]{7}[A-Z]\b|"
                   # (RC-RH: an APIS entry's and a dashed SSR DOCS's passport, EPFO's ECR
                   # line, Tally's PAN)
                   r"DOC[ \t]+P[ \t]+[A-Z]{3}[ \t]+[A-Z0-9]{6,9}[ \t]+EXP"
                   r"|DOCS[ \t]+[A-Z0-9]{2}[ \t]+HK[0-9]-P-[A-Z]{1,3}-[A-Z0-9]{5,20}-"
                   r"|(?m:^1[0-9]{11}#~#)|<INCOMETAXNUMBER>[A-Za-z0-9]{10}<",
    # A handset's, a subscriber's or a SIM's id after its name.
    "telecom_id": r"(?i)\b((served[ _-]?)?(imei(sv|2)?|imsi|iccid|meid|sim[ _-]?(serial|card[ _-]?"
                  r"(number|no)))([^a-z]|$)|sim[ \t]*[:=]|at\+(cimi|c?gsn|q?i?ccid))"
                  r"[^0-9\n]{0,40}[0-9A-F][0-9A-F -]{12,26}"
                  # (RC-RH: a core network's IMSI, Open5GS's [imsi-...], S6a's User-Name)
                  r"|imsi-[2-7][0-9]{14}|user-name[ \t]*=[ \t]*\"?[2-7][0-9]{14}",
    "ipv6": _v6(_V6_ROUTED_HEAD),
    "ipv4": _PUBLIC_V4,
    # Broader than their detectors, as the rest: every address of that family.
    "ipv6_private": _v6("[0-9A-Fa-f]{1,4}"),
    "ipv4_private": rf"\b({_OCTET}\.){{3}}{_OCTET}\b",
    "phone": r"\+[1-9][0-9 .()-]{6,20}[0-9]|"
             r"(\b1[ .-])?\(?\b[0-9]{3}\)?[ .-][0-9]{3}[ .-][0-9]{4}\b|"
             r"\b0[0-9]{1,4}[ -][0-9]{3,4}[ -]?[0-9]{3,4}\b|\b0[1-9]([ .][0-9]{2}){4}\b|"
             r"\b00[ .-][1-9][0-9]{0,2}([ .-][0-9]{1,8}){1,5}\b|"
             # (Russia's mobiles with the trunk 8: "8(999)6934559")
             r"\b8[ -]?\(9[0-9]{2}\)[ -]?[0-9]{3}[ -]?[0-9]{2}[ -]?[0-9]{2}\b|"
             # a number said digit by digit: seven digit words or more in a row
             rf"(?i:\b({_DIGIT_WORDS})([ \t,.-]+({_DIGIT_WORDS})){{6,}}\b)|"
             # (RC-RH: a SIP user's number, a PCF's E.164 id, an HLR's ISDN, FreeRADIUS's cli,
             # an XML phone element's number, Tally's ledger phone)
             r"sips?:\+?[0-9]{8,15}@"
             r"|END_USER_E164\\?\"[ \t]*,[ \t]*\\?\"data\\?\"[ \t]*:[ \t]*\\?\"\+?[0-9]{8,15}"
             r"|ISDN=\"\+?[0-9]{8,15}\"|\(from client [^\s]+ port [0-9]+ cli \+?[0-9]{8,15}\)"
             r"|(?i:<phone[^>\n]{0,80}number=)\\?\"\+?[0-9][0-9 -]{5,18}[0-9]"
             r"|<LEDGER(PHONE|MOBILE)>\+?[0-9 -]{8,18}<"
             # (KC-KH: a WhatsApp account's JID, a Cloud API status's recipient)
             r"|\b[0-9]{8,15}(:[0-9]{1,3})?@(s\.whatsapp\.net|c\.us)\b"
             r"|(?i:recipient_id)\\?\"[ \t]*:[ \t]*\\?\"\+?[1-9][0-9]{9,14}",
}
# What Python's re takes and RE2 refuses: look-around, atomic groups, back-references, named
# groups in Python's spelling, and the escapes RE2 lacks (\u00f3: RE2 spells it \x{f3}, and
# a pattern here writes the letter itself), an escape counted only when not itself escaped.
_RE2_UNSUPPORTED = re.compile(r"\(\?[=!<>#]|\(\?P?[<=]|(?<!\\)(?:\\\\)*\\[1-9uUNZ]")


def _re2_ok(pattern: str) -> bool:
    return _RE2_UNSUPPORTED.search(pattern) is None


def redaction_processor(policy: Policy, *, place: str) -> dict[str, Any]:
    """The ``redaction`` processor config that mirrors ``policy``."""
    blocked_keys = [f"^{re.escape(k)}$" for k in sorted(policy.drop)]
    blocked_keys += [p.pattern for p in policy.drop_patterns]
    # Identity keys are hashed in process; the Collector cannot key a hash, so what reaches it
    # from elsewhere with a tenant or user id is masked (fails closed).
    blocked_keys += [f"^{re.escape(k)}$" for k in sorted(policy.hash_keys)]
    blocked_keys += [p.pattern for p in policy.hash_key_patterns]
    if policy.content_capture is ContentCapture.NO_CONTENT:
        blocked_keys += [f"^{re.escape(k)}$" for k in sorted(policy.content_keys)]
    for i, pattern in enumerate(blocked_keys):
        if not _re2_ok(pattern):
            raise ValueError(f"{policy.source}: a key pattern is not RE2 ({place}): "
                             f"blocked_key_patterns[{i}] = {pattern!r}")
    config: dict[str, Any] = {
        # Keys the policy does not list are scanned in-process (unknown: scan); the Collector
        # then keeps them too and masks matching values. unknown: drop fails closed here too.
        "allow_all_keys": policy.unknown == "scan",
        "ignored_keys": sorted(policy.allow),
        "blocked_key_patterns": blocked_keys,
        "blocked_values": [RE2_PATTERNS[kind] for kind in policy.kinds],
        "summary": "info",
    }
    if policy.unknown != "scan":
        content = policy.content_keys if policy.content_capture is not ContentCapture.NO_CONTENT \
            else frozenset()
        config["allowed_keys"] = sorted(policy.scan | policy.allow | content)
    return config


def _memory_limiter() -> dict[str, Any]:
    return {"check_interval": "1s", "limit_percentage": 80, "spike_limit_percentage": 20}


def _own_metrics() -> dict[str, Any]:
    """The Collector's own metrics on 0.0.0.0:8888 (the default listens on 127.0.0.1 only, out
    of Prometheus' reach in a container)."""
    return {"metrics": {"readers": [{"pull": {"exporter": {"prometheus": {
        "host": "0.0.0.0", "port": 8888}}}}]}}


def _otlp_receiver() -> dict[str, Any]:
    return {"protocols": {"grpc": {"endpoint": "0.0.0.0:4317"},
                          "http": {"endpoint": "0.0.0.0:4318"}}}


def agent_config(policy: Policy) -> dict[str, Any]:
    return {
        "extensions": {"health_check": {"endpoint": "0.0.0.0:13133"}},
        "receivers": {"otlp": _otlp_receiver()},
        "processors": {
            "memory_limiter": _memory_limiter(),
            "redaction": redaction_processor(policy, place="agent"),
            "batch": {"timeout": "1s", "send_batch_size": 1024, "send_batch_max_size": 2048},
        },
        "exporters": {
            "loadbalancing": {
                "routing_key": "traceID",
                "protocol": {"otlp": {"timeout": "5s", "tls": {"insecure": True}}},
                # DNSResolver.Port is a Go string: an int fails config load (no weak typing).
                "resolver": {"dns": {"hostname": "${env:GATEWAY_HOSTNAME:-otel-gateway}",
                                     "port": "4317"}},
            },
        },
        "service": {
            "extensions": ["health_check"],
            "telemetry": _own_metrics(),
            "pipelines": {"traces": {"receivers": ["otlp"],
                                     "processors": ["memory_limiter", "redaction", "batch"],
                                     "exporters": ["loadbalancing"]}},
        },
    }


def tail_policies(ttft_threshold_s: float, e2e_threshold_s: float,
                  baseline_percent: float) -> list[dict[str, Any]]:
    """Keep every trace worth looking at, and a baseline of the rest."""
    return [
        {"name": "errors", "type": "status_code", "status_code": {"status_codes": ["ERROR"]}},
        {"name": "bad-finish", "type": "string_attribute",
         "string_attribute": {"key": "servescope.finish_reason",
                              "values": ["deadline", "client_cancel", "slow_consumer",
                                         "error", "rejected"]}},
        {"name": "slow-ttft", "type": "ottl_condition",
         "ottl_condition": {"error_mode": "ignore",
                            "span": [f'attributes["servescope.ttft_seconds"] > '
                                     f"{ttft_threshold_s!r}"]}},
        {"name": "slow-e2e", "type": "latency",
         "latency": {"threshold_ms": round(e2e_threshold_s * 1000)}},
        # Metric exemplars point at these traces: keep them, so exemplar links never dangle.
        {"name": "exemplars", "type": "boolean_attribute",
         "boolean_attribute": {"key": "servescope.exemplar", "value": True}},
        {"name": "baseline", "type": "probabilistic",
         "probabilistic": {"sampling_percentage": baseline_percent}},
    ]


def gateway_config(policy: Policy, ttft_threshold_s: float, e2e_threshold_s: float,
                   baseline_percent: float = 10.0) -> dict[str, Any]:
    return {
        "extensions": {"health_check": {"endpoint": "0.0.0.0:13133"}},
        "receivers": {"otlp": _otlp_receiver()},
        "processors": {
            "memory_limiter": _memory_limiter(),
            "redaction": redaction_processor(policy, place="gateway"),
            "tail_sampling": {
                "decision_wait": "10s", "num_traces": 50000,
                "expected_new_traces_per_sec": 100,
                "decision_cache": {"sampled_cache_size": 100000},
                "policies": tail_policies(ttft_threshold_s, e2e_threshold_s, baseline_percent),
            },
            "batch": {"timeout": "1s", "send_batch_size": 1024, "send_batch_max_size": 2048},
        },
        "exporters": {
            "otlp": {"endpoint": "${env:TEMPO_OTLP_ENDPOINT:-tempo:4317}",
                     "tls": {"insecure": True},
                     "sending_queue": {"enabled": True, "queue_size": 5000},
                     "retry_on_failure": {"enabled": True, "max_elapsed_time": "120s"}},
        },
        "service": {
            "extensions": ["health_check"],
            "telemetry": _own_metrics(),
            "pipelines": {"traces": {
                "receivers": ["otlp"],
                "processors": ["memory_limiter", "redaction", "tail_sampling", "batch"],
                "exporters": ["otlp"]}},
        },
    }


def _location(path: Any) -> str:
    return ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in path).replace(".[", "[")


def _schema_problems(config: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft202012Validator(contrib_schema())
    problems = []
    for error in validator.iter_errors(config):
        # an anyOf failure (optional sections: null or a block) names its closest branch
        best = jsonschema.exceptions.best_match([error])
        where = _location(best.absolute_path) or "(top level)"
        problems.append(f"{where}: {best.message} (contrib {CONTRIB_VERSION})")
    return sorted(problems)


def _policy_problems(config: dict[str, Any]) -> list[str]:
    """A tail-sampling policy carries its own type's block and no other (PolicyCfg decodes the
    others too, silently: a misplaced block would configure nothing)."""
    problems = []
    processors = config.get("processors") or {}
    policies = (processors.get("tail_sampling") or {}).get("policies") or []
    for i, pol in enumerate(policies if isinstance(policies, list) else []):
        if not isinstance(pol, dict):
            continue
        extra = set(pol) - {"name", "type", pol.get("type")}
        if extra:
            problems.append(f"processors.tail_sampling.policies[{i}]: blocks {sorted(extra)} "
                            f"do not belong to type {pol.get('type')!r}")
    return problems


def _reference_problems(config: dict[str, Any]) -> list[str]:
    problems = []
    service = config.get("service") or {}
    for ext in service.get("extensions") or []:
        if ext not in (config.get("extensions") or {}):
            problems.append(f"service.extensions: {ext} is not defined")
    for pname, pipe in (service.get("pipelines") or {}).items():
        for section in ("receivers", "processors", "exporters"):
            for comp in (pipe or {}).get(section) or []:
                if comp not in (config.get(section) or {}):
                    problems.append(f"service.pipelines.{pname}.{section}: {comp} undefined")
    redaction = (config.get("processors") or {}).get("redaction") or {}
    for key in ("blocked_values", "blocked_key_patterns"):
        for j, pattern in enumerate(redaction.get(key) or []):
            if isinstance(pattern, str) and not _re2_ok(pattern):
                problems.append(f"processors.redaction.{key}[{j}]: not RE2: {pattern!r}")
    return problems


def validate_config(config: dict[str, Any]) -> list[str]:
    """Problems with ``config`` against the pinned release: component names, field names and
    Go types (the typed model), tail-sampling policy blocks, references between sections and
    RE2 patterns. Each problem names the field."""
    return _schema_problems(config) + _policy_problems(config) + _reference_problems(config)


def _header(role: str, source: str) -> str:
    return (f"# GENERATED by servescope from {source}: do not edit.\n"
            f"# Regenerate with `servescope generate` (a test fails when this file is stale).\n"
            f"# OpenTelemetry Collector {role} for {IMAGE}\n"
            f"# Component names, fields and Go types checked against "
            f"opentelemetry-collector-contrib v{CONTRIB_VERSION}\n"
            f"# (each with its upstream source file: collector/{SCHEMA_FILE.name})\n")


def _render(config: dict[str, Any], role: str, source: str) -> str:
    problems = validate_config(config)
    if problems:
        raise ValueError(f"generated {role} config is invalid: " + "; ".join(problems))
    body = yaml.safe_dump(config, sort_keys=False, default_flow_style=False, width=10_000)
    return _header(role, source) + body


def _slo_thresholds() -> tuple[float, float]:
    spec = SLOSpec.default()
    e2e = spec.e2e.threshold_seconds if spec.e2e is not None else 60.0
    return spec.ttft.threshold_seconds, e2e


def collector_configs(policy: Policy | None = None, *, ttft_threshold_s: float | None = None,
                      e2e_threshold_s: float | None = None,
                      source: str = "redaction/default_policy.yaml") -> dict[str, str]:
    """File name -> YAML text of both configs."""
    policy = policy or load_policy()
    if ttft_threshold_s is None or e2e_threshold_s is None:
        ttft, e2e = _slo_thresholds()
        ttft_threshold_s = ttft if ttft_threshold_s is None else ttft_threshold_s
        e2e_threshold_s = e2e if e2e_threshold_s is None else e2e_threshold_s
    return {
        "agent.yaml": _render(agent_config(policy), "agent", source),
        "gateway.yaml": _render(gateway_config(policy, ttft_threshold_s, e2e_threshold_s),
                                "gateway", source + " and the SLO spec"),
    }


def generate_collector_configs(out_dir: str | Path, check: bool = False, *,
                               policy: Policy | None = None,
                               ttft_threshold_s: float | None = None,
                               e2e_threshold_s: float | None = None) -> list[str]:
    """Write the configs into ``out_dir``; with ``check``, write nothing and return the paths
    that are missing or stale (empty: up to date). Without ``check``, returns paths written.
    Thresholds default to the shipped SLO spec, the policy to the shipped policy."""
    out = Path(out_dir)
    changed: list[str] = []
    texts = collector_configs(policy, ttft_threshold_s=ttft_threshold_s,
                              e2e_threshold_s=e2e_threshold_s)
    for name, text in texts.items():
        path = out / name
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        changed.append(str(path))
        if not check:
            out.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return changed
