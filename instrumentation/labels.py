"""The label guard: only catalog label keys, and a bounded number of values per label.

Keys are checked when a metric is defined (an unknown key is a programming error and raises).
Values are checked when a series is first used: past a label's cap, new values fold into
``other`` and the fold is counted, so a misbehaving caller cannot explode the series count.

The decision is made once per (label key, value) and shared by every metric family: the
first ``cap`` distinct values of a key, in the order the process first sees them on any
family, are kept everywhere, so per-label sums agree across families.

Values that come from clients (:data:`CLIENT_LABEL_KEYS`: ``priority``, ``model``) are
declared, not discovered (:class:`DeclaredLabels`): the configured priority classes and the
served model names (with their adapters) are always kept, and anything else folds into
``other`` and is counted, so junk values can neither become series nor crowd a real class
out. Only when ``discover_models`` is on may an undeclared model name be kept, and then only
if it passes a shape check and an injected PII check (``setup_telemetry`` passes the
redaction detectors), run on the value exactly as received, within the cap. Names declared
at run time (a proxied engine's ``/v1/models``) pass the same PII check, on the name and on
each part after a separator, and a looser shape check (:func:`listed_shape_ok`: paths, dates;
no spaces, ``@``, long digit runs or base64 of text): an adapter's name is the engine's
configuration, but an engine that loads adapters at run time lets a client choose it.

A model value whose series retired (:mod:`.retirement`: idle for a while) gives its place
back: a discovered name its slot under the cap at once, a name learnt at run time its place
among the :data:`MAX_DECLARED_MODELS` when a new name needs one (configured names stay).
"""

from __future__ import annotations

import base64
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from .catalog import (
    ALL_LABEL_KEYS,
    FINISH_REASON,
    HOOK,
    KIND,
    LABEL,
    METRIC,
    MODEL,
    POOL,
    PRIORITY,
    REASON,
    SIGNAL,
    STAGE,
    MetricSpec,
)

__all__ = ["CLIENT_LABEL_KEYS", "DEFAULT_CAPS", "DEFAULT_PRIORITY_CLASSES", "NO_PRIORITY", "OTHER",
           "DeclaredLabels", "LabelGuard", "UnknownLabelError", "ValueCheck", "glued_suffixes",
           "label_shape_ok", "listed_shape_ok", "model_shape_ok"]

OTHER = "other"
#: The priority of a request that names none: always kept, whatever classes are configured.
NO_PRIORITY = "default"
#: Label keys whose values a client chooses (a header or a body field).
CLIENT_LABEL_KEYS = frozenset({PRIORITY, MODEL})
#: Priority classes kept when none are configured: common class names and vLLM's small
#: integer priorities.
DEFAULT_PRIORITY_CLASSES = ("default", "interactive", "batch", "high", "low",
                            "0", "1", "2", "3")
#: A model or adapter name that may be discovered (``discover_models``): path-like names
#: (``org/Model-8B-Instruct-v0.1``) with a letter; no ``@`` or spaces, no run of 7 digits and
#: at most 10 in all (cards, phone and account numbers are digit-heavy).
_MODEL_SHAPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}")
_MODEL_DIGIT_RUN = re.compile(r"[0-9]{7,}")
_MODEL_MAX_DIGITS = 10
#: A class name (``interactive``, ``batch-low``) or a small integer (vLLM sends priorities as
#: integers). More than 4 digits are refused by shape: card, phone and account numbers, ids and
#: most keys and tokens are digit-heavy.
_CLIENT_SHAPE = re.compile(r"[a-z][a-z0-9_-]{0,31}|-?[0-9]{1,4}")
_MAX_DIGITS = 4
#: Given a client-supplied label value, True when it may be kept (no PII found in it).
ValueCheck = Callable[[str], bool]


def label_shape_ok(value: str) -> bool:
    """The shape a client-supplied label value must have to be kept."""
    return (_CLIENT_SHAPE.fullmatch(value) is not None
            and sum(c.isdigit() for c in value) <= _MAX_DIGITS)

def model_shape_ok(value: str) -> bool:
    """The shape an undeclared model name must have to be discovered."""
    return (_MODEL_SHAPE.fullmatch(value) is not None and not _MODEL_DIGIT_RUN.search(value)
            and any(c.isalpha() for c in value)
            and sum(c.isdigit() for c in value) <= _MODEL_MAX_DIGITS)


