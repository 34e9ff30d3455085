"""``servescope redact [--policy FILE] [--jsonl]``: scrub stdin to stdout with the policy."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("redact", help="redact PII and secrets from lines on stdin",
                       description="Read lines from stdin and write them redacted to stdout. "
                       "Exit 2 for a bad policy file.")
    p.add_argument("--policy", help="redaction policy YAML (default: the shipped policy)")
    p.add_argument("--jsonl", action="store_true",
                   help="each line is a JSON object: redact its 'text' field (and, with the "
                   "key policy, its other fields)")
    p.add_argument("--summary", action="store_true",
                   help="print counts by kind to stderr at the end")
    p.set_defaults(handler=_redact)


#: The most lines one key may span (a 16,384-bit RSA key is about 200).
_KEY_MAX_LINES = 400


def _records(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """The input line by line (a line is redacted as it arrives), except a private key cut
    into lines: from its BEGIN line to its END line (or 400 lines) it is one record, so its
    base64 lines go with it (alone, each is only base64)."""
    from servescope.redaction.detectors import KEY_BEGIN, KEY_END  # the detector's armour

    held: list[str] = []
    first = 0
    for lineno, line in enumerate(lines, 1):
        if held:
            held.append(line)
            if KEY_END.search(line) or len(held) >= _KEY_MAX_LINES:
                yield first, "".join(held)
                held = []
            continue
        begin = KEY_BEGIN.search(line)
        if begin is not None and KEY_END.search(line, begin.end()) is None:
            held, first = [line], lineno
            continue
        yield lineno, line
    if held:
        yield first, "".join(held)


def _under_header(redactor: Any, header: str | None, text: str, counts: Counter[str],
                  limit: int) -> str:
    """``text`` redacted; a table's row is read under its header (the header's column names
    tell a bare number in a phone column from an order number), as in one text."""
    if header is not None:
        found: Counter[str] = Counter()
        both = redactor.redact_text(header + "\n" + text, found, limit=limit)
        if both.startswith(header + "\n"):  # the header itself holds nothing (as a header)
            counts.update(found)
            return str(both[len(header) + 1:])
    return str(redactor.redact_text(text, counts, limit=limit))


def _redact(args: argparse.Namespace) -> int:
    from servescope.redaction import Place, PolicyError, Redactor, load_policy
    from servescope.redaction.tables import LineTables

    try:
        redactor = Redactor(load_policy(args.policy))
    except PolicyError as exc:
        print(f"servescope: invalid redaction policy: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # SERVESCOPE_REDACTION_ENGINE names no engine
        print(f"servescope: invalid configuration: {exc}", file=sys.stderr)
        return 2
    counts: Counter[str] = Counter()
    limit = redactor.policy.max_content_chars
    for stream in (sys.stdin, sys.stdout):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:  # bytes that are not UTF-8 pass through as they came
            reconfigure(errors="surrogateescape", newline="")
    lines = _records(sys.stdin) if not args.jsonl else enumerate(sys.stdin, 1)
    tables = LineTables()
    for lineno, line in lines:
        text = line.rstrip("\r\n")
        end = line[len(text):]  # the line's own ending ("\r\n", "\n", none at the end)
        if not args.jsonl:
            sys.stdout.write(_under_header(redactor, tables.context(text), text, counts,
                                           limit) + end)
            continue
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            print(f"servescope: line {lineno}: not JSON ({exc.msg}); line withheld",
                  file=sys.stderr)
            counts["unparsed_line"] += 1
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
            print(f"servescope: line {lineno}: expected an object with a string 'text' field; "
                  "line withheld", file=sys.stderr)
            counts["unparsed_line"] += 1
            continue
        body = redactor.redact_text(obj.pop("text"), counts, limit=limit)
        rest = redactor.redact_attributes(obj, counts, Place.LOG)
        sys.stdout.write(json.dumps({"text": body, **rest}, ensure_ascii=False) + "\n")
    if args.summary:
        print(json.dumps(dict(sorted(counts.items()))), file=sys.stderr)
    return 0
