"""An offline stand-in for the agents' language model. It is not an LLM.

:class:`OfflineAgentModel` is a :class:`~safetychip.llm.StandInModel`: the agents' prompt
building, grounding and reprompting code runs exactly as with a real model, offline and
deterministically. It reads **only its prompt** — nothing else of the task, and never a
formula:

* *planner prompts* (Base, NL Constraints, Safety Chip): it follows the in-context example
  plan from where the numbered history stands; with probability ``deviation`` (decided by a
  seeded generator keyed by the prompt) it takes an *unknown turn*: walks to a room or an
  object named in the prompt instead;
* constraints in English in the prompt are obeyed only as far as simple text rules read them
  (:func:`read_rule`: "never X", "don't X before Y", "X before Y", "if X, Y", "Y right after
  X", "at most once"); sentences outside those forms are ignored;
* after a refused proposal it reads the ``Error:`` line: a *remedy* ("first: walk to
  bathroom"), what DONE still needs, a constraint sentence quoted in the explanation (read
  with the same rules), a *hint* ("a safe way to continue is: a, b, done") which it then
  follows; with no usable content (mask, generic) it skips the refused action or walks
  somewhere else, at random;
* sampled at a temperature above 0 (the mask variant's retries) it picks an alternative with
  probability ``0.6 * temperature``;
* *agent-query prompts* (the ``llm_explain`` variant): it names the constraint whose sentence
  shares most words with the refused action;
* *program prompts* (Code as Policies): it writes the example program, adjusted by the text
  rules and with the same unknown turns.

Token counts are estimates (4 characters a token): the stand-in has no tokenizer. Every
completion is labelled ``stand_in=True``; tables and figures built from it say
:data:`~safetychip.agents.STAND_IN_LABEL`.

Examples
--------
>>> from safetychip.agents import BaseAgent
>>> from safetychip.envs import load_tasks
>>> task = load_tasks(suite="four_room")[0]
>>> episode = BaseAgent(OfflineAgentModel(seed=0, deviation=0.0)).run(task)
>>> episode.executed, episode.stand_in
(('walk to kitchen',), True)
>>> read_rule("Don't go to the kitchen before you have been to the bathroom.",
...           ["kitchen", "bathroom"])
TextRule(kind='not_before', action='walk to kitchen', other='walk to bathroom', bound=None)
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import cast

from ..llm import ChatRequest, Completion, Message, StandInModel, Usage
from ._prompts import SKILL_ACTIONS, example_program

__all__ = ["OfflineAgentModel", "TextRule", "phrase_action", "read_rule"]

_CHARS_PER_TOKEN = 4


def _tokens(text: str) -> int:
    return (len(text) + _CHARS_PER_TOKEN - 1) // _CHARS_PER_TOKEN


# -- text rules -------------------------------------------------------------------------------


@dataclass(frozen=True)
class TextRule:
    """A constraint as the stand-in's text rules read it.

    Attributes
    ----------
    kind : str
        ``"never"`` (never *action*), ``"never_after"`` (never *action* once *other* was
        done), ``"not_before"`` (not *action* before *other*), ``"response"`` (after
        *other*, *action* before the end), ``"immediate"`` (right after *other*, *action*),
        ``"at_most"`` (*action* at most *bound* times).
    action : str
        An action in templated English.
    other : str or None
        The other action of the rule.
    bound : int or None
        For ``at_most``.
    """

    kind: str
    action: str
    other: str | None = None
    bound: int | None = None


_WALK = (
    r"\b(?:go|goes|going|gone|went|walk|walking|enter|entering|visit|visiting|been|be|"
    r"come|coming|return|returning|pass|passing|reach|reaching|get to|move|run)\b"
)
_VERB_RULES = (
    (r"\bget to\b|\bbeen\b|\bvisit\w*|\b(?:are|be|being) in\b|\breach\w*", "walk to {}"),
    (r"\b(?:switch|turn)(?:ed|ing)? on\b|\b(?:switch|turn)(?:ed|ing)? (?:\w+ ){1,3}on\b|"
     r"\bis on\s*$", "switch on {}"),
    (r"\b(?:switch|turn)(?:ed|ing)? off\b|\b(?:switch|turn)(?:ed|ing)? (?:\w+ ){1,3}off\b|"
     r"\bis off\s*$", "switch off {}"),
    (r"\bopen", "open {}"),
    (r"\bclos", "close {}"),
    (r"\bpick(?:ed|ing)? (?:\w+ ){0,3}up\b|\bpick(?:ed|ing)? up\b|\btak(?:e|en|ing)\b|\btook\b|"
     r"\bgrab|\bhold|\bhave\b|\bhas\b|\bget\b", "grab {}"),
    (r"\btouch", "touch {}"),
    (_WALK, "walk to {}"),
)  # fmt: skip
_NEG = r"(?:never|do not|don't|you must not|you may not|you should not|avoid)"
_COUNTS = {"once": 1, "one time": 1, "twice": 2, "two times": 2, "three times": 3}


@lru_cache(maxsize=64)
def _name_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = sorted(set(names), key=len, reverse=True)  # longest first at each position
    return re.compile(r"\b(?:" + "|".join(re.escape(n) for n in alternatives) + r")\b")


def _names_in(phrase: str, names: Sequence[str]) -> list[str]:
    """The names occurring in *phrase*, in order, longest match first, without overlaps."""
    if not names:
        return []
    return [m.group(0) for m in _name_pattern(tuple(names)).finditer(phrase)]


def phrase_action(phrase: str, names: Sequence[str], it: str | None = None,
                  rooms: Sequence[str] = ()) -> str | None:  # fmt: skip
    """Read a verb phrase as an action in templated English, or None.

    Parameters
    ----------
    phrase : str
        ``"you have been to the bathroom"``, ``"the mug is in it"``, ….
    names : sequence of str
        Room and object names (with spaces), from the prompt.
    it : str, optional
        What ``it`` refers to.
    rooms : sequence of str
        The room names: a bare room (``"the kitchen"``) reads as walking there.

    Examples
    --------
    >>> phrase_action("the mug is in it", ["mug", "coffee machine"], it="coffee machine")
    'put mug in coffee machine'
    >>> phrase_action("switch it off again later", ["floor lamp"], it="floor lamp")
    'switch off floor lamp'
    >>> phrase_action("feel happy", ["kitchen"]) is None
    True
    """
    text = " " + phrase.lower().strip().rstrip(".") + " "
    if it is not None:
        text = re.sub(r"\bit\b", it, text)
    if re.search(r"\b(?:leave|leaving|left|exit|out of)\b", text):
        return None  # leaving a place is not an action of the environment
    objects = _names_in(text, names)
    if len(objects) >= 2 and re.search(r"\bput|\bplac|\bis (?:in|on|inside)\b|\bare (?:in|on)\b",
                                       text):  # fmt: skip
        first = text.find(objects[0]) + len(objects[0])
        between = text[first : text.find(objects[1], first)]
        word = "in" if re.search(r"\b(?:in|into|inside)\b", between) else "on"
        return f"put {objects[0]} {word} {objects[1]}"
    if not objects:
        return None
    for pattern, template in _VERB_RULES:
        if re.search(pattern, text):
            return template.format(objects[0])
    return f"walk to {objects[0]}" if objects[0] in rooms else None


def read_rule(sentence: str, names: Sequence[str], rooms: Sequence[str] = ()) -> TextRule | None:
    """Read one constraint sentence with simple text rules; None if no rule fits.

    Examples
    --------
    >>> names = ["fridge", "stove", "salmon", "microwave", "bathroom"]
    >>> read_rule("Never switch on the stove.", names)
    TextRule(kind='never', action='switch on stove', other=None, bound=None)
    >>> read_rule("You must close the fridge if you ever opened it.", names)
    TextRule(kind='response', action='close fridge', other='open fridge', bound=None)
    >>> read_rule("Close the microwave right after you put the salmon in it.", names)
    TextRule(kind='immediate', action='close microwave', other='put salmon in microwave', \
bound=None)
    >>> read_rule("Go straight from the bedroom to the bathroom.", names) is None
    True
    """
    s = " ".join(sentence.lower().replace("’", "'").split()).rstrip(".!")

    def act(phrase: str, it: str | None = None) -> str | None:
        return phrase_action(phrase, names, it, rooms)

    def subject(phrase: str) -> str | None:
        found = _names_in(" " + phrase + " ", names)
        return found[-1] if found else None

    count = re.search(r"\b(?:at most|only|no more than|more than) (once|twice|one time|two times|"
                      r"three times|\d+ times?)", s)  # fmt: skip
    if count:
        word = count.group(1)
        bound = _COUNTS.get(word) or int(word.split()[0])
        action = act(s[: count.start()] + s[count.end() :])
        return TextRule("at_most", action, bound=bound) if action else None
    if re.search(r"\b(?:come back|go back|return)\b", s) and not re.search(
            r"\b(?:once|after|when|whenever|if)\b", s):  # fmt: skip
        action = act(s)
        return TextRule("at_most", action, bound=1) if action else None
    m = re.match(rf"^(?:once|after|when|whenever|if) (.+?), (?:then )?({_NEG}|keep out of|"
                 rf"stay out of) (.+)$", s)  # fmt: skip
    if m:
        trigger = act(m.group(1))
        if "out of" in m.group(2):
            place = subject(m.group(3))
            action = f"walk to {place}" if place else None
        else:
            action = act(m.group(3), it=subject(m.group(1)))
        return TextRule("never_after", action, trigger) if trigger and action else None
    m = re.match(r"^(?:once|after|when|whenever|if) (.+?), (?:you must |then )?(.+)$", s)
    if m:
        trigger = act(m.group(1))
        response = act(m.group(2), it=subject(m.group(1)))
        kind = "immediate" if re.search(r"\b(?:straight|right|immediately|next)\b",
                                        m.group(2)) else "response"  # fmt: skip
        return TextRule(kind, response, trigger) if trigger and response else None
    m = re.match(rf"^{_NEG} (.+?) (?:before|until) (.+)$", s)
    if m:
        x = act(m.group(1))
        y = act(m.group(2), it=subject(m.group(1)))
        return TextRule("not_before", x, y) if x and y else None
    m = re.match(r"^(?:you must )?(.+?) (right after|after|if|once|when) you (?:ever )?(.+)$", s)
    if m and not re.match(_NEG, s):
        response = act(m.group(1))
        trigger = act(m.group(3), it=subject(m.group(1)))
        kind = "immediate" if m.group(2) == "right after" else "response"
        return TextRule(kind, response, trigger) if trigger and response else None
    m = re.match(r"^(?:you must )?(.+?) before (?:you )?(.+)$", s)
    if m and not re.match(_NEG, s):
        y = act(m.group(1))
        x = act(m.group(2), it=subject(m.group(1)))
        return TextRule("not_before", x, y) if x and y else None
    m = re.match(r"^(?:stay|keep) out of (.+)$", s)
    if m and subject(m.group(1)):
        return TextRule("never", f"walk to {subject(m.group(1))}")
    m = re.match(rf"^{_NEG} (.+)$", s)
    if m:
        action = act(m.group(1))
        return TextRule("never", action) if action else None
    return None


# -- the prompt as the stand-in reads it --------------------------------------------------------


_NUMBERED = re.compile(r"^(\d+)\.\s*(.*)$")
_HINT = re.compile(r"Hint: a safe way to continue is: (.+?)\.\s*$")
_REMEDY = re.compile(r"first: (.+?); after that")
_OWED = re.compile(r"still needs: (.+?)(?:\.|;|$)")
_QUOTED = [re.compile(r"\bc\d+ \(([^()]+)\)"), re.compile(r"constraint \d+: (.+?)\s*$")]
_ACTION_FORM = re.compile(r"^(?:walk to|grab|open|close|put .+ (?:on|in)|switch on|switch off|"
                          r"touch|look at|find) \S")  # fmt: skip


@dataclass
class _Planner:
    """What a planner prompt says."""

    rooms: list[str] = field(default_factory=list)
    objects: list[str] = field(default_factory=list)
    example: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    here: str | None = None
    close: list[str] | None = None
    executed: list[str] = field(default_factory=list)
    refused: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    hints: list[tuple[int, list[str]]] = field(default_factory=list)
    learned: list[str] = field(default_factory=list)
    number: int = 1

    @property
    def names(self) -> list[str]:
        return [*self.rooms, *self.objects]


def _list(line: str) -> list[str]:
    return [x.strip() for x in line.split(":", 1)[1].split(",") if x.strip()]


def _read_planner(text: str) -> _Planner:
    p = _Planner()
    lines = text.splitlines()
    section = ""
    last_task = max((i for i, line in enumerate(lines) if line.startswith("Task: ")), default=-1)
    pending: tuple[int, str] | None = None
    for i, line in enumerate(lines):
        if line.startswith("Rooms:"):
            p.rooms = _list(line)
        elif line.startswith("Objects:"):
            p.objects = _list(line)
        elif line == "Example":
            section = "example"
        elif line.startswith("Constraints"):
            section = "constraints"
        elif line.startswith("Current state:"):
            section = "state"
        elif i >= last_task >= 0:
            section = "history"
        if line.startswith("You are in the "):
            p.here = line[len("You are in the ") :].split(".")[0]
            near = re.search(r"You are close to (.+?)\. ", line)
            p.close = [x.strip() for x in near.group(1).split(",")] if near else []
        m = _NUMBERED.match(line)
        if section == "example" and m and m.group(2):
            p.example.append(m.group(2))
        elif section == "constraints" and m:
            p.constraints.append(m.group(2))
        elif section == "history":
            if m:
                if pending is not None:
                    p.executed.append(pending[1])
                pending = (int(m.group(1)), m.group(2)) if m.group(2) else None
                if not m.group(2):
                    p.number = int(m.group(1))
            elif line.startswith("Error: ") and pending is not None:
                error = line[len("Error: ") :]
                p.refused.setdefault(pending[0], []).append((pending[1], error))
                hint = _HINT.search(error)
                if hint:
                    p.hints.append((len(p.executed), [a.strip() for a in
                                                      hint.group(1).split(",")]))  # fmt: skip
                for pattern in _QUOTED:
                    p.learned += [q.group(1) for q in pattern.finditer(error)]
                pending = None
    return p


class _Policy:
    """The stand-in's planner policy on one prompt."""

    def __init__(self, p: _Planner, rng: random.Random) -> None:
        self.p, self.rng = p, rng
        names = p.names
        sentences = [*p.constraints, *p.learned]
        self.rules = [r for r in (read_rule(s, names, p.rooms) for s in sentences)
                      if r is not None]  # fmt: skip

    def cursor(self, executed: Sequence[str]) -> int:
        """How far along the example plan the executed actions are (an example action that
        was refused may have been skipped)."""
        example, cursor = self.p.example, 0
        refused = {a for tried in self.p.refused.values() for a, _ in tried}
        for a in executed:
            if cursor < len(example) and a == example[cursor]:
                cursor += 1
            elif example[cursor: cursor + 1] and example[cursor] in refused and \
                    a in example[cursor + 1: cursor + 3]:  # fmt: skip
                cursor = example.index(a, cursor + 1) + 1
        return cursor

    def next_from_example(self, executed: Sequence[str]) -> str:
        example, cursor = self.p.example, self.cursor(executed)
        return example[cursor] if cursor < len(example) else "done"

    def after(self, action: str, executed: Sequence[str] = ()) -> str | None:
        """The example's action after *action* (skipping it), or None."""
        example = self.p.example
        cursor = self.cursor(executed)
        if action not in example[cursor:]:
            return None
        i = example.index(action, cursor)
        return example[i + 1] if i + 1 < len(example) else "done"

    def reach(self, action: str) -> str:
        """Walk to the object first if the prompt's state says the agent is not close to it."""
        if self.p.close is None or action == "done" or action.startswith("walk to "):
            return action
        if action.startswith("put ") and (" on " in action or " in " in action):
            target = re.split(r" (?:on|in) ", action[4:], maxsplit=1)[-1]
        else:
            target = re.sub(r"^(?:switch on|switch off|look at|\w+) ", "", action)
        return action if target in self.p.close else f"walk to {target}"

    def forbidden(self, action: str, executed: Sequence[str]) -> bool:
        for r in self.rules:
            if r.action != action:
                continue
            if r.kind == "never" or (r.kind == "never_after" and r.other in executed):
                return True
            if r.kind == "at_most" and executed.count(action) >= (r.bound or 0):
                return True
        return False

    def obey(self, cand: str, executed: Sequence[str]) -> str:
        """Adjust *cand* by the text rules."""
        for r in self.rules:
            if r.kind == "immediate" and executed and executed[-1] == r.other:
                return r.action
        for _ in range(len(self.p.example) + 4):
            if cand == "done":
                for r in self.rules:
                    if r.kind == "response" and r.other in executed:
                        last = len(executed) - 1 - executed[::-1].index(r.other)
                        if r.action not in executed[last + 1 :]:
                            cand = r.action
                            break
                else:
                    return cand
            if self.forbidden(cand, executed):
                cand = self.after(cand, executed) or "done"
                continue
            for r in self.rules:
                if r.kind == "not_before" and cand == r.action and r.other not in executed:
                    cand = cast(str, r.other)  # a not_before rule names the other action
                    break
            else:
                return cand
        return cand

    def walks(self) -> list[str]:
        named = [t.split(" ", 2)[-1] for t in self.p.example if t.startswith("walk to ")]
        places = [r for r in self.p.rooms if r != self.p.here] + named
        return [f"walk to {x}" for x in dict.fromkeys(places)]

    def choose(self, temperature: float, deviation: float) -> str:
        p = self.p
        executed = p.executed
        cand = None
        if p.hints:
            at, plan = p.hints[-1]
            if 0 <= len(executed) - at < len(plan):
                cand = plan[len(executed) - at]
        if cand is None:
            cand = self.obey(self.next_from_example(executed), executed)
        refused = p.refused.get(p.number, [])
        tried = {a for a, _ in refused}
        if cand in tried:
            cand = self.recover(cand, refused[-1][1], tried, executed)
        if temperature > 0 and self.rng.random() < min(1.0, 0.6 * temperature):
            options = [a for a in (self.after(cand, executed), *self.walks())
                       if a and a not in tried]  # fmt: skip
            if options:
                cand = self.rng.choice(options)
        elif deviation > 0 and self.rng.random() < deviation:
            options = [a for a in self.walks() if a != cand]
            if options:
                cand = self.rng.choice(options)
        reached = self.reach(cand)
        return reached if reached not in tried else cand

    def recover(self, cand: str, error: str, tried: set[str], executed: Sequence[str]) -> str:
        """After *cand* was refused with *error*: what to propose instead."""
        for pattern in (_REMEDY, _OWED):
            m = pattern.search(error)
            if m:
                for step in re.split(r", then | and ", m.group(1)):
                    step = step.strip()
                    if _ACTION_FORM.match(step) and step not in tried:
                        return step
        quoted = [q.group(1) for pattern in _QUOTED for q in pattern.finditer(error)]
        for sentence in quoted:  # what the quoted constraint asks for, if a text rule reads it
            rule = read_rule(sentence, self.p.names, self.p.rooms)
            if rule is None:
                continue
            wanted = {"not_before": rule.other, "response": rule.action,
                      "immediate": rule.action}.get(rule.kind)  # fmt: skip
            if wanted and wanted not in executed:
                wanted = self.reach(wanted)
                if wanted not in tried:
                    return wanted
        if quoted:
            alt = self.obey(cand, executed)  # the quoted sentences are rules now
            if alt not in tried:
                return alt
        options = [a for a in (self.after(cand, executed), *self.walks()) if a and a not in tried]
        return self.rng.choice(options) if options else "done"


