"""The Collector configs' value patterns are checked against the redaction tests' labelled
corpus: make that folder's helpers importable here."""

import sys
from pathlib import Path

_CORPUS_DIR = str(Path(__file__).resolve().parents[1] / "redaction")
if _CORPUS_DIR not in sys.path:
    sys.path.insert(0, _CORPUS_DIR)
