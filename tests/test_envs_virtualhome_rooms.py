"""Programs that name rooms the graph lacks run; a step does not depend on reading the graph.

The programs are written here in the dataset's format, on our official-format house
(``OFFICIAL_GRAPH``: bedroom, bathroom, kitchen, living room) and on the same house with its
kitchen relabelled ``dining_room`` (a house without a kitchen). Each names one room the graph
lacks, one per mapping of the dataset's preparation: home_office -> living_room,
entrance_hall -> living_room, kids_bedroom -> bedroom (on the house), kitchen -> dining_room
(on the house without a kitchen). The agreement programs grab an object added at reach of
several kitchen appliances, walk, put it on one of them and grab it again: the executor then
takes "the first" object the grabbed one was close to, which is where a read of the graph
used to change what later lines do.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from test_envs_virtualhome_programs import indexed, propositions, raw_run, truth

from safetychip.envs.virtualhome import (
    OFFICIAL_GRAPH,
    PreparedProgram,
    Program,
    VirtualHomeEnv,
    prepare_program,
    run_program,
)
from safetychip.envs.virtualhome._simulator import evolving_graph, script_executor
from safetychip.errors import DataFileError

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def house(relabel: dict[str, str] | None = None) -> dict[str, Any]:
    """The official-format house, its rooms relabelled by *relabel* (old -> new class)."""
    graph = json.loads(OFFICIAL_GRAPH.read_text(encoding="utf-8"))
    for node in graph["nodes"]:
        if node["category"] == "Rooms":
            node["class_name"] = (relabel or {}).get(node["class_name"], node["class_name"])
    return graph


def program(room: str, lines: list[str], objects: list[str], extra: list[Any]) -> Program:
    """A program whose *objects* are located in *room*, in the dataset's format."""
    initial = [{"location": [[name, "1"], [room, "1"]]} for name in objects] + extra
    text = f"In the {room}\nA program naming a room.\n\n\n" + "\n".join(lines) + "\n"
    return Program.parse(text, initial=initial, source=f"<{room}>")


ABSENT = {  # absent room -> (the room it maps to, the graph, the program)
    "home_office": ("living_room", lambda: house(), program(
        "home_office",
        ["[Walk] <home_office> (1)", "[Walk] <laptop> (1)", "[Grab] <laptop> (1)",
         "[Walk] <couch> (1)", "[Sit] <couch> (1)"],
        ["laptop", "couch"], [])),
    "entrance_hall": ("living_room", lambda: house(), program(
        "entrance_hall",
        ["[Walk] <entrance_hall> (1)", "[Walk] <remote_control> (1)",
         "[Grab] <remote_control> (1)", "[Walk] <bedroom> (1)", "[Walk] <entrance_hall> (1)",
         "[PutBack] <remote_control> (1) <coffee_table> (1)"],
        ["remote_control", "coffee_table"], [])),
    "kids_bedroom": ("bedroom", lambda: house(), program(
        "kids_bedroom",
        ["[Walk] <kids_bedroom> (1)", "[Walk] <toy> (1)", "[Grab] <toy> (1)",
         "[Walk] <bed> (1)", "[PutBack] <toy> (1) <bed> (1)", "[Lie] <bed> (1)"],
        ["toy", "bed"], [])),
    "kitchen": ("dining_room", lambda: house({"kitchen": "dining_room"}), program(
        "kitchen",
        ["[Walk] <kitchen> (1)", "[Walk] <fridge> (1)", "[Open] <fridge> (1)",
         "[Grab] <milk> (1)", "[Close] <fridge> (1)", "[Walk] <kitchen_table> (1)",
         "[PutBack] <milk> (1) <kitchen_table> (1)"],
        ["fridge", "milk", "kitchen_table"], [{"inside": [["milk", "1"], ["fridge", "1"]]}])),
}  # fmt: skip


