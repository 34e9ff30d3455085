"""A corpus of what LLM-serving logs, spans and prompts hold, in the classes earlier detectors
missed, and of the operations text they must leave alone.

Positives: one planted value per sample (a connection-string key, a SAS signature, a
percent-encoded or base64-wrapped address, a password in a URL or on a command line, ...),
in the surroundings it is met in: a log line, a JSON blob, a URL, a header, a prompt, a chat
message. The value is written the way each surrounding escapes it (JSON, percent-encoding).
A value counts as caught only when no fragment of half its length (at least 6 characters)
is left in the redacted text.

Negatives: lines in the shapes vLLM, SGLang, TGI, uvicorn, Kubernetes and the OpenAI API
print (usage objects, token counts, tokenizer and model names, bind addresses, UUIDs,
digests, pod names, trace ids, versions, ports, CIDRs, ISBNs, Luhn-failing ids). Private
addresses are not among them: the policy redacts those by choice.

The benchmark reuses both (same seed).
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

SEED = 20261201
PER_KIND = 48
NEGATIVE_ROUNDS = 5
CHECKSUMMED = frozenset({"credit_card", "iban"})


@dataclass(frozen=True)
class Planted:
    text: str
    kind: str
    value: str  # as it appears in text
    surrounding: str


def _r(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


_B64 = string.ascii_letters + string.digits + "+/"
_FIRST = ["alice", "bob", "carol", "dmitri", "eve", "fatima", "gustavo", "hana", "ivan", "jun"]
_LAST = ["smith", "nguyen", "garcia", "okafor", "muller", "tanaka", "kowalski", "haddad"]
_DOMAINS = ["example.com", "corp.example.org", "mail.example.co.uk", "acme-bank.eu",
            "uni-example.de"]


def _email(rng: random.Random) -> str:
    sep = rng.choice([".", "_", "", "+"])
    name = f"{rng.choice(_FIRST)}{sep}{rng.choice(_LAST)}{rng.randint(1, 99)}"
    return f"{name}@{rng.choice(_DOMAINS)}"


def _password(rng: random.Random) -> str:
    body = _r(rng, rng.randint(9, 16), string.ascii_letters + string.digits + "#$*-_.")
    return body + rng.choice(["", "", "!", "~", "!!", "9"])


# --- snippets: (text with the value, the value) -----------------------------------------------
def connection_string(rng: random.Random) -> tuple[str, str]:
    key = _r(rng, 86, _B64) + "=="
    short = _r(rng, 43, _B64) + "="
    acct = rng.choice(["prodlogs", "llmcache", "stmodels01"])
    return rng.choice([
        (f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={key};"
         "EndpointSuffix=core.windows.net", key),
        (f"AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName={acct};"
         f"AccountKey={key}", key),
        (f"Endpoint=sb://{acct}.servicebus.windows.net/;SharedAccessKeyName="
         f"RootManageSharedAccessKey;SharedAccessKey={short}", short),
        (f"connection string: AccountName={acct};AccountKey={key};BlobEndpoint="
         f"https://{acct}.blob.core.windows.net/", key),
    ])


def sas_signature(rng: random.Random) -> tuple[str, str]:
    sig = quote(_r(rng, 43, _B64) + "=", safe="")
    acct = rng.choice(["prodlogs", "llmcache", "stmodels01"])
    url = (f"https://{acct}.blob.core.windows.net/weights/model-{rng.randint(1, 9)}.safetensors"
           f"?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-0{rng.randint(1, 9)}T00:00:00Z"
           f"&spr=https&sig={sig}")
    return rng.choice([(url, sig), (f"SharedAccessSignature=sv=2022-11-02&sig={sig}&se=2026", sig),
                       (f"GET {url} -> 403 AuthenticationFailed", sig)])


def url_encoded_pii(rng: random.Random) -> tuple[str, str]:
    email = _email(rng)
    once = quote(email, safe="")
    twice = quote(once, safe="")
    enc = rng.choice([once, once, twice])
    return rng.choice([
        (f"baggage: user.email={enc},tenant.tier=gold", enc),
        (f"GET /v1/users/{enc}/sessions HTTP/1.1", enc),
        (f"https://app.example.net/invite?to={enc}&ref=mail", enc),
        (f"redirect_uri=https%3A%2F%2Fapp.example.net%2Fcb%3Femail%3D{quote(email, safe='')}",
         quote(email, safe="")),
    ])


_UNICODE_EMAILS = ["josé.garcía@exämple.com", "müller@bücher.de", "用户@例子.广告",
                   "δοκιμή@παράδειγμα.δοκιμή", "андрей@пример.рф", "zoë.ørsted@exåmple.dk",
                   "françois@société.fr", "søren@kø.dk", "अजय@डाटामेल.भारत", "山田@例え.jp"]


def unicode_email(rng: random.Random) -> tuple[str, str]:
    base = rng.choice(_UNICODE_EMAILS)
    local, domain = base.split("@")
    email = f"{local}{rng.randint(1, 999)}@{domain}"
    return rng.choice([(f"reply to {email} please", email), (f"From: {email}", email),
                       (f"user={email} logged in", email)])


def cli_password(rng: random.Random) -> tuple[str, str]:
    pw = _r(rng, rng.randint(10, 16), string.ascii_letters + string.digits + "#%^*_")
    host = rng.choice(["db-primary", "10.1.2.3", "pg.internal", "localhost"])
    return rng.choice([
        (f"mysql -h {host} -u root -p{pw} -e 'SHOW PROCESSLIST'", pw),
        (f"psql --host={host} --username=app --password {pw} -d llm", pw),
        (f"redis-cli -h {host} -p 6379 -a {pw} INFO memory", pw),
        (f"sshpass -p {pw} ssh ops@{host} 'systemctl restart vllm'", pw),
        (f"sshpass -p'{pw}' scp model.tar ops@{host}:/srv", pw),
        (f"htpasswd -bc /etc/nginx/.htpasswd admin {pw}", pw),
        (f"docker login registry.example.com --username ci --password {pw}", pw),
        (f"docker login -u ci -p {pw} registry.example.com", pw),
        (f"mysqldump -uroot -p{pw} llm > backup.sql", pw),
        (f'mongosh "mongodb://{host}/admin" --username root --password "{pw}"', pw),
    ])


def url_password(rng: random.Random) -> tuple[str, str]:
    pw = _password(rng)
    user = rng.choice(["app", "svc_llm", "admin", "guest"])
    host = rng.choice(["db.internal", "10.20.0.5", "pg-0.pg.svc.cluster.local",
                       "broker.example.com"])
    return rng.choice([
        (f"postgres://{user}:{pw}@{host}:5432/llm", pw),
        (f"postgresql+asyncpg://{user}:{pw}@{host}/llm?sslmode=require", pw),
        (f"redis://:{pw}@{host}:6379/0", pw),
        (f"rediss://default:{pw}@{host}:6380", pw),
        (f"amqp://{user}:{pw}@{host}:5672/vhost", pw),
        (f"mongodb+srv://{user}:{pw}@cluster0.example.mongodb.net/", pw),
        (f"https://{user}:{pw}@registry.example.com/v2/", pw),
        (f"mysql://{user}:{pw}@{host}/llm", pw),
    ])


def base64_credentials(rng: random.Random) -> tuple[str, str]:
    user = rng.choice(["ci-bot", "deploy", "alice", "robot$pull"])
    creds = base64.b64encode(f"{user}:{_password(rng)}".encode()).decode()
    link = base64.urlsafe_b64encode(_email(rng).encode()).decode().rstrip("=")
    return rng.choice([
        (f'{{"auths": {{"registry.example.com": {{"auth": "{creds}"}}}}}}', creds),
        (f'"auth":"{creds}"', creds),
        (f"https://mail.example.net/unsubscribe?u={link}&list=weekly", link),
        (f"https://app.example.net/verify/{link}", link),
    ])


def aws_secret_plain(rng: random.Random) -> tuple[str, str]:
    key = _r(rng, 40, _B64)
    return rng.choice([
        (f"aws_secret_access_key {key}", key),
        (f"aws_secret_access_key     {key}     shared-credentials-file", key),
        (f"AWS_SECRET_ACCESS_KEY {key}", key),
        (f"secret_key {key} env", key),
    ])


def bare_token(rng: random.Random) -> tuple[str, str]:
    glpat = "glpat-" + _r(rng, 20, string.ascii_letters + string.digits + "-_")
    npm = "npm_" + _r(rng, 36)
    sg = f"SG.{_r(rng, 22, string.ascii_letters + string.digits + '-_')}." \
         f"{_r(rng, 43, string.ascii_letters + string.digits + '-_')}"
    bearer = _r(rng, 32, string.ascii_letters + string.digits + "-._")
    return rng.choice([
        (f"the deploy token is {glpat} do not share", glpat),
        (f"use {npm} for publishing", npm),
        (f"sendgrid key {sg} rotated", sg),
        (f"my bearer is {bearer}, can you check why it fails", bearer),
        (f"bearer token: {bearer}", bearer),
    ])


def ssn_plain(rng: random.Random) -> tuple[str, str]:
    ssn = f"{rng.randint(1, 665):03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"
    return rng.choice([(f'"ssn": "{ssn}"', ssn), (f"ssn={ssn}", ssn), (f"SSN: {ssn}", ssn),
                       (f"customer_ssn: {ssn}", ssn), (f"social_security_number={ssn}", ssn)])


def phone_00(rng: random.Random) -> tuple[str, str]:
    d = "".join(rng.choice(string.digits) for _ in range(10))
    number = rng.choice([f"0044 20 {d[:4]} {d[4:8]}", f"0049 151 {d[:8]}", f"004915{d[:9]}",
                         f"0033 6 {d[:2]} {d[2:4]} {d[4:6]} {d[6:8]}", f"0034 6{d[:2]} {d[2:5]} "
                         f"{d[5:8]}", f"00{rng.choice(['31', '41', '46', '48'])}{d[:9]}",
                         f"001-{rng.randint(2, 9)}{d[:2]}-{rng.randint(2, 9)}{d[2:4]}-{d[4:8]}"])
    return rng.choice([(f"call me on {number}", number), (f"tel: {number}", number),
                       (f"phone={number}", number)])


def _luhn(prefix: str, length: int, rng: random.Random) -> str:
    body = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    for check in string.digits:
        total = 0
        for i, ch in enumerate(reversed(body + check)):
            d = int(ch) * (2 if i % 2 else 1)
            total += d - 9 if d > 9 else d
        if total % 10 == 0:
            return body + check
    raise AssertionError("unreachable")


def credit_card(rng: random.Random) -> tuple[str, str]:
    number = _luhn(rng.choice(["4", "51", "55", "2221", "6011"]), 16, rng)
    shown = rng.choice([number, " ".join(number[i:i + 4] for i in range(0, 16, 4)),
                        "-".join(number[i:i + 4] for i in range(0, 16, 4))])
    return rng.choice([(f"my card is {shown} exp 04/29", shown), (f"card_number={shown}", shown),
                       (f"charge {shown} for the pro plan", shown)])


def _iban(country: str, bban: str) -> str:
    digits = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{country}{98 - int(digits) % 97:02d}{bban}"


def iban(rng: random.Random) -> str:
    return rng.choice([_iban("DE", "".join(rng.choice(string.digits) for _ in range(18))),
                       _iban("GB", "NWBK" + "".join(rng.choice(string.digits) for _ in range(14))),
                       _iban("NL", "ABNA" + "".join(rng.choice(string.digits) for _ in range(10))),
                       _iban("FR", "".join(rng.choice(string.digits) for _ in range(23)))])


def iban_snippet(rng: random.Random) -> tuple[str, str]:
    value = iban(rng)
    if rng.random() < 0.4:
        value = " ".join(value[i:i + 4] for i in range(0, len(value), 4))
    return rng.choice([(f"please wire it to {value} today", value), (f"iban={value}", value)])


SNIPPETS: dict[str, Callable[[random.Random], tuple[str, str]]] = {
    "connection_string": connection_string, "sas_signature": sas_signature,
    "url_encoded_pii": url_encoded_pii, "unicode_email": unicode_email,
    "cli_password": cli_password, "url_password": url_password,
    "base64_credentials": base64_credentials, "aws_secret_plain": aws_secret_plain,
    "bare_token": bare_token, "ssn_plain": ssn_plain, "phone_00": phone_00,
    "credit_card": credit_card, "iban": iban_snippet,
}


# --- surroundings: each escapes the snippet (and so the value) its own way ------------------
def _json_escape(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _url_escape(text: str) -> str:
    return quote(text, safe="")


Surround = tuple[str, Callable[[str], str], str]
SURROUNDINGS: tuple[Surround, ...] = (
    ("log", str, "2026-11-30T12:00:01.123Z ERROR [worker-3] request failed: {s} (attempt 2)"),
    ("json", _json_escape, '{{"level":"error","msg":"{s}","pod":"vllm-0","ts":1764504001}}'),
    ("url", _url_escape, "GET /v1/debug/echo?note={s}&trace=1 HTTP/1.1"),
    ("header", str, "x-debug-context: {s}"),
    ("prompt", str, 'gen_ai.prompt: "Why does this fail? {s}"'),
    ("chat", _json_escape, '{{"role":"user","content":"hi, here is what I ran: {s}"}}'),
)


def positives(seed: int = SEED, per_kind: int = PER_KIND) -> list[Planted]:
    rng = random.Random(seed)
    out: list[Planted] = []
    for kind, make in SNIPPETS.items():
        for i in range(per_kind):
            name, escape, template = SURROUNDINGS[i % len(SURROUNDINGS)]
            snippet, value = make(rng)
            text = template.format(s=escape(snippet))
            planted = escape(value)
            assert planted in text, (kind, text, planted)
            out.append(Planted(text, kind, planted, name))
    return out


def leaked(value: str, redacted: str) -> str | None:
    """A fragment of ``value`` of half its length (at least 6 characters) still in
    ``redacted``, or None."""
    n = max(6, (len(value) + 1) // 2)
    if len(value) < n:
        return value if value in redacted else None
    for i in range(len(value) - n + 1):
        if value[i:i + n] in redacted:
            return value[i:i + n]
    return None


# --- negatives ----------------------------------------------------------------------------
_MODELS = ["meta-llama/Llama-3.1-8B-Instruct", "mistralai/Mixtral-8x7B-Instruct-v0.1",
           "Qwen/Qwen2.5-7B-Instruct", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
           "google/gemma-2-9b-it", "microsoft/Phi-3-mini-4k-instruct", "gpt-4o-2024-08-06",
           "gpt-4o-mini", "o3-mini-2025-01-31", "bigscience/bloom-560m"]


_ISBNS = ["978-0-13-468599-1", "978-1-4919-5029-4", "9781492032649", "978-3-16-148410-0"]


def _hex(rng: random.Random, n: int) -> str:
    return _r(rng, n, "0123456789abcdef")


def _pod(rng: random.Random, name: str) -> str:
    safe = "bcdfghjklmnpqrstvwxz2456789"  # Kubernetes' suffix alphabet
    return f"{name}-{_r(rng, 10, safe)}-{_r(rng, 5, safe)}"


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _chatcmpl(rng: random.Random) -> str:
    return "chatcmpl-" + _r(rng, 29)


def _luhn_failing(rng: random.Random) -> str:
    number = _luhn(rng.choice(["4", "5"]), 16, rng)
    return number[:-1] + str((int(number[-1]) + rng.randint(1, 9)) % 10)


def _ts(rng: random.Random) -> str:
    return (f"2026-11-{rng.randint(10, 30)}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
            f"{rng.randint(0, 59):02d}.{rng.randint(0, 999999):06d}Z")


def _vllm_time(rng: random.Random) -> str:
    return f"{rng.randint(1, 12):02d}-{rng.randint(10, 28)} {rng.randint(0, 23):02d}:" \
           f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


def _usage(rng: random.Random) -> dict[str, object]:
    p, c = rng.randint(5, 9000), rng.randint(1, 4096)
    return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c,
            "prompt_tokens_details": {"cached_tokens": rng.choice([0, 128, 1024]),
                                      "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": rng.randint(0, 900),
                                          "audio_tokens": 0, "accepted_prediction_tokens": 0,
                                          "rejected_prediction_tokens": 0}}


def _negative_lines(rng: random.Random) -> list[tuple[str, str]]:
    model = rng.choice(_MODELS)
    t = _vllm_time(rng)
    trace, span = _hex(rng, 32), _hex(rng, 16)
    usage = _usage(rng)
    p, c = int(usage["prompt_tokens"]), int(usage["completion_tokens"])  # type: ignore[call-overload]
    port = rng.choice([8000, 8080, 30000, 3000, 9090])
    pod = _pod(rng, rng.choice(["vllm", "sglang-router", "tgi-llama", "servescope-gateway"]))
    version = rng.choice(["0.8.5", "0.9.2", "0.10.1.1", "0.6.3.post1"])
    cid = _chatcmpl(rng)
    created = rng.randint(1_735_000_000, 1_780_000_000)
    fp = "fp_" + _hex(rng, 10)
    chunk = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
             "system_fingerprint": fp, "choices": [], "usage": usage}
    return [
        # vLLM
        ("vllm", f"INFO {t} [api_server.py:1043] vLLM API server version {version}"),
        ("vllm", f"INFO {t} [core.py:58] Initializing a V1 LLM engine (v{version}) with config: "
                 f"model='{model}', speculative_config=None, tokenizer='{model}', "
                 f"skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
                 f"tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, "
                 f"max_seq_len={rng.choice([4096, 8192, 32768])}, download_dir=None, "
                 f"load_format=auto, tensor_parallel_size={rng.choice([1, 2, 4, 8])}, "
                 f"pipeline_parallel_size=1, quantization=None, enforce_eager=False, "
                 f"kv_cache_dtype=auto, device_config=cuda, seed={rng.randint(0, 9)}, "
                 f"served_model_name={model}, enable_prefix_caching=True"),
        ("vllm", f"INFO {t} [loggers.py:116] Engine 000: Avg prompt throughput: "
                 f"{rng.uniform(0, 9000):.1f} tokens/s, Avg generation throughput: "
                 f"{rng.uniform(0, 3000):.1f} tokens/s, Running: {rng.randint(0, 64)} reqs, "
                 f"Waiting: {rng.randint(0, 9)} reqs, GPU KV cache usage: "
                 f"{rng.uniform(0, 100):.1f}%, Prefix cache hit rate: {rng.uniform(0, 100):.1f}%"),
        ("vllm", f"INFO {t} [logger.py:43] Received request {cid}: prompt: '<redacted>', params: "
                 f"SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, "
                 f"repetition_penalty=1.0, temperature=0.7, top_p=0.95, top_k=-1, min_p=0.0, "
                 f"seed=None, stop=[], stop_token_ids=[], bad_words=[], "
                 f"include_stop_str_in_output=False, ignore_eos=False, max_tokens={c}, "
                 f"min_tokens=0, logprobs=None, prompt_logprobs=None, "
                 f"skip_special_tokens=True, spaces_between_special_tokens=True), "
                 f"prompt_token_ids: [128000, 128006, {rng.randint(100, 128000)}, 128007, 271], "
                 f"lora_request: None, prompt_adapter_request: None."),
        ("vllm", f"INFO {t} [engine.py:331] Added request {cid}."),
        ("vllm", f"INFO {t} [kv_cache_utils.py:634] GPU KV cache size: "
                 f"{rng.randint(10000, 900000):,} tokens"),
        ("vllm", f"INFO {t} [kv_cache_utils.py:637] Maximum concurrency for "
                 f"{rng.choice([4096, 8192])} tokens per request: {rng.uniform(1, 90):.2f}x"),
        ("vllm", f"INFO {t} [gpu_model_runner.py:1329] Model loading took "
                 f"{rng.uniform(1, 80):.4f} GiB and {rng.uniform(1, 90):.6f} seconds"),
        ("vllm", f"INFO {t} [backends.py:420] Using cache directory: "
                 f"/root/.cache/vllm/torch_compile_cache/{_hex(rng, 10)}/rank_0_0 for vLLM's "
                 f"torch.compile"),
        ("vllm", f"INFO {t} [launcher.py:36] Route: /v1/chat/completions, Methods: POST"),
        ("vllm", "Loading safetensors checkpoint shards: 100% Completed | 4/4 "
                 f"[00:0{rng.randint(1, 9)}<00:00,  1.{rng.randint(10, 99)}it/s]"),
        ("vllm", f"INFO {t} [api_server.py:1351] Starting vLLM API server 0 on "
                 f"http://0.0.0.0:{port}"),
        ("vllm", f"INFO:     127.0.0.1:{rng.randint(30000, 65000)} - \"POST /v1/chat/completions "
                 "HTTP/1.1\" 200 OK"),
        ("vllm", f"INFO {t} [metrics.py:455] Avg prompt throughput: {rng.uniform(0, 900):.1f} "
                 f"tokens/s, Running: {rng.randint(0, 9)} reqs, Swapped: 0 reqs, Pending: 0 reqs,"
                 f" GPU KV cache usage: {rng.uniform(0, 100):.1f}%, CPU KV cache usage: 0.0%."),
        ("vllm", f"vllm:prompt_tokens_total{{model_name=\"{model}\"}} {float(p):.1f}"),
        ("vllm", f"vllm:generation_tokens_total{{model_name=\"{model}\"}} {float(c):.1f}"),
        # SGLang
        ("sglang", f"[{t} TP0] Prefill batch. #new-seq: {rng.randint(1, 8)}, #new-token: "
                   f"{p}, #cached-token: {rng.randint(0, p)}, token usage: "
                   f"{rng.uniform(0, 1):.2f}, #running-req: {rng.randint(0, 64)}, "
                   f"#queue-req: {rng.randint(0, 9)}"),
        ("sglang", f"[{t} TP0] Decode batch. #running-req: {rng.randint(1, 64)}, #token: "
                   f"{p + c}, token usage: {rng.uniform(0, 1):.2f}, cuda graph: True, gen "
                   f"throughput (token/s): {rng.uniform(10, 4000):.2f}, #queue-req: 0"),
        ("sglang", f"server_args=ServerArgs(model_path='{model}', tokenizer_path='{model}', "
                   f"tokenizer_mode='auto', skip_tokenizer_init=False, load_format='auto', "
                   f"trust_remote_code=False, dtype='auto', kv_cache_dtype='auto', "
                   f"host='0.0.0.0', port={port}, mem_fraction_static=0.88, "
                   f"max_running_requests=None, max_total_tokens=None, "
                   f"chunked_prefill_size={rng.choice([2048, 8192])}, max_prefill_tokens=16384, "
                   f"schedule_policy='fcfs', tp_size={rng.choice([1, 2, 8])}, "
                   f"random_seed={rng.randint(0, 10**9)}, api_key=None, "
                   f"served_model_name='{model}', log_level='info')"),
        ("sglang", f"[{t}] INFO:     Uvicorn running on http://0.0.0.0:{port} "
                   "(Press CTRL+C to quit)"),
        ("sglang", f"[{t}] The server is fired up and ready to roll!"),
        ("sglang", f"[{t} TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
                   f"avail mem={rng.uniform(1, 70):.2f} GB, mem usage={rng.uniform(1, 70):.2f} "
                   "GB."),
        ("sglang", f"[{t} TP0] KV Cache is allocated. #tokens: {rng.randint(10000, 999999)}, "
                   f"K size: {rng.uniform(1, 30):.2f} GB, V size: {rng.uniform(1, 30):.2f} GB"),
        # TGI
        ("tgi", f"{_ts(rng)}  INFO text_generation_launcher: Args {{ model_id: \"{model}\", "
                f"revision: None, validation_workers: 2, sharded: None, num_shard: None, "
                f"quantize: None, max_concurrent_requests: 128, max_best_of: 2, "
                f"max_stop_sequences: 4, max_input_tokens: Some({rng.choice([1024, 4096])}), "
                f"max_total_tokens: Some({rng.choice([2048, 8192])}), "
                f"max_batch_prefill_tokens: Some(4096), hostname: \"0.0.0.0\", port: {port}, "
                f"shard_uds_path: \"/tmp/text-generation-server\", master_addr: \"localhost\", "
                f"master_port: 29500, huggingface_hub_cache: Some(\"/data\"), "
                f"json_output: false, otlp_endpoint: None, cors_allow_origin: [] }}"),
        ("tgi", f"{_ts(rng)}  INFO generate{{parameters=GenerateParameters {{ best_of: None, "
                f"temperature: Some(0.5), repetition_penalty: None, top_k: None, top_p: None, "
                f"do_sample: false, max_new_tokens: Some({c}), return_full_text: None, "
                f"stop: [], truncate: None, seed: None }} total_time=\"{rng.uniform(0, 9):.6f}s\""
                f" validation_time=\"{rng.randint(10, 999)}µs\" queue_time=\""
                f"{rng.randint(10, 999)}µs\" inference_time=\"{rng.uniform(0, 9):.6f}s\" "
                f"time_per_token=\"{rng.uniform(5, 90):.6f}ms\" seed=\"None\"}}: "
                "text_generation_router::server: router/src/server.rs:305: Success"),
        ("tgi", f"{_ts(rng)}  INFO text_generation_router: router/src/main.rs:"
                f"{rng.randint(100, 500)}: Connected"),
        ("tgi", f"{_ts(rng)}  INFO download: text_generation_launcher: Successfully downloaded "
                f"weights for {model}"),
        ("tgi", f"{_ts(rng)}  WARN text_generation_router: router/src/main.rs:"
                f"{rng.randint(100, 500)}: Inferred max batch total tokens: "
                f"{rng.randint(10000, 500000)}"),
        # uvicorn / starlette
        ("uvicorn", f"INFO:     Started server process [{rng.randint(2, 99999)}]"),
        ("uvicorn", f"INFO:     Uvicorn running on http://0.0.0.0:{port} (Press CTRL+C to quit)"),
        ("uvicorn", f"INFO:     127.0.0.1:{rng.randint(30000, 65000)} - \"GET /metrics HTTP/1.1\""
                    f" 200 OK"),
        ("uvicorn", f"INFO:     [::1]:{rng.randint(30000, 65000)} - \"GET /healthz HTTP/1.1\" 200"),
        ("uvicorn", "INFO:     Waiting for application startup."),
        # Kubernetes
        ("k8s", f"Successfully assigned llm/{pod} to gke-prod-gpu-pool-{_hex(rng, 8)}-"
                f"{_r(rng, 4, string.ascii_lowercase + string.digits)}"),
        ("k8s", f"Pulling image \"vllm/vllm-openai:v{version}\""),
        ("k8s", f"Successfully pulled image \"vllm/vllm-openai:v{version}\" in "
                f"{rng.uniform(1, 300):.3f}s ({rng.uniform(1, 300):.3f}s including waiting). "
                f"Image size: {rng.randint(10**9, 2 * 10**10)} bytes."),
        ("k8s", f"Container image \"ghcr.io/servescope/servescope@sha256:{_hex(rng, 64)}\" "
                "already present on machine"),
        ("k8s", f"Readiness probe failed: Get \"http://127.0.0.1:{port}/health\": dial tcp "
                f"127.0.0.1:{port}: connect: connection refused"),
        ("k8s", f"0/{rng.randint(2, 9)} nodes are available: {rng.randint(1, 9)} Insufficient "
                "nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims "
                "found for incoming pod."),
        ("k8s", f"{pod}   1/1     Running   {rng.randint(0, 9)} ({rng.randint(1, 59)}m ago)   "
                f"{rng.randint(1, 30)}d"),
        ("k8s", f"podCIDR: 10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.0/24"),
        ("k8s", f"  podCIDRs:\n  - 10.244.{rng.randint(0, 255)}.0/24\n  - fd00:10:244:"
                f"{rng.randint(1, 99)}::/64"),
        ("k8s", f"service/vllm-svc created; clusterIP: None; ports: {port}/TCP -> "
                f"{port}/TCP"),
        # private networks' addresses: pods, services, nodes, the Ray and Envoy peers
        ("k8s", f"service/vllm-router   ClusterIP   10.{rng.randint(96, 111)}."
                f"{rng.randint(0, 255)}.{rng.randint(1, 254)}   <none>   {port}/TCP   "
                f"{rng.randint(1, 90)}d"),
        ("k8s", f"(RayWorkerWrapper pid={rng.randint(100, 99999)}, ip=192.168."
                f"{rng.randint(0, 255)}.{rng.randint(1, 254)}) INFO custom_all_reduce_utils.py"
                ":204] generating GPU P2P access cache"),
        ("k8s", f"INFO:     172.{rng.randint(16, 31)}.{rng.randint(0, 255)}."
                f"{rng.randint(1, 254)}:{rng.randint(1024, 65535)} - \"POST /v1/chat/completions "
                "HTTP/1.1\" 200 OK"),
        ("k8s", f"dial tcp 100.{rng.randint(64, 127)}.{rng.randint(0, 255)}."
                f"{rng.randint(1, 254)}:15012: i/o timeout; peer [fd00:10:244:"
                f"{rng.randint(1, 99)}::{rng.randint(1, 999)}]:{port}, fe80::1%eth0"),
        ("k8s", f"Created container vllm (uid {_uuid(rng)}), restartCount={rng.randint(0, 9)}"),
        # keys that name where a secret lives, not the secret
        ("k8s", f"env: - name: OPENAI_API_KEY valueFrom: secretKeyRef: {{name: vllm-api-keys-"
                f"{rng.randint(1, 9)}, key: api-key}}; secretName: hf-token-{rng.randint(1, 9)}"),
        ("k8s", f"SECRET_NAME=vllm-api-keys\nAPI_KEY_HEADER=Authorization\nTOKEN_TTL_SECONDS="
                f"{rng.randint(60, 86400)}\nPASSWORD_MIN_LENGTH={rng.randint(8, 16)}"),
        ("k8s", f"password_file=/run/secrets/db-{rng.randint(1, 9)} tokenPath: /var/run/secrets/"
                "kubernetes.io/serviceaccount/token TOKEN_URL=https://auth.example.com/oauth/token"),
        ("k8s", f"resourceVersion: \"{rng.randint(10**6, 10**9)}\", uid: {_uuid(rng)}"),
        ("k8s", f"limits: {{cpu: \"{rng.randint(1, 64)}\", memory: {rng.randint(8, 512)}Gi, "
                f"nvidia.com/gpu: \"{rng.randint(1, 8)}\"}}"),
        # OpenAI API shapes
        ("openai", json.dumps({"id": cid, "object": "chat.completion", "created": created,
                               "model": model, "choices": [{"index": 0, "message": {
                                   "role": "assistant", "content": "Sure, here it is.",
                                   "refusal": None}, "logprobs": None,
                                   "finish_reason": "stop"}], "usage": usage,
                               "service_tier": "default", "system_fingerprint": fp})),
        ("openai", "data: " + json.dumps(chunk, separators=(",", ":"))),
        ("openai", "data: " + json.dumps({"id": cid, "object": "chat.completion.chunk",
                                          "created": created, "model": model, "choices": [{
                                              "index": 0, "delta": {"content": " the"},
                                              "finish_reason": None}]})),
        ("openai", json.dumps({"type": "response.completed", "response": {
            "id": "resp_" + _hex(rng, 48), "model": model, "status": "completed",
            "usage": {"input_tokens": p, "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens": c, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": p + c}}})),
        ("openai", json.dumps({"model": model, "messages": [{"role": "user", "content":
                              "Summarise the release notes."}], "max_tokens": rng.choice(
                              [256, 4096, 65536]), "temperature": 0.2, "stream": True,
                              "stream_options": {"include_usage": True}})),
        ("openai", json.dumps({"logprobs": {"content": [{
            "token": rng.choice([" Paris", " Parisian", "Hello,", " the capital"]),
            "logprob": -rng.uniform(0, 5), "bytes": [32, 80, 97], "top_logprobs": [{
                "token": " Marseille", "logprob": -rng.uniform(5, 9)}]}]}})),
        ("openai", f"x-request-id: req_{_hex(rng, 32)}"),
        ("openai", f"openai-processing-ms: {rng.randint(50, 9000)}"),
        ("openai", f"x-ratelimit-remaining-tokens: {rng.randint(1000, 2000000)}"),
        ("openai", f"x-ratelimit-reset-tokens: {rng.randint(1, 999)}ms"),
        ("openai", f"\"total_tokens\": {p + c}}}}}"),
        ("openai", f"\"output_tokens\":{c}}}}}"),
        ("openai", f"\"max_tokens\": {rng.choice([4096, 65536, 131072])}}}"),
        ("openai", json.dumps({"object": "list", "data": [{"id": model, "object": "model",
                                                           "created": created,
                                                           "owned_by": "vllm", "root": model,
                                                           "parent": None,
                                                           "max_model_len": 8192}]})),
        # tracing, ids, versions, misc numbers
        ("otel", f"traceparent: 00-{trace}-{span}-01"),
        ("otel", f"{{\"traceId\":\"{trace}\",\"spanId\":\"{span}\",\"parentSpanId\":"
                 f"\"{_hex(rng, 16)}\",\"name\":\"chat {model}\"}}"),
        ("otel", f"gen_ai.usage.input_tokens={p} gen_ai.usage.output_tokens={c} "
                 f"gen_ai.request.max_tokens={rng.choice([256, 1024])}"),
        ("otel", f"exemplar {{trace_id=\"{trace}\",span_id=\"{span}\"}} "
                 f"{rng.uniform(0, 2):.3f} {created}.{rng.randint(100, 999)}"),
        ("misc", f"pip install vllm=={version} torch==2.{rng.randint(4, 13)}.0 "
                 f"transformers=={rng.randint(4, 5)}.{rng.randint(30, 60)}.{rng.randint(0, 3)}"),
        ("misc", f"CUDA Version: 12.{rng.randint(1, 8)}, Driver Version: 5{rng.randint(35, 80)}."
                 f"{rng.randint(10, 99)}.{rng.randint(1, 9):02d}, NCCL version "
                 f"2.{rng.randint(18, 26)}.3"),
        ("misc", f"ISBN {rng.choice(_ISBNS)} (The book)"),
        ("misc", f"order id {_luhn_failing(rng)} not found"),
        ("misc", f"batch_id={_luhn_failing(rng)} items={rng.randint(1, 999)}"),
        ("misc", f"request_id={_uuid(rng)} model={model} prompt_tokens={p} "
                 f"completion_tokens={c} ttft_ms={rng.uniform(5, 900):.1f}"),
        ("misc", f"image digest sha256:{_hex(rng, 64)} size {rng.randint(10**6, 10**10)}"),
        ("misc", f"git commit {_hex(rng, 40)} (tag v{version})"),
        ("misc", f"allowed CIDRs: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, "
                 f"2001:db8::/{rng.choice([32, 48])}"),
        ("misc", f"listening on 0.0.0.0:{port} and [::]:{port}"),
        ("misc", f"tokenizer_config.json: {{\"model_max_length\": {rng.choice([4096, 131072])},"
                 f" \"tokenizer_class\": \"PreTrainedTokenizerFast\", \"bos_token\": "
                 f"\"<|begin_of_text|>\"}}"),
        ("misc", f"kv_cache_key=prefix:{rng.randint(0, 9999)} hit=True "
                 f"blocks={rng.randint(1, 99)}"),
        ("misc", f"elapsed {rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}:"
                 f"{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d} "
                 f"step {rng.randint(1, 10**6)}"),
        ("misc", f"throughput {rng.uniform(100, 99999):.2f} tok/s at batch {rng.randint(1, 256)},"
                 f" p99 TPOT {rng.uniform(5, 90):.2f} ms"),
    ]


def negatives(seed: int = SEED, rounds: int = NEGATIVE_ROUNDS) -> list[tuple[str, str]]:
    """(source, line): ``rounds`` draws of every template, deduplicated."""
    rng = random.Random(seed + 1)
    lines: dict[str, str] = {}
    for _ in range(rounds):
        for source, line in _negative_lines(rng):
            lines.setdefault(line, source)
    return [(source, line) for line, source in lines.items()]
