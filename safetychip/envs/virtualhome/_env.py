"""VirtualHome behind safetychip's environment protocol, on VirtualHome's own executor.

Actions run through ``evolving_graph``'s ``ScriptExecutor`` with instance selection by id
(its two crashes patched, see ``_simulator``), so its preconditions decide what is possible
and its messages explain refusals. Every script action it implements is accepted
(:data:`~safetychip.envs.virtualhome.ALL_VERBS`). In the default ``mode="routed"`` two
things are added on top, for agents:

* **Routes.** Walking (or finding something) in a room that is not adjacent first walks
  through the rooms between, along a shortest path of the scene's adjacency; each room
  entered is a ``[WALK] <room>`` of its own and yields its own proposition state.
* **Look at**, **point at** and **watch** turn the agent towards the object first
  (``[TURNTO]`` then ``[LOOKAT]``): the executor's LOOKAT, POINTAT and WATCH require
  FACING, which only TURNTO produces.

In ``mode="literal"`` every action is exactly one script line sent as it is, one
proposition state per line, as VirtualHome's own programs expect (see
:func:`~safetychip.envs.virtualhome.run_program`).

**Truth values.** ``agent_at(room)``: the character is INSIDE the room; ``agent_at(object)``:
the character is CLOSE to it; ``is_open``/``is_switchedon``: the OPEN/ON state;
``is_grabbed``: a HOLDS_RH or HOLDS_LH edge; ``is_on``/``is_in``: an ON/INSIDE edge;
``is_touched(x)``: true in the state produced by touching x only; the predicates of the
other actions are defined in :data:`~safetychip.envs.virtualhome.VIRTUALHOME_PREDICATES`
(``agent_sitting_on``, ``agent_facing``, ``is_grabbed_rh``, ``is_dirty``,
``is_pluggedin``, …). An argument may be a class name shared by several objects, meaning any
of them: ``is_open(window)`` holds when some window is open (the rule is stated in
``_predicates``). Note that the executor
leaves a carried object INSIDE the room it was picked up in until the next walk, so
``is_in(x, room)`` lags for carried objects; ``is_in`` is meant for containers.

**The executor's own quirks are kept**, since they decide what a VirtualHome program
means: it reads the character's posture (SITTING, LYING) from the scene file, not from the
current world, so after ``sit on sofa`` it refuses ``stand up`` ("the agent is not sitting
or lying") yet lets the agent walk away, and a character that starts sitting can never
walk; SIT and LIE leave the character ON the seat after standing up. ``agent_sitting_on``
and ``agent_lying_on`` read the current world (posture state and ON edge).

**Speed.** The executor's ``change_state`` deep-copies its state's change sets at every
step. Nodes are copy-on-write in the executor (it copies a node before changing its
states), so the environment instead runs every action on a shallow fork of those dicts and
sets, with ``in_place=True``, and keeps the fork when the action is committed. A committed
world is never written again: the executor's own reads (``get_node_ids_from``) write into its
change sets, so the environment reads committed worlds without them, and :meth:`graph` reads a
copy; otherwise reading the graph would change which object a later GRAB leaves the agent
close to. Simulations
are cached by the world's content and the action (up to a bound), so ``step`` after
``preview`` of the same action reuses it, and so does every episode that reaches the same
world again (every agent of an experiment grid does, until the agents differ).

Examples
--------
>>> env = VirtualHomeEnv("apartment_1").track(["agent_at(kitchen)", "is_open(fridge)"])
>>> obs, info = env.reset(options={"initial": ["agent_at(bedroom)"]})
>>> info["states"]
[{'agent_at(kitchen)': False, 'is_open(fridge)': False}]
>>> env.preview("walk to fridge", ["agent_at(living_room)", "agent_at(fridge)"])
[{'agent_at(living_room)': True, 'agent_at(fridge)': False}, \
{'agent_at(living_room)': False, 'agent_at(fridge)': True}]
>>> _, _, _, _, info = env.step("grab salmon")
>>> info["error"]
'cannot grab salmon: the agent is not close to it'
>>> _, _, _, _, info = env.step("walk to salmon")
>>> [s["agent_at(kitchen)"] for s in info["states"]], info["script"][-1]
([False, True], '[WALK] <salmon> (48)')
"""

from __future__ import annotations

import html
import itertools
import math
import os
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from safetychip.envs._base import Env, Lookahead, PropositionState
from safetychip.envs._lexicon import VerbLexicon
from safetychip.envs._tasks import Task
from safetychip.envs.virtualhome._actions import LEXICON, VERBS, Action, Target, parse_action
from safetychip.envs.virtualhome._invariants import domain_invariants
from safetychip.envs.virtualhome._predicates import EVENT_VERBS
from safetychip.envs.virtualhome._propositions import (
    SceneProposition,
    parse_literal,
    parse_proposition,
)
from safetychip.envs.virtualhome._scene import Scene, load_scene
from safetychip.envs.virtualhome._simulator import evolving_graph, script_executor, state_class
from safetychip.errors import PropositionError
from safetychip.ltl import Formula

__all__ = ["VirtualHomeEnv", "WorldSnapshot"]