def expected_states(prepared: PreparedProgram, graphs: list[dict[str, Any]], names: list[str]):
    """The proposition states the truth definitions give on the executor's graphs."""
    scene = prepared.scene
    ids = {scene.name_of(i): i for i in scene.names}
    rooms = {scene.id(r) for r in scene.rooms}
    states = []
    for k, graph in enumerate(graphs):
        line = prepared.lines[k - 1] if k else ""
        verb = line[1:].split("]")[0].lower()
        event = (verb, int(line.split("(")[1].split(")")[0])) if k and verb in (
            "touch", "pour") else None  # fmt: skip
        reference = indexed(graph)
        states.append({n: truth(n, ids, reference, scene.character, event, rooms) for n in names})
    return states


# -- rooms the graph lacks -----------------------------------------------------------------


@pytest.mark.parametrize("absent", sorted(ABSENT))
def test_prepared_lines_name_the_room_the_graph_has(absent):
    mapped, graph, source = ABSENT[absent]
    data = graph()
    assert absent not in {n["class_name"] for n in data["nodes"] if n["category"] == "Rooms"}
    prepared = prepare_program(data, source)
    room = prepared.scene.id(mapped)
    named = [line for line in prepared.lines if f"<{mapped}> ({room})" in line]
    written = [line for line in source.lines if f"<{absent}>" in line]
    assert len(named) >= len(written) >= 1
    assert not [line for line in prepared.lines if f"<{absent}>" in line]


@pytest.mark.parametrize("absent", sorted(ABSENT))
def test_programs_naming_absent_rooms_run_as_the_executor_runs_them(absent):
    _, graph, source = ABSENT[absent]
    prepared = prepare_program(graph(), source)
    names = propositions(prepared)
    run = run_program(prepared, propositions=names)  # raised ActionError before
    stop, graphs = raw_run(prepared)
    assert run.stopped_at == (None if stop is None else stop + 1), run.reason
    assert len(run.steps) >= 3 and run.steps[0].outcome == "executed"
    assert run.trace == expected_states(prepared, graphs, names)
    assert sum(v for state in run.trace for v in state.values()) > len(run.trace)


def test_a_line_the_scene_cannot_read_is_a_refused_step():
    _, graph, source = ABSENT["home_office"]
    prepared = prepare_program(graph(), source)
    room = prepared.scene.id("living_room")
    unreadable = f"[WALK] <home_office> ({room})"
    broken = PreparedProgram(
        prepared.program, prepared.scene, (prepared.lines[0], unreadable, *prepared.lines[2:]),
        prepared.ids,
    )  # fmt: skip
    run = run_program(broken)
    assert run.stopped_at == 2 and [s.outcome for s in run.steps] == ["executed", "refused"]
    assert unreadable in run.reason and "'living_room', not 'home_office'" in run.reason
    assert run.steps[-1].reason == run.reason


def test_a_room_no_room_of_the_graph_stands_for_is_named():
    graph = house({"bathroom": "garage"})
    washing = program("bathroom", ["[Walk] <bathroom> (1)", "[Walk] <towel> (1)"], ["towel"], [])
    with pytest.raises(DataFileError, match=r"names the room 'bathroom', which the graph lacks"):
        prepare_program(graph, washing)


# -- a step does not depend on reading the graph -------------------------------------------

KITCHEN = ["coffeemaker", "microwave", "stove", "fridge", "toaster", "kitchen_counter",
           "dishwasher", "sink", "kitchen_cabinets"]  # fmt: skip


def near_appliances(seed: int) -> Program:
    """Grab an object added at reach of several appliances, walk, put it back on one, grab it.

    The object (``ground_coffee`` or ``water``, absent from the house: added with id 1000)
    is INSIDE the kitchen only and CLOSE to two to five appliances, so the executor's GRAB
    makes the character close to whichever of them comes first in a set.
    """
    rng = random.Random(seed)
    item, near = rng.choice(["ground_coffee", "water"]), rng.sample(KITCHEN, rng.randint(2, 5))
    lines = ["[Walk] <kitchen> (1)", f"[Walk] <{item}> (1)", f"[Walk] <{rng.choice(near)}> (1)",
             f"[Grab] <{item}> (1)", f"[Walk] <{rng.choice(near)}> (1)",
             f"[PutBack] <{item}> (1) <{rng.choice(near)}> (1)", f"[Grab] <{item}> (1)",
             f"[Walk] <{rng.choice(near)}> (1)"]  # fmt: skip
    used = {part.split(">")[0] for line in lines for part in line.split(" <")[1:]}
    near = [name for name in near if name in used]
    extra = [{"atreach": [[item, "1"], [name, "1"]]} for name in near]
    return program("kitchen", lines, [item, *near], extra)


