"""Every action of the AI2-THOR-style environment: a refused precondition (the sentence, and
nothing changes) and its effect on the object states."""

from __future__ import annotations

import pytest

from safetychip.envs.thor import ThorEnv
from safetychip.errors import ActionError, ResetNeeded


def run(*lines, scene="FloorPlan1", track=()):
    """A reset environment after *lines*, each of which must run."""
    env = ThorEnv(scene).track(track)
    env.reset()
    for line in lines:
        error = env.step(line)[-1]["error"]
        assert error is None, (line, error)
    return env


def refused(env, line):
    """The refusal of *line*: it must produce no state and change nothing."""
    before = env.snapshot()
    *_, terminated, truncated, info = env.step(line)
    assert info["states"] == [] and env.snapshot() == before
    assert not terminated and not truncated
    return info["error"]


def truth(env, *props):
    return [env.truth([p])[p] for p in props]


# -- find -------------------------------------------------------------------------------------


def test_find_moves_the_agent():
    env = run("find Fridge", track=["agent_at(fridge)", "agent_at(apple)"])
    assert truth(env, "agent_at(fridge)", "agent_at(apple)") == [True, False]
    env.step("find Apple")
    assert truth(env, "agent_at(fridge)", "agent_at(apple)") == [False, True]


def test_find_refuses_where_the_agent_is_and_what_it_holds():
    env = run("find Fridge")
    assert refused(env, "find Fridge") == "cannot find the fridge: already at the fridge"
    env = run("find Apple", "pick Apple")
    assert refused(env, "find the apple") == "cannot find the apple: already holding the apple"


# -- pick ---------------------------------------------------------------------------------------


def test_pick_takes_the_object_out_of_its_receptacle():
    env = run("find Apple", "pick Apple")
    assert truth(env, "is_grabbed(apple)", "is_on(apple,counter_top)") == [True, False]


def test_pick_takes_what_is_in_an_open_container_the_agent_found():
    env = run("find Fridge", "open Fridge", "pick Egg")
    assert truth(env, "is_grabbed(egg)", "is_in(egg,fridge)") == [True, False]


@pytest.mark.parametrize(
    ("lines", "line", "error"),
    [
        ((), "pick Apple", "cannot pick the apple: not at the apple"),
        (("find Fridge",), "pick Fridge", "cannot pick the fridge: a Fridge cannot be picked up"),
        (("find Egg",), "pick Egg", "cannot pick the egg: the fridge is closed"),
        (("find Apple", "pick Apple", "find Bread"), "pick Bread",
         "cannot pick the bread: already holding the apple (one object at a time)"),
        (("find Apple", "pick Apple"), "pick Apple",
         "cannot pick the apple: already holding the apple"),
    ],
)  # fmt: skip
def test_pick_preconditions(lines, line, error):
    assert refused(run(*lines), line) == error


# -- put ----------------------------------------------------------------------------------------


def test_put_places_the_held_object_in_or_on_the_receptacle():
    env = run("find Fridge", "open Fridge", "find Apple", "pick Apple", "find Fridge",
              "put Fridge")  # fmt: skip
    assert truth(env, "is_in(apple,fridge)", "is_on(apple,fridge)", "is_grabbed(apple)") == [
        True, False, False]  # fmt: skip
    env = run("find Apple", "pick Apple", "find DiningTable", "put DiningTable")
    assert truth(env, "is_on(apple,dining_table)") == [True]


def test_put_names_the_held_object_in_its_canonical_text():
    env = run("find Apple", "pick Apple", "find Fridge")
    assert str(env.parse("put Fridge")) == "put apple in fridge"
    assert str(env.parse("place the apple onto the Fridge")) == "put apple in fridge"


