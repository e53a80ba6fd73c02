"""What a question word offers to copy, where the vocabulary names it in another form: a
two-word name said in the plural (`microwave ovens`), a relation said in the present (`sits on`
for `sitting on`)."""

from __future__ import annotations

import pytest

import qlang
from qlang.passes.canonical import equivalent
from qlang.small.parser import SmallParser
from qlang.small.tokens import PLURAL, _read, copy_words
from qlang.syntax import gqa
from qlang.words import progressives
from tests.conftest import all_questions


@pytest.fixture(scope="module")
def parser() -> SmallParser:
    return SmallParser.load()


def offered(parser: SmallParser, question: str) -> dict[str, str]:
    """Each said word -> what it offers."""
    words = parser.network.vocabularies.words
    offers = copy_words(question, words)
    return {surface: offer for (token, surface), offer in zip(_read(question), offers, strict=True)
            if offer is not None and token != PLURAL}


@pytest.mark.parametrize(("question", "word", "offer"), [
    ("What are the microwave ovens usually used for?", "microwave", "microwave oven"),
    ("What kind of watercraft floats on the ocean?", "floats", "floating on"),
    ("Does the happy man sit on the couch?", "sit", "sitting on"),
    ("Is the bus left of the car that drives on the road?", "drive", "driving on"),
])
def test_a_word_offers_the_vocabularys_form_of_what_it_says(parser, question, word, offer) -> None:
    assert offered(parser, question)[word] == offer


def test_a_verb_alone_offers_no_relation() -> None:
    """"a point" is no `pointing`: only a verb with the rest of its relation reads as one."""
    assert "pointing" in progressives("point")
    assert copy_words("Do pencils have a point?", frozenset({"pointing", "pencils"})) == [
        None, "pencils", None, None, None, None]


def test_on_real_questions_a_present_verb_offers_the_gold_programs_relation(parser) -> None:
    """Of the 3,091 real GQA questions, those that say a relation in the present: the offer is
    the gold program's relation on all but one (whose gold program drops the relation)."""
    right = wrong = 0
    for record in all_questions().values():
        question = record["question"]
        gold = str(gqa.to_ir(gqa.steps_from_json(record["semantic"])))
        for word, offer in offered(parser, question).items():
            if offer not in question.lower() and offer.split()[0] in progressives(word):
                right, wrong = right + (offer in gold), wrong + (offer not in gold)
    assert right >= 15 and wrong <= 1, (right, wrong)


def test_the_small_parser_copies_the_singular_name(parser) -> None:
    """A held-out knowledge question: it wrote `microwave` before, never offered the name."""
    parsed = parser.parse(["What are the microwave ovens usually used for?"])[0]
    gold = qlang.parse("know(unique(select(scene(), microwave_oven)), used_for)")
    assert parsed.root is not None and equivalent(parsed.root, gold), parsed.tokens
