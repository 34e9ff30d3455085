"""Configuration text read strictly: YAML or JSON in which a mapping names each key once.

YAML's loaders and ``json.loads`` keep the last of two equal keys without a word, so a setting
written twice (the second pasted in from another file) silently replaces the first. Here it is
an error naming the key and its line, and so is text that is not YAML or JSON at all: both
are a :class:`ConfigTextError`, a ``ValueError``, which every command reports as an invalid
configuration (exit 2), never as a traceback.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

__all__ = ["ConfigTextError", "load_config_text"]


class ConfigTextError(ValueError):
    """Configuration text that cannot be read: bad syntax, or a key given twice."""


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                twice = key in seen
            except TypeError:  # an unhashable key: the safe loader's own check names it
                continue
            if twice:
                raise ConfigTextError(f"{key} (line {key_node.start_mark.line + 1}): given "
                                      f"twice in one mapping")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_config_text(text: str, *, source: str, json_format: bool = False) -> Any:
    """The document in ``text`` (YAML, or JSON when ``json_format``); ``source`` names it in
    errors."""
    if json_format:
        try:
            return json.loads(text, object_pairs_hook=lambda pairs: _unique(pairs, source))
        except json.JSONDecodeError as exc:
            raise ConfigTextError(f"{source}: JSON syntax error at line {exc.lineno}, column "
                                  f"{exc.colno}: {exc.msg}") from None
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)
    except ConfigTextError as exc:
        raise ConfigTextError(f"{source}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigTextError(f"{source}: YAML syntax error{where}: {problem}") from None


def _unique(pairs: list[tuple[str, Any]], source: str) -> dict[str, Any]:
    mapping: dict[str, Any] = {}
    for key, value in pairs:
        if key in mapping:
            raise ConfigTextError(f"{source}: {key}: given twice in one object")
        mapping[key] = value
    return mapping