_NODE = re.compile(r"<([^<>]+)> \((\d+)\)")
# The executor's reasons, reworded; the first match applies.
_REASONS = (
    (" is inside other closed thing", " is inside something closed"),
    (" does not have a free hand", " has no free hand"),
    (" already grabbed", " is already held"),
    (" can not be opened", " cannot be opened"),
    (" is not open or is not openable", " is closed"),
    (" is not closed", " is already open"),
    (" is not open", " is already closed"),
    (" is not off", " is already on"),
    (" is not on", " is already off"),
    (" is still on", " is switched on"),
    (" is not sittable", " cannot be sat on"),
    (" is not lieable", " cannot be lain on"),
    (" is not drinkable or not recipient", " cannot be drunk from"),
    (" is not pourable or drinkable", " cannot be poured"),
    (" is not recipient", " cannot take a poured liquid"),
    (" is not clothes", " is not clothing"),
    (" is not person", " is not a person"),
    (" is not readable", " cannot be read"),
    (" is not movable", " cannot be moved"),
    (" is not eatable", " cannot be eaten"),
    (" is not cuttable", " cannot be cut"),
    (" not lookable", " cannot be watched"),
    (" does not have a plug", " has no plug"),
    (" does not have switch", " has no switch"),
    (" does not have a switch", " has no switch"),
    (" is not plugged_out", " is already plugged in"),
    (" is not plugged_in", " is already unplugged"),
    (" does not hold anything in hands", " holds nothing"),
    (" is not lying or sitting", " is neither lying nor sitting"),
    (" is not sitting", " is not sitting or lying"),
    (" is not on the agent", " is not worn"),
    (" is not grabbable", " cannot be grabbed"),
    (" not grabbed", " was not picked up"),
)
# Messages whose start the executor words oddly; the first match applies.
_OPENINGS = (
    (re.compile(r"^Too many things on (.+)$"), r"\1 has no room left"),
    (re.compile(r"^char room (.+) is not node room (.+)$"), r"the agent is in the \1, not the \2"),
    (re.compile(r"^(.+) does not face (.+)$"), r"\1 is not facing \2"),
    (re.compile(r"^(.+) is not facing (.+) while sitting$"), r"\1 is not facing \2"),
    (re.compile(r"^No path between between (.+) and (.+)$"), r"there is no way to \2"),
)
_RESET_OPTIONS = ("task", "initial", "goal")
_STATES = {"is_dirty": "DIRTY", "is_clean": "CLEAN", "is_pluggedin": "PLUGGED_IN"}
_EVENTS = frozenset(EVENT_VERBS.values())
_MODES = ("routed", "literal")
_CACHE_LIMIT = 200_000  # simulations kept per environment
# The last action, when an event predicate holds after it: (verb, its first object's id).
_Event = tuple[str, int]
# A world's content key: the scene name, the event, and what differs from the scene file.
_WorldKey = tuple[str, _Event | None, Hashable]


class _Outcome(NamedTuple):
    """What an action does to the current world, simulated on a fork."""

    states: tuple[Any, ...]  # executor states, one per proposition state
    event: _Event | None  # the event of the last state (touch x, pour x)
    error: str | None
    script: tuple[str, ...]  # the lines sent to the executor
    key: _WorldKey | None  # the content key of the world it leads to (None if refused)


@dataclass(frozen=True)
class WorldSnapshot:
    """A saved world of a :class:`VirtualHomeEnv`, for :meth:`VirtualHomeEnv.restore`.

    Two snapshots compare equal, and hash alike, when their worlds are the same: same scene,
    same object states and relations, same event (an object just touched or poured). How the
    world was reached and the episode's step count do not count, so a search can use
    snapshots to recognise worlds it has seen.

    Attributes
    ----------
    key : hashable
        The world's canonical content: the scene name, the event, and every node
        state and relation that differs from the scene file.
    """

    key: _WorldKey
    _state: Any = field(compare=False, repr=False)
    _event: _Event | None = field(compare=False, repr=False)
    _steps: int = field(compare=False, repr=False)
    _done: bool = field(compare=False, repr=False)