SEEDS = range(0, 260, 2)  # the seeds that used to differ (135, 167, 217, 244, 255) are odd
PROGRAMS = [near_appliances(s) for s in (*SEEDS, 135, 167, 217, 244, 255)]


def raw_unread(prepared: PreparedProgram) -> list[dict[str, Any]]:
    """The executor's graphs after each line, stepped without reading its states.

    Each state is read on a deep copy: the executor's reads write into its change sets.
    """
    vh = evolving_graph()
    executor = script_executor(vh.environment.EnvironmentGraph(prepared.scene.graph))
    state = vh.environment.EnvironmentState(executor.graph, {}, instance_selection=True)
    graphs = [copy.deepcopy(state).to_dict()]
    for line in prepared.lines:
        executor.info = vh.execution.ExecutionInfo()
        ok, state = executor.execute_one_step(
            vh.scripts.read_script_from_list_string([line]), state
        )
        if not ok:
            break
        graphs.append(copy.deepcopy(state).to_dict())
    return graphs


def stepped(prepared: PreparedProgram, names: list[str], read: bool) -> list[dict[str, bool]]:
    env = VirtualHomeEnv(prepared.scene, mode="literal").track(names)
    _, info = env.reset()
    states = [info["states"][0]]
    for line in prepared.lines:
        *_, info = env.step(line)
        if info["error"] is not None:
            break
        states += info["states"]
        if read:
            env.graph()
    return states


def test_propositions_do_not_depend_on_reading_the_graph():
    grabbed = 0
    for source in PROGRAMS:
        prepared = prepare_program(OFFICIAL_GRAPH, source)
        names = [n for n in propositions(prepared) if n.startswith("agent_at(")]
        unread = stepped(prepared, names, False)
        assert unread == stepped(prepared, names, True), source.lines
        grabbed += len(unread) > 4
    assert grabbed >= len(PROGRAMS) // 2  # most programs get past their first GRAB


@pytest.mark.parametrize("absent", sorted(ABSENT))
def test_absent_room_programs_agree_with_the_executor_read_or_not(absent):
    _, graph, source = ABSENT[absent]
    prepared = prepare_program(graph(), source)
    names = propositions(prepared)
    unread = expected_states(prepared, raw_unread(prepared), names)
    assert unread == expected_states(prepared, raw_run(prepared)[1], names)
    assert stepped(prepared, names, False) == stepped(prepared, names, True) == unread


def test_the_executor_itself_answers_otherwise_when_its_graph_is_read():
    """Why the environment cannot equal both: the wheel's GRAB takes "the first" object the
    grabbed one was close to, from a set its own reads reorder."""
    differ = 0
    for source in PROGRAMS[-5:]:
        prepared = prepare_program(OFFICIAL_GRAPH, source)
        names = [n for n in propositions(prepared) if n.startswith("agent_at(")]
        unread = expected_states(prepared, raw_unread(prepared), names)
        differ += unread != expected_states(prepared, raw_run(prepared)[1], names)
    assert differ >= 1


def test_reading_a_world_leaves_it_as_it_was():
    prepared = prepare_program(OFFICIAL_GRAPH, PROGRAMS[-3])
    env = VirtualHomeEnv(prepared.scene, mode="literal")
    env.reset()
    for line in prepared.lines[:4]:
        env.step(line)
    world = env.snapshot()

    def change_sets() -> list[Any]:
        state = world._state
        return [[(k, list(v)) for k, v in sets.items()]
                for sets in (state._new_edges_from, state._removed_edges_from)]  # fmt: skip

    before = change_sets()
    env.graph(), env.render(), env.admissible_actions(), env.truth(["agent_at(kitchen)"])
    env.step(prepared.lines[4])
    env.restore(world).graph()
    assert change_sets() == before  # same edges, in the same order
