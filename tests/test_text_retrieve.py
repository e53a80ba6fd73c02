"""Retrieval over documents: bm25 and dense, and the best k candidates (qlang.text.retrieve)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qlang.errors import QlangError
from qlang.text import embedding
from qlang.text.documents import Documents, Passage
from qlang.text.retrieve import BM25, FLOOR, RETRIEVERS, Candidates, Dense, match, retriever

REVIEWS = Documents([
    Passage("p1", "The bass is amazing and the treble is crisp.", "r"),
    Passage("p1", "Very comfortable for long flights.", "r"),
    Passage("p2", "Bass is weak, as expected at this price.", "r"),
    Passage("p3", "The cable broke after a week.", "r"),
    Passage("p4", "A small open container usually used for drinking.", "r"),
])
BY_PRODUCT = {key: REVIEWS.about([key]) for key in ("p1", "p2", "p3", "p4")}


@pytest.mark.parametrize("name", sorted(RETRIEVERS))
def test_both_retrievers_rank_the_documents_about_the_question_first(name: str) -> None:
    found = match(retriever(name, REVIEWS), "How is the bass?", BY_PRODUCT, 2)
    assert {m.key for m in found} == {"p1", "p2"}
    assert found[0].weight == 1.0 and all(FLOOR <= m.weight <= 1.0 for m in found)


def test_a_candidate_scores_by_its_best_document() -> None:
    found = match(BM25(REVIEWS), "comfortable on flights", BY_PRODUCT, 1)
    assert [(m.key, m.document) for m in found] == [("p1", 1)]


def test_k_bounds_the_answer_and_candidates_without_documents_are_none() -> None:
    bm25 = BM25(REVIEWS)
    assert len(match(bm25, "bass", BY_PRODUCT, 10)) == 4
    assert match(bm25, "bass", BY_PRODUCT, 0) == []
    assert match(bm25, "bass", {"x": []}, 3) == []
    unmatched = match(bm25, "zebra", BY_PRODUCT, 4)
    assert [m.weight for m in unmatched] == [FLOOR] * 4
    assert [m.key for m in unmatched] == ["p1", "p2", "p3", "p4"]  # ties by key


def test_dense_matches_words_bm25_cannot() -> None:
    question = "Which one is a cup for beverages?"
    assert match(Dense(REVIEWS), question, BY_PRODUCT, 1)[0].key == "p4"


def test_dense_vectors_are_cached_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "CACHE", tmp_path)
    Dense(REVIEWS)
    (cached,) = tmp_path.iterdir()
    assert np.load(cached).shape == (len(REVIEWS), 384)
    monkeypatch.setattr(embedding, "encode", lambda texts: pytest.fail("embedded again"))
    Dense(REVIEWS)


def test_no_documents_match_nothing() -> None:
    for name in RETRIEVERS:
        assert retriever(name, Documents()).scores("anything").shape == (0,)


def test_an_unknown_retriever_is_a_qlang_error() -> None:
    with pytest.raises(QlangError, match="no retriever 'tfidf'"):
        retriever("tfidf", REVIEWS)


class Fixed:
    """A retriever whose scores are given."""

    name = "fixed"

    def __init__(self, scores: list[float]) -> None:
        self._scores = np.array(scores, dtype=np.float32)

    def scores(self, text: str) -> np.ndarray:
        return self._scores

    def weight(self, score: float, best: float) -> float:
        return 1.0


@given(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]), min_size=1, max_size=12).flatmap(
    lambda scores: st.tuples(st.just(scores), st.dictionaries(
        st.sampled_from("abcdefg"), st.lists(st.integers(0, len(scores) - 1), max_size=4)))),
       st.integers(1, 8))
def test_match_ranks_as_the_plain_definition_does(case: tuple[list[float], dict[str, list[int]]],
                                                  k: int) -> None:
    scores, owned = case
    best = {key: max((scores[n], -n) for n in numbers) for key, numbers in owned.items() if numbers}
    expected = sorted(best, key=lambda key: (-best[key][0], key))[:k]
    found = match(Fixed(scores), "q", Candidates(owned), k)
    assert [m.key for m in found] == expected
    assert [m.document for m in found] == [-best[key][1] for key in expected]
