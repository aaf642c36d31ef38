"""Lifted translation by a chat model: a few-shot prompt with an operator and predicate legend.

The prompt (``data/prompts/lifted_translation.txt``) asks for one line ``LTL: <formula>``
in the prefix syntax of Lang2LTL (Spot's infix syntax is accepted too), over the predicates
applied to the placeholder letters. Each request also carries a JSON schema (structured
output, see :func:`formula_schema`): ``{"formula": …}`` where the formula is one of the known
pattern shapes over the sentence's predicates and letters, so that a small model held to the
schema by its server cannot answer in prose; a model that ignores schemas may still answer
with the ``LTL:`` line. A reply that does not parse, or uses atoms other than
known predicates over the sentence's placeholders, is sent back with what was wrong, up to
``max_attempts`` requests in all; then :class:`~safetychip.errors.TranslationReplyError`
quotes the last reply. API errors and timeouts propagate as the model raised them.

Examples
--------
>>> from safetychip.llm import ScriptedModel
>>> llm = ScriptedModel(["LTL: G ! is_grabbed ( a )"])
>>> result = LLMTranslator(llm)("never pick up [a]")
>>> print(result.formula), result.pattern
G!"is_grabbed(a)"
(None, 'never')
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from ..errors import SafetyChipError, TranslationReplyError
from ..llm import ChatModel, fill, load_prompt
from ..ltl import PATTERNS, Formula, Proposition, ap, parse, parse_prefix, to_str
from ._match import match_pattern
from ._reading import LiftedTranslation
from ._vocabulary import PREDICATES

__all__ = ["ChatReader", "LLMTranslator", "formula_schema", "json_field", "read_formula_reply"]

T = TypeVar("T")

#: The patterns whose shapes the schema of a reply allows, and the counts of the counting ones.
_SHAPES = ("never", "not_before", "before", "response", "immediate_response", "absence_after")
_COUNTED = ("at_most", "at_least", "exactly")
_COUNTS = (1, 2, 3)

#: The token budget of one reply: the longest shape (exactly 3 times) with the longest
#: predicate names fits, in its JSON object.
MAX_TOKENS = 300


def formula_schema(letters: Iterable[str], predicates: Mapping[str, int] = PREDICATES) -> dict:
    """The JSON schema of a reply, ``{"formula": <prefix formula>}``: one of the known pattern
    shapes (never, not_before, before, response, immediate_response, absence_after, and
    at_most, at_least, exactly 1 to 3 times), each slot a predicate over *letters* or its
    negation. A server that honours schemas (llama.cpp compiles them to a grammar) then lets a
    small model choose only among well-formed pattern instances.

    >>> import re
    >>> schema = formula_schema({"a"}, {"agent_at": 1})
    >>> shape = schema["properties"]["formula"]["pattern"]
    >>> bool(re.fullmatch(shape, "G ! agent_at(a)")), bool(re.fullmatch(shape, "G ! agent_at(b)"))
    (True, False)
    >>> bool(re.fullmatch(shape, "G i agent_at(a) F ! agent_at(a)"))
    True
    """
    names = sorted(letters) or ["a"]
    letter = "(" + "|".join(names) + ")"
    atoms = []
    for arity in sorted(set(predicates.values())):
        called = "|".join(re.escape(p) for p in sorted(predicates) if predicates[p] == arity)
        atoms.append(f"({called})\\(" + ",".join([letter] * arity) + "\\)")
    literal = "(! )?(" + "|".join(atoms) + ")"
    p, q = ap("P"), ap("Q")
    shapes = [to_str(PATTERNS[n].build(p) if n == "never" else PATTERNS[n].build(p, q), "prefix")
              for n in _SHAPES]  # fmt: skip
    shapes += [to_str(PATTERNS[n].build(k, p), "prefix") for n in _COUNTED for k in _COUNTS]
    # only the metacharacters escaped: llama.cpp's schema converter knows no escaped space
    alternatives = sorted(
        {re.sub(r"([][().|*+?{}^$\\])", r"\\\1", s).replace("P", literal).replace("Q", literal)
         for s in shapes}
    )  # fmt: skip
    pattern = "^(" + "|".join(alternatives) + ")$"
    return {"type": "object", "properties": {"formula": {"type": "string", "pattern": pattern}},
            "required": ["formula"], "additionalProperties": False}  # fmt: skip


def read_formula_reply(reply: str, letters: set[str],
                       predicates: Mapping[str, int] = PREDICATES) -> Formula:  # fmt: skip
    """A model's reply read as a lifted formula: the ``formula`` of a JSON object (the
    structured reply of :func:`formula_schema`), else the text after the last ``LTL:`` (or the
    whole reply), without code fences or quotes, in prefix syntax, else in Spot syntax. A
    ValueError says what is wrong, for the model to correct.

    >>> print(read_formula_reply("LTL: W ! agent_at(a) agent_at(b)", {"a", "b"}))
    !"agent_at(a)" W "agent_at(b)"
    >>> print(read_formula_reply('{"formula": "G ! is_open(a)"}', {"a"}))
    G!"is_open(a)"
    >>> read_formula_reply("LTL: G ! holds(a)", {"a"})
    Traceback (most recent call last):
    ...
    ValueError: unknown predicate 'holds' in 'holds(a)'; use agent_at, is_open, is_switchedon,
    is_grabbed, is_touched, is_on, is_in
    """
    text = reply.strip()
    if text.startswith("{"):
        text = json_field(text, "formula", lambda x: isinstance(x, str), 'a "formula" string')
    lines = [x for x in text.splitlines() if x.strip()]
    tagged = [x for x in lines if re.match(r"\s*(?:ltl|formula)\s*:", x, re.I)]
    if tagged:
        text = tagged[-1].split(":", 1)[1]
    elif len(lines) > 1:
        raise ValueError("it has several lines and none starts with 'LTL:'")
    text = text.strip().strip("`").strip()
    quote = text[:1]
    if quote in ("'", '"') and len(text) > 1 and text.endswith(quote) and text.count(quote) == 2:
        text = text[1:-1]
    if not text:
        raise ValueError("the formula is empty")
    errors = []
    formula = None
    for reader in (parse_prefix, parse):
        try:
            formula = reader(text)
            break
        except SafetyChipError as err:
            errors.append(str(err).splitlines()[0])
    if formula is None:
        raise ValueError(f"{text!r} is not a formula: {errors[0]}")
    for atom in sorted(formula.atoms()):
        try:
            prop = Proposition.parse(atom)
        except SafetyChipError:
            raise ValueError(f"{atom!r} is not a predicate such as agent_at(a)") from None
        name = prop.predicate
        if name not in predicates:
            raise ValueError(f"unknown predicate {name!r} in {atom!r}; use {', '.join(predicates)}")
        if len(prop.args) != predicates[name]:
            raise ValueError(f"{name} takes {predicates[name]} argument(s) in {atom!r}")
        if stray := [a for a in prop.args if a not in letters]:
            known = ", ".join(sorted(letters)) or "none"
            raise ValueError(f"{atom!r} uses {', '.join(stray)}, which is not a placeholder of "
                             f"the utterance (placeholders: {known})")  # fmt: skip
    return formula


def json_field(text: str, key: str, ok: Callable[[Any], bool], what: str) -> Any:
    """The *key* field of the JSON object *text*; a ValueError (for the model to correct)
    if *text* is not JSON or the field is not *what* (``ok(value)`` is false)."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"it is not valid JSON ({err.msg} at character {err.pos})") from None
    value = data.get(key) if isinstance(data, dict) else None
    if not ok(value):
        raise ValueError(f"it is JSON without {what}")
    return value


