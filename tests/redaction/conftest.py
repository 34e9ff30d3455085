"""Makes this folder's helpers (the labelled corpus) importable by its tests, and gives them
one default redactor."""

import sys
from pathlib import Path

import pytest

from servescope.redaction import Redactor

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    """The default policy, with a fixed hash key."""
    return Redactor(hash_key=b"test")