#: A model name an engine lists (learnt at run time): a path or a name of the usual
#: characters (llama.cpp lists the file it loaded: ``/models/x.gguf``), no space, ``@`` or
#: control character. Digits are refused in runs of 9 or more (an SSN, a phone, a card, an
#: account number; a release date's 8 stay: ``claude-3-5-sonnet-20241022``).
_LISTED_SHAPE = re.compile(r"[A-Za-z0-9_./:+-]{1,128}")
_LISTED_DIGIT_RUN = re.compile(r"[0-9]{9,}")
# A run of the base64 alphabets long enough to carry a value (a JWT's parts, an encoded
# address): decoded, text means the name carries an encoded value.
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")


def listed_shape_ok(value: str) -> bool:
    """The shape a model name an engine lists must have to become a label value."""
    return (_LISTED_SHAPE.fullmatch(value) is not None
            and _LISTED_DIGIT_RUN.search(value) is None
            and not any(_decodes_to_text(part) for run in _BASE64_RUN.finditer(value)
                        for part in glued_suffixes(run.group()) if len(part) >= 16))


def _decodes_to_text(run: str) -> bool:
    """True when ``run`` is base64 (or base64url) of at least 12 printable ASCII
    characters."""
    body = run.rstrip("=").replace("-", "+").replace("_", "/")
    try:
        data = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except ValueError:
        return False
    return len(data) >= 12 and all(32 <= b < 127 for b in data)


def glued_suffixes(value: str) -> list[str]:
    """``value`` and each part of it after a separator (``lora_sk-proj-...``: a detector
    whose value must start a word finds it there)."""
    return [value, *(value[i + 1:] for i, ch in enumerate(value)
                     if ch in "_.-/:" and i + 1 < len(value))]


@dataclass(frozen=True)
class DeclaredLabels:
    """The label values clients may choose, as configuration. ``priorities``: the priority
    classes; ``models``: served model names and adapter names (the telemetry's own model is
    always added); ``discover_models``: also keep undeclared model names that pass the
    shape check and the detectors (up to the cap), instead of folding every one of them."""

    priorities: tuple[str, ...] = DEFAULT_PRIORITY_CLASSES
    models: tuple[str, ...] = ()
    discover_models: bool = False

    def __post_init__(self) -> None:
        for name in ("priorities", "models"):
            values = getattr(self, name)
            if isinstance(values, str) or not all(isinstance(v, str) and v for v in values):
                raise ValueError(f"{name}: must be a list of non-empty names, got {values!r}")
            object.__setattr__(self, name, tuple(values))
        for value in self.priorities:
            if not label_shape_ok(value):
                raise ValueError(f"priorities: {value!r} is not a class name (a-z, 0-9, '_', "
                                 f"'-', at most 32) or a small integer")
        if not isinstance(self.discover_models, bool):
            raise ValueError(f"discover_models: must be a boolean, got "
                             f"{self.discover_models!r}")

    def with_models(self, names: Iterable[str]) -> DeclaredLabels:
        extra = tuple(n for n in names if n not in self.models)
        return DeclaredLabels(self.priorities, self.models + extra, self.discover_models)


#: Model names a server may declare in all, configured and learnt from an engine together.
MAX_DECLARED_MODELS = 64

#: Distinct values allowed per label key before folding into ``other``.
DEFAULT_CAPS: Mapping[str, int] = {
    MODEL: 16, PRIORITY: 8, POOL: 16, REASON: 32, FINISH_REASON: 16, STAGE: 8, SIGNAL: 16,
    HOOK: 64, METRIC: 64, LABEL: 16, KIND: 32,
}


class UnknownLabelError(ValueError):
    """A metric was defined, or used, with a label key the catalog does not allow."""


