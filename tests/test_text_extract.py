"""Extraction: the lexical baseline, and the constrained extractor, which can only answer with a
span of the documents (qlang.text.extract; the bundled model's reader, qlang.translate.reader_model)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qlang.text import sources
from qlang.text.documents import Documents, Passage
from qlang.text.extract import NO_ANSWER, Constrained, Lexical, sentences

REVIEWS = Documents([
    Passage("p1", "The bass is amazing. The treble is crisp, and the case feels cheap.", "r"),
    Passage("p2", "Battery life: about twenty hours; it charges over USB.", "r"),
])


class RandomModel:
    """A language model whose logits are random: what constrained decoding must survive."""

    eos = 0

    def __init__(self, seed: int, vocabulary: int = 64) -> None:
        self.random = np.random.default_rng(seed)
        self.vocabulary = vocabulary
        self.pieces: dict[str, int] = {}

    def prompt(self, messages: Sequence[tuple[str, str]]) -> list[int]:
        return [1, 2, 3]

    def tokenize(self, text: str) -> list[int]:
        """Two characters a token, each pair a token id of its own (>= 1)."""
        pairs = [text[i:i + 2] for i in range(0, len(text), 2)]
        return [self.pieces.setdefault(p, len(self.pieces) + 1) for p in pairs]

    def logits(self, tokens: Sequence[int]) -> np.ndarray:
        return self.random.normal(size=len(self.pieces) + 1) * 5


def test_the_lexical_baseline_answers_with_the_words_after_the_question_s() -> None:
    cup = sources.documents()
    answer = Lexical()(cup, cup.about(["cup"]), "What is a cup used for?")
    assert answer.span is not None and answer.span.text == "drinking"
    assert cup.documents[answer.span.document].text[answer.span.start:answer.span.end] == "drinking"


def test_the_lexical_baseline_picks_the_best_sentence_and_stops_at_punctuation() -> None:
    answer = Lexical()(REVIEWS, [0, 1], "How long is the battery life?")
    assert answer.span is not None and (answer.span.document, answer.span.text) == (1, "about twenty hours")


def test_no_shared_word_is_no_answer() -> None:
    assert Lexical()(REVIEWS, [0, 1], "Who makes zebras?").span is None
    assert Lexical()(REVIEWS, [], "How is the bass?").span is None


def test_sentences_split_at_ends_and_semicolons() -> None:
    found = sentences(REVIEWS, [0, 1])
    texts = [REVIEWS.documents[s.document].text[s.words[0][0]:s.words[-1][1]] for s in found]
    assert texts == ["The bass is amazing", "The treble is crisp, and the case feels cheap",
                     "Battery life: about twenty hours", "it charges over USB"]


def test_candidates_are_spans_without_the_question_s_words_nor_stop_words_at_their_ends() -> None:
    _, found = Constrained(RandomModel(0), sentences=3).candidates(REVIEWS, [0], "How is it?")
    assert found[NO_ANSWER] is None
    assert {"bass is amazing", "treble is crisp", "crisp, and the case"} <= set(found)
    assert not {"the treble", "crisp,", "is crisp", "The bass"} & set(found)
    _, found = Constrained(RandomModel(0)).candidates(REVIEWS, [0], "How is the bass?")
    assert set(found) == {NO_ANSWER, "amazing"}  # only the sentences sharing the question's words


words = st.sampled_from(["bass", "is", "the", "good", "a", "very", "cheap", "case", "sound", "x-ray",
                         "über", "42", "it's"])
texts = st.lists(words, min_size=1, max_size=12).map(" ".join).flatmap(
    lambda t: st.sampled_from([t, t + ".", t + "; " + t[::-1], t + ", and " + t]))


@given(st.lists(texts, min_size=1, max_size=4), st.lists(words, max_size=5).map(" ".join),
       st.integers(0, 2**32 - 1))
def test_the_constrained_extractor_never_answers_what_is_not_a_span(
        bodies: list[str], question: str, seed: int) -> None:
    documents = Documents(Passage(f"d{i}", body, "s") for i, body in enumerate(bodies))
    numbers = list(range(len(bodies)))
    extractor = Constrained(RandomModel(seed), sentences=2, longest=4)
    answer = extractor(documents, numbers, question)
    assert 0 < answer.weight <= 1
    if answer.span is not None:
        span = answer.span
        assert span.document in numbers
        assert documents.documents[span.document].text[span.start:span.end] == span.text
        assert extractor.candidates(documents, numbers, question)[1][span.text] == span


@pytest.fixture(scope="module")
def bundled() -> Constrained:
    from qlang.translate.reader_model import constrained

    return constrained()


def test_the_bundled_model_copies_a_short_answer(bundled: Constrained) -> None:
    cup = sources.documents()
    answer = bundled(cup, cup.about(["cup"]), "What is a cup used for?")
    assert answer.span is not None and answer.span.text == "drinking"
    assert answer.span.document == cup.about(["cup"])[0]


def test_the_bundled_model_reads_reviews(bundled: Constrained) -> None:
    answer = bundled(REVIEWS, [0, 1], "How long does the battery last?")
    assert answer.span is not None and "twenty hours" in answer.span.text