def _explain(text: str) -> str:
    """The stand-in's answer to the agent query: the constraint sharing most words."""
    lines = text.splitlines()
    constraints, invalid, section = [], "", ""
    for line in lines:
        if line.startswith("Constraints:"):
            section = "constraints"
        elif line.startswith("Valid actions:"):
            section = "valid"
        elif line.startswith("Invalid action:"):
            section = "invalid"
        elif section == "constraints" and _NUMBERED.match(line):
            constraints.append(_NUMBERED.match(line).group(2))  # type: ignore[union-attr]
        elif section == "invalid" and line and not line.startswith("Reason"):
            invalid += " " + line
    action = invalid.strip().split(". ")[0].rstrip(".")
    stop = {"to", "the", "a", "at", "in", "on", "of", "violated", "walk", "still", "owed",
            "done", "and", "then"}  # fmt: skip
    words = {w for w in re.findall(r"[a-z]+", invalid.lower().replace("_", " ")) if w not in stop}
    scores = [len(words & set(re.findall(r"[a-z]+", c.lower()))) for c in constraints]
    if not constraints or max(scores) == 0:
        return f"Reason of violation: '{action}' breaks one of the constraints."
    best = scores.index(max(scores))
    return f"Reason of violation: '{action}' breaks constraint {best + 1}: {constraints[best]}"


