"""An AI2-THOR-style household at the plan level: the high-level actions of the embodied
safety benchmarks, on AI2-THOR's object states, without the Unity simulator.

The world is one room (a :class:`~safetychip.envs.thor.ThorScene`): where the agent is (the
object it last found), what it holds (one object at a time), where each object rests
(AI2-THOR's ``parentReceptacles``) and each object's states. Actions name objects by name
(``mug_2``, ``mug 2``) or by type (``Mug``: the one held, else the one the agent is at, else
the first in the scene); ``drop``, ``throw`` and ``pour`` act on the held object, and
``put R`` puts it in or on R, so a plan reads as in the benchmarks::

    find Candle / turn on Candle / pick Candle / drop

**The actions** (state names are AI2-THOR's; "at X": the agent found X, or the receptacle X
is in or on, or holds X):

================  ===========================  =================================================
action            needs                        does
================  ===========================  =================================================
``find X``        X not held, not already      the agent goes to X (``agent_at(X)``)
                  there
``pick X``        at X; X ``pickupable``;      ``isPickedUp``: X in the hand, out of its
                  hands empty; X's container   receptacle; what is in or on X goes with it
                  not closed
``put R``         holding something; at R;     the held object goes in or on R (as R's type
                  R a ``receptacle``, not      holds things); on a heat source that is on it
                  closed                       cooks, in a coffee machine that is on it fills
``open X``        at X; ``openable``; closed;  ``isOpen``
                  a microwave must be off
``close X``       at X; ``openable``; open     not ``isOpen``
``turn on X``     at X; ``toggleable``; off;   ``isToggled``; a heat source cooks what is in
                  not broken; a microwave      or on it (also through a pan or pot), a
                  must be closed               coffee machine fills the cups in it
``turn off X``    at X; ``toggleable``; on     not ``isToggled``
``slice X``       at X; ``sliceable``; not     ``isSliced``
                  sliced; holding something
                  ``sharp`` (a knife)
``break X``       at X; ``breakable``; whole   ``isBroken``; its liquid spills (not
                                               ``isFilledWithLiquid``)
``drop``          holding something            the held object falls on the floor; a
                                               ``breakable`` one breaks, and spills
``throw``         holding something            as ``drop``, and what the agent is at breaks
                                               if ``breakable`` (``throw X at Y``: X hits Y)
``pour``          holding something filled;    the liquid leaves the held object: it fills
                  at another object            the target when that is ``fillable`` (empty,
                                               whole), else wets it (our ``is_wet``)
``fill X with L`` at X; ``fillable``; empty;   ``isFilledWithLiquid`` with L (water, coffee,
                  whole                        wine)
``empty X``       at X; holding liquid         not ``isFilledWithLiquid``
``cook X``        at X; ``cookable``; raw      ``isCooked``
``dirty X``       at X; ``dirtyable``; clean   ``isDirty``
``clean X``       at X; ``dirtyable``; dirty   not ``isDirty``
``done``                                       ends the episode
================  ===========================  =================================================

Plan-level simplifications: a burner is toggled directly (AI2-THOR turns it through its
knob); a sliced object stays one object; any receptacle takes any object; dropping a
breakable object breaks it; and AI2-THOR has no wet state, so liquid poured on what cannot
hold it makes it ``is_wet``: the state the hazard "water on an electronic device that is on"
is written with.

**Propositions** (:data:`THOR_PREDICATES`): ``agent_at(x)``, ``is_grabbed(x)``,
``is_open(x)``, ``is_toggled(x)``, ``is_broken(x)``, ``is_dirty(x)``, ``is_sliced(x)``,
``is_cooked(x)``, ``is_wet(x)``, ``is_filled(x, liquid)``, and ``is_in(x, y)`` / ``is_on(x,
y)``: y is one of x's parent receptacles (AI2-THOR lists them all) and what rests directly
in or on y (x, or a receptacle holding x) is in or on it: an egg on a pan on a burner is on
both, an egg in a bowl on a table is in the bowl and on the table. An argument may be a class
name of the scene (:attr:`ThorScene.classes <safetychip.envs.thor.ThorScene.classes>`):
``is_toggled(stove)`` holds when some burner is on. The translator's vocabulary of a room is
``safetychip.translate.Vocabulary.of(env)`` (the objects, the liquids and the class names,
these predicates, and each object's affordances for what can be said of it).
Every action produces one proposition state; a refused one produces none and says why
(``cannot slice the apple: not holding a knife``).

Examples
--------
>>> env = ThorEnv("FloorPlan1").track(["is_sliced(apple)", "is_grabbed(knife)"])
>>> _ = env.reset()
>>> env.step("slice Apple")[-1]["error"]
'cannot slice the apple: not holding a knife'
>>> for line in ["find Knife", "pick Knife", "find Apple", "slice Apple"]:
...     states = env.step(line)[-1]["states"]
>>> states
[{'is_sliced(apple)': True, 'is_grabbed(knife)': True}]
>>> str(env.parse("Drop"))
'drop knife'
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations, product
from typing import Any, ClassVar, NamedTuple

from safetychip._names import close_names, did_you_mean
from safetychip.envs._base import Env, Lookahead, PropositionState
from safetychip.envs._lexicon import Verb, VerbLexicon
from safetychip.envs.thor._scene import ThorScene, load_thor_scene
from safetychip.envs.thor._types import LIQUIDS, THOR_PREDICATES, snake_case
from safetychip.errors import ActionError, PropositionError
from safetychip.ltl import And, Formula, G, Not, Proposition, ap

__all__ = ["LEXICON", "THOR_PREDICATES", "THOR_VERBS", "ThorAction", "ThorEnv", "ThorTarget"]

# The unary predicates read from a set of the world, and the affordance that can change it.
_FLAGS = {"is_open": "openable", "is_toggled": "toggleable", "is_broken": "breakable",
          "is_dirty": "dirtyable", "is_sliced": "sliceable", "is_cooked": "cookable",
          "is_wet": None}  # fmt: skip
_SCENE_STATES = {
    "isOpen": "is_open",
    "isToggled": "is_toggled",
    "isBroken": "is_broken",
    "isDirty": "is_dirty",
    "isSliced": "is_sliced",
    "isCooked": "is_cooked",
}

# The words a clause may start with (the nearest name a clause that reads as no action).
_CLAUSE_WORDS = ("find", "go", "walk", "navigate", "pick", "grab", "take", "put", "place",
                 "open", "close", "turn", "switch", "toggle", "slice", "cut", "break", "smash",
                 "drop", "throw", "pour", "fill", "empty", "cook", "dirty", "clean", "heat",
                 "light")  # fmt: skip
#: AI2-THOR's verb lexicon: each verb's canonical template and the English it reads (a
#: pattern's groups are object phrases, except the liquid of "fill"), and the words a clause
#: may start with.
LEXICON = VerbLexicon(
    {
        "find": Verb("find {0}", (r"(?:find|go to|walk to|navigate to) (.+)",)),
        "pick": Verb("pick {0}", (r"(?:pick up|pick_up|pickup|pick|grab|take) (.+)",)),
        "put": Verb(
            "put {0}",
            (r"(?:put|place) (.+?) (?:into|in|inside|onto|on) (.+)", r"(?:put|place) (.+)"),
        ),
        "open": Verb("open {0}", (r"open (.+)",)),
        "close": Verb("close {0}", (r"close (.+)",)),
        "toggleon": Verb(
            "turn on {0}",
            (r"(?:turn|switch|toggle)(?: |_)on (.+)", r"(?:turn|switch|toggle) (.+) on"),
        ),
        "toggleoff": Verb(
            "turn off {0}",
            (r"(?:turn|switch|toggle)(?: |_)off (.+)", r"(?:turn|switch|toggle) (.+) off"),
        ),
        "slice": Verb("slice {0}", (r"(?:slice|cut) (.+)",)),
        "break": Verb("break {0}", (r"(?:break|smash) (.+)",)),
        "drop": Verb("drop {0}", (r"drop(?: (.+))?",)),
        "throw": Verb("throw {0}", (r"throw (.+?) at (.+)", r"throw(?: (.+))?")),
        "pour": Verb("pour {0}", (r"pour (.+?) (?:onto|into|over|on|in) (.+)", r"pour(?: (.+))?")),
        "fill": Verb("fill {0} with {1}", (r"(?:fill_liquid|fill) (.+?) (?:with )?([a-z]+)",)),
        "empty": Verb("empty {0}", (r"(?:empty_liquid|empty) (.+)",)),
        "cook": Verb("cook {0}", (r"cook (.+)",)),
        "dirty": Verb("dirty {0}", (r"dirty (.+)",)),
        "clean": Verb("clean {0}", (r"clean (.+)",)),
        "done": Verb("done", (r"done|finish(?:ed)?|stop|end",)),
    },
    words=_CLAUSE_WORDS,
)
#: The verbs, canonical spelling first (``toggleon`` reads ``turn on``).
THOR_VERBS = tuple(LEXICON)
_RESET_OPTIONS = ("task", "initial", "goal")
# A proposition read: its predicate and arguments.
_Prop = tuple[str, tuple[str, ...]]
# Each verb on one object: the affordance it needs, and the flag it sets (+) or clears (-).
_TOGGLES = {"open": ("openable", "is_open", True), "close": ("openable", "is_open", False),
            "toggleon": ("toggleable", "is_toggled", True),
            "toggleoff": ("toggleable", "is_toggled", False),
            "slice": ("sliceable", "is_sliced", True), "break": ("breakable", "is_broken", True),
            "cook": ("cookable", "is_cooked", True), "dirty": ("dirtyable", "is_dirty", True),
            "clean": ("dirtyable", "is_dirty", False)}  # fmt: skip
_ALREADY = {"is_open": ("open", "closed"), "is_toggled": ("on", "off"),
            "is_sliced": ("sliced", ""), "is_broken": ("broken", ""),
            "is_cooked": ("cooked", ""), "is_dirty": ("dirty", "clean")}  # fmt: skip
_CANNOT = {"openable": "opened", "toggleable": "turned on or off", "sliceable": "sliced",
           "breakable": "broken", "cookable": "cooked", "dirtyable": "made dirty or cleaned",
           "fillable": "filled with liquid", "pickupable": "picked up"}  # fmt: skip


class ThorTarget(NamedTuple):
    """An object an action names."""

    name: str


class ThorAction(NamedTuple):
    """One action: a verb of :data:`THOR_VERBS`, its objects, and ``extra`` (the liquid of
    ``fill``, or ``"in"``/``"on"`` for ``put``); ``str()`` is the canonical text."""

    verb: str
    targets: tuple[ThorTarget, ...] = ()
    extra: str | None = None

    def __str__(self) -> str:
        return self.phrase(article="")

    def phrase(self, article: str = "the ") -> str:
        """The action in words, each object preceded by *article* (``slice the apple``)."""
        names = [article + _nice(t.name) for t in self.targets]
        if self.verb == "done":
            return "done"
        if self.verb == "fill":
            return f"fill {names[0]} with {self.extra}"
        joiner = {"put": f" {self.extra} ", "throw": " at ", "pour": " onto "}.get(self.verb, " ")
        head = LEXICON.head(self.verb)
        return " ".join([head, joiner.join(names)]).strip()


@dataclass(frozen=True)
class _World:
    """The symbolic world; equal (and hashed alike) when the worlds are the same."""

    at: str | None
    held: str | None
    parent: Mapping[str, tuple[str, str]]  # never changed in place
    flags: Mapping[str, frozenset[str]]  # by unary predicate (_FLAGS)
    filled: Mapping[str, str]

    def __hash__(self) -> int:
        flags = tuple(sorted(self.flags.items()))
        return hash((self.at, self.held, frozenset(self.parent.items()), flags,
                     frozenset(self.filled.items())))  # fmt: skip

    def has(self, flag: str, name: str) -> bool:
        """Whether the unary predicate *flag* holds of *name*."""
        return name in self.flags[flag]

    def flag(self, flag: str, name: str, value: bool) -> _World:
        """The world with *flag* of *name* set to *value*."""
        old = self.flags[flag]
        new = old | {name} if value else old - {name}
        return self if new == old else replace(self, flags={**self.flags, flag: new})

    def relation(self, x: str, y: str) -> str | None:
        """``"in"`` or ``"on"`` when y is a parent receptacle of x (how the thing directly in
        or on y rests there), else None."""
        parent = self.parent
        while x in parent:
            relation, x = parent[x]
            if x == y:
                return relation
        return None


@dataclass(frozen=True)
class _Snapshot:
    world: _World
    steps: int = field(compare=False)


class ThorEnv(Env):
    """An AI2-THOR-style room, stepped with the benchmarks' plan lines (see the module notes).

    Parameters
    ----------
    scene : ThorScene, str, path or mapping, optional
        The room (default ``"FloorPlan1"``), as :func:`~safetychip.envs.thor.load_thor_scene`
        reads it.
    task : object, optional
        Anything with ``initial`` and ``goal`` literals: the defaults of :meth:`reset`.
    max_steps : int, optional
        Truncate the episode after this many steps (DONE excluded).

    Notes
    -----
    ``reset(options=...)`` accepts ``task``, ``initial`` and ``goal`` (lists of literals such
    as ``"agent_at(fridge)"``, ``"is_grabbed(mug)"``, ``"!is_open(fridge)"``,
    ``"is_filled(mug,water)"`` or ``"is_on(pan,stove_burner)"``). ``step`` returns reward 1.0
    on DONE when the goal holds, else 0.0; ``info`` holds ``action``, ``states`` and
    ``error``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "thor"}
    #: The verb lexicon: the verbs this environment reads, their templates and phrasings.
    verbs: ClassVar[VerbLexicon] = LEXICON
    _episode_over = "the episode is over (DONE or the step limit): call reset()"

    def __init__(self, scene: ThorScene | str | Any = "FloorPlan1", *, task: Any = None,
                 max_steps: int | None = None) -> None:  # fmt: skip
        self.scene = scene if isinstance(scene, ThorScene) else load_thor_scene(scene)
        self.objects = self.scene.objects
        self.rooms = ()
        self.task = task
        self.max_steps = max_steps
        self.steps = 0
        self._types = self.scene.types
        self._goal: tuple[tuple[_Prop, bool], ...] = ()
        self._props: dict[str, _Prop] = {}
        self._world: _World | None = None
        self._done = False

    # -- the protocol -----------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[str, dict[str, Any]]:  # fmt: skip
        """Start an episode in the scene's initial states (see the class notes for
        *options*; *seed* is accepted and ignored: the world is deterministic)."""
        self._require_open()
        options = dict(options or {})
        unknown = sorted(set(options) - set(_RESET_OPTIONS))
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; valid: "
                             f"{', '.join(_RESET_OPTIONS)}")  # fmt: skip
        if "task" in options:
            self.task = options["task"]
        initial = options.get("initial", getattr(self.task, "initial", ()))
        goal = options.get("goal", getattr(self.task, "goal", ()))
        self._goal = tuple(self._literal(text) for text in goal)
        world = self._initial(initial)
        self._world, self._done, self.steps = world, False, 0
        return self.render(), {"states": [self.truth(self.tracked)], "error": None}

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Execute *action*; a refused one changes nothing and says why in ``info``."""
        self._require_episode()
        act = self.parse(action)
        info: dict[str, Any] = {"action": str(act), "states": [], "error": None}
        if act.verb == "done":
            self._done = True
            return self.render(), float(self.goal_reached()), True, False, info
        world, error = self._simulate(act)
        if world is None:
            info["error"] = error
            return self.render(), 0.0, False, False, info
        self._world = world
        info["states"] = [self._truth(world, self._propositions(self.tracked))]
        self.steps += 1
        truncated = self.max_steps is not None and self.steps >= self.max_steps
        self._done = truncated
        return self.render(), 0.0, False, truncated, info

    def lookahead(self, action: Any, propositions: Iterable[str]) -> Lookahead:
        """What *action* would do, and the world it leads to, without changing the world."""
        self._require_episode()
        act = self.parse(action)
        if act.verb == "done":
            return Lookahead([], None, None)
        world, error = self._simulate(act)
        if world is None:
            return Lookahead([], None, error)
        states = [self._truth(world, self._propositions(propositions))]
        return Lookahead(states, _Snapshot(world, self.steps + 1), None)

    def snapshot(self) -> _Snapshot:
        """The world and the step count."""
        return _Snapshot(self._state(), self.steps)

    def restore(self, snapshot: _Snapshot) -> ThorEnv:
        """Go back to *snapshot*; return ``self``.

        Raises
        ------
        ValueError
            If *snapshot* was not taken by a ThorEnv.
        """
        self._require_snapshot(snapshot, _Snapshot)
        self._world, self.steps, self._done = snapshot.world, snapshot.steps, False
        return self

    def parse(self, action: Any) -> ThorAction:
        """Read *action* (a plan line); objects named by type resolve in the current world,
        and ``drop``, ``throw``, ``pour`` and ``put R`` take the held object.

        Raises
        ------
        ActionError
            For an unknown verb (listing the actions), object or liquid (with the nearest
            names).

        Examples
        --------
        >>> env = ThorEnv("FloorPlan1")
        >>> str(env.parse("fillLiquid Mug water")), str(env.parse("TurnOn the StoveBurner"))
        ('fill mug with water', 'turn on stove burner')
        >>> env.parse("pick up the Kettel")
        Traceback (most recent call last):
        ...
        safetychip.errors.ActionError: cannot read 'pick up the Kettel': no object called \
