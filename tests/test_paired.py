"""Two values a question joins, one of them dropped: a translation that writes one of them is
refused, as GQA's programs always write both."""

from __future__ import annotations

import pytest

import qlang
from qlang.errors import CheckError
from qlang.ir import postorder
from qlang.passes.paired import _joined_values, dropped_value
from qlang.passes.translation import REFUSALS, settle
from qlang.syntax import gqa
from tests.conftest import all_questions

PINK = qlang.parse("query(unique(relate(filter(select(scene(), plate), color, pink), food, on, subject)), "
                   "name)")
BOTH = qlang.parse("query(unique(relate(filter(filter(select(scene(), plate), color, pink), color, red), "
                   "food, on, subject)), name)")


def test_every_gold_program_writes_both_values_its_question_joins() -> None:
    joined = 0
    for record in all_questions().values():
        gold = gqa.to_ir(gqa.steps_from_json(record["semantic"]))
        assert dropped_value(gold, record["question"]) is None, record["question"]
        joined += bool(_joined_values(record["question"]))
    assert joined > 300  # the rule is tried on hundreds of questions, not on none


@pytest.mark.parametrize(("question", "dropped"), [
    ("What is the food on the plate that looks pink and red?", ("pink and red", "red")),
    ("What is the food on the plate that is red or pink?", ("red or pink", "red")),
    ("What is the food on the plate that is red and the pink cup?", ("red and pink", "red")),
    ("What is the food on the pink plate near the red cup?", None),  # not joined
    ("What is the food on the pink plate and the man?", None),  # a value and a class
    ("What is the food on the black and white plate?", None),  # one value, `black and white`
])
def test_only_two_values_joined_with_and_or_or_are_a_pair(question, dropped) -> None:
    assert dropped_value(PINK, question) == dropped


def test_a_program_that_writes_both_values_is_kept() -> None:
    assert dropped_value(BOTH, "What is the food on the plate that looks pink and red?") is None
    assert {"pink", "red"} <= {literal for node in postorder(BOTH) for literal in node.literals}


def test_settle_refuses_a_dropped_value_with_a_check_error() -> None:
    with pytest.raises(CheckError, match="says 'pink and red', but the program never writes 'red'") as caught:
        settle(PINK, "What is the food on the plate that looks pink and red?")
    assert caught.value.diagnostics[0].kind in REFUSALS