def _program(text: str, rng: random.Random, deviation: float) -> str:
    """The stand-in's program: the example's calls, adjusted by the text rules."""
    lines = text.splitlines()
    rooms = _list(next((x for x in lines if x.startswith("Rooms:")), "Rooms:"))
    objects = _list(next((x for x in lines if x.startswith("Objects:")), "Objects:"))
    example, constraints, section = [], [], ""
    for line in lines:
        if line == "Example":
            section = "example"
        elif line.startswith("Constraints"):
            section = "constraints"
        elif section == "example" and "(" in line and not line.startswith("#"):
            example.append(_action_of_call(line))
        elif section == "constraints" and _NUMBERED.match(line):
            constraints.append(_NUMBERED.match(line).group(2))  # type: ignore[union-attr]
    p = _Planner(rooms=rooms, objects=objects, example=[a for a in example if a] + ["done"],
                 constraints=constraints)  # fmt: skip
    policy = _Policy(p, rng)
    plan: list[str] = []
    lost = False  # after an unknown turn, walk back before the next interaction
    for _ in range(len(p.example) + 6):
        planned = policy.next_from_example(plan)
        cand = policy.obey(planned, plan)
        moved = cand != planned  # a rule changed the plan: walk to what comes next
        lost = lost or moved
        if deviation > 0 and rng.random() < deviation:
            options = [a for a in policy.walks() if a != cand]
            if options:
                plan.append(rng.choice(options))
                lost = True
                continue
        if cand == "done":
            break
        if lost and not cand.startswith("walk to "):
            p.close = []
            walk = policy.reach(cand)
            if not plan or plan[-1] != walk:
                plan.append(walk)
        lost = moved and not cand.startswith("walk to ")
        plan.append(cand)
    return "```python\n" + (example_program(plan) or "pass") + "\n```"


