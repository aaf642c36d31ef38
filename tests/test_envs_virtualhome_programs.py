"""VirtualHome programs in the dataset's format: the environment agrees with the raw executor.

Each program (our twelve in ``data/virtualhome/programs`` and seeded random ones over every
action) is prepared on our official-format house, then run twice: by VirtualHome's own
``ScriptExecutor.execute`` (the whole script at once, its FIND and PUTOFF crashes patched),
and line by line through :class:`VirtualHomeEnv` in literal mode. They must agree on which
line stops the program, on the graph after every line, and on every proposition after every
line, the propositions being read from the executor's graph dicts by the truth definitions
written out again here.

``pytest -q -s tests/test_envs_virtualhome_programs.py -k figures`` prints the figures.
"""

from __future__ import annotations

import json
import random
from functools import cache
from typing import Any

import pytest

from safetychip.envs.virtualhome import (
    ALL_VERBS,
    OFFICIAL_GRAPH,
    PROGRAM_DIR,
    PreparedProgram,
    Program,
    VirtualHomeEnv,
    prepare_program,
    read_program,
    run_program,
)
from safetychip.envs.virtualhome._simulator import evolving_graph, script_executor
from safetychip.errors import DataFileError

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

OURS = sorted(PROGRAM_DIR.glob("*.txt"))
RANDOM_PROGRAMS = 60
RANDOM_LINES = 16
# Classes the random programs use, with the room they are located in.
CLASSES = {
    "living_room": ["couch", "tv", "remote_control", "laptop", "coffee_table", "magazine",
                    "chair", "book", "bookshelf", "computer", "keyboard", "mug", "pillow"],
    "kitchen": ["fridge", "milk", "mug", "cup", "sink", "faucet", "plate", "knife", "bread",
                "apple", "stove", "microwave", "kitchen_cabinets", "coffeemaker", "water"],
    "bedroom": ["bed", "pillow", "closet", "clothes_shirt", "tablelamp", "chair", "laptop",
                "cellphone", "nightstand", "book"],
    "bathroom": ["toilet", "bathtub", "towel", "soap", "sink", "faucet", "washing_machine",
                 "towel_rack", "clothes_pants"],
}  # fmt: skip


@cache
def properties(cls: str) -> set[str]:
    graph = json.loads(OFFICIAL_GRAPH.read_text(encoding="utf-8"))
    found = [n["properties"] for n in graph["nodes"] if n["class_name"] == cls]
    return set(found[0]) if found else set()


def random_program(seed: int) -> Program:
    """A program in the dataset's format over one room's objects, grown line by line.

    Each next line is a random action on objects that mostly have the properties it asks
    for; of up to 40 such candidates, the first the executor can run from where the program
    got to is kept (tried on the room prepared with every class located in it), so programs
    run long; one time in thirty the candidate is kept untried, so many programs also stop.
    """
    vh = evolving_graph()
    rng = random.Random(seed)
    room = rng.choice(sorted(CLASSES))
    classes = CLASSES[room]
    actions = [a for a in vh.scripts.Action.__members__ if a not in (
        "LOOKAT_SHORT", "LOOKAT_LONG", "LOOKAT_MEDIUM")]  # fmt: skip
    initial = [{"location": [[c, "1"], [room, "1"]]} for c in classes]
    initial += [{"is_off": [c, "1"]} for c in classes if c in ("tv", "fridge", "stove")]
    everything = "\n".join(f"[Walk] <{c}> (1)" for c in [room, *classes])
    world = prepare_program(
        OFFICIAL_GRAPH, Program.parse(f"All\n\n\n{everything}", initial=initial)
    )
    graph = vh.environment.EnvironmentGraph(world.scene.graph)
    executor = script_executor(graph)
    state = vh.environment.EnvironmentState(graph, {}, instance_selection=True)

    def candidate() -> str:
        value = vh.scripts.Action[rng.choice(actions)].value
        needs = value[2] if len(value) > 2 else []
        objects = []
        for k in range(value[1]):  # mostly objects with the properties it asks for
            fits = [c for c in classes if not needs[k] or set(needs[k][:1]) & properties(c)]
            objects.append(f"<{rng.choice(fits if fits and rng.random() < 0.8 else classes)}> (1)")
        name = next(n for n, a in vh.scripts.Action.__members__.items() if a.value == value)
        return " ".join([f"[{name.title()}]", *objects])

    def run(line: str) -> Any:
        graph_line = line
        for (c, k), i in world.ids.items():
            graph_line = graph_line.replace(f"<{c}> ({k})", f"<{c}> ({i})")
        script = vh.scripts.read_script_from_list_string([graph_line])
        executor.info = vh.execution.ExecutionInfo()
        ok, after = executor.execute_one_step(script, state)
        return after if ok else None

    lines = [f"[Walk] <{room}> (1)"]
    state = run(lines[0])
    while len(lines) < RANDOM_LINES and state is not None:
        line, after = candidate(), None
        if rng.random() < 0.97:
            for _ in range(40):
                after = run(line)
                if after is not None:
                    break
                line = candidate()
        lines.append(line)
        state = after if after is not None else run(line)
    used = {part.split(">")[0] for line in lines for part in line.split(" <")[1:]}
    initial = [e for e in initial if _subject(e) in used]
    text = f"Random {seed}\nA seeded random program.\n\n\n" + "\n".join(lines) + "\n"
    return Program.parse(text, initial=initial, source=f"<random {seed}>")