@pytest.mark.parametrize(
    ("lines", "line", "error"),
    [
        (("find Fridge",), "put Fridge", "cannot put the fridge: not holding anything"),
        (("find Apple", "pick Apple", "find Laptop"), "put Laptop",
         "cannot put the apple on the laptop: the laptop is not a receptacle"),
        (("find Apple", "pick Apple"), "put DiningTable",
         "cannot put the apple on the dining table: not at the dining table"),
        (("find Apple", "pick Apple", "find Fridge"), "put Fridge",
         "cannot put the apple in the fridge: the fridge is closed"),
        (("find Apple", "pick Apple", "find Bowl"), "put mug in Bowl",
         "cannot put the mug in the bowl: not holding the mug"),
    ],
)  # fmt: skip
def test_put_preconditions(lines, line, error):
    assert refused(run(*lines), line) == error


# -- open, close, turn on, turn off ---------------------------------------------------------------


def test_open_and_close():
    env = run("find Fridge", "open Fridge", track=["is_open(fridge)"])
    assert truth(env, "is_open(fridge)") == [True]
    env.step("close Fridge")
    assert truth(env, "is_open(fridge)") == [False]


@pytest.mark.parametrize(
    ("lines", "line", "error"),
    [
        ((), "open Fridge", "cannot open the fridge: not at the fridge"),
        (("find CounterTop",), "open CounterTop",
         "cannot open the counter top: a CounterTop cannot be opened"),
        (("find Fridge", "open Fridge"), "open Fridge",
         "cannot open the fridge: the fridge is already open"),
        (("find Fridge",), "close Fridge", "cannot close the fridge: the fridge is already closed"),
        (("find Microwave", "turn on Microwave"), "open Microwave",
         "cannot open the microwave: the microwave is on"),
    ],
)  # fmt: skip
def test_open_close_preconditions(lines, line, error):
    assert refused(run(*lines), line) == error


def test_turn_on_and_off():
    env = run("find Laptop", "turn on Laptop", track=["is_toggled(laptop)"])
    assert truth(env, "is_toggled(laptop)") == [True]
    env.step("switch off the laptop")
    assert truth(env, "is_toggled(laptop)") == [False]


@pytest.mark.parametrize(
    ("lines", "line", "error"),
    [
        (("find Apple",), "turn on Apple",
         "cannot turn on the apple: an Apple cannot be turned on or off"),
        (("find Laptop", "turn on Laptop"), "turn on Laptop",
         "cannot turn on the laptop: the laptop is already on"),
        (("find Laptop",), "turn off Laptop",
         "cannot turn off the laptop: the laptop is already off"),
        (("find Laptop", "break Laptop"), "turn on Laptop",
         "cannot turn on the laptop: the laptop is broken"),
        (("find Microwave", "open Microwave"), "turn on Microwave",
         "cannot turn on the microwave: the microwave is open"),
        ((), "turn on Laptop", "cannot turn on the laptop: not at the laptop"),
    ],
)  # fmt: skip
def test_toggle_preconditions(lines, line, error):
    assert refused(run(*lines), line) == error


def test_a_heat_source_cooks_what_is_on_it_through_the_pan():
    env = run("find Fridge", "open Fridge", "pick Egg", "close Fridge", "find Pan", "put Pan",
              track=["is_cooked(egg)", "is_in(egg,pan)", "is_on(egg,stove_burner)"])  # fmt: skip
    assert truth(env, "is_cooked(egg)", "is_on(egg,pan)", "is_on(egg,stove_burner)") == [
        False, True, True]  # fmt: skip
    env.step("find StoveBurner")
    assert env.step("turn on StoveBurner")[-1]["states"] == [
        {"is_cooked(egg)": True, "is_in(egg,pan)": False, "is_on(egg,stove_burner)": True}
    ]


def test_a_coffee_machine_that_is_on_fills_the_cup_put_in_it():
    env = run("find CoffeeMachine", "turn on CoffeeMachine", "find Bowl", "pick Bowl",
              "find CoffeeMachine", "put CoffeeMachine")  # fmt: skip
    assert truth(env, "is_filled(bowl,coffee)", "is_in(bowl,coffee_machine)") == [True, True]


