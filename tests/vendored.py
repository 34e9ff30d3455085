"""Where the JSON schemas for tests live: ../shared/schemas beside the checkout when present
(the project's source of truth), else the copies vendored in tests/schemas (see SOURCES.md)."""

from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]


def schemas_dir() -> Path:
    shared = _ROOT.parent / "shared" / "schemas"
    return shared if shared.is_dir() else _ROOT / "tests" / "schemas"
