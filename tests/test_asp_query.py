"""A query (a question as the solver takes it): facts whose clingo symbols are built directly,
spelled as the ASP text of a lowered program spells them; and the reader of a query that arrives
as ASP text."""

from __future__ import annotations

import clingo
import pytest
from hypothesis import given
from hypothesis import strategies as st

import qlang
from qlang.asp.multishot import GroundedScene
from qlang.asp.outcome import SolveError
from qlang.asp.query import read
from qlang.asp.solve import solve
from qlang.asp_names import to_symbol, to_term
from qlang.errors import ParseError, Source, UnsupportedOperation
from qlang.passes.lower import Fact, facts

SCENE = "object(1). has_attr(1, class, dog). has_attr(1, color, white)."


@given(st.text(st.characters(codec="utf-8", blacklist_characters="\0")))
def test_a_word_is_the_symbol_its_asp_spelling_reads_as(value: str) -> None:
    assert to_symbol(value) == clingo.parse_term(to_term(value))
    assert str(to_symbol(value)) == to_term(value)


def test_a_word_asp_cannot_spell_is_an_error() -> None:
    with pytest.raises(UnsupportedOperation, match="NUL"):
        to_symbol("a\0b")


def test_the_lowered_facts_are_the_text_the_reader_reads_back() -> None:
    question = facts(qlang.compile('query(unique(filter(select(scene(), "t-shirt"), color, white)), name)'))
    assert read("\n".join(map(str, question))) == question


@pytest.mark.parametrize("step", [2**31, -(2**31) - 1, 2**40])
def test_a_step_number_beyond_32_bits_is_an_error_not_wrapped(step: int) -> None:
    question = [Fact("scene", (step,)), Fact("exist", (1, step)), Fact("end", (1,))]
    message = f"the question's integer {step} is beyond clingo's 32 bits"
    with pytest.raises(SolveError, match=message):
        solve(question, SCENE)
    with pytest.raises(SolveError, match=message):
        GroundedScene(SCENE).solve(question)


def test_the_widest_step_numbers_clingo_holds_answer() -> None:
    for step in (2**31 - 1, -(2**31)):
        question = [Fact("scene", (step,)), Fact("exist", (1, step)), Fact("end", (1,))]
        assert [a.value for a in solve(question, SCENE).answers] == ["yes"]
        assert [a.value for a in GroundedScene(SCENE).solve(question).answers] == ["yes"]


@pytest.mark.parametrize(("text", "message"), [
    ("scene(0). exist(1, 0). end(1). ans(banana).",
     "q.lp:1:32: error: invalid ASP question: ans/1 is not a question predicate "
     "(the operations' steps and end/1)\n"
     "  scene(0). exist(1, 0). end(1). ans(banana).\n"
     "                                 ^"),
    ("scene(0).\nexist(1).\nend(1).",
     "q.lp:2:1: error: invalid ASP question: exist/1 is not a question predicate "
     "(the operations' steps and end/1)\n"
     "  exist(1).\n"
     "  ^"),
    ("scene(0). exist(1, 0) :- object(1). end(1).",
     "q.lp:1:11: error: invalid ASP question: only ground facts of the operations' steps and end/1 "
     "may be in an ASP question\n"
     "  scene(0). exist(1, 0) :- object(1). end(1).\n"
     "            ^"),
    ("scene(0). exist(1, 4294967296). end(1).",
     "q.lp:1:11: error: invalid ASP question: an integer beyond clingo's 32 bits\n"
     "  scene(0). exist(1, 4294967296). end(1).\n"
     "            ^"),
    ('scene(0). select(1, 0, "dog"). exist(2, 1). end(2).',
     "q.lp:1:11: error: invalid ASP question: \"dog\" is not a word as qlang spells words "
     "(it writes 'dog' as dog)\n"
     '  scene(0). select(1, 0, "dog"). exist(2, 1). end(2).\n'
     "            ^"),
    ("scene(0). select(1, 0, _dog). exist(2, 1). end(2).",
     "q.lp:1:11: error: invalid ASP question: _dog is not a word as qlang spells words "
     "(it writes ' dog' as \" dog\")\n"
     "  scene(0). select(1, 0, _dog). exist(2, 1). end(2).\n"
     "            ^"),
])
def test_what_is_not_a_question_of_ground_facts_is_a_located_error(text: str, message: str) -> None:
    with pytest.raises(ParseError) as caught:
        read(text, name="q.lp")
    assert str(caught.value) == message
    assert caught.value.source == Source(text, "q.lp")


def test_comments_between_the_facts_are_read_past() -> None:
    text = "% the question\nscene(0). %* two\nlines *% exist(1, 0). end(1). % done"
    assert read(text) == [Fact("scene", (0,)), Fact("exist", (1, 0)), Fact("end", (1,))]