class ChatReader:
    """A step read by a chat *model*: a reply that does not read is sent back with what was
    wrong, up to *max_attempts* requests in all. :attr:`stand_in` is True once a reply came
    from an offline stand-in; :attr:`replies` holds every reply of the last call."""

    def __init__(self, model: ChatModel, *, max_attempts: int = 3) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        self.model, self.max_attempts = model, max_attempts
        self.stand_in = False
        self.replies: list[str] = []

    @property
    def name(self) -> str:
        """The model's name."""
        return self.model.name

    def ask(self, messages: list[dict[str, str]], read: Callable[[str], T], *, schema: dict,
            max_tokens: int, again: str, what: str, why: bool = True) -> T:  # fmt: skip
        """``read(reply)`` of the first reply that reads (a ValueError says why not, and the
        model is asked *again*); then a TranslationReplyError: the model gave no *what*."""
        self.replies, error = [], None
        for _ in range(self.max_attempts):
            completion = self.model.complete(messages, temperature=0.0, max_tokens=max_tokens,
                                             schema=schema)  # fmt: skip
            self.stand_in = self.stand_in or completion.stand_in
            self.replies.append(completion.text)
            try:
                return read(completion.text)
            except ValueError as err:
                error = err
                messages = [*messages, {"role": "assistant", "content": completion.text},
                            {"role": "user", "content": f"I cannot use that reply: {err}. "
                             f"{again}"}]  # fmt: skip
        last, n = self.replies[-1], self.max_attempts
        shown = repr(last[:300]) + ("…" if len(last) > 300 else "") + (f" ({error})" * why)
        raise TranslationReplyError(f"{self.model.name} gave no {what} in {n} "
                                    f"attempt{'s' * (n > 1)}; last reply: {shown}",
                                    last, n)  # fmt: skip


class LLMTranslator(ChatReader):
    """Translate a lifted sentence with a chat *model* (a :class:`ChatReader`), over
    *predicates* (name -> arity)."""

    def __init__(self, model: ChatModel, *, max_attempts: int = 3,
                 predicates: Mapping[str, int] = PREDICATES) -> None:  # fmt: skip
        super().__init__(model, max_attempts=max_attempts)
        self.predicates = dict(predicates)

    def messages(self, lifted: str) -> list[dict[str, str]]:
        """The conversation sent for *lifted*."""
        asked = fill("Utterance: {sentence}\nLTL:", sentence=lifted)
        return [{"role": "system", "content": load_prompt("lifted_translation")},
                {"role": "user", "content": asked}]  # fmt: skip

    def __call__(self, lifted: str) -> LiftedTranslation:
        """Translate *lifted* (placeholders ``[a]``, ``[b]``…): a TranslationReplyError
        quoting the last reply if none parsed within *max_attempts*; an LLMError if a
        request fails."""
        letters = set(re.findall(r"\[([a-z])\]", lifted))
        formula = self.ask(self.messages(lifted),
                           lambda reply: read_formula_reply(reply, letters, self.predicates),
                           schema=formula_schema(letters, self.predicates), max_tokens=MAX_TOKENS,
                           again="Answer with one line 'LTL: <formula>' in prefix syntax.",
                           what=f"readable formula for {lifted!r}")  # fmt: skip
        pattern, args = match_pattern(formula) or (None, ())
        return LiftedTranslation(formula, pattern, args, self.model.name)
