"""The normalisation table: every rule's own example, and the table's file checks."""

from __future__ import annotations

import pytest

from safetychip.errors import DataFileError
from safetychip.translate._normalize import load_rules, normalize

RULES = load_rules()


@pytest.mark.parametrize("rule", RULES, ids=[f"line{r.line}" for r in RULES])
def test_each_rule_example(rule):
    assert normalize(rule.example) == rule.expected


def test_every_rule_changes_its_example():
    unchanged = [r.line for r in RULES if r.apply(r.example.lower()) == r.example.lower()]
    assert unchanged == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Don't EVER open [a]", "do not ever open [a]"),
        ("u shouldn't go 2x to [a]", "you should not go 2 times to [a]"),
        ("once you're in [a], open [b] once", "once you are in [a], open [b] 1 times"),
        ("at least once", "at least 1 times"),
        ("enter [a] once only, then [b]", "enter [a] 1 times only, then [b]"),
        ("that one", "that one"),
        ("[a] , [b]", "[a], [b]"),
    ],
)
def test_sentences(text, expected):
    assert normalize(text) == expected


def test_placeholders_are_kept():
    assert normalize("[u] and [r] and [n]") == "[u] and [r] and [n]"


def test_deterministic_and_idempotent_on_its_output():
    for rule in RULES:
        once = normalize(rule.example)
        assert normalize(rule.example) == once


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("word\tdon't\tdo not\n", "line 1: needs 5 tab-separated fields, has 3"),
        ("spell\ta\tb\tc\td\n", "line 1: kind 'spell' is not one of word, text, regex"),
        ("# a comment\n\nregex\t(\tx\t(\tx\n", "line 3: missing ), unterminated subpattern"),
    ],
)
def test_bad_table(tmp_path, content, message):
    path = tmp_path / "bad.tsv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataFileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_rules(path)


def test_missing_table(tmp_path):
    with pytest.raises(DataFileError, match="cannot read the normalisation table"):
        load_rules(tmp_path / "nowhere.tsv")