def _subject(entry: dict[str, Any]) -> str:
    value = next(iter(entry.values()))
    return str(value[0][0] if isinstance(value[0], list) else value[0])


def programs() -> list[Program]:
    return [read_program(p) for p in OURS] + [random_program(s) for s in range(RANDOM_PROGRAMS)]


# -- the reference: the raw executor and the truth definitions on its graph dicts ----------


def raw_run(prepared: PreparedProgram) -> tuple[int | None, list[dict[str, Any]]]:
    """Run the whole script with the executor's own ``execute``: (failing line, graphs)."""
    vh = evolving_graph()
    executor = script_executor(vh.environment.EnvironmentGraph(prepared.scene.graph))
    script = vh.scripts.read_script_from_list_string(list(prepared.lines))
    ok, _, graphs = executor.execute(script, w_graph_list=True)
    return (None if ok else len(graphs) - 1), graphs


def truth(name: str, ids: dict[str, int], graph: dict[str, Any], character: int,
          event: tuple[str, int] | None, rooms: set[int]) -> bool:  # fmt: skip
    predicate, args = name[:-1].split("(")
    x, *rest = (ids[a] for a in args.split(","))
    edges, states = graph["edges"], graph["states"]
    if predicate == "agent_at":
        return (character, "INSIDE" if x in rooms else "CLOSE", x) in edges
    if predicate in ("is_on", "is_in"):
        return (x, "ON" if predicate == "is_on" else "INSIDE", rest[0]) in edges
    if predicate in ("is_touched", "is_poured"):
        return event == ("touch" if predicate == "is_touched" else "pour", x)
    if predicate in ("agent_sitting_on", "agent_lying_on"):
        posture = "SITTING" if predicate == "agent_sitting_on" else "LYING"
        return posture in states[character] and (character, "ON", x) in edges
    relation = {"agent_facing": "FACING", "is_grabbed_rh": "HOLDS_RH", "is_grabbed_lh": "HOLDS_LH"}
    if predicate in relation:
        return (character, relation[predicate], x) in edges
    if predicate == "is_grabbed":
        return bool({(character, "HOLDS_RH", x), (character, "HOLDS_LH", x)} & edges)
    if predicate == "is_worn":
        return (x, "ON", character) in edges
    state = {"is_open": "OPEN", "is_switchedon": "ON", "is_dirty": "DIRTY", "is_clean": "CLEAN",
             "is_pluggedin": "PLUGGED_IN"}[predicate]  # fmt: skip
    return state in states[x]


def indexed(graph: dict[str, Any]) -> dict[str, Any]:
    return {"edges": {(e["from_id"], e["relation_type"], e["to_id"]) for e in graph["edges"]},
            "states": {n["id"]: set(n["states"]) for n in graph["nodes"]}}  # fmt: skip


def canonical(graph: dict[str, Any]) -> tuple[frozenset[Any], frozenset[Any]]:
    nodes = frozenset((n["id"], n["class_name"], frozenset(n["states"])) for n in graph["nodes"])
    edges = frozenset((e["from_id"], e["relation_type"], e["to_id"]) for e in graph["edges"])
    return nodes, edges


def propositions(prepared: PreparedProgram) -> list[str]:
    """Every proposition over the program's objects (and the rooms, for agent_at, is_in)."""
    scene = prepared.scene
    objects = sorted({i for i in prepared.ids.values() if i != scene.character})
    rooms = [scene.id(r) for r in scene.rooms]
    names = []
    for i in objects:
        x = scene.name_of(i)
        for predicate, arity in scene.predicates.items():
            if arity != 1 or (scene.is_room(i) and predicate != "agent_at"):
                continue
            if predicate == "is_pluggedin" and "HAS_PLUG" not in scene.node(i)["properties"]:
                continue
            names.append(f"{predicate}({x})")
        if not scene.is_room(i):
            for j in sorted({*objects, *rooms} - {i}):
                names += [f"is_on({x},{scene.name_of(j)})", f"is_in({x},{scene.name_of(j)})"]
    return names


