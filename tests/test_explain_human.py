"""Human queries: questions to formulas, plans rolled out without executing them, evidence."""

from __future__ import annotations

import pytest

from safetychip.automata import equivalent
from safetychip.envs import load_scene
from safetychip.errors import GroundingError, QueryError, SentenceError
from safetychip.explain import answer_query, plan_trace, question_formula
from safetychip.ltl import parse
from safetychip.translate import Translator, Vocabulary


@pytest.fixture(scope="module")
def t():
    return Translator(Vocabulary.from_scene(load_scene("apartment_1")), embedder=None)


@pytest.mark.parametrize(
    ("question", "formula"),
    [
        (
            "Will you go to the kitchen before the bathroom?",
            '!"agent_at(bathroom)" U "agent_at(kitchen)"',
        ),
        ("Are you going to open the fridge?", 'F"is_open(fridge)"'),
        ("Will you ever pick up the phone?", 'F"is_grabbed(phone)"'),
        (
            "Will you go to the kitchen after the bathroom?",
            'F("agent_at(bathroom)" & X[!]F"agent_at(kitchen)")',
        ),
        (
            "Will you grab the salmon and then open the fridge?",
            'F("is_grabbed(salmon)" & X[!]F"is_open(fridge)")',
        ),
        ("Will you never touch the stove?", 'G!"is_touched(stove)"'),
        ("Will you stay out of the bathroom?", 'G!"agent_at(bathroom)"'),
        ("Do you plan to switch on the stove", 'F"is_switchedon(stove)"'),
        (
            "Will you enter the hallway more than twice?",
            str(__import__("safetychip").at_least(3, "agent_at(hallway)")),
        ),
        (
            "Will you go into the living room at most once?",
            str(__import__("safetychip").at_most(1, "agent_at(living_room)")),
        ),
    ],
)
def test_question_forms(t, question, formula):
    assert equivalent(question_formula(question, t), parse(formula))


@pytest.mark.parametrize(
    ("question", "error", "message"),
    [
        ("Go to the kitchen.", QueryError, "'Go to the kitchen.' is not a question about the plan"),
        ("Will you dance with the phone?", QueryError, "cannot read 'dance with [a]'"),
        ("Will you feed the goldfish?", GroundingError, "'the goldfish' is not a name"),
        ("", SentenceError, "the sentence is empty"),
    ],
)
def test_questions_it_cannot_read(t, question, error, message):
    with pytest.raises(error, match=message.replace("[", r"\[").replace("]", r"\]")):
        question_formula(question, t)


PLAN = ["walk to bathroom", "walk to kitchen", "done"]
STATES = [[{"agent_at(bathroom)"}], [{"agent_at(kitchen)"}]]


def test_answer_from_recorded_states(t):
    a = answer_query(
        "Will you go to the kitchen before the bathroom?",
        PLAN,
        t,
        states=STATES,
        initial={"agent_at(bedroom)"},
    )
    assert (a.answer, a.step, a.action, a.state_change, a.settled) == (
        False,
        1,
        "walk to bathroom",
        "agent_at(bathroom)",
        True,
    )
    assert a.text == (
        "No. At step 1 (walk to bathroom): agent_at(bathroom) becomes true, which settles it."
    )
    b = answer_query("Will you go to the kitchen after the bathroom?", PLAN, t, states=STATES)
    assert (b.answer, b.step, b.to_dict()["answer"]) == (True, 2, "yes")
    c = answer_query("Will you pick up the phone?", PLAN, t, states=STATES)
    assert (c.answer, c.settled, c.text) == (
        False,
        False,
        "No: only the end of the plan decides it, after step 2 (walk to kitchen).",
    )


def test_recorded_states_must_match_the_plan(t):
    with pytest.raises(QueryError, match="the plan has 3 actions but 1 recorded"):
        answer_query("Will you open the fridge?", PLAN, t, states=STATES[:1])
    with pytest.raises(QueryError, match="give env_factory"):
        plan_trace(PLAN, ["a"])
    with pytest.raises(QueryError, match="a recorded state gives no value for b"):
        plan_trace(["x"], ["a", "b"], states=[[{"a": True}]], initial=set())


def test_plan_rolled_out_on_a_fresh_environment(t):
    from safetychip.envs import VirtualHomeEnv

    agent_env = VirtualHomeEnv("apartment_1").track(["is_open(fridge)"])
    agent_env.reset(options={"initial": ["agent_at(bedroom)"]})
    plan = ["walk to fridge", "open fridge", "walk to salmon", "grab salmon", "close fridge"]
    options = {"initial": ["agent_at(bedroom)"]}
    a = answer_query(
        "Will you grab the salmon and then open the fridge?",
        plan,
        t,
        env_factory=lambda: VirtualHomeEnv("apartment_1"),
        options=options,
    )
    assert a.answer is False and not a.settled
    b = answer_query(
        "Will you open the fridge before you pick up the salmon?",
        plan,
        t,
        env_factory=lambda: VirtualHomeEnv("apartment_1"),
        options=options,
    )
    assert (b.answer, b.step, b.action) == (True, 2, "open fridge")
    c = answer_query(
        "Will you go to the kitchen before the bathroom?",
        plan,
        t,
        env_factory=lambda: VirtualHomeEnv("apartment_1"),
        options=options,
    )
    assert (c.answer, c.step) == (True, 1)  # walking to the fridge enters the kitchen
    assert agent_env.truth(["is_open(fridge)"]) == {"is_open(fridge)": False}  # untouched


def test_a_refused_plan_step_is_an_error(t):
    from safetychip.envs import VirtualHomeEnv

    with pytest.raises(
        QueryError,
        match=r"step 1 of the plan, 'grab salmon', would be refused "
        r"by the environment: cannot grab salmon",
    ):
        answer_query(
            "Will you open the fridge?",
            ["grab salmon"],
            t,
            env_factory=lambda: VirtualHomeEnv("apartment_1"),
            options={"initial": ["agent_at(bedroom)"]},
        )


def test_plan_trace_proposes_through_a_shield_without_filters():
    from safetychip.envs import PropositionEnv

    def env():
        return PropositionEnv(["a", "b"], rooms=["r1", "r2"])

    start, steps = plan_trace(["set a", "go to r2", "done", "set b"], ["a"], env_factory=env)
    assert start == {"a": False}  # the rooms the shield tracks are not reported
    assert [(s.action, s.states) for s in steps] == [
        ("set a", ({"a": True},)),
        ("go to r2", ({"a": True},)),
    ]
    with pytest.raises(
        QueryError,
        match=r"step 1 of the plan, 'fly', would be refused by the environment: "
        r"cannot read 'fly'",
    ):
        plan_trace(["fly"], ["a"], env_factory=env)
