"""The redaction policy: which attribute keys pass, which are dropped, which are scanned, and
what happens to each kind of detected value.

Loaded from YAML and validated with the JSON schema that ships beside this module. Every way a
policy can be wrong ends in :class:`PolicyError`, whose message names the field.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from .detectors import DEFAULT_KINDS, KINDS

__all__ = [
    "CONTENT_CAPTURE_ENV",
    "Action",
    "ContentCapture",
    "Policy",
    "PolicyError",
    "load_policy",
    "parse_policy",
]

#: The OpenTelemetry GenAI opt-in for message content (``true``/``false`` or a mode name).
CONTENT_CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


_MODEL_KEYS = ("gen_ai.request.model", "gen_ai.response.model")


class PolicyError(ValueError):
    """A policy that cannot be used; the message names the offending field."""


class Action(StrEnum):
    MASK = "mask"
    DROP = "drop"
    HASH = "hash"


class ContentCapture(StrEnum):
    """GenAI content capture modes: where prompts and outputs may appear (redacted)."""

    NO_CONTENT = "no_content"
    SPAN_ONLY = "span_only"
    EVENT_ONLY = "event_only"
    SPAN_AND_EVENT = "span_and_event"

    @property
    def on_spans(self) -> bool:
        return self in (ContentCapture.SPAN_ONLY, ContentCapture.SPAN_AND_EVENT)

    @property
    def on_events(self) -> bool:
        return self in (ContentCapture.EVENT_ONLY, ContentCapture.SPAN_AND_EVENT)


@dataclass(frozen=True)
class Policy:
    content_capture: ContentCapture
    content_keys: frozenset[str]
    allow: frozenset[str]
    allow_patterns: tuple[re.Pattern[str], ...]
    drop: frozenset[str]
    drop_patterns: tuple[re.Pattern[str], ...]
    hash_keys: frozenset[str]
    hash_key_patterns: tuple[re.Pattern[str], ...]
    scan: frozenset[str]
    scan_patterns: tuple[re.Pattern[str], ...]
    unknown: str  # "scan" | "drop"
    kinds: tuple[str, ...]
    actions: dict[str, Action]
    default_action: Action
    hash_key_env: str
    hash_hex_chars: int
    max_value_chars: int
    max_content_chars: int
    max_array_items: int
    scan_span_names: bool
    # Model and adapter names: known ones are scanned like any value, unknown ones hashed
    # ("hash") or scanned ("scan").
    model_keys: frozenset[str] = frozenset()
    known_models: frozenset[str] = frozenset()
    unknown_models: str = "hash"
    source: str = "<policy>"

    @classmethod
    def default(cls) -> Policy:
        return parse_policy(_default_text(), source="default_policy.yaml", inherit=False)

    def action(self, kind: str) -> Action:
        return self.actions.get(kind, self.default_action)


def _schema() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("policy_schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _field(path: Any) -> str:
    parts = [f"[{p}]" if isinstance(p, int) else f".{p}" for p in path]
    return "".join(parts).lstrip(".") or "<top level>"


def _line_of(text: str, path: Sequence[Any]) -> int | None:
    """The line (1-based) of the YAML node at ``path`` (keys and indices), or of the deepest
    node on the way that exists; None when the text does not parse."""
    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return None
    if node is None:
        return None
    for part in path:
        if isinstance(node, yaml.MappingNode):
            child = next((v for k, v in node.value if k.value == str(part)), None)
            if child is None:
                break
            node = child
        elif (isinstance(node, yaml.SequenceNode) and isinstance(part, int)
              and 0 <= part < len(node.value)):
            node = node.value[part]
        else:
            break
    return int(node.start_mark.line) + 1


class _DuplicateKey(yaml.YAMLError):
    pass


class _UniqueKeys(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping (the loader would keep
    the last silently: a rule written twice, the first one lost)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise _DuplicateKey(f"{key} (line {key_node.start_mark.line + 1}): "
                                    "given twice in one mapping")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _error_path(err: jsonschema.ValidationError) -> list[Any]:
    """Where a schema error is: for a key the schema does not know, the key itself (its line,
    not the mapping's)."""
    path = list(err.absolute_path)
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        known = err.schema.get("properties", {}) if isinstance(err.schema, dict) else {}
        extra = [k for k in err.instance if k not in known]
        if extra:
            path.append(extra[0])
    return path


class _Where:
    """Names a field and its line in one policy text."""

    def __init__(self, text: str, source: str) -> None:
        self.text, self.source = text, source

    def error(self, path: Sequence[Any], message: str) -> PolicyError:
        line = _line_of(self.text, path)
        at = f" (line {line})" if line is not None else ""
        return PolicyError(f"{self.source}: {_field(path)}{at}: {message}")


def _compile(patterns: list[str], path: tuple[str, str], where: _Where
             ) -> tuple[re.Pattern[str], ...]:
    compiled = []
    for i, pattern in enumerate(patterns):
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            raise where.error((*path, i), f"invalid regular expression {pattern!r}: {exc}"
                              ) from exc
    return tuple(compiled)


def _content_capture(doc: dict[str, Any]) -> ContentCapture:
    if "content_capture" in doc:
        return ContentCapture(doc["content_capture"])
    env = os.environ.get(CONTENT_CAPTURE_ENV, "").strip().lower()
    if env in ("true", "1", "yes"):
        return ContentCapture.SPAN_AND_EVENT
    try:
        return ContentCapture(env) if env else ContentCapture.NO_CONTENT
    except ValueError:
        return ContentCapture.NO_CONTENT  # an unknown mode never turns capture on


def _default_text() -> str:
    return resources.files(__package__).joinpath("default_policy.yaml").read_text("utf-8")


#: Sections read key by key over the default's: a key the file leaves out keeps the default's.
_MERGED_SECTIONS = ("attributes", "actions", "hash", "limits", "models")


def _over_default(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` laid over the shipped default: a section it leaves out keeps the default's, and
    so does a key it leaves out of a mapping section (a file that sets ``actions.default``
    alone still drops passwords and hashes tenant ids). A key it gives replaces the default's
    whole (``attributes.drop: []`` removes the default's drop list)."""
    base: dict[str, Any] = yaml.safe_load(_default_text())
    merged = dict(base)
    for section, value in doc.items():
        if section in _MERGED_SECTIONS and isinstance(value, dict):
            merged[section] = {**base.get(section, {}), **value}
        else:
            merged[section] = value
    return merged


def parse_policy(text: str, *, source: str = "<policy>", inherit: bool = True) -> Policy:
    """Validate and build a policy from YAML text, laid over the shipped default
    (:func:`_over_default`; ``inherit=False``: the text alone); raises :class:`PolicyError`."""
    try:
        doc = yaml.load(text, Loader=_UniqueKeys)  # a SafeLoader
    except _DuplicateKey as exc:
        raise PolicyError(f"{source}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise PolicyError(f"{source}: not valid YAML: {exc}") from exc
    where = _Where(text, source)
    if not isinstance(doc, dict):
        raise where.error((), f"expected a mapping, got {type(doc).__name__}")
    errors = sorted(jsonschema.Draft202012Validator(_schema()).iter_errors(doc),
                    key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        err = errors[0]
        raise where.error(_error_path(err), err.message)
    if inherit:
        doc = _over_default(doc)
    attrs: dict[str, Any] = doc.get("attributes", {})
    kinds = doc.get("detectors", list(DEFAULT_KINDS))
    if not kinds:
        raise where.error(("detectors",), "lists no detector: leave it out for the default "
                          "set (to redact nothing, pass redaction=False or --no-redaction)")
    for i, kind in enumerate(kinds):
        if kind not in KINDS:
            raise where.error(("detectors", i), f"unknown detector {kind!r} "
                              f"(known: {', '.join(KINDS)})")
    actions_doc: dict[str, str] = dict(doc.get("actions", {}))
    default_action = Action(actions_doc.pop("default", "mask"))
    for kind in actions_doc:
        if kind not in KINDS:
            raise where.error(("actions", kind), f"unknown detector {kind!r} "
                              f"(known: default, {', '.join(KINDS)})")
    hash_doc = doc.get("hash", {})
    models: dict[str, Any] = doc.get("models", {})
    limits = doc.get("limits", {})
    return Policy(
        content_capture=_content_capture(doc),
        content_keys=frozenset(doc.get("content_keys", ())),
        allow=frozenset(attrs.get("allow", ())),
        allow_patterns=_compile(attrs.get("allow_patterns", []),
                              ("attributes", "allow_patterns"), where),
        drop=frozenset(attrs.get("drop", ())),
        drop_patterns=_compile(attrs.get("drop_patterns", []),
                              ("attributes", "drop_patterns"), where),
        hash_keys=frozenset(attrs.get("hash", ())),
        hash_key_patterns=_compile(attrs.get("hash_patterns", []),
                              ("attributes", "hash_patterns"), where),
        scan=frozenset(attrs.get("scan", ())),
        scan_patterns=_compile(attrs.get("scan_patterns", []),
                              ("attributes", "scan_patterns"), where),
        unknown=attrs.get("unknown", "scan"),
        kinds=tuple(kinds),
        actions={k: Action(a) for k, a in actions_doc.items()},
        default_action=default_action,
        hash_key_env=hash_doc.get("key_env", "SERVESCOPE_REDACTION_HASH_KEY"),
        hash_hex_chars=hash_doc.get("hex_chars", 16),
        max_value_chars=limits.get("max_value_chars", 4096),
        max_content_chars=limits.get("max_content_chars", 16384),
        max_array_items=limits.get("max_array_items", 128),
        scan_span_names=doc.get("span_names", "scan") == "scan",
        model_keys=frozenset(models.get("keys", _MODEL_KEYS)),
        known_models=frozenset(models.get("known", ())),
        unknown_models=models.get("unknown", "hash"),
        source=source,
    )


def load_policy(path: str | Path | None = None) -> Policy:
    """The policy in ``path`` (the shipped default when None); raises :class:`PolicyError`."""
    if path is None:
        return Policy.default()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise PolicyError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    return parse_policy(text, source=str(path))