@cache
def compared() -> list[dict[str, Any]]:
    """Both runs of every program, compared line by line."""
    results = []
    for program in programs():
        prepared = prepare_program(OFFICIAL_GRAPH, program)
        scene = prepared.scene
        props = propositions(prepared)
        ids = {scene.name_of(i): i for i in scene.names}
        rooms = {scene.id(r) for r in scene.rooms}
        stop, graphs = raw_run(prepared)
        env = VirtualHomeEnv(scene, mode="literal").track(props)
        _, info = env.reset()
        result = {"program": program.source, "lines": len(prepared.lines), "raw_stop": stop,
                  "env_stop": None, "graph_mismatch": [], "prop_mismatch": [], "checked": 0}  # fmt: skip
        env_states = [info["states"][0]]
        env_graphs = [env.graph()]
        for k, line in enumerate(prepared.lines):
            *_, info = env.step(line)
            if info["error"] is not None:
                result["env_stop"] = k
                break
            env_states.append(info["states"][0])
            env_graphs.append(env.graph())
        for k, graph in enumerate(graphs[: len(env_graphs)]):
            if canonical(graph) != canonical(env_graphs[k]):
                result["graph_mismatch"].append(k)
            line = prepared.lines[k - 1] if k else ""
            verb = line[1:].split("]")[0].lower()
            event = None
            if k and verb in ("touch", "pour"):
                event = (verb, int(line.split("(")[1].split(")")[0]))
            reference = indexed(graph)
            for name in props:
                result["checked"] += 1
                expected = truth(name, ids, reference, scene.character, event, rooms)
                if env_states[k][name] != expected:
                    result["prop_mismatch"].append((k, name, expected))
        result["graphs"] = min(len(graphs), len(env_graphs))
        results.append(result)
    return results


# -- tests ---------------------------------------------------------------------------------


def test_the_programs_cover_every_action():
    used = {line[1:].split("]")[0].upper() for p in programs() for line in p.lines}
    script_names = {evolving_graph().scripts.Action[n].name for n in used}
    assert len(OURS) == 13
    # every action the executor implements, in English form too
    assert {"SIT", "LIE", "STANDUP", "POUR", "PUTOFF", "PLUGIN", "WASH", "TYPE"} <= script_names
    assert len(ALL_VERBS) == 43


def test_environment_and_executor_agree_on_executability():
    for r in compared():
        assert r["env_stop"] == r["raw_stop"], r["program"]


def test_environment_and_executor_agree_on_every_graph():
    for r in compared():
        assert r["graph_mismatch"] == [], r["program"]
        assert r["graphs"] == (r["lines"] + 1 if r["raw_stop"] is None else r["raw_stop"] + 1)


def test_environment_and_executor_agree_on_every_proposition():
    for r in compared():
        assert r["prop_mismatch"] == [], r["program"]


def test_the_agreement_is_not_vacuous():
    results = compared()
    assert sum(r["raw_stop"] is None for r in results) >= 40  # programs that run to the end
    assert sum(r["raw_stop"] is not None for r in results) >= 8  # and programs that stop
    assert sum(r["graphs"] - 1 for r in results) >= 700  # lines executed
    true_props = 0
    for r in results[:12]:
        prepared = prepare_program(OFFICIAL_GRAPH, read_program(r["program"]))
        run = run_program(prepared, propositions=propositions(prepared))
        true_props += sum(v for state in run.trace for v in state.values())
    assert true_props > 500


def test_figures(capsys):
    results = compared()
    lines = sum(r["lines"] for r in results)
    executed = sum(r["graphs"] - 1 for r in results)
    agree_exec = sum(r["env_stop"] == r["raw_stop"] for r in results)
    agree_graph = sum(not r["graph_mismatch"] for r in results)
    checked = sum(r["checked"] for r in results)
    wrong = sum(len(r["prop_mismatch"]) for r in results)
    with capsys.disabled():
        print(
            f"\n{len(results)} programs ({len(OURS)} written, {RANDOM_PROGRAMS} seeded random), "
            f"{lines} lines, {executed} executed; executability agrees on {agree_exec}/"
            f"{len(results)}; every graph agrees on {agree_graph}/{len(results)}; "
            f"{checked - wrong}/{checked} proposition values agree"
        )
    assert agree_exec == agree_graph == len(results) and wrong == 0


