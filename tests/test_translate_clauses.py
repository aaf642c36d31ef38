"""The clause lexicon (``data/translation/clauses.tsv``): one clause read as a literal."""

import pytest

from safetychip.errors import DataFileError
from safetychip.translate import read_clause
from safetychip.translate._clauses import load_lexicon, verb_forms


@pytest.mark.parametrize(
    ("clause", "literal", "avoid"),
    [
        ("you have gone into [a]", '"agent_at(a)"', False),
        ("[a] ends up inside [b]", '"is_in(a,b)"', False),
        ("put [a] back on [b] later", '"is_on(a,b)"', False),
        ("switching [a] off", '!"is_switchedon(a)"', False),
        ("[a] turns off", '!"is_switchedon(a)"', False),
        ("[a] gets switched on", '"is_switchedon(a)"', False),
        ("keep hold of [a]", '"is_grabbed(a)"', False),
        ("hang onto [a]", '"is_grabbed(a)"', False),
        ("stay out of [a]", '"agent_at(a)"', True),
        ("keep [a] shut", '"is_open(a)"', True),
        ("hold [a] in your left hand", '"is_grabbed_lh(a)"', False),
        ("sit down on [a]", '"agent_sitting_on(a)"', False),
        ("you must unplug [a]", '!"is_pluggedin(a)"', False),
        ("wipe [a]", '"is_clean(a)"', False),
        ("pour out [a]", '"is_poured(a)"', False),
    ],
)
def test_a_clause_reads_as_its_literal(clause, literal, avoid):
    found = read_clause(clause)
    assert found is not None and str(found.literal) == literal and found.avoid is avoid


def test_a_bare_placeholder_and_an_unknown_verb():
    assert read_clause("[a]").literal is None and read_clause("[a]").letters == ("a",)
    assert read_clause("teleport to [a]") is None
    assert read_clause("[a] turns purple") is None


def test_verb_forms_regular_and_irregular():
    assert verb_forms("touch") == ["touch", "touches", "touching", "touched"]
    assert verb_forms("go", {"go": "go goes going gone went"})[-1] == "went"


def test_a_new_row_reads_a_new_verb(tmp_path):
    table = tmp_path / "clauses.tsv"
    table.write_text("word\tX\t\\[([a-z])\\]\nclause\tpos is_touched\t<poke>\\s+{X}\n"
                     "lead\t-\tyou\ntrail\t-\tagain\n")  # fmt: skip
    lexicon = load_lexicon(table)
    assert str(read_clause("you poked [a] again", lexicon).literal) == '"is_touched(a)"'


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("clause\tpos agent_at", "line 1"),
        ("noun\tX\tx", "kind 'noun'"),
        ("clause\tmaybe agent_at\t{X}", "no word 'X'"),
        ("word\tX\tx\nclause\tmaybe agent_at\t{X}", "build 'maybe'"),
        ("lead\t-\t(unclosed", "line 1"),
    ],
)
def test_a_bad_row_is_an_error_naming_its_line(tmp_path, row, message):
    table = tmp_path / "clauses.tsv"
    table.write_text(row + "\n")
    with pytest.raises(DataFileError, match=message):
        load_lexicon(table)