class VirtualHomeEnv(Env):
    """A VirtualHome scene, stepped with templated English or script lines.

    Parameters
    ----------
    scene : Scene, str or path, optional
        A scene, a scene name (``"apartment_1"``) or a scene file. Defaults to the task's
        scene, else ``"apartment_1"``.
    task : Task, optional
        Gives the default initial conditions and goal of :meth:`reset`.
    max_steps : int, optional
        Truncate the episode after this many steps (DONE excluded).
    mode : {"routed", "literal"}
        ``"routed"`` (default) walks through the rooms between and turns to what is looked
        at; ``"literal"`` sends each action as one script line, as VirtualHome's programs do.

    Notes
    -----
    ``reset(options=...)`` accepts ``task`` (switches task, and scene if needed),
    ``initial`` and ``goal`` (lists of literals such as ``"agent_at(bedroom)"`` and
    ``"!is_open(fridge)"``, overriding the task's for this episode). Initial conditions
    may set ``agent_at(room)``, ``is_open``, ``is_switchedon`` (true or false), and
    ``is_on``/``is_in`` (true: the object is moved there). The environment is
    deterministic: ``seed`` is accepted and ignored.

    ``step`` returns reward 1.0 on DONE when the goal is reached, else 0.0; DONE
    terminates the episode and produces no proposition state. ``info`` holds ``action``
    (the templated English), ``script`` (the lines sent to the executor), ``states`` and
    ``error``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "virtualhome"}
    #: The verb lexicon: the verbs this environment reads, their templates and phrasings.
    verbs: ClassVar[VerbLexicon] = LEXICON
    _not_reset = "call reset() before using the environment"
    _episode_over = "the episode has ended (DONE or max_steps); call reset()"

    def __init__(
        self,
        scene: Scene | str | os.PathLike[str] | None = None,
        *,
        task: Task | None = None,
        max_steps: int | None = None,
        mode: str = "routed",
    ) -> None:
        if mode not in _MODES:
            raise ValueError(f"unknown mode {mode!r}; valid: {', '.join(_MODES)}")
        self._vh = evolving_graph()
        self.max_steps = max_steps
        self.mode = mode
        self._scene: Scene | None = None
        self._load(scene if scene is not None else task.scene if task else "apartment_1", task)
        self._state: Any = None
        self._goal: tuple[tuple[SceneProposition, bool], ...] = ()
        self._event: _Event | None = None
        self._outcomes: dict[tuple[Hashable, str], _Outcome] = {}
        self._admissible: dict[tuple[_WorldKey, str], tuple[str, ...]] = {}
        self._key: _WorldKey | None = None
        self._done = False
        self._steps = 0

    def _load(self, scene: Scene | str | os.PathLike[str], task: Task | None) -> None:
        if not isinstance(scene, Scene):
            if self._scene is not None and scene == self._scene.name:
                scene = self._scene
            else:
                scene = load_scene(scene)
        if scene is not self._scene:
            env = self._vh.environment
            self._scene = scene
            self._graph = env.EnvironmentGraph(scene.graph)
            self._executor = script_executor(self._graph)
            self._scripts: dict[str, Any] = {}
            self._props: dict[str, SceneProposition] = {}
            self._handles = {i: env.Node(i) for i in (*scene.names, scene.character)}
            self._outcomes, self._admissible = {}, {}
            self._layout = _layout(scene)
        self.task = task

    @property
    def scene(self) -> Scene:
        """The scene being simulated."""
        assert self._scene is not None
        return self._scene

    # -- protocol ---------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode; see the class notes for *options*."""
        self._require_open()
        options = dict(options or {})
        unknown = sorted(set(options) - set(_RESET_OPTIONS))
        if unknown:
            raise ValueError(
                f"unknown reset option(s) {unknown}; valid: {', '.join(_RESET_OPTIONS)}"
            )
        if "task" in options:
            self._load(options["task"].scene, options["task"])
        task = self.task
        initial = options.get("initial", task.initial if task else ())
        goal = options.get("goal", task.goal if task else ())
        self._goal = tuple(parse_literal(text, self.scene) for text in goal)
        self._state = self._initial_state(initial)
        self._event, self._key, self._done, self._steps = None, None, False, 0
        self.track(self.tracked)
        return self._observe(), {"states": [self.truth(self.tracked)], "error": None}

    def step(self, action: str | Action) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Execute *action* (English or a script line); see the class notes."""
        self._require_episode()
        act = self.parse(action)
        info: dict[str, Any] = {"action": str(act), "script": [], "states": [], "error": None}
        if act.verb == "done":
            self._done = True
            return self._observe(), float(self.goal_reached()), True, False, info
        outcome = self._simulate(act)
        info["script"] = list(outcome.script)
        if outcome.error is not None:
            info["error"] = outcome.error
        else:
            self._state, self._event, self._key = outcome.states[-1], outcome.event, outcome.key
            info["states"] = self._states(outcome, self._propositions(self.tracked))
        self._steps += 1
        truncated = self.max_steps is not None and self._steps >= self.max_steps
        self._done = truncated
        return self._observe(), 0.0, False, truncated, info

    def preview(self, action: str | Action, propositions: Iterable[str]) -> list[PropositionState]:
        """Return the proposition states *action* would produce; the world is unchanged.

        A refused action, and DONE, produce no state.
        """
        self._require_episode()
        act = self.parse(action)
        props = self._propositions(propositions)
        if act.verb == "done":
            return []
        return self._states(self._simulate(act), props)

    @property
    def rooms(self) -> tuple[str, ...]:  # type: ignore[override]
        """The scene's rooms."""
        return self.scene.rooms

    @property
    def objects(self) -> tuple[str, ...]:  # type: ignore[override]
        """The scene's objects (unique names)."""
        return tuple(self.scene.objects)

    def candidate_actions(self, task: Task | None = None) -> list[str]:
        """The actions a planner tries for *task* (default: the environment's task): see
        :func:`~safetychip.envs.virtualhome.candidate_actions`; without a task, the
        admissible actions now."""
        from safetychip.envs.virtualhome._candidates import candidate_actions

        task = task if task is not None else self.task
        if task is None:
            return self.admissible_actions()
        return candidate_actions(task, self)

    def invariants(self, atoms: Iterable[str] = ()) -> list[Formula]:
        """The scene's domain invariants, which the executor guarantees.

        * the agent is in exactly one room at a time;
        * from one proposition state to the next it stays or moves to an adjacent room
          (walking yields every room entered);
        * for each ``is_open(x)`` or ``is_switchedon(x)`` among *atoms* whose object cannot
          be carried: the value changes only with the agent in x's room (it must be close
          to x).

        Examples
        --------
        >>> invariants = VirtualHomeEnv("apartment_1").invariants(["is_open(fridge)"])
        >>> len(invariants), str(invariants[1])
        (7, 'G("agent_at(hallway)" -> X("agent_at(hallway)" | "agent_at(living_room)" | \
"agent_at(bathroom)"))')
        >>> print(invariants[-1])
        G(("is_open(fridge)" <-> X!"is_open(fridge)") -> X"agent_at(kitchen)")
        """
        return domain_invariants(self.scene, atoms)

    def lookahead(self, action: str | Action, propositions: Iterable[str]) -> Lookahead:
        """Like :meth:`preview`, and also return the world *action* leads to, or why not.

        For planners: the returned snapshot can be :meth:`restore`-d to continue from there,
        and no observation text is built. The world is unchanged; a following :meth:`step`
        of the same action reuses the simulation.

        Examples
        --------
        >>> env = VirtualHomeEnv("apartment_1")
        >>> _ = env.reset(options={"initial": ["agent_at(kitchen)"]})
        >>> env.lookahead("open fridge", ["is_open(fridge)"]).error
        'cannot open fridge: the agent is not close to it'
        >>> ahead = env.lookahead("walk to fridge", ["agent_at(fridge)"])
        >>> ahead.states, env.restore(ahead.world).truth(["agent_at(fridge)"])
        ([{'agent_at(fridge)': True}], {'agent_at(fridge)': True})
        """
        self._require_episode()
        act = self.parse(action)
        props = self._propositions(propositions)
        if act.verb == "done":
            return Lookahead([], None, None)
        outcome = self._simulate(act)
        if outcome.error is not None:
            return Lookahead([], None, outcome.error)
        state, event = outcome.states[-1], outcome.event
        assert outcome.key is not None, "an outcome without error has a key"
        world = WorldSnapshot(outcome.key, state, event, self._steps + 1, False)
        return Lookahead(self._states(outcome, props), world, None)

    def action_frames(self, action: str | Action) -> list[dict[str, Any]]:
        """The action frame of *action* in the current world, for the episodic memory
        (``ActionFrame.from_dict`` reads it): ``verb``; ``object`` and ``target`` (the
        class names of the action's first and second objects) with their features (the
        node's VirtualHome properties and states, lower case: ``grabbable``,
        ``has_switch``, ``on``, ``open`` …); and ``effects``, what the executor changes
        (``object:on``, ``object:-closed``, ``object:held`` for what the agent takes in
        hand, ``other:…`` for objects the action does not name). An action the executor
        refuses has no state changes; the world is not changed.

        Raises
        ------
        ActionError
            If *action* is not an action of the environment, or names an object the scene
            lacks (the message gives the nearest names).

        Examples
        --------
        >>> env = VirtualHomeEnv("apartment_1")
        >>> _ = env.reset(options={"initial": ["agent_at(kitchen)"]})
        >>> _ = env.step("walk to fridge")
        >>> [(f["verb"], f["object"], f["effects"]) for f in env.action_frames("open fridge")]
        [('open', 'fridge', ['object:-closed', 'object:open'])]
        """
        self._require_episode()
        act = self.parse(action)
        if act.verb == "done":
            return []
        before = self.graph()
        ahead = self.lookahead(act, ())
        after = before
        if ahead.world is not None:
            now = self.snapshot()
            after = self.restore(ahead.world).graph()
            self.restore(now)
        roles = {t.id: "object" if i == 0 else "target" for i, t in enumerate(act.targets[:2])}
        old, new = _node_states(before), _node_states(after)
        effects = set()
        for node, states in new.items():
            role = roles.get(node, "other")
            changed = states ^ old.get(node, frozenset())
            effects |= {f"{role}:{x}" if x in states else f"{role}:-{x}" for x in changed}
        nodes = {n["id"]: n for n in before["nodes"]}
        frame: dict[str, Any] = {"verb": act.verb, "effects": sorted(effects)}
        for i, key in enumerate(("object", "target")):
            if len(act.targets) > i:
                node = nodes[act.targets[i].id]
                frame[key] = node["class_name"]
                frame["affordances" if i == 0 else "target_affordances"] = sorted(
                    {x.lower() for x in (*node.get("properties", ()), *node.get("states", ()))}
                )
        return [frame]

    def admissible_actions(self) -> list[str]:
        """Return the actions the executor would accept now, in the order of ``VERBS``.

        Only the paper's verbs (:data:`~safetychip.envs.virtualhome.VERBS`) are enumerated,
        the set agents are offered; ``step`` accepts every verb of
        :data:`~safetychip.envs.virtualhome.ALL_VERBS`.

        Candidates are each verb applied to each object (walk: also to each room; put: each
        held object on each SURFACES object; put in: into each CONTAINERS object). Each is
        checked with the executor's own ``check_one_step`` on its decisive script line,
        after checking that a route exists for walk and find. DONE is always admissible.
        The answer depends only on the world and the mode, so it is kept per world: an agent
        asks again on every reprompt, and a grid's episodes revisit the same worlds.
        """
        self._require_episode()
        key = (self._world_key(), self.mode)
        known = self._admissible.get(key)
        if known is None:
            known = self._admissible[key] = self._enumerate_admissible()
        return [*known, "done"]

    def _enumerate_admissible(self) -> tuple[str, ...]:
        """The actions :meth:`admissible_actions` lists but DONE, checked one by one."""
        scene = self.scene
        state = self._fork(self._state)  # the executor's checks may touch its edge sets
        self._executor.info = self._vh.execution.ExecutionInfo()
        objects = [i for i in sorted(scene.names) if not scene.is_room(i)]
        held = [i for i in objects if self._held(self._state, i)]
        accepted = []
        pairs: list[tuple[int, ...]]
        for verb in VERBS:
            if verb in ("put", "putin"):
                needed = "SURFACES" if verb == "put" else "CONTAINERS"
                pairs = [
                    (i, j)
                    for i in held
                    for j in objects
                    if i != j and needed in scene.node(j)["properties"]
                ]
            elif verb != "done":
                pairs = [(i,) for i in (sorted(scene.names) if verb == "walk" else objects)]
            else:
                continue
            for ids in pairs:
                act = Action(verb, tuple(Target.of(scene, i) for i in ids))
                hops = self._hops(act)
                first = self._script(hops[-1][0]) if not isinstance(hops, str) else None
                if first is not None and self._executor.check_one_step(first, state):
                    accepted.append(str(act))
        return tuple(accepted)

    def truth(self, propositions: Iterable[str]) -> PropositionState:
        """Return the truth value of each proposition in the current world."""
        self._require_state()
        props = self._propositions(propositions)
        return {name: self._holds(p, self._state, self._event) for name, p in props}

    def graph(self) -> dict[str, Any]:
        """Return the current world as a graph dict in VirtualHome's format.

        Examples
        --------
        >>> env = VirtualHomeEnv("apartment_1")
        >>> _ = env.reset(options={"initial": ["agent_at(kitchen)"]})
        >>> fridge = env.scene.id("fridge")
        >>> _ = env.step("walk to fridge"); _ = env.step("open fridge")
        >>> sorted(next(n["states"] for n in env.graph()["nodes"] if n["id"] == fridge))
        ['OFF', 'OPEN', 'PLUGGED_IN']
        """
        self._require_state()
        return dict(self._fork(self._state).to_dict())  # the executor's reads write: on a copy

    def goal_reached(self) -> bool:
        """Whether every goal literal holds in the current world (true without a goal)."""
        self._require_state()
        return all(self._holds(p, self._state, self._event) is v for p, v in self._goal)

    def snapshot(self) -> WorldSnapshot:
        """Save the current world (and the episode's progress) for :meth:`restore`.

        Snapshots are cheap (the executor's states are never changed once committed) and
        compare equal when their worlds are equal, whatever the actions that led there.

        Examples
        --------
        >>> env = VirtualHomeEnv("apartment_1").track(["is_open(fridge)"])
        >>> _ = env.reset(options={"initial": ["agent_at(kitchen)"]})
        >>> before = env.snapshot()
        >>> _ = env.step("walk to fridge"); _ = env.step("open fridge")
        >>> env.truth(["is_open(fridge)"]), env.snapshot() == before
        ({'is_open(fridge)': True}, False)
        >>> _ = env.step("close fridge")
        >>> env.snapshot() == before  # the agent is now close to the fridge
        False
        >>> env.restore(before).truth(["is_open(fridge)"])
        {'is_open(fridge)': False}
        """
        self._require_state()
        return WorldSnapshot(self._world_key(), self._state, self._event, self._steps, self._done)

    def restore(self, snapshot: WorldSnapshot) -> VirtualHomeEnv:
        """Go back to the world saved by :meth:`snapshot`; return ``self``.

        Raises
        ------
        ValueError
            If the snapshot was taken in another scene.
        ResetNeeded
            If the environment is closed.
        """
        self._require_open()
        if not isinstance(snapshot, WorldSnapshot) or snapshot.key[0] != self.scene.name:
            where = snapshot.key[0] if isinstance(snapshot, WorldSnapshot) else snapshot
            raise ValueError(f"cannot restore a snapshot of {where!r} in scene {self.scene.name!r}")
        self._state, self._event = snapshot._state, snapshot._event
        self._steps, self._done, self._key = snapshot._steps, snapshot._done, snapshot.key
        return self

    def track(self, propositions: Iterable[str]) -> VirtualHomeEnv:
        """Report *propositions* in ``info["states"]``; return ``self``.

        Raises
        ------
        PropositionError
            If a name is not a proposition over this scene.
        """
        names = tuple(dict.fromkeys(propositions))
        self._propositions(names)
        super().track(names)
        return self

    def close(self) -> None:
        """End the environment; ``reset`` and ``step`` raise ``ResetNeeded`` afterwards."""
        super().close()
        self._state = None

    def render(self) -> str:
        """Return the current observation text (Gymnasium's ``"ansi"`` mode)."""
        self._require_state()
        return self._observe()

    def parse(self, action: str | Action) -> Action:
        """Read *action*, choosing among same-named instances the one nearest the agent."""
        return parse_action(action, self.scene, near=self._distance)

    def __repr__(self) -> str:
        task = f", task={self.task.id!r}" if self.task else ""
        return f"<VirtualHomeEnv scene={self.scene.name!r}{task}>"

    def _repr_html_(self) -> str:
        text = self._observe() if self._state is not None else repr(self)
        return f"<pre>{html.escape(text)}</pre>"

    # -- simulation -------------------------------------------------------------------------

    def _world_key(self) -> _WorldKey:
        """The current world's content key (computed once per world)."""
        if self._key is None:
            self._key = (self.scene.name, self._event, _content(self._state))
        return self._key

    def _simulate(self, act: Action) -> _Outcome:
        key = (self._world_key(), act.script)
        cached = self._outcomes.get(key)
        if cached is not None:
            return cached
        hops = self._hops(act)
        if isinstance(hops, str):
            outcome = _Outcome((), None, f"cannot {act}: {hops}", (), None)
        else:
            outcome = self._run(act, hops)
        if len(self._outcomes) >= _CACHE_LIMIT:
            self._outcomes.clear()
        self._outcomes[key] = outcome
        return outcome

    def _hops(self, act: Action) -> list[list[str]] | str:
        """Split *act* into script lines, one list per proposition state (or a refusal).

        Only the first line of the last list can be refused by the executor: rooms on the
        way can always be entered, and the other lines complete what that line started.
        """
        target = act.targets[0] if act.targets else None
        if self.mode == "literal" or target is None:
            return [[act.script]]
        line = f"<{target.class_name}> ({target.id})"
        hops: list[list[str]] = []
        if act.verb in ("walk", "run", "find"):
            here = self.scene.name_of(self._room(self._state, self.scene.character))
            there = self.scene.name_of(self._room(self._state, target.id))
            path = self.scene.route(here, there)
            if path is None:
                return f"there is no way from the {here} to the {there}"
            for room in path[:-1]:
                room_id = self.scene.id(room)
                hops.append([f"[WALK] <{self.scene.node(room_id)['class_name']}> ({room_id})"])
        if act.verb == "find":  # the executor's FIND crashes on far objects: walk there first
            hops.append([f"[WALK] {line}", act.script])
        elif act.verb in ("lookat", "pointat", "watch"):  # they need FACING, which TURNTO makes
            hops.append([f"[TURNTO] {line}", act.script])
        else:
            hops.append([act.script])
        return hops

    def _run(self, act: Action, hops: list[list[str]]) -> _Outcome:
        execution = self._vh.execution
        state = self._fork(self._state)
        states, sent = [], []
        for k, hop in enumerate(hops):
            for line in hop:
                sent.append(line)
                self._executor.info = execution.ExecutionInfo()
                ok, state = self._executor.execute_one_step(
                    self._script(line), state, in_place=True
                )
                if not ok:
                    reason = self._explain(act, self._executor.info.messages)
                    return _Outcome((), None, reason, (), None)
            states.append(state if k == len(hops) - 1 else self._fork(state))
        event = (act.verb, act.targets[0].id) if act.verb in _EVENTS else None
        key = (self.scene.name, event, _content(state))
        return _Outcome(tuple(states), event, None, tuple(sent), key)

    def _fork(self, state: Any) -> Any:
        """Copy the executor's state cheaply: its change dicts and edge sets, not the nodes."""
        copy = state_class()(self._graph, {}, instance_selection=True)
        copy._new_nodes = dict(state._new_nodes)
        copy._removed_edges_from = {k: set(v) for k, v in state._removed_edges_from.items()}
        copy._new_edges_from = {k: set(v) for k, v in state._new_edges_from.items()}
        copy._script_objects = dict(state._script_objects)
        copy.executor_data = dict(state.executor_data)
        return copy

    def _script(self, line: str) -> Any:
        script = self._scripts.get(line)
        if script is None:
            scripts = self._vh.scripts
            script = self._scripts[line] = scripts.Script([scripts.parse_script_line(line, 0)])
        return script

    def _explain(self, act: Action, messages: list[str]) -> str:
        """Reword the executor's messages: 'cannot grab salmon: the agent is not close to it'."""
        single = act.targets[0].id if len(act.targets) == 1 else None

        def name(match: re.Match[str]) -> str:
            node_id = int(match.group(2))
            if node_id == self.scene.character:
                return "the agent"
            return "it" if node_id == single else self.scene.name_of(node_id).replace("_", " ")

        reasons = []
        for message in messages:
            reason = _NODE.sub(name, message.split(' when executing "')[0])
            for old, new in _REASONS:
                if reason.endswith(old):
                    reason = reason[: -len(old)] + new
                    break
            for pattern, replacement in _OPENINGS:
                if pattern.match(reason):
                    reason = pattern.sub(replacement, reason)
                    break
            reasons.append(reason)
        return f"cannot {act}: {'; '.join(dict.fromkeys(reasons)) or 'the simulator refused it'}"

    # -- world queries ----------------------------------------------------------------------

    def _node(self, node_id: int) -> Any:
        return self._handles[node_id]

    def _held(self, state: Any, node_id: int) -> bool:
        relation = self._vh.environment.Relation
        character, node = self._node(self.scene.character), self._node(node_id)
        return state.has_edge(character, relation.HOLDS_RH, node) or state.has_edge(
            character, relation.HOLDS_LH, node
        )

    def _room(self, state: Any, node_id: int) -> int:
        """Return the room *node_id* is in now (a carried object is where the agent is)."""
        inside = self._vh.environment.Relation.INSIDE
        if self._held(state, node_id):
            node_id = self.scene.character
        frontier, seen = [node_id], {node_id}
        while frontier:
            current = frontier.pop(0)
            if self.scene.is_room(current):
                return current
            for parent in sorted(_targets(state, current, inside)):
                if parent not in seen:
                    seen.add(parent)
                    frontier.append(parent)
        return self.scene.room_of(node_id)

    def _distance(self, node_id: int) -> float:
        """Rooms between the agent and *node_id* (for choosing among same-named objects)."""
        scene = self.scene
        if self._state is None:
            here, there = scene.room_of(scene.character), scene.room_of(node_id)
        else:
            here = self._room(self._state, scene.character)
            there = self._room(self._state, node_id)
        path = scene.route(scene.name_of(here), scene.name_of(there))
        return math.inf if path is None else len(path)

    def _propositions(self, names: Iterable[str]) -> list[tuple[str, SceneProposition]]:
        props = []
        for name in names:
            prop = self._props.get(name)
            if prop is None:
                prop = self._props[name] = parse_proposition(name, self.scene)
            props.append((name, prop))
        return props

    def _holds(self, prop: SceneProposition, state: Any, event: _Event | None) -> bool:
        """Return the truth of *prop* in executor *state*, reached by *event*: true when it
        holds of some instance of each argument (one, unless the argument is a class name)."""
        if all(len(ids) == 1 for ids in prop.ids):
            return self._holds_of(prop.predicate, [ids[0] for ids in prop.ids], state, event)
        return any(
            self._holds_of(prop.predicate, nodes, state, event)
            for nodes in itertools.product(*prop.ids)
        )

    def _holds_of(
        self, predicate: str, nodes: Sequence[int], state: Any, event: _Event | None
    ) -> bool:
        """Return the truth of *predicate* of the nodes *nodes* in executor *state*."""
        x, character = nodes[0], self.scene.character
        match predicate:
            case "agent_at":
                return self._edge(
                    state, character, "INSIDE" if self.scene.is_room(x) else "CLOSE", x
                )
            case "is_open":
                return self._has_state(state, x, "OPEN")
            case "is_switchedon":
                return self._has_state(state, x, "ON")
            case "is_grabbed":
                return self._held(state, x)
            case "is_touched" | "is_poured":
                return event == (EVENT_VERBS[predicate], x)
            case "agent_sitting_on" | "agent_lying_on":
                posture = "SITTING" if predicate == "agent_sitting_on" else "LYING"
                return self._has_state(state, character, posture) and self._edge(
                    state, character, "ON", x
                )
            case "agent_facing":
                return self._edge(state, character, "FACING", x)
            case "is_grabbed_rh" | "is_grabbed_lh":
                return self._edge(state, character, f"HOLDS_{predicate[-2:].upper()}", x)
            case "is_worn":
                return self._edge(state, x, "ON", character)
            case "is_dirty" | "is_clean" | "is_pluggedin":
                return self._has_state(state, x, _STATES[predicate])
            case "is_on":
                return self._edge(state, x, "ON", nodes[1])
            case "is_in":
                return self._edge(state, x, "INSIDE", nodes[1])
        raise AssertionError(f"unhandled predicate {predicate!r}")

    def _states(
        self, outcome: _Outcome, props: list[tuple[str, SceneProposition]]
    ) -> list[PropositionState]:
        last = len(outcome.states) - 1
        return [
            {name: self._holds(p, s, outcome.event if k == last else None) for name, p in props}
            for k, s in enumerate(outcome.states)
        ]

    def _edge(self, state: Any, a: int, relation: str, b: int) -> bool:
        relation_ = self._vh.environment.Relation[relation]
        return state.has_edge(self._node(a), relation_, self._node(b))

    def _has_state(self, state: Any, node_id: int, name: str) -> bool:
        return self._vh.environment.State[name] in state.get_node(node_id).states

    # -- reset and observation --------------------------------------------------------------

    def _initial_state(self, literals: Iterable[str]) -> Any:
        env = self._vh.environment
        relation, character = env.Relation, env.CharacterNode(0)
        state = env.EnvironmentState(self._graph, {}, instance_selection=True)
        for text in literals:
            prop, value = parse_literal(text, self.scene)
            for arg, ids in zip(prop.args, prop.ids, strict=True):
                if len(ids) > 1:
                    raise PropositionError(
                        f"initial condition {text!r}: {arg} is a class name (any of "
                        f"{', '.join(self.scene.name_of(i) for i in ids)}); name one instance"
                    )
            x_id = prop.ids[0][0]
            x = env.NodeInstance(self._node(x_id))
            node = state.get_node(x_id)
            if prop.predicate == "agent_at" and value and self.scene.is_room(x_id):
                changes = [
                    env.DeleteEdges(
                        character,
                        [relation.INSIDE, relation.CLOSE, relation.FACING],
                        env.AnyNode(),
                        delete_reverse=True,
                    ),
                    env.AddEdges(character, relation.INSIDE, x),
                ]
            elif prop.predicate in ("is_open", "is_switchedon"):
                needed, on, off = {
                    "is_open": ("CAN_OPEN", env.State.OPEN, env.State.CLOSED),
                    "is_switchedon": ("HAS_SWITCH", env.State.ON, env.State.OFF),
                }[prop.predicate]
                if env.Property[needed] not in node.properties:
                    raise PropositionError(
                        f"initial condition {text!r}: {prop.args[0]} lacks property {needed}"
                    )
                changed = node.copy()
                changed.states -= {on, off}
                changed.states.add(on if value else off)
                changes = [env.ChangeNode(changed)]
            elif prop.predicate in ("is_on", "is_in") and value:
                y = prop.ids[1][0]
                room = y if self.scene.is_room(y) else self._room(state, y)
                own = [relation.ON, relation.INSIDE, relation.CLOSE]
                changes = [
                    env.DeleteEdges(x, own, env.AnyNode()),
                    env.DeleteEdges(x, [relation.CLOSE], env.AnyNode(), delete_reverse=True),
                    env.AddEdges(x, relation.INSIDE, env.NodeInstance(self._node(room))),
                    env.AddEdges(
                        x,
                        relation.ON if prop.predicate == "is_on" else relation.INSIDE,
                        env.NodeInstance(self._node(y)),
                    ),
                    env.AddEdges(x, relation.CLOSE, env.NodeInstance(self._node(y)), True),
                ]
            else:
                raise PropositionError(
                    f"cannot use {text!r} as an initial condition: use agent_at(<room>), "
                    "[!]is_open(x), [!]is_switchedon(x), is_on(x,y) or is_in(x,y)"
                )
            state.apply_changes(changes)
        return state

    def _observe(self) -> str:
        """Describe the agent's room: what it is close to, holds, and sees.

        Objects whose INSIDE/ON edges the executor has not changed (its change sets say
        which) keep the room and support they have in the scene file; only the others are
        looked up, which keeps this well under a millisecond.
        """
        scene, state, relation = self.scene, self._state, self._vh.environment.Relation
        character = scene.character
        here = self._room(state, character)
        held = {
            i
            for hand in (relation.HOLDS_RH, relation.HOLDS_LH)
            for i in _targets(state, character, hand)
        }
        close = _targets(state, character, relation.CLOSE)
        moved = {
            node_id
            for node_id, rel in (*state._new_edges_from, *state._removed_edges_from)
            if rel in (relation.INSIDE, relation.ON)
            and not scene.is_room(node_id)
            and node_id != character
        }
        seen = []
        for i in sorted((self._layout.members[here] | moved) - held):
            if i in moved:
                if self._room(state, i) != here:
                    continue
                support = [
                    (word, p)
                    for word, rel in (("on", relation.ON), ("in", relation.INSIDE))
                    for p in sorted(_targets(state, i, rel))
                    if not scene.is_room(p)
                ]
            else:
                support = self._layout.support[i]
            if any(w == "in" and self._has_state(state, p, "CLOSED") for w, p in support):
                continue
            states = {s.name for s in state.get_node(i).states}
            details = [s.lower() for s in ("OPEN", "CLOSED", "ON", "OFF") if s in states]
            details += [f"{w} {_english(scene, p)}" for w, p in support[:1]]
            seen.append(_english(scene, i) + (f" ({', '.join(details)})" if details else ""))
        room = _english(scene, here)
        nearby = sorted(_english(scene, i) for i in close - held if not scene.is_room(i))
        carried = sorted(_english(scene, i) for i in held)
        exits = ", ".join(r.replace("_", " ") for r in scene.adjacency[scene.name_of(here)])
        rooms = ", ".join(r.replace("_", " ") for r in scene.rooms)
        return (
            f"You are in the {room}."
            + (f" You are close to {', '.join(nearby)}." if nearby else "")
            + f" You are holding {' and '.join(carried) if carried else 'nothing'}.\n"
            f"The rooms are {rooms}; from the {room} you can walk straight to "
            f"{exits or 'none of them'}.\n"
            f"In the {room} you see: {', '.join(seen) if seen else 'nothing'}."
        )

    # -- lifecycle --------------------------------------------------------------------------

    def _has_world(self) -> bool:
        return self._state is not None


