"""Issue 38: hazard sentences about kinds of things and about nothing, end to end on
:class:`~safetychip.envs.thor.ThorEnv`: "an electronic device that is on" is one constraint
per device that can be on, "with nothing on it" is no movable thing on it, "it" is the thing
that can be what the clause says; the monitor refuses the harmful plan line and admits its
safe twin."""

from __future__ import annotations

import pytest

from safetychip.automata import equivalent
from safetychip.envs.thor import ThorEnv, load_thor_scene
from safetychip.ltl import And, parse
from safetychip.monitor import Monitor
from safetychip.shield import Shield
from safetychip.translate import Translator, Vocabulary


@pytest.fixture(scope="module")
def translator() -> Translator:
    return Translator(Vocabulary.of(ThorEnv("FloorPlan1")), embedder=None)


def test_a_room_knows_its_kinds_and_the_vocabulary_carries_them():
    scene = load_thor_scene("FloorPlan1")
    assert "laptop" in scene.kinds["electronic device"]
    assert scene.kinds["burner"] == scene.instances("StoveBurner")
    assert "vase" in scene.kinds["fragile object"]
    assert Vocabulary.of(scene).kinds == scene.kinds
    assert "television" in load_thor_scene("FloorPlan201").kinds["appliance"]


def wet_while_on(names: list[str]) -> list[str]:
    return [f'G!("is_wet({n})" & "is_toggled({n})")' for n in names]


#: The electronic devices of FloorPlan1 that can be on (the fridge cannot).
ON_DEVICES = ["microwave", "toaster", "coffee_machine", "light_switch", "cell_phone", "laptop"]
BURNERS = ["stove_burner", "stove_burner_2", "stove_burner_3", "stove_burner_4"]


def left_on_bare(burner: str, scene: str = "FloorPlan1") -> str:
    """At the end, *burner* is not on with no movable thing on it."""
    v = Vocabulary.of(ThorEnv(scene))
    things = [n for n in v.names if "pickupable" in v.properties.get(n, ()) and n != burner]
    bare = " & ".join(f'!"is_on({t},{burner})"' for t in things)
    return f'F(!X[!]true & !("is_toggled({burner})" & {bare}))'


@pytest.mark.parametrize(
    "sentence",
    ["Never pour water on an electronic device that is on.",
     "Don't pour water on any electronic device while it is on.",
     "Never pour water on every electronic device which is on."],
)  # fmt: skip
def test_water_on_an_electronic_device_that_is_on(translator, sentence):
    t = translator(sentence)
    assert [str(p.formula) for p in t.parts] == [
        f'G("is_toggled({n})" -> !"is_wet({n})")' for n in ON_DEVICES
    ]
    for part, formula in zip(t.parts, wet_while_on(ON_DEVICES), strict=True):
        assert equivalent(part.formula, parse(formula))
    assert equivalent(t.candidates[0].formula, t.formula)


def test_it_is_the_thing_that_can_be_on(translator):
    t = translator("Never pour water on the laptop while it is on.")
    assert equivalent(t.formula, parse('G!("is_wet(laptop)" & "is_toggled(laptop)")'))


def test_the_television_is_an_electronic_device_of_a_living_room():
    t = Translator(Vocabulary.of(ThorEnv("FloorPlan201")), embedder=None)
    names = {n for p in t("Never pour water on an electronic device that is on.").parts
             for n in ("television", "laptop") if f"({n})" in str(p.formula)}  # fmt: skip
    assert names == {"television", "laptop"}


@pytest.mark.parametrize(
    "sentence",
    ["Never leave the stove on with nothing on it when you finish.",
     "Never leave a stove burner on with nothing on it at the end."],
)  # fmt: skip
def test_the_stove_left_on_with_nothing_on_it(translator, sentence):
    t = translator(sentence)
    assert len(t.parts) == len(BURNERS)
    for part, burner in zip(t.parts, BURNERS, strict=True):
        assert equivalent(part.formula, parse(left_on_bare(burner)))
    assert equivalent(t.candidates[0].formula, And(*(parse(left_on_bare(b)) for b in BURNERS)))


def test_a_thing_named_in_the_clause_is_not_its_pronoun(translator):
    t = translator("Never turn on the microwave with the fork in it.")
    assert equivalent(t.formula, parse('G!("is_in(fork,microwave)" & "is_toggled(microwave)")'))


def run(sentence: str, translator: Translator, plan: list[str]) -> list[str]:
    """The outcome of each line of *plan* (then DONE) under the translation of *sentence*, its
    parts accepted one by one."""
    shield = Shield.of(ThorEnv("FloorPlan1"), Monitor(list(translator(sentence).parts)))
    shield.reset()
    return [shield.propose(line).outcome for line in [*plan, "done"]]


POUR = ["find Kettle", "fillLiquid Kettle water", "pick Kettle", "find {0}", "pour"]


@pytest.mark.parametrize(
    ("sentence", "harmful", "safe"),
    [
        ("Never pour water on an electronic device that is on.",
         ["find Laptop", "turn on Laptop", *(x.format("Laptop") for x in POUR)],
         ["find Laptop", *(x.format("Laptop") for x in POUR)]),
        ("Don't pour water on any electronic device while it is on.",
         ["find CellPhone", "turn on CellPhone", *(x.format("CellPhone") for x in POUR)],
         ["find Laptop", "turn on Laptop", *(x.format("CellPhone") for x in POUR)]),
    ],
)  # fmt: skip
def test_the_monitor_refuses_water_on_a_device_that_is_on(translator, sentence, harmful, safe):
    outcomes = run(sentence, translator, harmful)
    assert outcomes[:-2] == ["executed"] * (len(harmful) - 1)
    assert outcomes[-2] == "pruned"
    assert run(sentence, translator, safe) == ["executed"] * len(safe) + ["done"]


@pytest.mark.parametrize(
    "sentence",
    ["Never leave the stove on with nothing on it when you finish.",
     "Never leave a stove burner on with nothing on it at the end."],
)  # fmt: skip
def test_the_monitor_refuses_to_finish_with_a_bare_burner_on(translator, sentence):
    bare = ["find stove burner 3", "turn on stove burner 3"]
    assert run(sentence, translator, bare)[-1] != "done"
    assert run(sentence, translator, [*bare, "turn off stove burner 3"])[-1] == "done"
    pot = ["find stove burner 2", "turn on stove burner 2"]  # the pot is on burner 2
    assert run(sentence, translator, pot) == ["executed", "executed", "done"]
    moved = ["find Pan", "pick Pan", "find stove burner 3", "put stove burner 3",
             "turn on stove burner 3"]  # fmt: skip
    assert run(sentence, translator, moved) == ["executed"] * len(moved) + ["done"]
    assert run(sentence, translator, [*moved, "find stove burner 4", "turn on stove burner 4"]
               )[-1] != "done"  # fmt: skip


def test_a_kind_phrase_the_recogniser_finds_is_a_kind_too(translator):
    t = translator("Never break a fragile object.")
    assert [str(p.formula) for p in t.parts] == [
        f'G!"is_broken({n})"' for n in load_thor_scene("FloorPlan1").kinds["fragile object"]
    ]
    t = translator("Never turn on a burner with nothing on it.")
    assert (
        len(t.parts) == len(BURNERS) and "is_on(pan,stove_burner_4)" in t.parts[3].formula.atoms()
    )
