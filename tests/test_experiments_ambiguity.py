"""The four-policy evaluation of unsettled translations (a small slice of it)."""

from __future__ import annotations

import pytest

from safetychip.experiments import AMBIGUITY_POLICIES, ambiguity_table, policy_rows


@pytest.fixture(scope="module")
def rows():
    return {r.policy: r for r in policy_rows("sentences", sets=("heldout/sentences.jsonl",),
                                             sentences=8, rollouts=3)}  # fmt: skip


def test_every_policy_runs_the_same_episodes(rows):
    assert list(rows) == list(AMBIGUITY_POLICIES)
    assert {r.episodes for r in rows.values()} == {8 * 3}
    assert {r.units for r in rows.values()} == {8}


def test_runtime_admits_nothing_unsafe_where_the_set_holds_the_gold_formula(rows):
    runtime = rows["runtime"]
    assert runtime.unsafe_covered == 0 and runtime.over_refusals_covered == 0
    assert runtime.picks == 0 and runtime.left_out == 0


def test_pick_first_needs_one_pick_per_set_and_asks_nothing(rows):
    first = rows["pick_first"]
    assert first.picks == 8 and first.questions == 0
    assert first.left_out == first.uncovered


def test_runtime_asks_fewer_questions_than_pick_first_picks(rows):
    assert rows["runtime"].questions < rows["pick_first"].picks


def test_the_table_has_a_row_per_policy(rows):
    lines = ambiguity_table(rows.values()).splitlines()
    assert len(lines) == 2 + len(AMBIGUITY_POLICIES)
    assert lines[-1].startswith("| sentences | runtime | 24 | ")


def test_an_unknown_setting_is_named():
    with pytest.raises(ValueError, match=r"'scenes'; choose one of tasks, sentences"):
        policy_rows("scenes")
