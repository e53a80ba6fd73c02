"""A relation cut short: a translation that relates by the tail of a relation its question says
is refused, as GQA's programs never write one."""

from __future__ import annotations

import pytest

import qlang
from qlang.api import check
from qlang.errors import CheckError
from qlang.ontology import load
from qlang.passes.shortened import shortened_relation
from qlang.passes.translation import settle
from qlang.phrases import WORD, reading
from qlang.syntax import gqa
from tests.conftest import all_questions

ON = qlang.parse("exist(relate(select(scene(), road), car, on, subject))")


def test_no_gold_program_cuts_short_a_relation_its_question_says() -> None:
    relations = load().relations
    longer = 0
    for record in all_questions().values():
        gold = gqa.to_ir(gqa.steps_from_json(record["semantic"]))
        assert shortened_relation(gold, record["question"]) is None, record["question"]
        said = reading(WORD.findall(record["question"].lower()), relations)
        longer += any(" ".join(phrase.split()[i:]) in relations
                      for phrase in said for i in range(1, len(phrase.split())))
    assert longer > 500  # the rule is tried on the questions that say a longer relation, not on none


@pytest.mark.parametrize(("question", "shortened"), [
    ("Is there a car that drives on the road?", ("on", "driving on")),
    ("Is there a car driving on the road?", ("on", "driving on")),
    ("Is there a car on the road?", None),
    ("Is there a car driving on the road on the hill?", None),  # `on` is also said alone
    ("Is there a tv stand at the road?", None),  # a stand, not `standing at`
])
def test_a_relation_is_cut_short_only_where_the_longer_one_is_said(question, shortened) -> None:
    assert shortened_relation(ON, question) == shortened


def test_a_program_that_writes_the_relation_said_is_kept() -> None:
    driving = qlang.parse("exist(relate(select(scene(), road), car, driving_on, subject))")
    assert shortened_relation(driving, "Is there a car that drives on the road?") is None


def test_settle_refuses_a_relation_cut_short_with_a_check_error() -> None:
    with pytest.raises(CheckError, match="relates by 'on' where the question says 'driving on'"):
        settle(ON, "Is there a car that drives on the road?")


@pytest.mark.parametrize("text", ["exist(relate(select(scene(), road), car, on))",
                                  "exist(relate(select(scene(), road), car, on, subject, on))"])
def test_a_relate_with_too_few_or_many_literals_is_left_for_the_checker(text: str) -> None:
    program = qlang.parse(text)
    assert shortened_relation(program, "Is there a car that drives on the road?") == ("on", "driving on")
    with pytest.raises(CheckError):
        check(program)
