"""The translation pipeline: recognise, ground, lift, read, assemble — one sentence at a time,
all or nothing.

:class:`Translator` runs the steps and returns a :class:`Translation`: every intermediate
result and a candidate set of checked constraints. Offline it uses the vocabulary recogniser,
exact grounding (embedding only what matches no name), the
:class:`~safetychip.translate.SlotReader` and the retrieval translator; with a chat model, the
model recognises expressions and reads the lifted sentence, beside the offline readers. A
failure raises a :class:`~safetychip.errors.TranslationError` (or the model's
:class:`~safetychip.errors.LLMError`) and leaves nothing behind: acceptance is a separate step
(:class:`~safetychip.monitor.Specification`).

>>> t = Translator(Vocabulary.from_names(["phone", "kitchen", "bathroom"]))
>>> tr = t("Don't go to the kitchen before you have been to the bathroom.")
>>> print(tr.formula), tr.pattern, tr.lifted.text
!"agent_at(kitchen)" W "agent_at(bathroom)"
(None, 'not_before', "Don't go to [a] before you have been to [b].")
>>> t("")
Traceback (most recent call last):
...
safetychip.errors.SentenceError: the sentence is empty: write one constraint in English
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from .._names import close_names
from .._text import hidden_character
from ..errors import (
    ConflictError,
    GroundingError,
    OutOfGrammarError,
    SentenceError,
    TranslationError,
    TranslationReplyError,
    VacuousConstraintError,
    VocabularyError,
)
from ..llm import ChatModel, Embedder
from ..ltl import Formula, pattern_family
from ..monitor import Constraint
from ._assemble import assemble, ground_formula, opened_as_switched
from ._candidates import Candidate, Proposal, Scores, features
from ._clauses import read_clause
from ._ground import THRESHOLD, Grounder, Grounding
from ._kinds import (
    expand_kinds,
    kind_placeholders,
    names_a_kind,
    read_nothing,
    typed_pronouns,
)
from ._lift import LiftedSentence, lift, on_as_switched
from ._llm import LLMTranslator
from ._normalize import normalize, phrases
from ._reading import LiftedTranslation, letters
from ._recognize import Expression, LLMRecognizer, Remark, recognize, remarks
from ._retrieve import RetrievalTranslator
from ._review import Distinction
from ._slots import SlotReader
from ._spelling import respell
from ._vocabulary import Vocabulary, load_vocabulary

__all__ = ["CONFIDENCE", "MAX_SENTENCE", "Translation", "Translator", "only_permits"]

#: Longest sentence accepted, in characters.
MAX_SENTENCE = 400
#: The least probability at which a candidate set of one is accepted without a pick.
CONFIDENCE = 0.9


@dataclass(frozen=True)
class Translation:
    """Everything the pipeline found for one sentence, ending in a checked constraint.

    The *sentence* as given, its referring *expressions*, their *groundings*, the sentence
    with placeholders (*lifted*) and the formula over them (*lifted_formula*); the grounded,
    checked *constraint* (accepted nowhere yet), its *pattern*, and the *translator* that
    read the first candidate (``"offline-slots"``, ``"offline-retrieval-minilm"`` or the chat
    model's name; *stand_in* if an offline stand-in answered a step). For a sentence about a
    list of things, *parts* holds one constraint per thing (accept these one by one so that a
    violation names its thing). *corrections* are words read as others (misspellings,
    "open" said of a thing with a switch); *set_aside* what the reading left out, as (kind,
    text): a reason, remark or context naming nothing of the scene, or an ``"unnamed"``
    thing kept as words (never settled without a pick). *candidates* is the
    candidate set, most probable first: the translation is the first's until another is
    *picked* (:meth:`choose`); a set of one is :attr:`settled` at *confidence*.
    """

    sentence: str
    expressions: tuple[Expression, ...]
    groundings: tuple[Grounding, ...]
    lifted: LiftedSentence
    lifted_formula: Formula
    constraint: Constraint
    pattern: str | None
    translator: str
    stand_in: bool = False
    vocabulary: Vocabulary | None = field(default=None, repr=False, compare=False)
    parts: tuple[Constraint, ...] = ()
    corrections: tuple[tuple[str, str], ...] = ()
    set_aside: tuple[tuple[str, str], ...] = ()
    candidates: tuple[Candidate, ...] = ()
    picked: int | None = None
    confidence: float = CONFIDENCE

    @property
    def formula(self) -> Formula:
        """The grounded formula."""
        return self.constraint.formula

    @property
    def settled(self) -> bool:
        """Whether the formula may be enforced: a person picked it, or the set holds one
        candidate of probability at least :attr:`confidence` and the sentence names nothing
        outside the scene. :meth:`Specification.accept
        <safetychip.monitor.Specification.accept>` refuses an unsettled translation."""
        if self.picked is not None:
            return True
        if any(kind == "unnamed" for kind, _ in self.set_aside):
            return False  # read without a thing the sentence names: a person checks it
        if len(self.candidates) != 1:
            return not self.candidates  # a translation built by hand, without a set
        probability = self.candidates[0].probability
        return probability is not None and probability >= self.confidence

    def choose(self, index: int) -> Translation:
        """Pick candidate *index* (0 for the first): its formula, pattern, parts and readers
        become the translation's; a :class:`~safetychip.errors.TranslationError` if there is
        no such candidate.

        >>> t = Translator(Vocabulary.from_names(["kitchen"]), embedder=None)
        >>> chosen = t("Never go to the kitchen.").choose(0)
        >>> chosen.settled, chosen.picked
        (True, 0)
        """
        if not isinstance(index, int) or not 0 <= index < len(self.candidates):
            raise TranslationError(
                f"no candidate {index!r} for {self.sentence!r}: pick one of 0 to "
                f"{len(self.candidates) - 1}"
                if self.candidates
                else f"{self.sentence!r} has no candidates to pick from"
            )
        c = self.candidates[index]
        return replace(self, constraint=replace(c.constraint, name=self.constraint.name),
                       lifted_formula=c.lifted_formula, pattern=c.pattern,
                       translator=c.readers[0], parts=c.parts, set_aside=c.set_aside,
                       picked=index)  # fmt: skip

    @property
    def family(self) -> str | None:
        """The pattern's family (``"avoidance"``, ``"trigger"`` or ``"movement"``), if known."""
        return pattern_family(self.pattern)

    def to_dict(self) -> dict:
        """The JSON that ``safetychip translate`` prints."""
        from ._backtranslate import back_translate

        told = self.distinctions()
        candidates = [{
            "number": i + 1, **c.to_dict(),
            "back_translation": back_translate(c.formula, vocabulary=self.vocabulary).text,
            "distinguishing": [{"other": (b if i == a else a) + 1,
                                "trace": d.text(f"reading {a + 1}", f"reading {b + 1}")}
                               for (a, b), d in told.items() if i in (a, b)],
        } for i, c in enumerate(self.candidates)]  # fmt: skip
        lifted = {"sentence": self.lifted.text, "formula": str(self.lifted_formula),
                  "placeholders": dict(self.lifted.placeholders)}  # fmt: skip
        return {
            "sentence": self.sentence, "translator": self.translator, "stand_in": self.stand_in,
            "expressions": [e.to_dict() for e in self.expressions],
            "grounding": [g.to_dict() for g in self.groundings], "lifted": lifted,
            "formula": str(self.formula),
            "parts": [{"sentence": c.sentence, "formula": str(c.formula)} for c in self.parts],
            "corrections": [{"written": a, "read": b} for a, b in self.corrections],
            "set_aside": [{"kind": k, "text": t, "note": _aside(k, t)} for k, t in self.set_aside],
            "pattern": self.pattern, "family": self.family, "settled": self.settled,
            "picked": self.picked, "candidates": candidates,
        }  # fmt: skip

    def distinctions(self) -> dict[tuple[int, int], Distinction]:
        """For each pair ``(i, j)``, ``i < j``, of :attr:`candidates`, the shortest trace on
        which the two disagree, in the scene's words (:func:`~safetychip.translate.distinguish`):
        what a person picks by."""
        from ._review import distinguish

        rooms = tuple(self.vocabulary.rooms) if self.vocabulary is not None else ()
        found = {(i, j): distinguish(a.formula, b.formula, rooms=rooms)
                 for i, a in enumerate(self.candidates)
                 for j, b in enumerate(self.candidates) if i < j}  # fmt: skip
        return {k: d for k, d in found.items() if d is not None}

    def review(self, **options):
        """Verify with a person in a script; see :func:`safetychip.translate.review`."""
        from ._review import review

        return review(self, **options)

    def widget(self, **options):
        """Verify with a person in Jupyter; see :class:`safetychip.translate.ReviewWidget`."""
        from ._widget import ReviewWidget

        return ReviewWidget(self, **options)

    def __repr__(self) -> str:
        label = " [stand-in]" if self.stand_in else ""
        return f"<Translation{label} {self.sentence!r} -> {self.formula} ({self.pattern})>"

    def _repr_html_(self) -> str:
        said = ", ".join(f"{g.expression} → {g.name} ({g.method}, {g.score:.2f})"
                         for g in self.groundings)  # fmt: skip
        code = "<code>{}</code>".format
        rows = [
            ("sentence", html.escape(self.sentence)),
            ("expressions", html.escape(said or "none")),
            ("lifted", html.escape(self.lifted.text)),
            ("lifted formula", code(html.escape(str(self.lifted_formula)))),
            ("formula", code(html.escape(str(self.formula)))),
            ("pattern", html.escape(f"{self.pattern} ({self.family})" if self.pattern else "none")),
            *(("set aside", html.escape(_aside(kind, text))) for kind, text in self.set_aside),
            ("translator", html.escape(self.translator + (" — offline stand-in, not an LLM"
                                                           if self.stand_in else ""))),
        ]  # fmt: skip
        cell = "<tr><th style='text-align:left'>{}</th><td style='text-align:left'>{}</td></tr>"
        return f"<table>{''.join(cell.format(k, v) for k, v in rows)}</table>"


_PERMITS = re.compile(rf"\b({phrases('permission')['permits']})\b")
_RESTRICTS = re.compile(rf"n't\b|\b(?:{phrases('permission')['restricts']})\b")


def only_permits(sentence: str) -> str | None:
    """The permissive phrase of *sentence* if it only permits, else None: a permission says so
    to the agent (*you may*, *feel free to* …), asks nothing ("could you …?"), and has no word
    that restricts or obliges (a negation, *only*, *must*, a count, a time, a condition).

    >>> only_permits("You may turn on the stove."), only_permits("You can't open the fridge")
    ('you may', None)
    """
    text = sentence.lower().replace("\u2019", "'")
    permit = _PERMITS.search(text)
    if permit is None or "?" in text or _RESTRICTS.search(text):
        return None
    return permit.group(1)


_JOINED = re.compile(r"(?:\b(?:and|or|nor)|,)\s*$")  # joins an expression to a list before it
_LIST_GOES_ON = re.compile(r"\s*(?:,|\b(?:and|or|nor)\b)\s*\S")  # "[a], [b] or [c]"


def _aside(kind: str, text: str) -> str:
    """How the read-back tells of a clause left out of the translation."""
    if kind == "unnamed":
        return (f"kept as words: {text!r} names nothing in the scene, so the rule was read "
                "without it; check that it is not what the rule is about")  # fmt: skip
    if kind == "context":
        return f"as a context: {text!r} (it names nothing of the scene; the rule always holds)"
    return f"as a {kind}: {text!r} (it is about something outside the scene and states no rule)"


class Translator:
    """English constraints to checked, grounded formulas for one *vocabulary* (a
    :class:`Vocabulary`, or what :func:`load_vocabulary` reads: ``"spot_demo"``, a file).

    Offline by default; with a chat *model*, it also recognises and reads (beside the offline
    readers, with *max_attempts* requests per step). The *embedder* grounds expressions that
    match no name (:class:`Grounder`, with *threshold*) and drives the *retrieval*
    translator; None reads without either. *lifted_translator* (``lifted text ->
    LiftedTranslation``) replaces the reading step; *offline_readers* reads beside it
    with the slot reader and retrieval, so that a model's reading gets a calibrated
    probability where they agree. *scores* are the candidate scores (default:
    ``data/translation/candidates.json``); a set of one is accepted at *confidence*
    (:attr:`Translation.settled`); sentences are at most :data:`MAX_SENTENCE` characters.

    Readers of other sentence forms (the human queries' questions) use the steps one by one:
    :meth:`lift`, :meth:`normalize`, :meth:`read_clause`, :meth:`read_pattern`, :meth:`ground`.
    """

    #: The slot reader's text normaliser (:func:`safetychip.translate.normalize`).
    normalize = staticmethod(normalize)
    #: The clause lexicon's reader (:func:`safetychip.translate.read_clause`).
    read_clause = staticmethod(read_clause)

    def __init__(self, vocabulary: Vocabulary | str, *, model: ChatModel | None = None,
                 embedder: Embedder | str | None = "minilm", threshold: float = THRESHOLD,
                 max_attempts: int = 3, lifted_translator=None,
                 retrieval: bool | RetrievalTranslator = True, confidence: float = CONFIDENCE,
                 scores: Scores | None = None, offline_readers: bool = True) -> None:  # fmt: skip
        self.vocabulary = load_vocabulary(vocabulary)
        self.model = model
        self.grounder = Grounder(self.vocabulary, embedder, threshold=threshold)
        self.recognizer = (LLMRecognizer(model, max_attempts=max_attempts) if model is not None
                           else lambda s: recognize(s, self.vocabulary))  # fmt: skip
        predicates = self.vocabulary.predicates
        if lifted_translator is None:
            lifted_translator = SlotReader() if model is None else LLMTranslator(
                model, max_attempts=max_attempts, predicates=predicates)  # fmt: skip
        self.lifted_translator = lifted_translator
        # the offline readers read beside any other: their agreement is what is calibrated
        self.offline_readers = offline_readers
        offline = isinstance(lifted_translator, SlotReader)
        self.slots = lifted_translator if offline else SlotReader() if offline_readers else None
        self._retrieval = retrieval if embedder is not None and offline_readers else False
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
        self.confidence, self._scores = confidence, scores

    @property
    def name(self) -> str:
        """The lifted translator's name."""
        return getattr(self.lifted_translator, "name", type(self.lifted_translator).__name__)

    def check_sentence(self, sentence: object) -> str:
        """*sentence*, stripped, if it is usable; a :class:`~safetychip.errors.SentenceError`
        if it is not a string, is empty, is longer than :data:`MAX_SENTENCE`, or holds a character
        that hides or reorders text on screen (the sentence shown would not be the one read)."""
        if not isinstance(sentence, str):
            raise SentenceError(f"a sentence must be a string, got {type(sentence).__name__}")
        hidden = hidden_character(sentence)
        if hidden is not None:
            position, name = hidden
            raise SentenceError(
                f"the sentence holds {name} at position {position}: it hides or reorders text "
                "on screen, so the sentence shown for review would not be the one translated; "
                "delete it and type the sentence again"
            )
        text = " ".join(sentence.split())
        if not text:
            raise SentenceError("the sentence is empty: write one constraint in English")
        if len(text) > MAX_SENTENCE:
            raise SentenceError(
                f"the sentence is {len(text)} characters long; at most {MAX_SENTENCE} are "
                "accepted: state one constraint per sentence"
            )
        return text

    def translate(
        self,
        sentence: str,
        *,
        accepted: Iterable[Constraint | Formula | str] = (),
        invariants: Iterable[Formula | str] = (),
        name: str = "",
        keep_all: bool = False,
    ) -> Translation:
        """Translate one sentence into a candidate set of checked constraints (nothing is
        accepted): *accepted* constraints and *invariants* for the satisfiability checks,
        *name* for the constraint, *keep_all* to keep every candidate considered (to pick from
        after a refusal). Raises a SentenceError, OutOfGrammarError, GroundingError,
        TranslationReplyError, VocabularyError, ConflictError or VacuousConstraintError
        (:mod:`safetychip.errors`), or any ``LLMError`` of the model."""
        text, expressions, groundings, lifted, set_aside, corrections = self._front(sentence)
        try:
            proposals = self._proposals(text, lifted)
        except OutOfGrammarError:  # read again without the remarks that name nothing
            quiet = tuple(r for r in remarks(lifted.text)
                          if r.kind in ("reason", "remark") and "[" not in r.text)  # fmt: skip
            if not quiet:
                raise
            shorter = lifted.text
            for r in sorted(quiet, key=lambda r: -r.start):
                shorter = shorter[: r.start] + shorter[r.end :]
            proposals = self._proposals(text, replace(lifted, text=shorter.strip()))
            set_aside += quiet
        built: list[tuple[Proposal, Translation]] = []
        first: TranslationError | None = None
        for proposal in proposals:
            same = next((t for p, t in built if p.reading.formula is proposal.reading.formula
                         and p.reading.parts == proposal.reading.parts), None)  # fmt: skip
            if same is not None:  # the same reading by another reader: checked already
                built.append((proposal, same))
                continue
            try:
                translation = self._build(text, expressions, groundings, lifted,
                                          proposal.reading, self._reader_name(proposal),
                                          corrections, set_aside, accepted, invariants,
                                          name)  # fmt: skip
            except (VocabularyError, ConflictError, OutOfGrammarError,
                    VacuousConstraintError) as err:  # fmt: skip
                if isinstance(err, ConflictError) and tuple(err.conflict) != ("new",):
                    raise  # a conflict with what is accepted is no misreading
                first = first or err
            else:
                built.append((proposal, translation))
        if not built:
            assert first is not None  # _proposals returns at least one reading or raises
            raise first
        return self._settle(text, lifted, built, keep_all)

    __call__ = translate

    def _front(self, sentence: str) -> tuple:
        """The steps before reading: the sentence checked, respelt, recognised, grounded and
        lifted (text, expressions, groundings, lifted sentence), with what was set aside and
        corrected."""
        text = self.check_sentence(sentence)
        permit = only_permits(text)
        if permit is not None:
            raise VacuousConstraintError(
                f"{text!r} only permits ({permit!r}): a permission forbids nothing, so it "
                "yields no constraint (read as an obligation, it would make the agent do what "
                "it may do); say what must not happen, or leave the sentence out"
            )
        respelt, corrections = respell(text, self.vocabulary)
        expressions, groundings, lifted, set_aside = self._lift(respelt)
        if self.model is None:  # the offline readers: "kettle on at most twice"
            lifted = on_as_switched(lifted, self.vocabulary)
        lifted = kind_placeholders(lifted, self.vocabulary)
        lifted = typed_pronouns(lifted, self.vocabulary)
        if not lifted.placeholders:
            names = self.vocabulary.names
            hints = [f"{', '.join(close_names(w, names))} for {w!r}"
                     for w in sorted(set(re.findall(r"[a-z]{3,}", text.lower())))
                     if close_names(w, names, cutoff=0.75) and w not in names]  # fmt: skip
            raise OutOfGrammarError(
                f"{text!r} names nothing in {self.vocabulary.name}: a constraint must be "
                "about a place or a thing of the scene"
                + (f"; did you mean {'; '.join(hints)}?" if hints else ""),
                lifted.text,
            )
        return text, expressions, groundings, lifted, set_aside, corrections

    def prepare(self, sentences: Iterable[str]) -> None:
        """Embed the retrieval translator's queries for many *sentences* in one batch, ahead
        of translating them one by one (the embedder keeps the vectors); sentences that do
        not lift are skipped.

        >>> Translator(Vocabulary.from_names(["kitchen"]), embedder=None).prepare(["Hi"])
        """
        if self.retrieval is not None:
            self.retrieval.prefetch(t for s in sentences if (t := self._lifted_text(s)))

    def _lifted_text(self, sentence: str) -> str:
        try:
            return self._front(sentence)[3].text
        except TranslationError:
            return ""

    def _reader_name(self, proposal: Proposal) -> str:
        if proposal.reader == "retrieval" and self.retrieval is not None:
            return self.retrieval.name
        if proposal.reader == "slots" and self.slots is not None:
            return self.slots.name
        return self.name

    def _proposals(self, text: str, sentence: LiftedSentence) -> list[Proposal]:
        """Every reader's readings of *sentence*: the model's (or a given lifted
        translator's), every one the slot reader defends, then the retrieval translator's
        most voted. When none reads it: the first reader's refusal."""
        lifted = sentence.text
        out: list[Proposal] = []
        refusal: TranslationError | None = None
        if self.slots is not self.lifted_translator:
            try:
                out.append(Proposal(self.lifted_translator(lifted), "model"))
            except (OutOfGrammarError, TranslationReplyError) as err:
                refusal = err
        if self.slots is not None:
            exact = self.slots.exact(lifted)
            out += [Proposal(reading, "slots", rank=k, exact=exact)
                    for k, reading in enumerate(self.slots.readings(lifted), 1)]  # fmt: skip
        retrieval = self.retrieval
        if retrieval is not None:
            rooms = [x for x, n in sentence.placeholders.items() if n in self.vocabulary.rooms]
            things = [x for x in sentence.placeholders if x not in rooms]
            found = retrieval.candidates(lifted, rooms, things, 3)
            out += [Proposal(reading, "retrieval", share, similar, rank, unread=unread)
                    for rank, (reading, share, similar, unread) in enumerate(found, 1)]  # fmt: skip
        if out:
            return out
        if refusal is None and self.slots is not None:
            try:
                self.slots(lifted)
            except OutOfGrammarError as err:
                refusal = err
        if not isinstance(refusal, OutOfGrammarError):
            assert refusal is not None  # every reader either reads or refuses
            raise refusal
        message = str(refusal).replace(repr(lifted), f"{text!r} (lifted: {lifted!r})", 1)
        if retrieval is not None:
            message += (" Beyond it, the retrieval translator has no paraphrase over the same "
                        "placeholders.")  # fmt: skip
        raise OutOfGrammarError(message, lifted)

    def _settle(self, text: str, lifted: LiftedSentence, built: list[tuple[Proposal, Translation]],
                keep_all: bool = False) -> Translation:  # fmt: skip
        """The candidate set of the checked readings *built*: language-equivalent readings
        pooled, each pool scored (:class:`~safetychip.translate._candidates.Scores`), cut at
        the conformal threshold, most probable first. When no candidate is probable enough,
        an :class:`~safetychip.errors.OutOfGrammarError` whose ``considered`` attribute
        holds every candidate considered, to pick from."""
        from ..automata import equivalent

        pools: list[list[tuple[Proposal, Translation]]] = []
        for proposal, translation in built:
            pool = next((p for p in pools if equivalent(p[0][1].formula, translation.formula)),
                        None)  # fmt: skip
            if pool is None:
                pools.append([(proposal, translation)])
            else:
                pool.append((proposal, translation))
        patterns = frozenset(p.reading.pattern for p, _ in built if p.reader == "slots")
        exact = any(p.exact for p, _ in built)
        scores = self.scores
        candidates = []
        for pool in pools:
            proposals, first = [p for p, _ in pool], pool[0][1]
            unnamed = any(kind == "unnamed" for kind, _ in first.set_aside)
            values = features(proposals, patterns, unnamed, exact)
            unscored = all(p.reader == "model" for p in proposals)
            readers = tuple(dict.fromkeys(self._reader_name(p) for p in proposals))
            candidates.append(Candidate(first.constraint, first.lifted_formula, first.pattern,
                                        readers, None if unscored else scores.probability(values),
                                        values, first.parts, first.set_aside))  # fmt: skip
        # the chosen reader's reading first (a chat model's, or one given), then most probable
        chosen = self.name if self.slots is not self.lifted_translator else None
        candidates.sort(key=lambda c: (chosen not in c.readers, -(c.probability or 0.0)))
        kept = tuple(c for c in candidates if keep_all or scores.keeps(c.probability))
        if not kept:
            error = OutOfGrammarError(
                f"{text!r}: no reading is probable enough to offer: the readers considered "
                + "; ".join(
                    f"{k}. {c.formula} ({c.pattern or 'no pattern'}, probability "
                    f"{c.probability:.2f}, by {', '.join(c.readers)})"
                    for k, c in enumerate(candidates[:3], 1)
                )  # fmt: skip
                + ". Pick one of them (safetychip translate --pick N; in Python: "
                "translate(sentence, keep_all=True).choose(N - 1)), or rephrase the sentence.",
                lifted.text,
            )
            error.considered = tuple(candidates)  # type: ignore[attr-defined]
            raise error
        top = next(t for p, t in built if equivalent(t.formula, kept[0].formula))
        return replace(top, candidates=kept, confidence=self.confidence)

    def _build(self, text: str, expressions: tuple[Expression, ...],
               groundings: tuple[Grounding, ...], lifted: LiftedSentence,
               result: LiftedTranslation, translator: str, corrections: tuple, set_aside: tuple,
               accepted: Iterable, invariants: Iterable, name: str) -> Translation:  # fmt: skip
        """The checked translation of one reader's *result*."""
        result, lifted = expand_kinds(text, result, lifted, self.vocabulary)
        result, lifted = read_nothing(result, lifted, self.vocabulary)
        formula, switched = opened_as_switched(result.formula, lifted.placeholders,
                                               self.vocabulary)  # fmt: skip
        if switched:  # "open the TV": switch it on
            each = tuple(opened_as_switched(p, lifted.placeholders, self.vocabulary)[0]
                         for p in result.parts)  # fmt: skip
            result = replace(result, formula=formula, parts=each)
            corrections += tuple((f"open the {t}", f"switch on the {t}")
                                 for t in (n.replace("_", " ") for n in switched))  # fmt: skip

        def check(formula: Formula, sentence: str, label: str) -> Constraint:
            return assemble(formula, lifted.placeholders, self.vocabulary, accepted=accepted,
                            invariants=invariants, sentence=sentence, name=label,
                            pattern=result.pattern)  # fmt: skip

        def about(part: Formula) -> str:  # the expressions a part is about, as written
            return ", ".join(lifted.expressions[x] for x in sorted(letters(part))
                             if x in lifted.expressions)  # fmt: skip

        parts = tuple(check(part, f"{text} [{about(part)}]", f"{name}.{k}" if name else "")
                      for k, part in enumerate(result.parts, 1))  # fmt: skip
        stand_in = bool(getattr(self.recognizer, "stand_in", False)
                        or getattr(self.lifted_translator, "stand_in", False))  # fmt: skip
        return Translation(text, expressions, groundings, lifted, result.formula,
                           check(result.formula, text, name), result.pattern, translator,
                           stand_in, self.vocabulary, parts, corrections,
                           tuple((r.kind, r.text) for r in set_aside))  # fmt: skip

    @property
    def scores(self) -> Scores:
        """The candidate scores and conformal threshold in use (unless given, the shipped
        ones for a translator with or without the retrieval translator)."""
        if self._scores is None:
            self._scores = Scores.load(retrieval=bool(self._retrieval))
        return self._scores

    @property
    def retrieval(self) -> RetrievalTranslator | None:
        """The retrieval translator (created on first use), or None."""
        if self._retrieval is True:
            self._retrieval = RetrievalTranslator(self.grounder.embedder)
        return self._retrieval or None

    def _lift(self, text: str, set_aside_remarks: bool = True) -> tuple[
            tuple[Expression, ...], tuple[Grounding, ...], LiftedSentence, tuple]:  # fmt: skip
        """Recognise, ground and lift *text*, first setting aside (if *set_aside_remarks*) the
        contexts that name nothing ("while I sleep") and the reasons, remarks and contexts
        (:func:`~safetychip.translate._recognize.remarks`) that name something outside the
        vocabulary ("the cat hides in the bedroom, so …"), unless a thing of the scene in
        them ends a list or (in a context) is named at all; a thing outside the scene beside
        things of it stays as words (``unnamed``), but never the only one."""
        expressions = tuple(e for e in self.recognizer(text)
                            if not names_a_kind(e.text, self.vocabulary))  # fmt: skip
        groundings: dict[Expression, Grounding] = {}
        unknown: dict[Expression, GroundingError] = {}
        for e in expressions:
            try:
                groundings[e] = self.grounder.ground(e)
            except GroundingError as err:
                if not (set_aside_remarks and self.grounder.names_nothing(err)):
                    raise
                unknown[e] = err

        def within(e: Expression, r: Remark) -> bool:
            return r.start <= e.start and e.end <= r.end

        found_remarks = remarks(text) if set_aside_remarks else []
        set_aside = tuple(r for r in found_remarks if r.kind == "context"
                          and not any(within(e, r) for e in expressions))  # fmt: skip
        words: tuple[Remark, ...] = ()
        if unknown:

            def aside(held: list[Expression], r: Remark) -> bool:
                # about something outside the scene, no thing of it joined to a list at its
                # end or opening it; a context with no thing of the scene at all
                grounded = [e for e in held if e not in unknown]
                if len(grounded) == len(held) or (r.kind == "context" and grounded):
                    return False
                if (held[0] in grounded and not text[r.start : held[0].start].strip(" ,;:—–-(")
                        and _LIST_GOES_ON.match(text, held[0].end)):  # fmt: skip
                    return False
                return not any(_JOINED.search(text[: e.start])
                               and not text[e.end : r.end].strip(" ,.;:!?")
                               for e in grounded)  # fmt: skip

            inside = [(r, [e for e in expressions if within(e, r)]) for r in found_remarks]
            set_aside += tuple(r for r, held in inside if held and aside(held, r))
            kept = [e for e in expressions if not any(within(e, r) for r in set_aside)]
            if not kept or all(e in unknown for e in kept) or not self.offline_readers:
                # never set aside the only clause; a model read alone gets no unnamed words
                raise unknown[next((e for e in kept if e in unknown), next(iter(unknown)))]
            words = tuple(Remark("unnamed", e.text, e.start, e.end) for e in kept if e in unknown)
        if set_aside:
            for r in sorted(set_aside, key=lambda r: -r.start):
                text = text[: r.start] + text[r.end :]
            lead = len(text) - len(text.lstrip())
            text = text.strip()

            def moved(e: Expression) -> Expression:
                by = lead + sum(r.end - r.start for r in set_aside if r.end <= e.start)
                return replace(e, start=e.start - by, end=e.end - by)

            groundings = {moved(e): groundings[e] for e in expressions if e in groundings
                          and not any(within(e, r) for r in set_aside)}  # fmt: skip
        expressions = tuple(groundings)
        found = tuple(groundings[e] for e in expressions)
        spans = [(e.start, e.end) for e in expressions]
        return expressions, found, lift(text, spans, found), set_aside + words

    def lift(self, sentence: object) -> LiftedSentence:
        """*sentence* with its referring expressions recognised, grounded and replaced by
        placeholders, as :meth:`translate` does first (but setting nothing aside).

        >>> t = Translator(Vocabulary.from_names(["kitchen"]), embedder=None)
        >>> lifted = t.lift("Will you go to the kitchen?")
        >>> lifted.text, dict(lifted.placeholders)
        ('Will you go to [a]?', {'a': 'kitchen'})
        """
        return self._lift(respell(self.check_sentence(sentence), self.vocabulary)[0], False)[2]

    def ground(self, formula: Formula, placeholders: Mapping[str, str]) -> Formula:
        """*formula* over placeholders, grounded by *placeholders* (letter -> name) and
        checked against the vocabulary (a :class:`~safetychip.errors.VocabularyError` if an
        atom is unknown or a placeholder unbound)."""
        grounded = ground_formula(formula, placeholders)
        self.vocabulary.check(grounded)
        return grounded

    @staticmethod
    def read_pattern(lifted: str) -> LiftedTranslation:
        """The slot reader's first reading of a lifted sentence, whatever the lifted
        translator (an :class:`~safetychip.errors.OutOfGrammarError` if it reads none)."""
        return SlotReader()(lifted)

    def __repr__(self) -> str:
        return f"<Translator {self.name} over {self.vocabulary!r}>"
