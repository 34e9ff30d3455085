"""Yelp's detect-secrets as a second anchor on the corpus: its findings mapped onto our kinds.

Each text is scanned as a file (detect-secrets' own path, with its default plugins and
filters) under two file types, ``.yaml`` and ``.txt``, and the findings are united: its
keyword rules differ by file type, so the union is its best recall, the fairest comparison.
A finding *covers* a planted value when it has the same kind and one contains the other
(detect-secrets reports a PEM header line, not the block; we count that as found).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: detect-secrets plugin type -> our kind (types not listed, e.g. entropy, map to "other:")
KINDS = {
    "AWS Access Key": "aws_access_key", "JSON Web Token": "jwt", "GitHub Token": "github_token",
    "Slack Token": "api_key", "Stripe Access Key": "api_key", "OpenAI Token": "api_key",
    "Private Key": "private_key", "Secret Keyword": "secret_assignment",
}
SHARED_KINDS = tuple(sorted(set(KINDS.values())))


@contextmanager
def scanner() -> Iterator[object]:
    """A callable text -> [(kind, value)], inside detect-secrets' default settings."""
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    with tempfile.TemporaryDirectory() as tmp, default_settings():
        def scan(text: str) -> list[tuple[str, str]]:
            found: list[tuple[str, str]] = []
            for suffix in (".yaml", ".txt"):
                path = Path(tmp) / f"sample{suffix}"
                path.write_text(text + "\n", encoding="utf-8")
                collection = SecretsCollection()
                collection.scan_file(str(path))
                for name in collection.files:
                    for secret in collection[name]:
                        kind = KINDS.get(secret.type, "other:" + secret.type)
                        found.append((kind, secret.secret_value or ""))
            return found

        yield scan


def covers(found: list[tuple[str, str]], kind: str, value: str) -> bool:
    return any(k == kind and v and (v in value or value in v) for k, v in found)
