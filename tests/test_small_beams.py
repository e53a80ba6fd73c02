"""The batched beam search against the candidates the search gave before it stepped only live
rows (tests/fixtures/small_beams.jsonl: every tenth real question, written by 852e6e3's search,
and again for the model retrained with the text operations by the search that stepped only live
rows; `bench/beams.py` compares all 3,091): the same programs in the same order, their
log-probabilities equal to float rounding; and a question's candidates do not depend on the
batch it is decoded in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qlang.small.beam import beam_search
from qlang.small.parser import SmallParser
from tests.conftest import all_questions

BEAMS = Path(__file__).parent / "fixtures" / "small_beams.jsonl"


@pytest.fixture(scope="module")
def parser() -> SmallParser:
    return SmallParser.load()


def test_the_search_gives_the_candidates_it_gave_before(parser) -> None:
    expected = [json.loads(line) for line in BEAMS.read_text().splitlines()]
    questions = all_questions()
    assert len(expected) > 300
    for start in range(0, len(expected), 64):
        chunk = expected[start:start + 64]
        found = beam_search(parser.network, parser.automaton, [questions[e["id"]]["question"] for e in chunk],
                            parser.beam, parser.knows)
        for record, candidates in zip(chunk, found, strict=True):
            assert [list(c.tokens) for c in candidates] == [t for _, t in record["candidates"]], record["id"]
            assert [c.logprob for c in candidates] == pytest.approx([p for p, _ in record["candidates"]],
                                                                    abs=1e-4)


def test_a_question_decodes_the_same_alone_or_in_a_batch(parser) -> None:
    questions = [r["question"] for r in all_questions().values()][5::97]
    together = beam_search(parser.network, parser.automaton, questions, parser.beam, parser.knows)
    for question, candidates in zip(questions, together, strict=True):
        (alone,) = beam_search(parser.network, parser.automaton, [question], parser.beam, parser.knows)
        assert [c.tokens for c in alone] == [c.tokens for c in candidates], question
        assert [c.logprob for c in alone] == pytest.approx([c.logprob for c in candidates], abs=1e-4)


def test_one_question_given_for_many_is_a_type_error_not_a_decode_per_character(parser) -> None:
    with pytest.raises(TypeError, match=r"use \[question\]"):
        parser.parse("Is there a red car?")
    assert parser.parse(["Is there a red car?"])[0].root is not None