# -- preparation ---------------------------------------------------------------------------


def test_preparation_follows_the_dataset():
    prepared = prepare_program(OFFICIAL_GRAPH, read_program(PROGRAM_DIR / "make_coffee.txt"))
    scene = prepared.scene
    water, phone = prepared.ids[("water", 1)], prepared.ids[("cellphone", 1)]
    assert prepared.added == (1000, 1001) and {water, phone} == {1000, 1001}
    assert scene.name_of(scene.room_of(water)) == "kitchen"  # its location
    assert scene.name_of(scene.room_of(phone)) == "bathroom"  # no cellphone there: added
    assert scene.node(phone)["properties"] == scene.node(scene.id("bedroom_cellphone"))[
        "properties"]  # fmt: skip
    assert "GRABBABLE" in scene.node(water)["properties"]
    assert any("'water' is not in the graph" in n for n in prepared.notes)
    assert prepared.start == "bathroom"  # not the kitchen, the first room the program names
    assert prepared.lines[0] == f"[WALK] <kitchen> ({scene.id('kitchen')})"
    coffee = scene.node(prepared.ids[("coffeemaker", 1)])
    assert "OFF" in coffee["states"] and "CLEAN" in coffee["states"]


def test_initial_states_are_applied():
    prepared = prepare_program(OFFICIAL_GRAPH, read_program(PROGRAM_DIR / "wash_dishes.txt"))
    plate = prepared.scene.node(prepared.ids[("plate", 1)])
    assert "DIRTY" in plate["states"] and "CLEAN" not in plate["states"]
    nap = prepare_program(OFFICIAL_GRAPH, read_program(PROGRAM_DIR / "nap.txt"))
    assert nap.scene.node(nap.scene.character)["states"] == ["LYING"]
    milk = prepare_program(OFFICIAL_GRAPH, read_program(PROGRAM_DIR / "drink_milk.txt"))
    edge = {"from_id": milk.ids[("milk", 1)], "relation_type": "INSIDE",
            "to_id": milk.ids[("fridge", 1)]}  # fmt: skip
    assert edge in milk.scene.graph["edges"]
    tv = prepare_program(OFFICIAL_GRAPH, read_program(PROGRAM_DIR / "watch_tv.txt"))
    couch = tv.ids[("couch", 1)]
    assert not [e for e in tv.scene.graph["edges"] if e["relation_type"] == "ON"
                and e["to_id"] == couch]  # "free": the pillows moved to the floor  # fmt: skip
    assert "initial state 'facing' is ignored, as the dataset does" in tv.notes


def test_program_errors():
    with pytest.raises(DataFileError, match=r"line 5 '\[Fly\] <tv> \(1\)'"):
        Program.parse("Title\nText\n\n\n[Fly] <tv> (1)\n")
    with pytest.raises(DataFileError, match="no such program file"):
        read_program(PROGRAM_DIR / "missing.txt")
    bad = Program.parse("T\n\n[Walk] <tv> (1)\n", initial=[{"is_on": ["lamp", "1"]}])
    with pytest.raises(DataFileError, match=r"names lamp \(1\), which the program does not"):
        prepare_program(OFFICIAL_GRAPH, bad)
    with pytest.raises(DataFileError, match="no room 'garage'"):
        prepare_program(OFFICIAL_GRAPH, bad.__class__.parse("T\n\n[Walk] <tv> (1)\n"),
                        start="garage")  # fmt: skip
    with pytest.raises(ValueError, match="needs a graph"):
        run_program(PROGRAM_DIR / "nap.txt")


def test_run_reports_where_and_why_it_stops():
    run = run_program(PROGRAM_DIR / "get_dressed.txt", OFFICIAL_GRAPH)
    assert not run.executable and run.stopped_at == 7
    assert run.reason == "cannot look at closet: the agent is not facing it"
    assert [s.outcome for s in run.steps] == ["executed"] * 6 + ["refused"]
    assert "stopped at line 7: cannot look at closet" in str(run)
    nap = run_program(PROGRAM_DIR / "nap.txt", OFFICIAL_GRAPH)
    assert nap.stopped_at == 4 and nap.reason == "cannot walk to bedroom: the agent is sitting"