def test_a_microwave_cooks_what_is_in_it_when_turned_on():
    env = run("find Cabinet_4", "open Cabinet_4", "pick Potato", "find Microwave",
              "open Microwave", "put Microwave", "close Microwave")  # fmt: skip
    assert truth(env, "is_cooked(potato)") == [False]
    env.step("turn on Microwave")
    assert truth(env, "is_cooked(potato)") == [True]


# -- slice, break, cook, dirty, clean ---------------------------------------------------------------


def test_slice_with_a_knife():
    env = run("find Knife", "pick Knife", "find Apple", "slice Apple")
    assert truth(env, "is_sliced(apple)", "is_grabbed(knife)") == [True, True]


@pytest.mark.parametrize(
    ("lines", "line", "error"),
    [
        (("find Apple",), "slice Apple", "cannot slice the apple: not holding a knife"),
        (("find Fork", "find Drawer_3", "open Drawer_3", "pick Fork", "find Apple"),
         "slice Apple", "cannot slice the apple: not holding a knife"),
        (("find Knife", "pick Knife", "find Kettle"), "slice Kettle",
         "cannot slice the kettle: a Kettle cannot be sliced"),
        (("find Knife", "pick Knife", "find Apple", "slice Apple"), "slice Apple",
         "cannot slice the apple: the apple is already sliced"),
        (("find Knife", "pick Knife"), "slice Apple", "cannot slice the apple: not at the apple"),
    ],
)  # fmt: skip
def test_slice_preconditions(lines, line, error):
    assert refused(run(*lines), line) == error


def test_break_breaks_and_spills():
    env = run("find Kettle", "fillLiquid Kettle water", "find Vase", "break Vase")
    assert truth(env, "is_broken(vase)", "is_filled(kettle,water)") == [True, True]
    env = run("find Cabinet_2", "pick Mug", "fill Mug with water", "break Mug")
    assert truth(env, "is_broken(mug)", "is_filled(mug,water)") == [True, False]


@pytest.mark.parametrize(
    ("lines", "line", "error"),
    [
        (("find Apple",), "break Apple", "cannot break the apple: an Apple cannot be broken"),
        (("find Vase", "break Vase"), "break Vase",
         "cannot break the vase: the vase is already broken"),
        ((), "break Vase", "cannot break the vase: not at the vase"),
    ],
)  # fmt: skip
def test_break_preconditions(lines, line, error):
    assert refused(run(*lines), line) == error


def test_cook_dirty_clean():
    env = run("find Cabinet_4", "open Cabinet_4", "pick Potato", "cook Potato")
    assert truth(env, "is_cooked(potato)") == [True]
    env = run("find Bowl", "dirty Bowl")
    assert truth(env, "is_dirty(bowl)") == [True]
    env.step("clean Bowl")
    assert truth(env, "is_dirty(bowl)") == [False]


@pytest.mark.parametrize(
    ("lines", "line", "error"),
    [
        (("find Apple",), "cook Apple", "cannot cook the apple: an Apple cannot be cooked"),
        (("find Bread", "cook Bread"), "cook Bread",
         "cannot cook the bread: the bread is already cooked"),
        (("find Cabinet_2",), "dirty Mug", "cannot dirty the mug: the mug is already dirty"),
        (("find Bowl",), "clean Bowl", "cannot clean the bowl: the bowl is already clean"),
        (("find Apple",), "clean Apple",
         "cannot clean the apple: an Apple cannot be made dirty or cleaned"),
    ],
)  # fmt: skip
def test_cook_dirty_clean_preconditions(lines, line, error):
    assert refused(run(*lines), line) == error


# -- drop, throw ------------------------------------------------------------------------------------


def test_drop_lands_on_the_floor_and_breaks_what_is_breakable():
    env = run("find Vase", "pick Vase", "drop")
    assert truth(env, "is_on(vase,floor)", "is_broken(vase)", "is_grabbed(vase)") == [
        True, True, False]  # fmt: skip
    env = run("find Candle", "pick Candle", "drop")
    assert truth(env, "is_on(candle,floor)", "is_broken(candle)") == [True, False]