def _node_states(graph: Mapping[str, Any]) -> dict[int, frozenset[str]]:
    """Each node's states in *graph* (lower case), and ``held`` for what a hand holds."""
    held = {e["to_id"] for e in graph["edges"] if e["relation_type"] in ("HOLDS_RH", "HOLDS_LH")}
    return {n["id"]: frozenset({x.lower() for x in n.get("states", ())}
                               | ({"held"} if n["id"] in held else set()))
            for n in graph["nodes"]}  # fmt: skip


class _Layout(NamedTuple):
    """Where objects are in the scene file: room members, and each object's support."""

    members: dict[int, set[int]]  # room id -> objects in it
    support: dict[int, list[tuple[str, int]]]  # object -> [("on" | "in", parent id)]


def _layout(scene: Scene) -> _Layout:
    members: dict[int, set[int]] = {i: set() for i in scene.names if scene.is_room(i)}
    support: dict[int, list[tuple[str, int]]] = {i: [] for i in scene.names}
    for edge in scene.graph["edges"]:
        a, relation, b = edge["from_id"], edge["relation_type"].upper(), edge["to_id"]
        if relation in ("ON", "INSIDE") and a in support and not scene.is_room(b):
            support[a].append(("on" if relation == "ON" else "in", b))
    for i in scene.names:
        if not scene.is_room(i):
            members[scene.room_of(i)].add(i)
            support[i].sort(key=lambda ws: (ws[0] != "on", ws[1]))
    return _Layout(members, support)


