"""``servescope redact [--policy FILE] [--jsonl]``: scrub stdin to stdout with the policy."""

from __future__ import annotations

import argparse
import codecs
import io
import json
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import IO, Any


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
    p.add_argument("--encoding", default="auto",
                   help="the input's encoding, and the output's (default: auto, UTF-8 unless "
                   "a byte order mark or the bytes themselves say UTF-16 or UTF-32)")
    p.set_defaults(handler=_redact)


# Byte order marks, longest first (UTF-32LE's begins with UTF-16LE's).
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
         (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def _sniff(head: bytes) -> tuple[str, bytes]:
    """The encoding of input that begins with ``head``, and its byte order mark (b"" for
    none). Without a mark, text in UTF-16 shows itself by a NUL in every other byte (what
    Windows PowerShell's redirection writes is UTF-16); anything else is read as UTF-8."""
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return encoding, bom
    even, odd = head[0:4096:2], head[1:4096:2]
    if len(odd) >= 8:
        if odd.count(0) >= 0.4 * len(odd) and even.count(0) <= 0.05 * len(even):
            return "utf-16-le", b""
        if even.count(0) >= 0.4 * len(even) and odd.count(0) <= 0.05 * len(odd):
            return "utf-16-be", b""
    return "utf-8", b""


def _streams(wanted: str) -> tuple[IO[str], IO[str], str]:
    """stdin and stdout as text in the input's encoding (a byte order mark is written back
    as it came), and that encoding's name. Bytes that do not decode pass through as they
    came (UTF-8: ``surrogateescape``; UTF-16 and UTF-32: a lone surrogate too)."""
    stdout: IO[str] = sys.stdout
    raw_in = getattr(sys.stdin, "buffer", None)
    if raw_in is None:  # stdin is text already (an embedding program's): taken as it is
        _pass_undecodable(stdout)
        return sys.stdin, stdout, "utf-8"
    # (looked at, not taken: the reader decodes them; one with a mark reads past it itself)
    head = raw_in.peek(4096) if hasattr(raw_in, "peek") else b""
    encoding, bom = _sniff(head) if wanted == "auto" else (codecs.lookup(wanted).name, b"")
    utf8 = encoding in ("utf-8", "utf8")
    errors = "surrogateescape" if utf8 else "surrogatepass"
    reading = encoding[:6] if bom else encoding  # "utf-16"/"utf-32" take the mark, either way
    text_in = io.TextIOWrapper(raw_in, encoding=reading, errors=errors, newline="")
    if utf8:
        _pass_undecodable(stdout)
        return text_in, stdout, encoding
    stdout.flush()
    raw_out = stdout.buffer  # type: ignore[attr-defined]
    if bom:
        raw_out.write(bom)
    return text_in, io.TextIOWrapper(raw_out, encoding=encoding, errors=errors, newline="",
                                     line_buffering=stdout.isatty()), encoding


def _pass_undecodable(stdout: IO[str]) -> None:
    """stdout writes back the bytes that did not decode as UTF-8, as they came."""
    reconfigure = getattr(stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="surrogateescape", newline="")


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
    from servescope.redaction import PolicyError, Redactor, load_policy

    try:
        redactor = Redactor(load_policy(args.policy))
    except PolicyError as exc:
        print(f"servescope: invalid redaction policy: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # SERVESCOPE_REDACTION_ENGINE names no engine
        print(f"servescope: invalid configuration: {exc}", file=sys.stderr)
        return 2
    try:
        stdin, stdout, encoding = _streams(args.encoding)
    except LookupError:
        print(f"servescope: --encoding: unknown encoding {args.encoding!r}", file=sys.stderr)
        return 2
    if encoding not in ("utf-8", "utf8"):
        print(f"servescope: reading and writing {encoding.upper()}", file=sys.stderr)
    counts: Counter[str] = Counter()
    try:
        _redact_lines(args, redactor, stdin, stdout, counts)
    finally:
        stdout.flush()
        # (detached, a wrapper of ours leaves the process's byte streams open when collected)
        for stream, own in ((stdin, sys.stdin), (stdout, sys.stdout)):
            if stream is not own and isinstance(stream, io.TextIOWrapper):
                stream.detach()
    if args.summary:
        print(json.dumps(dict(sorted(counts.items()))), file=sys.stderr)
    return 0


def _redact_lines(args: argparse.Namespace, redactor: Any, stdin: IO[str], stdout: IO[str],
                  counts: Counter[str]) -> None:
    from servescope.redaction import Place
    from servescope.redaction.tables import LineTables

    limit = redactor.policy.max_content_chars
    lines = _records(stdin) if not args.jsonl else enumerate(stdin, 1)
    tables = LineTables()
    for lineno, line in lines:
        text = line.rstrip("\r\n")
        end = line[len(text):]  # the line's own ending ("\r\n", "\n", none at the end)
        if len(text) > limit:
            _note_cut(lineno, limit, counts)
        if not args.jsonl:
            stdout.write(_under_header(redactor, tables.context(text), text, counts,
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
        out = json.dumps({"text": body, **rest}, ensure_ascii=False)
        try:
            stdout.write(out + "\n")
        except UnicodeEncodeError:  # a lone surrogate ("\ud800"): written as JSON escapes it
            stdout.write(json.dumps({"text": body, **rest}) + "\n")


def _note_cut(lineno: int, limit: int, counts: Counter[str]) -> None:
    """A line longer than the policy's ``limits.max_content_chars`` is cut there (the rest is
    not scanned, so it is not written): said on stderr once, and counted."""
    if not counts["cut_line"]:
        print(f"servescope: line {lineno}: longer than {limit} characters, cut there "
              "(limits.max_content_chars in a policy file sets the length; further cut lines "
              "are counted in --summary)", file=sys.stderr)
    counts["cut_line"] += 1
