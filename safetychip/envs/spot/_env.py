"""The Spot robot behind safetychip's environment protocol.

The environment keeps the symbolic world of a :class:`~safetychip.envs.spot.SpotScene`
(where the robot is, what it holds, what rests where, what is switched on) and checks every
action against it; only an admitted action reaches the backend, as commands.

Actions (canonical text; names may use spaces or underscores, and ``the``):

==========================  ====================================  ======================
action                      also read                             backend commands
==========================  ====================================  ======================
``walk to X``               go / move / navigate (to) X           ``navigate`` per hop
``pick up X``               grab / take / pick X                  ``pick(X, at=here)``
``put X on Y``              place X on / onto / on top of Y       ``place(X, on=Y)``
``put X in Y``              place X in / into / inside Y          ``place(X, on=Y)``
``switch on X``             turn on X, switch X on                ``switch(X, on=True)``
``switch off X``            turn off X, switch X off              ``switch(X, on=False)``
``touch X``                                                       ``touch(X)``
``done``                    finish, stop                          ``stop()``
==========================  ====================================  ======================

**Walking** follows a shortest path of the waypoint graph, and every waypoint passed is a
proposition state (so "visit the hallway at most three times" counts real passes); X may be
a landmark or an object (its waypoint). **Preconditions**: the robot must be at the
object's waypoint to pick it up, touch it or switch it, and at the landmark to put
something on or in it; it holds one object at a time; only ``surface`` landmarks take
``put on``, only ``container`` ones ``put in``, and a closed container neither gives nor
takes. A refused action says why, e.g. ``cannot pick up mail: the robot is not at the mail
room``, and changes nothing.

**Truth values.** ``agent_at(landmark)``: the robot is at that waypoint;
``agent_at(object)``: at the object's waypoint (a held object is where the robot is);
``is_grabbed(x)``: x is in the gripper; ``is_on(x,y)`` / ``is_in(x,y)``: x rests on / in y;
``is_switchedon(x)``, ``is_open(x)``; ``is_touched(x)``: true in the state produced by
touching x only.

**Backend failures.** A backend raises :class:`~safetychip.errors.RobotError` when the
robot cannot carry out a command. The environment then calls ``backend.stop()``, keeps the
world as it was after the last completed command (a walk that failed on its third hop has
moved the robot two hops, and ``info["states"]`` holds those two states), reports
``"the robot stopped: …"`` in ``info["error"]`` and returns ``truncated=True``: the episode
cannot go on with a stopped robot, and only ``reset()`` can. DONE and :meth:`SpotEnv.close`
stop the robot too.

**The robot starts late.** ``reset()`` sets up the symbolic world only; the backend is
started (connected, leased, powered on, standing, localised) just before the first command
of the first action that runs, so a shield that aborts at the start (the constraints
contradict each other) or refuses every action never moves the robot. A backend that cannot
start fails that action like any other backend failure.

:meth:`SpotEnv.lookahead`, :meth:`SpotEnv.snapshot` and :meth:`SpotEnv.restore` touch only
the symbolic world, never the robot: planners that restore a world they imagined must
restore the current one before stepping.

Examples
--------
>>> env = SpotEnv().track(["agent_at(hallway)", "is_grabbed(mail)"])
>>> _, info = env.reset()
>>> info["states"]
[{'agent_at(hallway)': False, 'is_grabbed(mail)': False}]
>>> env.step("pick up the mail")[-1]["error"]
'cannot pick up mail: the robot is not at the mail room'
>>> _, _, _, _, info = env.step("go to the mail room")
>>> [s["agent_at(hallway)"] for s in info["states"]]
[True, False]
>>> env.step("grab mail")[-1]["states"]
[{'agent_at(hallway)': False, 'is_grabbed(mail)': True}]
>>> env.backend.log
[('start',), ('navigate', 'hallway'), ('navigate', 'mail_room'), ('pick', 'mail', 'mail_room')]
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, NamedTuple

from safetychip.envs._base import Env, Lookahead, PropositionState
from safetychip.envs._lexicon import Verb, VerbLexicon
from safetychip.envs._places import place_invariants
from safetychip.envs.spot._backend import SimulatedBackend, SpotBackend
from safetychip.envs.spot._scene import SpotScene, load_spot_scene
from safetychip.errors import ActionError, PropositionError, RobotError
from safetychip.ltl import PREDICATES, Equiv, Formula, G, Implies, Not, Proposition, X, ap

__all__ = ["LEXICON", "SpotAction", "SpotEnv", "SpotTarget"]

#: Spot's verb lexicon: each verb's English template and the English it reads.
LEXICON = VerbLexicon({
    "walk": Verb("walk to {0}", (r"(?:walk|go|move|navigate)(?: to)? (.+)",)),
    "pick": Verb("pick up {0}", (r"(?:pick up|pick|grab|take) (.+)",)),
    "put": Verb("put {0} on {1}", (r"(?:put|place) (.+?) (?:on top of|onto|on) (.+)",)),
    "putin": Verb("put {0} in {1}", (r"(?:put|place) (.+?) (?:into|inside|in) (.+)",)),
    "switchon": Verb("switch on {0}", (r"(?:switch|turn) on (.+)", r"(?:switch|turn) (.+) on")),
    "switchoff": Verb("switch off {0}",
                      (r"(?:switch|turn) off (.+)", r"(?:switch|turn) (.+) off")),
    "touch": Verb("touch {0}", (r"touch (.+)",)),
    "done": Verb("done", (r"done|finish(?:ed)?|stop",)),
})  # fmt: skip
_RESET_OPTIONS = ("task", "initial", "goal")
# A backend command: the method's name, its arguments and keyword arguments.
_Command = tuple[str, tuple[Any, ...], dict[str, Any]]


class SpotTarget(NamedTuple):
    """A landmark or an object an action names."""

    name: str


class SpotAction(NamedTuple):
    """One action: a verb (``"walk"``, ``"pick"``, ``"put"``, ``"putin"``, ``"switchon"``,
    ``"switchoff"``, ``"touch"``, ``"done"``) and its targets; ``str()`` is the canonical
    text (``put book in mail box``)."""

    verb: str
    targets: tuple[SpotTarget, ...] = ()

    def __str__(self) -> str:
        return LEXICON[self.verb].template.format(*(t.name.replace("_", " ") for t in self.targets))


@dataclass(frozen=True)
class _World:
    """The symbolic world; equal (and hashed alike) when the worlds are the same."""

    at: str
    held: str | None
    resting: tuple[tuple[str, str, str], ...]  # (object, "on" | "in", landmark), sorted
    switched_on: frozenset[str]
    opened: frozenset[str]
    touched: str | None = None

    def place(self, obj: str) -> tuple[str, str] | None:
        """How and where *obj* rests (None while held)."""
        return next(((rel, where) for o, rel, where in self.resting if o == obj), None)

    def waypoint(self, name: str) -> str:
        """Where the landmark or object *name* is."""
        if name == self.held:
            return self.at
        place = self.place(name)
        return place[1] if place is not None else name

    def rest(self, obj: str, relation: str | None, where: str | None) -> tuple[Any, ...]:
        """``resting`` with *obj* moved (or lifted, without *where*)."""
        others = [r for r in self.resting if r[0] != obj]
        return tuple(sorted(others + ([(obj, relation, where)] if where and relation else [])))


@dataclass(frozen=True)
class _Snapshot:
    world: _World
    steps: int = field(compare=False)


class SpotEnv(Env):
    """A Spot robot in a lab scene, stepped with English actions (see the module notes).

    Parameters
    ----------
    scene : SpotScene, str, path or mapping, optional
        The scene (default ``"lab"``), as :func:`~safetychip.envs.spot.load_spot_scene`
        reads it.
    backend : SpotBackend, optional
        Carries out admitted actions (default: a new :class:`SimulatedBackend`).
    task : object, optional
        Anything with ``initial`` and ``goal`` literals: the defaults of :meth:`reset`.
    max_steps : int, optional
        Truncate the episode after this many steps (DONE excluded).

    Notes
    -----
    ``reset(options=...)`` accepts ``task`` (switches the task), ``initial`` and ``goal``
    (lists of literals such as ``"agent_at(hallway)"``, ``"!is_switchedon(lamp)"``,
    ``"is_in(apple,fridge)"`` or ``"is_grabbed(cup)"``, overriding the task's). Initial
    conditions may place the robot, switch or open what affords it, and put an object on,
    in, or in the gripper. ``seed`` is accepted and ignored. ``step`` returns reward 1.0 on
    DONE when the goal is reached, else 0.0; ``info`` holds ``action``, ``script`` (the
    backend commands sent), ``states`` and ``error``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "spot"}
    #: The verb lexicon: the verbs this environment reads, their templates and phrasings.
    verbs: ClassVar[VerbLexicon] = LEXICON
    _episode_over = "the episode is over (DONE, the step limit, or a stopped robot): call reset()"

    def __init__(self, scene: SpotScene | str | Any = "lab", *,
                 backend: SpotBackend | None = None, task: Any = None,
                 max_steps: int | None = None) -> None:  # fmt: skip
        self.scene = scene if isinstance(scene, SpotScene) else load_spot_scene(scene)
        self.backend = backend if backend is not None else SimulatedBackend()
        if not isinstance(self.backend, SpotBackend):
            raise TypeError(f"backend must be a safetychip.envs.spot.SpotBackend, got "
                            f"{type(self.backend).__name__}")  # fmt: skip
        self.rooms = self.scene.landmarks
        self.objects = self.scene.objects
        self.task = task
        self.max_steps = max_steps
        self.steps = 0
        self._goal: tuple[tuple[Proposition, bool], ...] = ()
        self._props: dict[str, Proposition] = {}
        self._world: _World | None = None
        self._done = False
        self._started = False  # the backend started in this episode

    # -- the protocol -----------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[str, dict[str, Any]]:  # fmt: skip
        """Start an episode (see the class notes for *options*); the robot is stopped if it
        was running, and starts with the first action that runs (see the module)."""
        self._require_open()
        options = dict(options or {})
        unknown = sorted(set(options) - set(_RESET_OPTIONS))
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; valid: "
                             f"{', '.join(_RESET_OPTIONS)}")  # fmt: skip
        if "task" in options:
            self.task = options["task"]
        task = self.task
        initial = options.get("initial", getattr(task, "initial", ()))
        goal = options.get("goal", getattr(task, "goal", ()))
        self._goal = tuple(self._literal(text) for text in goal)
        world = self._initial(initial)
        if self._started:
            self._stop()
        self._world, self._done, self.steps = world, False, 0
        return self.render(), {"states": [self.truth(self.tracked)], "error": None}

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Execute *action*; a refused one changes nothing and says why in ``info``; a backend
        failure stops the robot and truncates the episode (see the module notes)."""
        self._require_episode()
        act = self.parse(action)
        info: dict[str, Any] = {"action": str(act), "script": [], "states": [], "error": None}
        if act.verb == "done":
            self._done = True
            self._stop()
            return self.render(), float(self.goal_reached()), True, False, info
        worlds, error = self._simulate(act)
        if error is not None:
            info["error"] = error
            return self.render(), 0.0, False, False, info
        props = self._propositions(self.tracked)
        try:
            if not self._started:  # the robot starts with the first action that runs
                self._command(("start", (self.scene.landmarks, self.scene.edges), {}))
                self._started = True
        except RobotError as exc:
            return self._stopped(info, exc)
        for world, command in zip(worlds, self._commands(act, worlds)):
            info["script"].append(_script(command))
            try:
                self._command(command)
            except RobotError as exc:
                return self._stopped(info, exc)
            self._world = world
            info["states"].append(self._truth(world, props))
        self.steps += 1
        truncated = self.max_steps is not None and self.steps >= self.max_steps
        self._done = truncated
        return self.render(), 0.0, False, truncated, info

    def lookahead(self, action: Any, propositions: Iterable[str]) -> Lookahead:
        """What *action* would do, and the world it leads to; nothing is sent to the robot.

        Examples
        --------
        >>> env = SpotEnv()
        >>> _ = env.reset(options={"initial": ["agent_at(office_table)", "is_grabbed(cup)"]})
        >>> env.lookahead("take the keys", ["is_grabbed(keys)"]).error
        'cannot pick up keys: the robot already holds the cup (one object at a time)'
        >>> ahead = env.lookahead("walk to statue", ["agent_at(book_shelf)"])
        >>> ahead.states, env.restore(ahead.world).truth(["agent_at(statue)"])
        ([{'agent_at(book_shelf)': True}, {'agent_at(book_shelf)': False}], \
{'agent_at(statue)': True})
        """
        self._require_episode()
        act = self.parse(action)
        if act.verb == "done":
            return Lookahead([], None, None)
        worlds, error = self._simulate(act)
        if error is not None:
            return Lookahead([], None, error)
        props = self._propositions(propositions)
        return Lookahead([self._truth(w, props) for w in worlds],
                         _Snapshot(worlds[-1], self.steps + 1), None)  # fmt: skip

    def snapshot(self) -> _Snapshot:
        """The symbolic world and the step count (equal for equal worlds)."""
        return _Snapshot(self._state(), self.steps)

    def restore(self, snapshot: _Snapshot) -> SpotEnv:
        """Go back to the symbolic world of *snapshot* (the robot does not move); return
        ``self``.

        Raises
        ------
        ValueError
            If *snapshot* was not taken by a SpotEnv.
        """
        self._require_snapshot(snapshot, _Snapshot)
        self._world, self.steps, self._done = snapshot.world, snapshot.steps, False
        return self

    def parse(self, action: Any) -> SpotAction:
        """Read *action*; see the module notes for the words.

        Raises
        ------
        ActionError
            For an unknown verb (listing the actions) or name (listing the closest names).

        Examples
        --------
        >>> str(SpotEnv().parse("Place the book into the Mail-Box."))
        'put book in mail box'
        >>> SpotEnv().parse("walk to the halway")
        Traceback (most recent call last):
        ...
        safetychip.errors.ActionError: cannot read 'walk to the halway': no landmark or \