def test_monitored_program_stops_before_the_unsafe_line():
    from safetychip.monitor import Monitor

    monitor = Monitor(["G !agent_sitting_on(couch)", "G(is_switchedon(tv) -> F agent_at(couch))"])
    run = run_program(PROGRAM_DIR / "watch_tv.txt", OFFICIAL_GRAPH, monitor=monitor)
    assert run.stopped_at == 5 and run.steps[-1].outcome == "unsafe"
    assert run.steps[-1].states[0]["agent_sitting_on(couch)"] is True
    assert "c1" in run.reason and len(run.trace) == 5
    aborted = run_program(PROGRAM_DIR / "watch_tv.txt", OFFICIAL_GRAPH,
                          monitor=Monitor(["G agent_at(tv)", "G !agent_at(tv)"]))  # fmt: skip
    assert aborted.stopped_at == 0 and aborted.steps == ()
    assert aborted.reason.startswith("the monitor aborted")


def test_preparation_matches_the_datasets_own_code(monkeypatch):
    """The wheel's ``check_one_program`` prepares the same graph, ids and initial state.

    Its resource tables are absent from the wheel: names are taken as they are (an empty
    equivalence), properties come from the house, and its executor is not run (it would
    crash on a far FIND); no random objects are placed. The dataset's random start room is
    given to ours. Two choices differ by design: the order in which several added objects
    get their ids (the dataset's is Python's set order) and the floor a ``free`` seat's
    objects move to (the dataset's is random); ids are compared through both mappings and
    floors as floors.
    """
    vh = evolving_graph()
    import evolving_graph.check_programs as dataset
    import evolving_graph.utils as utils

    monkeypatch.setattr(utils, "load_name_equivalence", lambda *args, **kwargs: {})

    class NotRun:
        def __init__(self, *args):
            pass

        def execute(self, *args, **kwargs):
            return True, None, []

    monkeypatch.setattr(dataset, "ScriptExecutor", NotRun)
    graph = json.loads(OFFICIAL_GRAPH.read_text(encoding="utf-8"))
    table = {"water": ["GRABBABLE", "POURABLE"]}
    for node in graph["nodes"]:
        table.setdefault(node["class_name"], node["properties"])
    properties = {c: [vh.environment.Property[p] for p in ps] for c, ps in table.items()}
    floors = {n["id"] for n in graph["nodes"] if n["class_name"] == "floor"}
    saved = random.getstate()
    try:
        for path in OURS:
            program = read_program(path)
            helper = utils.graph_dict_helper(properties_data=properties, object_placing={},
                                             object_states={}, max_nodes=500)  # fmt: skip
            script = vh.scripts.read_script_from_list_string(list(program.lines))
            theirs = json.loads(json.dumps(graph))
            random.seed(len(path.stem))
            *_, their_ids, _, _ = dataset.check_one_program(
                helper, script, json.loads(json.dumps(program.initial)), theirs,
                w_graph_list=False, place_other_objects=False, id_mapping={},
            )  # fmt: skip
            character = next(n["id"] for n in theirs["nodes"] if n["class_name"] == "character")
            start = next(
                n["class_name"] for e in theirs["edges"] for n in theirs["nodes"]
                if e["from_id"] == character and e["relation_type"] == "INSIDE"
                and n["id"] == e["to_id"]
            )  # fmt: skip
            ours = prepare_program(OFFICIAL_GRAPH, program, start=start, properties=table)
            assert set(their_ids) == set(ours.ids), path.stem
            found = {k: v for k, v in their_ids.items() if v < 1000}
            assert found == {k: v for k, v in ours.ids.items() if v < 1000}, path.stem
            relabel = {their_ids[k]: ours.ids[k] for k in their_ids if their_ids[k] >= 1000}

            def same(graph: dict[str, Any], ids: dict[int, int]) -> Any:
                def name(i: int) -> Any:
                    return "floor" if i in floors else ids.get(i, i)

                nodes = {(name(n["id"]), n["class_name"], frozenset(n["states"]),
                          frozenset(n["properties"])) for n in graph["nodes"]}  # fmt: skip
                edges = {(name(e["from_id"]), e["relation_type"], name(e["to_id"]))
                         for e in graph["edges"]}  # fmt: skip
                return nodes, edges

            assert same(theirs, relabel) == same(ours.scene.graph, {}), path.stem
            assert ours.start == start
    finally:
        random.setstate(saved)


def test_the_house_file_is_what_its_script_writes():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "make_official_graph", OFFICIAL_GRAPH.parents[1] / "make_official_graph.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert OFFICIAL_GRAPH.read_text(encoding="utf-8") == module.render()
    graph = json.loads(module.render())
    assert len(graph["nodes"]) >= 300
    assert {"id", "class_name", "category", "prefab_name", "obj_transform", "bounding_box",
            "properties", "states"} <= set(graph["nodes"][1])  # fmt: skip