_CALL = re.compile(r"^(\w+)\((.*)\)\s*$")
_ACTION_OF = SKILL_ACTIONS


def _action_of_call(line: str) -> str | None:
    m = _CALL.match(line.strip())
    if m is None or m.group(1) not in _ACTION_OF:
        return None
    args = re.findall(r'"([^"]*)"', m.group(2))
    try:
        return _ACTION_OF[m.group(1)].format(*args)
    except IndexError:
        return None


class OfflineAgentModel(StandInModel):
    """A deterministic offline stand-in for the agents' language model (not an LLM).

    Parameters
    ----------
    seed : int
        Seeds every random choice (keyed by the prompt, so equal prompts get equal
        replies, and agents that see the same prompt take the same unknown turns).
    deviation : float
        Probability of an unknown turn at each proposal.
    name : str
        The model name every completion carries.

    Examples
    --------
    >>> llm = OfflineAgentModel(seed=1)
    >>> llm
    OfflineAgentModel(seed=1, deviation=0.1)
    >>> llm.complete("Hello").text
    'done'
    """

    def __init__(self, seed: int = 0, *, deviation: float = 0.1,
                 name: str = "offline-stand-in") -> None:  # fmt: skip
        if not 0.0 <= deviation <= 1.0:
            raise ValueError(f"deviation must be a probability in [0, 1], got {deviation}")
        super().__init__(self._respond, name)
        self.seed = seed
        self.deviation = deviation
        self._asked: Counter[str] = Counter()
        self._temperature = 0.0

    def __repr__(self) -> str:
        return f"OfflineAgentModel(seed={self.seed}, deviation={self.deviation})"

    def _complete(self, request: ChatRequest) -> Completion:
        self._temperature = request.temperature
        reply = super()._complete(request)
        prompt = sum(_tokens(m.content) for m in request.messages)
        return Completion(reply.text, self.name, Usage(prompt, _tokens(reply.text)), True)

    def _rng(self, text: str) -> random.Random:
        """Greedy (temperature 0): one generator per prompt, so a prompt always gets the same
        reply. Sampled: a fresh generator per call, as sampling a model would."""
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        attempt = 0
        if self._temperature > 0:
            self._asked[digest] += 1
            attempt = self._asked[digest]
        return random.Random(f"{self.seed}|{digest}|{attempt}")

    def _respond(self, messages: tuple[Message, ...]) -> str:
        text = messages[-1].content
        rng = self._rng(text)
        if text.rstrip().endswith("Reason of violation:"):
            return _explain(text)
        if "\nSkills:" in "\n" + text:
            return _program(text, rng, self.deviation)
        if "\nExample\n" not in text:
            return "done"
        p = _read_planner(text)
        return _Policy(p, rng).choose(self._temperature, self.deviation)