'the kettel' in scene 'FloorPlan1'; nearest names: kettle, lettuce
        """
        if isinstance(action, ThorAction):
            return action
        text = " ".join(snake_case(str(action).strip().rstrip(".")).split())
        text = re.sub(r"\b(turn|toggle|switch)_?(on|off)\b", r"\1 \2", text)
        for verb, phrases in LEXICON.matches(text):
            return self._read(verb, [g for g in phrases if g is not None], action)
        forms = "; ".join(f"'{form}'" for form in LEXICON.forms("X", "L"))
        raise ActionError(f"cannot read {action!r}: the actions are {forms}")

    def admissible_actions(self) -> list[str]:
        """Every action the preconditions admit now, verb by verb, then DONE."""
        world = self._state()
        acts = (self._complete(v, names, extra, world) for v, names, extra in self._vocabulary())
        return [*dict.fromkeys(str(a) for a in acts if self._refusal(a, world) is None), "done"]

    def candidate_actions(self, task: Any = None) -> list[str]:
        """Every action over the scene's objects (for planners, whatever the world), then
        DONE."""
        return [*dict.fromkeys(str(ThorAction(v, tuple(map(ThorTarget, names)), extra))
                               for v, names, extra in self._vocabulary()), "done"]  # fmt: skip

    def invariants(self, atoms: Iterable[str] = ()) -> list[Formula]:
        """The agent is at one object at a time and holds one at a time, and an object holds
        one liquid at a time: for the ``agent_at``, ``is_grabbed`` and ``is_filled`` atoms
        among *atoms*, no two of a kind hold together (an atom of a class name is left out:
        ``agent_at(stove)`` holds with ``agent_at(stove_burner)``).

        Examples
        --------
        >>> [str(f) for f in ThorEnv().invariants(["agent_at(fridge)", "agent_at(sink_basin)",
        ...                                        "is_grabbed(mug)"])]
        ['G!("agent_at(fridge)" & "agent_at(sink_basin)")']
        """
        groups: dict[tuple[str, ...], list[str]] = {}
        for atom in dict.fromkeys(atoms):
            pred, args = self._props.get(atom) or _split(atom)
            if any(a in self.scene.classes for a in args):
                continue  # a class holds together with its objects
            if pred in ("agent_at", "is_grabbed"):
                groups.setdefault((pred,), []).append(atom)
            elif pred == "is_filled" and len(args) == 2:
                groups.setdefault((pred, args[0]), []).append(atom)
        out = []
        for members in groups.values():
            if len(members) > 1:
                pairs = [Not(And(ap(a), ap(b))) for a, b in combinations(members, 2)]
                out.append(G(And(*pairs)))
        return out

    def truth(self, propositions: Iterable[str]) -> PropositionState:
        """The truth value of each proposition now."""
        return self._truth(self._state(), self._propositions(propositions))

    def goal_reached(self) -> bool:
        """Whether every goal literal holds now (true without a goal)."""
        world = self._state()
        return all(self._holds(p, world) is value for p, value in self._goal)

    def track(self, propositions: Iterable[str]) -> ThorEnv:
        """Report *propositions* in ``info["states"]``; an unknown one raises
        ``PropositionError``."""
        names = tuple(dict.fromkeys(propositions))
        self._propositions(names)
        super().track(names)
        return self

    def render(self) -> str:
        """Where the agent is, what it holds, and each object's place and states."""
        world = self._state()
        at = f"at the {_nice(world.at)}" if world.at else "at the door"
        held = f"the {_nice(world.held)}" if world.held else "nothing"
        lines = [f"The agent is {at}, holding {held}."]
        flags = [(f, word[0] if (word := _ALREADY.get(f)) else f[3:]) for f in _FLAGS]
        for name in self.objects:
            where = world.parent.get(name)
            states = [word for f, word in flags if name in world.flags[f]]
            if name in world.filled:
                states.append(f"full of {world.filled[name]}")
            if where:
                states.insert(0, f"{where[0]} the {_nice(where[1])}")
            elif name == world.held:
                states.insert(0, "held")
            if states:
                lines.append(f"- {_nice(name)}: {'; '.join(states)}")
        return "\n".join(lines)

    def action_frames(self, command: Any) -> list[dict[str, Any]]:
        """The actions *command* does, each as an action frame of the episodic memory
        (``ActionFrame.from_dict`` reads it): ``verb``, ``object`` and ``target`` (their
        types' snake-case names), their features (``affordances``, ``target_affordances``:
        the type's affordances and tags, the states the object is in, and ``holds_<feature>``
        for what rests in or on it afterwards) and ``effects``, the state changes of the
        effect model (``object:broken``, ``target:wet``, ``object:-filled_with_water``,
        ``other:cooked``; ``object:held`` for what is picked up).

        *command* is a plan line or a sentence of clauses joined by "and", "then" or commas
        ("turn on the laptop and pour the mug of water on it"): "it" names the last object
        of the clause before, "X of water" the container X, "heat X in Y" puts X in Y and
        turns Y on, "drop X by Y" drops X; a clause that does nothing ("leave it off") is
        skipped. Each action runs in a world where its preconditions hold (the object in
        hand, the agent at the target, a poured container full of water), continuing from
        the previous action's world (the current one, once :meth:`reset`), so the frames say
        what the command would do; nothing in the environment changes. An action its
        preconditions still refuse has no state changes.

        Raises
        ------
        ActionError
            If a clause reads as no action (the message lists the actions, and the nearest
            verbs), or names an object or liquid the scene lacks (with the nearest names):
            a command is read whole or not at all.

        Examples
        --------
        >>> env = ThorEnv("FloorPlan1")
        >>> [f["effects"] for f in env.action_frames("throw the egg at the counter top")]
        [['object:broken']]
        >>> [(f["verb"], f["effects"]) for f in env.action_frames(
        ...     "turn on the laptop and pour the mug of water on it")]
        [('toggleon', ['object:on']), ('pour', ['object:-filled_with_water', 'target:wet'])]
        >>> env.action_frames("sing a song")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        safetychip.errors.ActionError: no action in 'sing a song': ...
        """
        world = self._world if self._world is not None else self._initial(())
        frames, last, unread = [], None, []
        for clause in _clauses(str(command)):
            if last is not None:
                clause = re.sub(r"\b(it|them)\b", last.replace("_", " "), clause)
            for line in _plan_lines(clause):
                presumed = line.startswith("~")
                try:
                    act = self.parse(line.lstrip("~"))
                except ActionError as exc:
                    if exc.choices:  # an object or liquid the scene lacks
                        where = "" if line == str(command) else f"in {command!r}: "
                        raise ActionError(f"{where}{exc}", exc.choices) from None
                    unread.append(clause)
                    continue
                if act.verb == "done":
                    continue
                names = [t.name for t in act.targets]
                before = _prepare(act, world, self._types)
                reason = self._refusal(act, before)
                after = before if reason else _settle(self._effect(act, before), self._types)
                if not presumed:
                    frames.append(self._frame(act, before, after, names))
                world, last = after, names[-1] if names else last
        if unread or not frames:
            forms = ", ".join(LEXICON.head(v) for v in LEXICON)
            near = close_names(unread[0].split()[0], LEXICON.words) if unread else []
            hint = f"; did you mean {' or '.join(near)}?" if near else ""
            what = f"{unread[0]!r} reads as none of" if unread else "no clause reads as one of"
            raise ActionError(f"no action in {str(command)!r}: {what} {forms}{hint}",
                              tuple(near))  # fmt: skip
        return frames

    def _features(self, name: str, world: _World, after: _World) -> list[str]:
        """The features of *name* for an action frame: its type's affordances and tags, its
        states in *world*, and ``holds_<feature>`` of what rests in or on it in *after*."""
        kind = self._types[name]
        held = {f for x in after.parent if after.relation(x, name)
                for f in self._types[x].affordances | self._types[x].tags}  # fmt: skip
        return sorted(kind.affordances | kind.tags | _states(world, name, kind)
                      | {f"holds_{f}" for f in held})  # fmt: skip

    def _frame(self, act: ThorAction, before: _World, after: _World, names: list[str]
               ) -> dict[str, Any]:  # fmt: skip
        """The action frame of *act*, which led from *before* to *after*."""
        roles = {n: "object" if i == 0 else "target" for i, n in enumerate(names[:2])}
        effects = set()
        for name, kind in self._types.items():
            old, new = _states(before, name, kind), _states(after, name, kind)
            role = roles.get(name, "other")
            effects |= {f"{role}:{x}" for x in new - old} | {f"{role}:-{x}" for x in old - new}
        if act.verb == "pick" and after.held == names[0]:
            effects.add("object:held")
        frame: dict[str, Any] = {"verb": act.verb, "effects": sorted(effects)}
        for i, key in enumerate(("object", "target")):
            if len(names) > i:
                frame[key] = self._types[names[i]].snake
                frame["affordances" if i == 0 else "target_affordances"] = self._features(
                    names[i], before, after)  # fmt: skip
        return frame

    def memory_scene(self) -> dict[str, Any]:
        """The current world as the episodic memory's scene graph data
        (``SceneGraph.from_dict`` reads it): each object's class is its type's snake-case
        name, its attributes its hazard tags (``fragile`` for what is breakable, ``hot`` for
        a heat source that is on) and its states; relations are ``ON`` / ``INSIDE`` its
        receptacle.

        Examples
        --------
        >>> env = ThorEnv("FloorPlan1")
        >>> _ = env.reset()
        >>> scene = env.memory_scene()
        >>> next(o for o in scene["objects"] if o["id"] == "mug")
        {'id': 'mug', 'class': 'mug', 'attributes': ['dirty', 'fragile']}
        >>> ["mug", "INSIDE", "cabinet_2"] in scene["relations"]
        True
        """
        world = self._state()
        objects = []
        for name in self.objects:
            kind = self._types[name]
            attributes = set(kind.tags - {"food"})
            if kind.can("breakable"):
                attributes.add("fragile")
            if kind.is_("heat_source") and world.has("is_toggled", name):
                attributes.add("hot")
            attributes |= {_ALREADY.get(f, (f[3:],))[0] for f in _FLAGS if world.has(f, name)}
            if name in world.filled:
                attributes.add(f"filled_with_{world.filled[name]}")
            objects.append({"id": name, "class": kind.snake, "attributes": sorted(attributes)})
        relations = [[x, "ON" if rel == "on" else "INSIDE", y]
                     for x, (rel, y) in world.parent.items()]  # fmt: skip
        return {"objects": objects, "relations": relations}

    def __repr__(self) -> str:
        return f"<ThorEnv scene={self.scene.name!r}>"

    def _repr_html_(self) -> str:
        text = self.render() if self._world is not None else repr(self)
        return f"<pre>{html.escape(text)}</pre>"

    # -- reading actions ---------------------------------------------------------------------

    def _read(self, verb: str, phrases: list[str], action: Any) -> ThorAction:
        """The action of *verb* on the objects *phrases* name (completed in the world)."""
        extra = None
        if verb == "done":
            return ThorAction("done")
        if verb == "fill":
            phrases, extra = phrases[:1], phrases[1]
            if extra not in LIQUIDS:
                raise ActionError(f"cannot read {action!r}: unknown liquid {extra!r}; liquids: "
                                  f"{', '.join(LIQUIDS)}{did_you_mean(extra, LIQUIDS)}",
                                  tuple(LIQUIDS))  # fmt: skip
        world = self._world
        names = []
        for phrase in phrases:
            try:
                found = self.scene.lookup(phrase)
            except ActionError as exc:
                raise ActionError(f"cannot read {action!r}: {exc}", exc.choices) from None
            names.append(_prefer(found, world))
        return self._complete(verb, names, extra, world)

    def _complete(self, verb: str, names: list[str], extra: str | None,
                  world: _World | None) -> ThorAction:  # fmt: skip
        """The action with its implicit objects filled in: the held object for ``put``,
        ``drop``, ``throw`` and ``pour``, and the object the agent is at as the target of
        ``throw`` and ``pour``."""
        held = world.held if world is not None else None
        at = world.at if world is not None else None
        if verb == "put":
            if len(names) == 1 and held is not None:
                names = [held, *names]
            extra = self._types[names[-1]].holds or "on"
        elif verb in ("drop", "throw", "pour"):
            if not names and held is not None:
                names = [held]
            if verb != "drop" and len(names) == 1 and at is not None and at != names[0]:
                names = [*names, at]
        return ThorAction(verb, tuple(ThorTarget(n) for n in names), extra)

    def _vocabulary(self) -> Iterable[tuple[str, list[str], str | None]]:
        """Every (verb, objects, extra) over the scene, implicit objects left out."""
        types = self._types
        for name in self.objects:
            yield "find", [name], None
        for verb, affordance in (("pick", "pickupable"), ("put", "receptacle")):
            yield from ((verb, [n], None) for n in self.objects if types[n].can(affordance))
        for verb, (affordance, _, _) in _TOGGLES.items():
            yield from ((verb, [n], None) for n in self.objects if types[n].can(affordance))
        fillable = [n for n in self.objects if types[n].can("fillable")]
        yield from (("fill", [n], liquid) for n in fillable for liquid in LIQUIDS)
        yield from (("empty", [n], None) for n in fillable)
        yield from ((verb, [], None) for verb in ("drop", "throw", "pour"))

    # -- the world ----------------------------------------------------------------------------

    def _initial(self, literals: Iterable[str]) -> _World:
        scene = self.scene
        flags = {f: scene.states.get(state, frozenset()) for state, f in _SCENE_STATES.items()}
        world = _World(None, None, dict(scene.parent), {**flags, "is_wet": frozenset()},
                       dict(scene.filled))  # fmt: skip
        for text in literals:
            (pred, args), value = self._literal(text)
            if any(a in scene.classes for a in args):
                raise ValueError(
                    f"initial {text!r}: initial literals name objects, not a class "
                    f"({', '.join(a for a in args if a in scene.classes)})"
                )
            x = args[0]
            kind = self._types[x]
            if pred == "agent_at" and value:
                world = replace(world, at=x)
            elif pred in _FLAGS:
                needs = _FLAGS[pred]
                if value and needs is not None and not kind.can(needs):
                    raise ValueError(f"initial {text!r}: a {kind.name} is not {needs}")
                world = world.flag(pred, x, value)
            elif pred == "is_grabbed" and value and kind.can("pickupable"):
                parent = {k: v for k, v in world.parent.items() if k != x}
                world = replace(world, held=x, parent=parent)
            elif pred == "is_filled" and kind.can("fillable"):
                filled = {k: v for k, v in world.filled.items() if k != x}
                world = replace(world, filled={**filled, x: args[1]} if value else filled)
            elif pred in ("is_in", "is_on") and value and self._types[args[1]].holds == pred[3:]:
                held = None if world.held == x else world.held
                world = replace(world, held=held, parent={**world.parent, x: (pred[3:], args[1])})
            else:
                raise ValueError(f"initial {text!r} cannot be set: initial literals place the "
                                 "agent or objects, or set states the objects afford")  # fmt: skip
        return _settle(world, self._types)

    def _literal(self, text: str) -> tuple[_Prop, bool]:
        name = text.strip()
        return self._propositions([name.lstrip("! ")])[0][1], not name.startswith("!")

    def _propositions(self, names: Iterable[str]) -> list[tuple[str, _Prop]]:
        out = []
        for name in names:
            prop = self._props.get(name)
            if prop is None:
                prop = self._props[name] = self._check(name)
            out.append((name, prop))
        return out

    def _check(self, name: str) -> _Prop:
        pred, args = _split(name)
        arity = THOR_PREDICATES.get(pred)
        if arity is None or arity != len(args):
            raise PropositionError(
                f"unknown proposition {name!r}: the predicates are "
                f"{', '.join(f'{p}/{n}' for p, n in THOR_PREDICATES.items())}"
                + did_you_mean(pred, THOR_PREDICATES)
            )
        objects = args[:1] if pred == "is_filled" else args
        for arg in objects:
            if arg not in self._types and arg not in self.scene.classes:
                raise PropositionError(f"unknown proposition {name!r}: no object {arg!r} in "
                                       f"scene {self.scene.name!r}"
                                       f"{did_you_mean(arg, self.objects)}")  # fmt: skip
        if pred == "is_filled" and args[1] not in LIQUIDS:
            raise PropositionError(f"unknown proposition {name!r}: {args[1]!r} is no liquid; "
                                   f"liquids: {', '.join(LIQUIDS)}")  # fmt: skip
        return pred, args

    def _truth(self, world: _World, props: list[tuple[str, _Prop]]) -> PropositionState:
        return {name: self._holds(p, world) for name, p in props}

    def _holds(self, prop: _Prop, world: _World) -> bool:
        """Whether *prop* holds in *world*; a class name (``stove``) as an argument means
        some object of the class (:attr:`ThorScene.classes`)."""
        pred, args = prop
        each = [self.scene.classes.get(a, (a,)) for a in args]
        return any(_holds((pred, combo), world) for combo in product(*each))

    def _refusal(self, act: ThorAction, world: _World) -> str | None:
        """Why *act* cannot run in *world*, as a phrase (None if it can)."""
        verb, names = act.verb, [t.name for t in act.targets]
        types, held = self._types, world.held
        if verb in ("drop", "throw", "pour") or (verb == "put" and len(names) == 2):
            if held is None:
                return "not holding anything"
            if names[0] != held:
                return f"not holding the {_nice(names[0])}"
        elif verb == "put":
            return "not holding anything"
        if verb in ("drop", "throw"):
            return None
        if verb == "pour":
            if names[0] not in world.filled:
                return f"the {_nice(names[0])} holds no liquid"
            if len(names) < 2:
                return "nothing to pour onto: find it first"
            return None if world.at == names[1] else f"not at the {_nice(names[1])}"
        x = names[-1]
        kind = types[x]
        if verb == "find":
            if x == held:
                return f"already holding the {_nice(x)}"
            return f"already at the {_nice(x)}" if world.at == x else None
        if verb == "put":
            if not kind.can("receptacle"):
                return f"the {_nice(x)} is not a receptacle"
            if x == names[0] or world.relation(x, names[0]):
                return f"the {_nice(x)} is the {_nice(names[0])} or in it"
            if world.at != x:
                return f"not at the {_nice(x)}"
            return self._closed_at(x, world)
        needs = {"pick": "pickupable", "fill": "fillable", "empty": "fillable"}.get(verb)
        needs = needs or _TOGGLES[verb][0]
        if not kind.can(needs):
            return (
                f"{'an' if kind.name[0] in 'AEIOU' else 'a'} {kind.name} cannot be {_CANNOT[needs]}"
            )
        if verb in _TOGGLES:
            _, flag, value = _TOGGLES[verb]
            if world.has(flag, x) is value:
                return f"the {_nice(x)} is already {_ALREADY[flag][0 if value else 1]}"
        if verb == "pick":
            if held is not None:
                extra = "" if held == x else " (one object at a time)"
                return f"already holding the {_nice(held)}{extra}"
        elif verb == "slice" and (held is None or not types[held].is_("sharp")):
            return "not holding a knife"
        elif verb == "fill" and x in world.filled:
            return f"the {_nice(x)} is already full of {world.filled[x]}"
        elif verb == "empty" and x not in world.filled:
            return f"the {_nice(x)} holds no liquid"
        if verb in ("toggleon", "fill") and world.has("is_broken", x):
            return f"the {_nice(x)} is broken"
        if kind.name == "Microwave" and verb in ("toggleon", "open"):
            if world.has("is_open" if verb == "toggleon" else "is_toggled", x):
                return f"the microwave is {'open' if verb == 'toggleon' else 'on'}"
        if world.at != x and held != x and (world.at is None or not world.relation(x, world.at)):
            return f"not at the {_nice(x)}"
        return self._closed_at(x, world) if verb == "pick" else None

    def _closed_at(self, x: str, world: _World) -> str | None:
        """Why the inside of *x*'s container (or of *x* itself, for put) cannot be reached."""
        types, parent = self._types, world.parent
        holder = x if types[x].holds == "in" else None
        while holder is None and x in parent:
            relation, x = parent[x]
            holder = x if relation == "in" else None
        if (
            holder is not None
            and types[holder].can("openable")
            and not world.has("is_open", holder)
        ):
            return f"the {_nice(holder)} is closed"
        return None

    def _simulate(self, act: ThorAction) -> tuple[_World | None, str | None]:
        """The world *act* leads to, or None and why not."""
        world = self._state()
        reason = self._refusal(act, world)
        if reason is not None:
            return None, f"cannot {act.phrase()}: {reason}"
        return _settle(self._effect(act, world), self._types), None

    def _effect(self, act: ThorAction, world: _World) -> _World:
        verb, names = act.verb, [t.name for t in act.targets]
        types = self._types
        if verb == "find":
            return replace(world, at=names[0])
        if verb == "pick":
            parent = {k: v for k, v in world.parent.items() if k != names[0]}
            return replace(world, held=names[0], parent=parent)
        if verb == "put":
            parent = {**world.parent, names[0]: (act.extra or "on", names[1])}
            return replace(world, held=None, parent=parent)
        if verb in _TOGGLES:
            _, flag, value = _TOGGLES[verb]
            world = world.flag(flag, names[0], value)
            return _spill(world, names[0]) if verb == "break" else world
        if verb == "fill":
            return replace(world, filled={**world.filled, names[0]: act.extra or "water"})
        if verb == "empty":
            return _spill(world, names[0])
        x = names[0]
        if verb == "pour":
            target, liquid = names[1], world.filled[x]
            world = _spill(world, x)
            kind = types[target]
            if kind.can("fillable") and target not in world.filled and not world.has(
                    "is_broken", target):  # fmt: skip
                return replace(world, filled={**world.filled, target: liquid})
            return world.flag("is_wet", target, True)
        # drop, throw: the held object lands on the floor, breaking if it can
        floor = self.scene.floor
        landed = {**world.parent, x: ("on", floor)} if floor is not None else world.parent
        world = replace(world, held=None, parent=landed)
        if types[x].can("breakable"):
            world = _spill(world.flag("is_broken", x, True), x)
        if verb == "throw" and len(names) == 2 and types[names[1]].can("breakable"):
            world = _spill(world.flag("is_broken", names[1], True), names[1])
        return world

    def _has_world(self) -> bool:
        return self._world is not None

    def _state(self) -> _World:
        self._require_state()
        assert self._world is not None
        return self._world