def _targets(state: Any, from_id: int, relation: Any) -> set[int]:
    """The ids *from_id* has a *relation* edge to in executor *state*, read without writing.

    The executor's own ``get_node_ids_from`` writes what it reads into the state's change
    sets; their content stays equivalent, but their order changes, and the executor takes
    "the first" of such a set in places (the object a grabbed one was close to), so a read
    would change what later steps do. Committed states are only read through this.
    """
    key = (from_id, relation)
    found = set(state._graph.get_node_ids_from(from_id, relation))
    found.update(state._new_edges_from.get(key, ()))
    return found - state._removed_edges_from.get(key, set())


def _content(state: Any) -> Hashable:
    """The canonical content of an executor state: what differs from the scene file.

    The executor records changes as added and removed edges (and its ``get_node_ids_from``
    even adds the file's own edges to the added sets), so the effective edge sets are
    recomputed and compared with the file's.
    """
    graph = state._graph
    edges = []
    for key in {*state._new_edges_from, *state._removed_edges_from}:
        original = set(graph.get_node_ids_from(*key))
        now = (original | state._new_edges_from.get(key, set())) - state._removed_edges_from.get(
            key, set()
        )
        if now != original:
            edges.append((key[0], key[1].name, frozenset(now)))
    nodes = []
    for node_id, node in state._new_nodes.items():
        original = graph.get_node(node_id)
        if original is None or node.states != original.states:
            nodes.append((node_id, frozenset(s.name for s in node.states)))
    return frozenset(edges), frozenset(nodes)


def _english(scene: Scene, node_id: int) -> str:
    return scene.name_of(node_id).replace("_", " ")
