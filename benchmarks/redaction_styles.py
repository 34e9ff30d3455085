"""Corpus styles for the redaction throughput rows: unique, realistic lines in three styles,
built from the test corpora (tests/redaction/ops_corpus.py, redaction_corpus.py).

  pii_prompts   prompts and chat messages in which people paste their details (emails,
                Unicode emails, cards, IBANs, phones, SSNs, encoded addresses), with prose
  ops_secrets   operations logs heavy with secrets: connection strings, SAS URLs, passwords
                in URLs and on command lines, tokens, base64 credentials, beside log noise
  mixed         operations text as servers print it (vLLM, SGLang, TGI, uvicorn, Kubernetes,
                OpenAI API shapes), one line in five carrying a planted value

Every line is unique (a serial number or a fresh value), so the clean-string cache cannot
serve a line it has seen.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from types import ModuleType

STYLES = ("pii_prompts", "ops_secrets", "mixed")
_PII = ("unicode_email", "url_encoded_pii", "credit_card", "iban", "ssn_plain", "phone_00")
_SECRETS = ("connection_string", "sas_signature", "cli_password", "url_password",
            "base64_credentials", "aws_secret_plain", "bare_token")
_ASKS = ["Can you draft a reply to the customer?", "Please summarise the thread below.",
         "Translate this into German for the support team.", "Why was this payment refused?",
         "Fix the formatting of the following note.", "Write a polite reminder."]
_PROSE = ["thanks", "for", "getting", "back", "to", "me", "so", "quickly", "about", "the",
          "order", "I", "placed", "last", "week", "delivery", "still", "has", "not", "arrived",
          "and", "would", "like", "know", "when", "it", "will", "be", "shipped", "or",
          "whether", "should", "cancel", "ask", "a", "refund", "instead"]


def _prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_PROSE) for _ in range(words))


def build(ops: ModuleType, legacy: ModuleType, n: int, seed: int = 5
          ) -> dict[str, list[str]]:
    """``n`` unique lines per style."""
    rng = random.Random(seed)
    snippets: dict[str, Callable[[random.Random], tuple[str, str]]] = ops.SNIPPETS
    negatives = [line for _, line in ops.negatives(rounds=max(5, n // 60))]
    out: dict[str, list[str]] = {style: [] for style in STYLES}
    seen: set[str] = set()

    def add(style: str, line: str) -> None:
        if line not in seen:
            seen.add(line)
            out[style].append(line)

    i = 0
    while min(len(v) for v in out.values()) < n:
        i += 1
        if len(out["pii_prompts"]) < n:
            snippet, _ = snippets[rng.choice(_PII)](rng)
            legacy_kind = rng.choice(["email", "phone", "credit_card", "iban", "us_ssn"])
            other = legacy.POSITIVES[legacy_kind](rng)
            add("pii_prompts", f"{rng.choice(_ASKS)} {_prose(rng, rng.randint(8, 40))} "
                               f"{snippet}; you can also reach me at {other}. (#{i})")
        if len(out["ops_secrets"]) < n:
            snippet, _ = snippets[rng.choice(_SECRETS)](rng)
            _, escape, template = ops.SURROUNDINGS[rng.randrange(len(ops.SURROUNDINGS))]
            add("ops_secrets", template.format(s=escape(snippet)).replace(
                "attempt 2", f"attempt {i}"))
            if rng.random() < 0.5:  # the log noise around them
                add("ops_secrets", f"{negatives[i % len(negatives)]} seq={i}")
        if len(out["mixed"]) < n:
            if rng.random() < 0.2:
                kind = rng.choice(list(snippets))
                snippet, _ = snippets[kind](rng)
                add("mixed", f"{_ts(rng)} WARN [api] {snippet}")
            else:
                add("mixed", negatives[(i * 7) % len(negatives)] + ("" if i < len(negatives)
                                                                     else f" ({i})"))
    return {style: lines[:n] for style, lines in out.items()}


def _ts(rng: random.Random) -> str:
    return (f"2026-11-{rng.randint(10, 30)}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
            f"{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z")


def main() -> int:
    """The corpora's shape (what the throughput rows of redaction.py and redaction_ab.py run
    on), printed as a table and one JSON line, so `make bench` can run every file here."""
    import importlib.util
    import json
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "tests" / "redaction"
    modules = []
    for name in ("ops_corpus", "redaction_corpus"):
        spec = importlib.util.spec_from_file_location(name, root / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
        modules.append(module)
    corpora = build(modules[0], modules[1], 1500)
    shape = {style: {"lines": len(lines), "unique": len(set(lines)),
                     "mean_chars": sum(map(len, lines)) / len(lines),
                     "non_ascii": sum(not line.isascii() for line in lines)}
             for style, lines in corpora.items()}
    print(f"{'style':<14}{'lines':>7}{'unique':>8}{'mean chars':>12}{'non-ASCII':>11}")
    for style, r in shape.items():
        print(f"{style:<14}{r['lines']:>7}{r['unique']:>8}{r['mean_chars']:>12.0f}"
              f"{r['non_ascii']:>11}")
    print(json.dumps({"benchmark": "redaction_styles", "corpora": shape},
                     separators=(",", ":")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