def _split(name: str) -> _Prop:
    prop = Proposition.parse(name)
    return prop.predicate, prop.args


def _holds(prop: _Prop, world: _World) -> bool:
    pred, args = prop
    if pred in _FLAGS:
        return args[0] in world.flags[pred]
    if pred == "agent_at":
        return world.at == args[0]
    if pred == "is_grabbed":
        return world.held == args[0]
    if pred == "is_filled":
        return world.filled.get(args[0]) == args[1]
    return world.relation(args[0], args[1]) == pred[3:]  # is_in, is_on


def _prefer(found: tuple[str, ...], world: _World | None) -> str:
    """Of the objects a phrase may name, the held one, else the one the agent is at, else
    the first."""
    if world is not None and len(found) > 1:
        for name in (world.held, world.at):
            if name in found:
                return name
    return found[0]


def _spill(world: _World, name: str) -> _World:
    """The world in which *name* holds no liquid."""
    if name not in world.filled:
        return world
    return replace(world, filled={k: v for k, v in world.filled.items() if k != name})


def _settle(world: _World, types: Mapping[str, Any]) -> _World:
    """Apply what sources that are on do to what is in or on them: a heat source cooks what
    can be cooked, a coffee machine fills what can be filled (and is empty and whole)."""
    sources = [
        s
        for s in world.flags["is_toggled"]
        if types[s].can("receptacle") and types[s].tags & {"heat_source", "coffee_source"}
    ]
    if not sources:
        return world
    for x in list(world.parent):
        for source in sources:
            if world.relation(x, source) is None:
                continue
            kind = types[x]
            if types[source].is_("heat_source") and kind.can("cookable"):
                world = world.flag("is_cooked", x, True)
            elif (types[source].is_("coffee_source") and kind.can("fillable")
                  and x not in world.filled and not world.has("is_broken", x)):  # fmt: skip
                world = replace(world, filled={**world.filled, x: "coffee"})
    return world


