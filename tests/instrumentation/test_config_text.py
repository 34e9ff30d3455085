"""Configuration text is read strictly: a key given twice, or text that is not YAML or JSON,
is a ConfigTextError naming the file and where, never the last value silently kept."""

from __future__ import annotations

import pytest

from servescope.instrumentation.config_text import ConfigTextError, load_config_text


def test_yaml_and_json_documents_load_as_they_are() -> None:
    assert load_config_text("a: 1\nb: {c: [1, 2]}\n", source="x.yaml") == \
        {"a": 1, "b": {"c": [1, 2]}}
    assert load_config_text('{"a": 1, "b": {"c": [1, 2]}}', source="x.json",
                            json_format=True) == {"a": 1, "b": {"c": [1, 2]}}
    assert load_config_text("", source="x.yaml") is None


@pytest.mark.parametrize(("text", "json_format", "needle"), [
    ("a: 1\nb: 2\na: 3\n", False, "x: a (line 3): given twice in one mapping"),
    ("outer:\n  k: 1\n  k: 2\n", False, "x: k (line 3): given twice"),
    ('{"a": 1, "a": 2}', True, "x: a: given twice in one object"),
    ('{"o": {"k": 1, "k": 1}}', True, "x: k: given twice"),
    ("a: [\n", False, "x: YAML syntax error at line 2"),
    ('{"a": 1,}', True, "x: JSON syntax error at line 1, column 9"),
    ("? [1, 2]\n: v\n", False, "x: YAML syntax error"),  # an unhashable key
    ("a: !!python/object:os.system x\n", False, "x: YAML syntax error"),  # safe only
])
def test_a_key_given_twice_or_bad_syntax_is_named(text: str, json_format: bool,
                                                  needle: str) -> None:
    with pytest.raises(ConfigTextError) as info:
        load_config_text(text, source="x", json_format=json_format)
    assert needle in str(info.value)
    assert isinstance(info.value, ValueError)