def test_throw_breaks_what_the_agent_is_at():
    env = run("find Apple", "pick Apple", "find Window")
    assert str(env.parse("throw")) == "throw apple at window"
    env.step("throw")
    assert truth(env, "is_broken(window)", "is_on(apple,floor)", "is_broken(apple)") == [
        True, True, False]  # fmt: skip


@pytest.mark.parametrize("line", ["drop", "throw", "pour"])
def test_drop_throw_pour_need_something_held(line):
    assert refused(run("find Apple"), line).endswith(": not holding anything")


# -- pour, fill, empty ------------------------------------------------------------------------------


def test_pour_wets_what_cannot_hold_liquid():
    env = run("find Kettle", "fillLiquid Kettle water", "pick Kettle", "find Laptop", "pour")
    assert truth(env, "is_wet(laptop)", "is_filled(kettle,water)") == [True, False]


def test_pour_fills_what_can_hold_liquid():
    env = run("find Kettle", "fillLiquid Kettle wine", "pick Kettle", "find Bowl",
              "pour kettle into bowl")  # fmt: skip
    assert truth(env, "is_filled(bowl,wine)", "is_wet(bowl)", "is_filled(kettle,wine)") == [
        True, False, False]  # fmt: skip


@pytest.mark.parametrize(
    ("lines", "line", "error"),
    [
        (("find Kettle", "pick Kettle", "find Bowl"), "pour",
         "cannot pour the kettle onto the bowl: the kettle holds no liquid"),
        (("find Kettle", "fill Kettle with water", "pick Kettle"), "pour",
         "cannot pour the kettle: nothing to pour onto: find it first"),
        (("find Kettle", "fill Kettle with water", "pick Kettle", "find Bowl"),
         "pour kettle onto laptop", "cannot pour the kettle onto the laptop: not at the laptop"),
    ],
)  # fmt: skip
def test_pour_preconditions(lines, line, error):
    assert refused(run(*lines), line) == error


def test_fill_and_empty():
    env = run("find Kettle", "fill the kettle with coffee")
    assert truth(env, "is_filled(kettle,coffee)", "is_filled(kettle,water)") == [True, False]
    env.step("emptyLiquid Kettle")
    assert truth(env, "is_filled(kettle,coffee)") == [False]


@pytest.mark.parametrize(
    ("lines", "line", "error"),
    [
        (("find Apple",), "fill Apple with water",
         "cannot fill the apple with water: an Apple cannot be filled with liquid"),
        (("find Kettle", "fill Kettle with water"), "fill Kettle with wine",
         "cannot fill the kettle with wine: the kettle is already full of water"),
        (("find Vase", "find Cabinet_2", "pick Mug", "break Mug"), "fill Mug with water",
         "cannot fill the mug with water: the mug is broken"),
        (("find Kettle",), "empty Kettle", "cannot empty the kettle: the kettle holds no liquid"),
        ((), "fill Kettle with water", "cannot fill the kettle with water: not at the kettle"),
    ],
)  # fmt: skip
def test_fill_empty_preconditions(lines, line, error):
    assert refused(run(*lines), line) == error


def test_an_unknown_liquid_is_refused_with_the_liquids():
    with pytest.raises(ActionError, match=r"unknown liquid 'milk'; liquids: water, coffee, wine"):
        run().parse("fill Kettle with milk")


# -- done ---------------------------------------------------------------------------------------


def test_done_ends_the_episode_with_the_goal_as_reward():
    env = ThorEnv("FloorPlan1")
    env.reset(options={"goal": ["agent_at(fridge)"]})
    assert env.step("done")[1:3] == (0.0, True)
    env.reset(options={"goal": ["agent_at(fridge)"]})
    env.step("find Fridge")
    assert env.step("finish")[1:3] == (1.0, True)
    with pytest.raises(ResetNeeded):
        env.step("find Apple")