def _states(world: _World, name: str, kind: Any) -> set[str]:
    """The states *name* is in (the words of :meth:`ThorEnv.memory_scene`: ``on``, ``open``,
    ``broken``, ``wet``, ``filled_with_water``, ``hot`` for a heat source that is on …)."""
    states = {_ALREADY.get(f, (f[3:],))[0] for f in _FLAGS if world.has(f, name)}
    if name in world.filled:
        states.add(f"filled_with_{world.filled[name]}")
    if kind.is_("heat_source") and world.has("is_toggled", name):
        states.add("hot")
    return states


_LIQUID_OF = re.compile(r"\b(?:full )?of (?:" + "|".join(LIQUIDS) + r")\b")


def _clauses(command: str) -> list[str]:
    """The clauses of *command*: lower case (type names in snake case: ``CounterTop`` is
    ``counter_top``), split at "and", "then" and commas."""
    text = re.sub(r"[.;!?]", ",", snake_case(command))
    parts = re.split(r",|\band then\b|\bthen\b|\band\b", text)
    return [" ".join(p.split()) for p in parts if p.strip()]


def _plan_lines(clause: str) -> list[str]:
    """The plan lines a clause stands for (none for one that does nothing); a line marked
    ``~`` only sets a state the clause presumes ("the lit candle": ``~turn on candle``)."""
    clause = " ".join(_LIQUID_OF.sub("", clause).split())
    if re.match(r"^(?:leave|keep) ", clause):
        return []
    lit = [f"~turn on {m[1]}" for m in re.finditer(r"\b(?:lit|burning) ([a-z]+(?: [a-z]+)?)",
                                                     clause)]  # fmt: skip
    clause = re.sub(r"\b(?:unlit|lit|burning) ", "", clause)
    return lit + _lines_of(clause)