object called 'the halway' in scene 'lab'; closest names: hallway
        """
        if isinstance(action, SpotAction):
            return action
        text = " ".join(str(action).strip().rstrip(".").lower().split())
        for verb, phrases in LEXICON.matches(text):
            try:
                names = [self.scene.resolve(str(phrase)) for phrase in phrases]
            except ActionError as exc:
                raise ActionError(f"cannot read {action!r}: {exc}", exc.choices) from None
            return SpotAction(verb, tuple(SpotTarget(n) for n in names))
        forms = "; ".join(LEXICON.forms("X", "Y"))
        raise ActionError(f"cannot read {action!r}: the actions are {forms}")

    def action_frames(self, action: Any) -> list[dict[str, Any]]:
        """The action frame of *action* in the current world, for the episodic memory
        (``ActionFrame.from_dict`` reads it): ``verb``; ``object`` (the first object or
        landmark named) and ``target`` (where ``put`` puts it) with their features (the
        scene's affordances and the states they are in: ``on``, ``opened``, ``held``); and
        ``effects``, the state changes of the symbolic world (``object:held``,
        ``object:on``, ``object:-held`` …). An action the world refuses has none; nothing
        changes, and the robot is never moved.

        Raises
        ------
        ActionError
            If *action* is not an action of the environment, or names something the scene
            lacks.

        Examples
        --------
        >>> env = SpotEnv()
        >>> _ = env.reset()
        >>> [(f["verb"], f["effects"]) for f in env.action_frames("walk to mail room")]
        [('walk', [])]
        """
        act = self.parse(action)
        if act.verb == "done":
            return []
        before = self._state()
        worlds, _ = self._simulate(act)
        after = worlds[-1] if worlds else before
        names = [t.name for t in act.targets]
        roles = {n: "object" if i == 0 else "target" for i, n in enumerate(names[:2])}
        effects = set()
        for name in (*self.scene.landmarks, *self.scene.objects):
            old, new = _spot_states(before, name), _spot_states(after, name)
            role = roles.get(name, "other")
            effects |= {f"{role}:{x}" for x in new - old} | {f"{role}:-{x}" for x in old - new}
        frame: dict[str, Any] = {"verb": act.verb, "effects": sorted(effects)}
        for i, key in enumerate(("object", "target")):
            if len(names) > i:
                frame[key] = names[i]
                frame["affordances" if i == 0 else "target_affordances"] = sorted(
                    self.scene.affordances.get(names[i], frozenset())
                    | _spot_states(before, names[i])
                )
        return [frame]

    def admissible_actions(self) -> list[str]:
        """Every action the preconditions admit now, verb by verb, then DONE."""
        world = self._state()
        return [*(str(a) for a in self._vocabulary() if self._refusal(a, world) is None),
                "done"]  # fmt: skip

    def candidate_actions(self, task: Any = None) -> list[str]:
        """Every action over the scene's names (for planners, whatever the world), then
        DONE; *task* is not needed to narrow them in a scene this small."""
        return [*(str(a) for a in self._vocabulary()), "done"]

    def invariants(self, atoms: Iterable[str] = ()) -> list[Formula]:
        """The robot is at exactly one landmark, and moves only along the graph's edges
        (every waypoint passed is a state); for each ``is_switchedon(x)`` or ``is_open(x)``
        among *atoms*, x's value changes only with the robot at x.

        Examples
        --------
        >>> str(SpotEnv().invariants(["is_switchedon(lamp)"])[-1])
        'G(("is_switchedon(lamp)" <-> X!"is_switchedon(lamp)") -> X"agent_at(lamp)")'
        """
        graph = self.scene.graph
        out = place_invariants(graph, {w: list(graph[w]) for w in graph})
        for atom in atoms:
            prop = Proposition.parse(atom)
            if prop.predicate in ("is_switchedon", "is_open") and prop.args[0] in graph:
                change = Equiv(ap(atom), X(Not(ap(atom))))
                out.append(G(Implies(change, X(ap(f"agent_at({prop.args[0]})")))))
        return out

    def truth(self, propositions: Iterable[str]) -> PropositionState:
        """The truth value of each proposition now."""
        return self._truth(self._state(), self._propositions(propositions))

    def goal_reached(self) -> bool:
        """Whether every goal literal holds now (true without a goal)."""
        world = self._state()
        return all(self._holds(p, world) is value for p, value in self._goal)

    def track(self, propositions: Iterable[str]) -> SpotEnv:
        """Report *propositions* in ``info["states"]``; an unknown one raises
        ``PropositionError``."""
        names = tuple(dict.fromkeys(propositions))
        self._propositions(names)
        super().track(names)
        return self

    def render(self) -> str:
        """Where the robot is, what it holds, where each object rests, what is on or open."""
        world = self._state()
        lines = [f"The robot is at the {_nice(world.at)}, holding "
                 + (f"the {_nice(world.held)}." if world.held else "nothing.")]  # fmt: skip
        lines += [f"- {_nice(o)}: {rel} the {_nice(w)}" for o, rel, w in world.resting]
        for label, names in (("Switched on", world.switched_on), ("Open", world.opened)):
            lines.append(f"{label}: {', '.join(_nice(n) for n in sorted(names)) or 'nothing'}.")
        return "\n".join(lines)

    def close(self) -> None:
        """Stop the robot and end the environment."""
        if not self._closed:
            self._stop()
        super().close()

    def __repr__(self) -> str:
        return f"<SpotEnv scene={self.scene.name!r} backend={self.backend.name!r}>"

    def _repr_html_(self) -> str:
        text = self.render() if self._world is not None else repr(self)
        return f"<pre>{html.escape(text)}</pre>"

    # -- the world --------------------------------------------------------------------------

    def _initial(self, literals: Iterable[str]) -> _World:
        scene = self.scene
        world = _World(scene.start, None,
                       tuple(sorted((o, r, w) for o, (r, w) in scene.placement.items())),
                       scene.switched_on, scene.opened)  # fmt: skip
        for text in literals:
            prop, value = self._literal(text)
            pred, args = prop.predicate, prop.args
            if pred == "agent_at" and value:
                world = replace(world, at=world.waypoint(args[0]))
            elif pred in ("is_switchedon", "is_open"):
                needs = "switch" if pred == "is_switchedon" else "open"
                if not scene.can(args[0], needs):
                    raise ValueError(f"initial {text!r}: the {args[0]} cannot {needs}")
                old = world.switched_on if pred == "is_switchedon" else world.opened
                new = old | {args[0]} if value else old - {args[0]}
                if pred == "is_switchedon":
                    world = replace(world, switched_on=new)
                else:
                    world = replace(world, opened=new)
            elif pred == "is_grabbed" and value and args[0] in scene.objects:
                if world.held is not None:
                    raise ValueError(f"initial {text!r}: the robot already holds {world.held}")
                world = replace(world, held=args[0], resting=world.rest(args[0], None, None))
            elif pred in ("is_on", "is_in") and value and args[0] in scene.objects:
                rel = pred[3:]
                if not scene.can(args[1], "surface" if rel == "on" else "container"):
                    raise ValueError(f"initial {text!r}: nothing can rest {rel} the {args[1]}")
                held = None if world.held == args[0] else world.held
                world = replace(world, held=held, resting=world.rest(args[0], rel, args[1]))
            else:
                raise ValueError(f"initial {text!r} cannot be set: initial literals place the "
                                 f"robot or objects, or switch or open landmarks")  # fmt: skip
        return world

    def _literal(self, text: str) -> tuple[Proposition, bool]:
        name = text.strip()
        negated = name.startswith("!")
        return self._propositions([name.lstrip("! ")])[0][1], not negated

    def _propositions(self, names: Iterable[str]) -> list[tuple[str, Proposition]]:
        out = []
        for name in names:
            prop = self._props.get(name)
            if prop is None:
                prop = self._props[name] = self._check(name)
            out.append((name, prop))
        return out

    def _check(self, name: str) -> Proposition:
        prop = Proposition.parse(name)
        arity = PREDICATES.get(prop.predicate)
        if arity is None or arity != len(prop.args):
            raise PropositionError(
                f"unknown proposition {name!r}: Spot's are "
                f"{', '.join(f'{p}/{n}' for p, n in PREDICATES.items())}"
            )
        for arg in prop.args:
            if arg in self.scene.placement or arg in self.scene.affordances:
                continue
            try:
                hint = f"; did you mean {self.scene.resolve(arg)!r}?"
            except ActionError as exc:
                hint = f": {exc}"
            raise PropositionError(f"unknown proposition {name!r}{hint}")
        return prop

    def _holds(self, prop: Proposition, world: _World) -> bool:
        pred, args = prop.predicate, prop.args
        if pred == "agent_at":
            return world.waypoint(args[0]) == world.at
        if pred == "is_grabbed":
            return world.held == args[0]
        if pred in ("is_on", "is_in"):
            return world.place(args[0]) == (pred[3:], args[1])
        if pred == "is_switchedon":
            return args[0] in world.switched_on
        if pred == "is_open":
            return args[0] in world.opened
        return world.touched == args[0]  # is_touched

    def _truth(self, world: _World, props: list[tuple[str, Proposition]]) -> PropositionState:
        return {name: self._holds(p, world) for name, p in props}

    def _vocabulary(self) -> list[SpotAction]:
        scene, t = self.scene, SpotTarget
        names = scene.names
        out = [SpotAction("walk", (t(n),)) for n in names]
        out += [SpotAction("pick", (t(o),)) for o in scene.objects]
        for verb, needs in (("put", "surface"), ("putin", "container")):
            out += [SpotAction(verb, (t(o), t(w))) for o in scene.objects
                    for w in scene.landmarks if scene.can(w, needs)]  # fmt: skip
        for verb in ("switchon", "switchoff"):
            out += [SpotAction(verb, (t(w),)) for w in scene.landmarks if scene.can(w, "switch")]
        return out + [SpotAction("touch", (t(n),)) for n in names]

    def _refusal(self, act: SpotAction, world: _World) -> str | None:
        """Why *act* cannot run in *world*, as a phrase (None if it can)."""
        scene = self.scene
        x = act.targets[0].name
        there = world.waypoint(x)
        if act.verb == "walk":
            if x == world.held:
                return f"the robot is holding the {_nice(x)}"
            return f"the robot is already at the {_nice(there)}" if there == world.at else None
        if act.verb in ("put", "putin"):
            y, needs = act.targets[1].name, "surface" if act.verb == "put" else "container"
            if world.held != x:
                return f"the robot is not holding the {_nice(x)}"
            if not scene.can(y, needs):
                return f"the {_nice(y)} is not a {needs}"
            if world.at != y:
                return f"the robot is not at the {_nice(y)}"
            return _closed(scene, y, world)
        if act.verb == "pick":
            if x not in scene.objects:
                return f"the {_nice(x)} is a landmark, it cannot be picked up"
            if world.held is not None:
                extra = "" if world.held == x else " (one object at a time)"
                return f"the robot already holds the {_nice(world.held)}{extra}"
        elif act.verb in ("switchon", "switchoff"):
            if not scene.can(x, "switch"):
                return f"the {_nice(x)} cannot be switched"
            if (x in world.switched_on) == (act.verb == "switchon"):
                return f"the {_nice(x)} is already {act.verb[6:]}"
        if there != world.at:
            return f"the robot is not at the {_nice(there)}"
        place = world.place(x)
        if act.verb == "pick" and place is not None and place[0] == "in":
            return _closed(scene, place[1], world)
        return None

    def _simulate(self, act: SpotAction) -> tuple[list[_World], str | None]:
        """The worlds *act* leads through (one per proposition state), or why not."""
        world = self._state()
        reason = self._refusal(act, world)
        if reason is not None:
            return [], f"cannot {act}: {reason}"
        x = act.targets[0].name
        plain = replace(world, touched=None)
        if act.verb == "walk":
            path = self.scene.route(world.at, world.waypoint(x))
            return [replace(plain, at=w) for w in path[1:]], None
        if act.verb == "pick":
            return [replace(plain, held=x, resting=world.rest(x, None, None))], None
        if act.verb in ("put", "putin"):
            rel = "on" if act.verb == "put" else "in"
            return [replace(plain, held=None,
                            resting=world.rest(x, rel, act.targets[1].name))], None  # fmt: skip
        if act.verb in ("switchon", "switchoff"):
            on = world.switched_on | {x} if act.verb == "switchon" else world.switched_on - {x}
            return [replace(plain, switched_on=on)], None
        return [replace(plain, touched=x)], None  # touch

    def _commands(self, act: SpotAction, worlds: list[_World]) -> list[_Command]:
        """The backend command that produces each of *worlds*."""
        x = act.targets[0].name
        if act.verb == "walk":
            return [("navigate", (w.at,), {}) for w in worlds]
        if act.verb == "pick":
            return [("pick", (x,), {"at": self._state().at})]
        if act.verb in ("put", "putin"):
            return [("place", (x,), {"on": act.targets[1].name})]
        if act.verb in ("switchon", "switchoff"):
            return [("switch", (x,), {"on": act.verb == "switchon"})]
        return [("touch", (x,), {})]

    def _command(self, command: _Command) -> None:
        """Send one command to the backend; on a RobotError, stop the robot and raise it."""
        name, args, kwargs = command
        try:
            getattr(self.backend, name)(*args, **kwargs)
        except RobotError:
            self._stop()
            raise

    def _stop(self) -> None:
        self._started = False
        self.backend.stop()

    def _stopped(self, info: dict[str, Any], exc: RobotError) -> tuple[str, float, bool, bool,
                                                                       dict[str, Any]]:  # fmt: skip
        """The step's answer when the robot stopped on *exc*: the episode is truncated."""
        self._done = True
        info["error"] = f"the robot stopped: {exc}"
        return self.render(), 0.0, False, True, info

    def _has_world(self) -> bool:
        return self._world is not None

    def _state(self) -> _World:
        self._require_state()
        assert self._world is not None
        return self._world


def _script(command: _Command) -> str:
    """A command as a line of the record: ``pick(mail, at=mail_room)``."""
    name, args, kwargs = command
    return f"{name}({', '.join([*map(str, args), *(f'{k}={v}' for k, v in kwargs.items())])})"


def _nice(name: str) -> str:
    return name.replace("_", " ")


def _closed(scene: SpotScene, container: str, world: _World) -> str | None:
    if scene.can(container, "open") and container not in world.opened:
        return f"the {_nice(container)} is closed"
    return None


def _spot_states(world: _World, name: str) -> set[str]:
    """The states *name* is in: ``on``, ``opened`` (the affordance ``open`` says it can be),
    ``held``, ``touched``."""
    flags = {"on": name in world.switched_on, "opened": name in world.opened,
             "held": world.held == name, "touched": world.touched == name}  # fmt: skip
    return {state for state, holds in flags.items() if holds}
