"""A choice's alternatives differ: the checker says so, the automaton never offers the first
again, and the shipped parser names two where a real GQA question (../shared/data) does.  So
do a symmetric operation's two operands: no real GQA program has one twice."""

from __future__ import annotations

import pytest

import qlang
from qlang.passes.canonical import equivalent
from qlang.passes.typecheck import check as diagnostics
from qlang.small.automaton import Automaton
from qlang.small.parser import SmallParser
from qlang.small.tokens import op_token, target_vocabulary
from qlang.syntax import gqa
from tests.conftest import all_questions, run


def test_a_choice_between_a_word_and_itself_is_a_located_error() -> None:
    code, _, err = run("check", "-", input="choose_attr(unique(select(scene(), sky)), color, pink, pink)\n")
    assert code == 1
    assert "<stdin>:1:56: error: argument 4 of choose_attr repeats argument 3" in err
    assert run("check", "-", input="choose_attr(unique(select(scene(), sky)), color, pink, blue)\n")[0] == 0
    relations = "choose_rel(unique(select(scene(), table)), cup, on, on, subject)"
    assert [d.kind for d in diagnostics(qlang.parse(relations))] == ["choice"]


def test_a_symmetric_operation_of_an_operation_and_itself_is_a_located_error() -> None:
    code, _, err = run("check", "-", input="and(exist(select(scene(), cat)), exist(select(scene(), cat)))\n")
    assert code == 1
    assert "<stdin>:1:34: error: argument 2 of and repeats argument 1" in err
    assert run("check", "-", input="or(exist(select(scene(), cat)), exist(select(scene(), dog)))\n")[0] == 0
    same = "two_same(select(scene(), cup), select(scene(), cup), color)"
    assert [d.kind for d in diagnostics(qlang.parse(same))] == ["operands"]


def test_no_real_program_repeats_an_operand_of_a_symmetric_operation() -> None:
    records = all_questions().values()
    assert all(diagnostics(gqa.to_ir(gqa.steps_from_json(r["semantic"]))) == [] for r in records)


def test_the_automaton_never_offers_a_choice_its_first_alternative_again() -> None:
    automaton = Automaton(target_vocabulary())
    vocabulary = automaton.vocabulary
    state = automaton.start()
    for token in (op_token("choose_attr"), op_token("unique"), op_token("select"), op_token("scene"),
                  "sky", "color", "pink"):
        assert vocabulary.id(token) in automaton.allowed(state), token
        state = automaton.advance(state, vocabulary.id(token))
    second = {vocabulary.tokens[t] for t in automaton.allowed(state)}
    assert "pink" not in second and {"blue", "white"} <= second


@pytest.fixture(scope="module")
def shipped() -> SmallParser:
    return SmallParser.load()


def test_the_shipped_parser_names_two_alternatives_where_a_question_does(shipped) -> None:
    """Every real question asking to choose gets two different alternatives; among them the
    ones that came out as a word and itself before ("Is the sky blue or pink?": pink, pink)."""
    records = [r for r in all_questions().values()
               if r["semantic"][-1]["operation"].startswith("choose") and " or " in r["question"]]
    assert len(records) > 200
    parsed = shipped.parse([r["question"] for r in records])
    assert all(p.root is not None and diagnostics(p.root) == [] for p in parsed)
    by_question = {r["question"]: (r, p) for r, p in zip(records, parsed, strict=True)}
    for question in ("Is the sky blue or pink?", "Are the pants yellow or blue?"):
        record, result = by_question[question]
        assert equivalent(result.root, gqa.to_ir(gqa.steps_from_json(record["semantic"]))), question