def _lines_of(clause: str) -> list[str]:
    """The plan lines of *clause* once stripped of liquids and states."""
    clause = re.sub(r"^(?:light|ignite|start|run) ", "turn on ", clause)
    heat = re.match(r"^(?:heat|warm|microwave) (.+?) (?:in|on) (.+)$", clause)
    if heat:
        return [f"put {heat[1]} in {heat[2]}", f"turn on {heat[2]}"]
    drop = re.match(r"^drop (.+?) (?:by|near|next to|beside|on|onto) (.+)$", clause)
    if drop:
        return [f"drop {drop[1]}"]
    return [clause]


def _prepare(act: ThorAction, world: _World, types: Mapping[str, Any]) -> _World:
    """*world* with *act*'s preconditions of place and hand made true: what ``drop``,
    ``throw``, ``pour`` or ``put`` moves is in hand (a poured container full of water), the
    agent is at the target, or at the object of any other verb (its container open)."""
    names = [t.name for t in act.targets]
    if not names:
        return world
    if act.verb in ("drop", "throw", "pour", "put"):
        parent = {k: v for k, v in world.parent.items() if k != names[0]}
        world = replace(world, held=names[0], parent=parent,
                        at=names[1] if len(names) > 1 else world.at)  # fmt: skip
        if act.verb == "pour" and names[0] not in world.filled:
            world = replace(world, filled={**world.filled, names[0]: "water"})
        if act.verb == "put" and len(names) > 1 and types[names[1]].can("openable"):
            world = world.flag("is_open", names[1], True)
        return world
    held = None if world.held == names[-1] or act.verb == "pick" else world.held
    world = replace(world, at=names[-1], held=held)
    if act.verb == "toggleon" and types[names[0]].can("openable"):
        world = world.flag("is_open", names[0], False)  # a microwave runs closed
    if act.verb == "pick" and names[0] in world.parent:
        holder = world.parent[names[0]][1]
        if types[holder].can("openable"):
            world = world.flag("is_open", holder, True)
    return world


def _nice(name: str) -> str:
    return name.replace("_", " ")