class LabelGuard:
    """Keeps declared client values and the first values seen per other label key (shared by
    all families), folds the rest."""

    def __init__(self, caps: Mapping[str, int] | None = None,
                 on_fold: Callable[[str, str], None] | None = None,
                 value_check: ValueCheck | None = None,
                 declared: DeclaredLabels | None = None) -> None:
        self._caps = {**DEFAULT_CAPS, **(caps or {})}
        self._kept: dict[str, set[str]] = {}
        self._lock = threading.Lock()
        self._on_fold = on_fold
        self._value_check = value_check
        self.declared = declared or DeclaredLabels()
        # "default" is what a request that names no class reads as: always its own label
        self._declared = {PRIORITY: frozenset(self.declared.priorities) | {NO_PRIORITY},
                          MODEL: frozenset(self.declared.models)}
        # names declared at run time, and those of them whose series retired (their place
        # may go to a new name), oldest retirement first
        self._learnt: set[str] = set()
        self._retired: dict[str, None] = {}

    def declarable(self, names: Iterable[str]) -> tuple[str, ...]:
        """The names a run-time declaration may add, in order, once each: an engine's list
        is configuration, but a name in it is still chosen by whoever loaded an adapter, so
        one the PII check refuses (``lora-alice@example.com``) stays undeclared (it folds,
        and is counted, like any name the engine does not list)."""
        return tuple(n for n in dict.fromkeys(names)
                     if isinstance(n, str) and n and listed_shape_ok(n)
                     and all(self._pii_free(part) for part in glued_suffixes(n)))

    def declare_models(self, names: Iterable[str]) -> bool:
        """Declare more model names at run time: those a proxied engine lists as served
        (configuration read from the engine, not values a client chose), less those
        :meth:`declarable` refuses. At most ``MAX_DECLARED_MODELS`` in all; a learnt name
        whose series retired gives its place to a new one. True when the declared set
        changed."""
        accepted = self.declarable(names)  # the detectors run outside the lock
        with self._lock:
            known = self._declared[MODEL]
            new = [n for n in accepted if n not in known]
            freed = [n for n in self._retired if n in known][:max(
                0, len(new) - (MAX_DECLARED_MODELS - len(known)))]
            for name in freed:
                del self._retired[name]
                self._learnt.discard(name)
            known = known - frozenset(freed)
            room = max(0, MAX_DECLARED_MODELS - len(known))
            if not new or not room:
                return False
            self._learnt.update(new[:room])
            self._declared = {**self._declared, MODEL: known | frozenset(new[:room])}
            return True

    def release(self, key: str, value: str) -> None:
        """``value`` of label ``key`` no longer has series (they retired): a discovered value
        frees its slot under the cap, a learnt model name may give its place to a new one."""
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                kept.discard(value)
            if key == MODEL and value in self._learnt:
                self._retired[value] = None

    @staticmethod
    def check_definition(spec: MetricSpec) -> None:
        unknown = set(spec.labels) - ALL_LABEL_KEYS
        if unknown:
            raise UnknownLabelError(f"{spec.name}: label keys {sorted(unknown)} are not allowed")

    def values(self, spec: MetricSpec, labels: Mapping[str, str]) -> tuple[str, ...]:
        """The guarded label values of ``spec`` in catalog order."""
        if labels.keys() != set(spec.labels):
            raise UnknownLabelError(
                f"{spec.name}: labels {sorted(labels)} do not match {list(spec.labels)}")
        return tuple(self._guard(spec.name, key, str(labels[key])) for key in spec.labels)

    def decide(self, key: str, value: str) -> str:
        """``value`` if label ``key`` may carry it, else ``other`` (not counted: callers that
        emit a series count the fold through :meth:`values`)."""
        if value == OTHER:
            return value
        declared = self._declared.get(key)
        if declared is not None:
            if value in declared:
                if value in self._retired:  # back in use: keeps its place
                    with self._lock:
                        self._retired.pop(value, None)
                return value
            if key == PRIORITY:  # a class is a name: its declared spelling, whatever the case
                folded = value.lower()
                return folded if folded in declared else OTHER
            if not self.declared.discover_models:
                return OTHER
            if not self._client_value_ok(value):
                return OTHER
        kept = self._kept.get(key)
        if kept is not None and value in kept:
            return value
        with self._lock:
            kept = self._kept.setdefault(key, set())
            if value in kept:
                return value
            if len(kept) < self._caps.get(key, 16):
                kept.add(value)
                return value
        return OTHER

    def _client_value_ok(self, value: str) -> bool:
        """An undeclared model name, exactly as received: its shape, then the detectors."""
        return model_shape_ok(value) and self._pii_free(value)

    def _pii_free(self, value: str) -> bool:
        """The injected PII check (``setup_telemetry``: the redaction detectors)."""
        try:
            return self._value_check is None or bool(self._value_check(value))
        except Exception:  # a failing check must not let the value through
            return False

    def _guard(self, metric: str, key: str, value: str) -> str:
        decided = self.decide(key, value)
        if decided == OTHER != value and self._on_fold is not None:
            self._on_fold(metric, key)
        return decided
