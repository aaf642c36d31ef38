"""English constraints to grounded finite-trace LTL, with verification by a person.

The pipeline, one constraint at a time (all or nothing):

==============================  ==================================================================
step                            names
==============================  ==================================================================
vocabulary of the environment   :class:`Vocabulary`, :func:`load_vocabulary`, :data:`PREDICATES`
referring expressions           :func:`recognize` (offline), :class:`LLMRecognizer`
grounding                       :class:`Grounder` (exact match, else cosine similarity)
lifting                         :func:`lift`, :class:`LiftedSentence`
lifted translation              :class:`SlotReader` (offline, declarative: cue phrases fill the
                                slots of structured English, ``data/translation/slots.tsv``,
                                over the clause lexicon, :func:`read_clause`; every reading
                                the slots defend), :class:`RetrievalTranslator` (offline:
                                nearest paraphrase templates vote), :class:`LLMTranslator`
patterns                        :data:`~safetychip.ltl.PATTERNS` and the mission patterns
                                :data:`~safetychip.ltl.MISSIONS` (visit, sequenced visit,
                                patrolling, wait, state conditions…) live in ``ltl``
assembly and checks             :func:`assemble`, :func:`ground_formula`
candidate sets                  :class:`Candidate` (every reader's readings pooled, scored with
                                a calibrated probability, cut at a split-conformal
                                threshold), :func:`distinguish`, :class:`Distinction` (the
                                shortest trace on which two candidates disagree)
the whole pipeline              :class:`Translator`, :class:`Translation` (its
                                ``candidates``; ``choose(i)`` is the pick)
verification by a person        :func:`back_translate`, :func:`witnesses`, :func:`review`,
                                :class:`ReviewWidget`
accepted constraints            :class:`Specification` (from :mod:`safetychip.monitor`)
evaluation                      :func:`load_utterances`, :func:`evaluate`, :data:`UTTERANCES`
==============================  ==================================================================

Prompts are text files under ``data/prompts/`` (:func:`safetychip.llm.load_prompt`).

Examples
--------
>>> from safetychip.translate import Translator, Specification
>>> translator = Translator("spot_demo")
>>> t = translator("Never pick up the phone.")
>>> print(t.formula)
G!"is_grabbed(phone)"
>>> spec = Specification()
>>> spec.accept(t).name
'c1'
"""

from safetychip._public import publish

from ..monitor import Specification
from ._assemble import assemble, ground_formula, rename_atoms
from ._backtranslate import BackTranslation, back_translate, describe, literal_text
from ._candidates import Candidate
from ._clauses import Clause, read_clause
from ._evaluate import UTTERANCES, EvaluationResult, evaluate, load_utterances
from ._ground import Grounder, Grounding
from ._lift import LiftedSentence, lift
from ._llm import LLMTranslator, read_formula_reply
from ._match import match_pattern
from ._normalize import normalize
from ._pipeline import CONFIDENCE, MAX_SENTENCE, Translation, Translator
from ._reading import LiftedTranslation
from ._recognize import Expression, LLMRecognizer, recognize
from ._retrieve import Reading, RetrievalTranslator
from ._review import (
    Distinction,
    Review,
    ReviewCard,
    Witness,
    distinguish,
    prepare_review,
    review,
    witnesses,
)
from ._slots import SlotReader
from ._vocabulary import PREDICATES, SYNONYMS, Vocabulary, load_vocabulary
from ._widget import ReviewWidget

__all__ = ["CONFIDENCE", "MAX_SENTENCE", "PREDICATES", "SYNONYMS", "UTTERANCES", "BackTranslation",
           "Candidate", "Clause", "Distinction", "EvaluationResult", "Expression", "Grounder",
           "Grounding", "LLMRecognizer", "LLMTranslator", "LiftedSentence", "LiftedTranslation",
           "Reading", "RetrievalTranslator", "Review", "ReviewCard", "ReviewWidget", "SlotReader",
           "Specification", "Translation", "Translator", "Vocabulary", "Witness", "assemble",
           "back_translate", "describe", "distinguish", "evaluate", "ground_formula", "lift",
           "literal_text", "load_utterances", "load_vocabulary", "match_pattern", "normalize",
           "prepare_review", "read_clause", "read_formula_reply", "recognize", "rename_atoms",
           "review", "witnesses"]  # fmt: skip

publish(__name__, globals(), __all__)
