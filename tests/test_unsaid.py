"""Directions a question never says: a translation naming one is refused, as GQA's programs
never name one."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

import qlang
from qlang.commands.main import cli
from qlang.errors import CheckError
from qlang.passes.canonical import equivalent
from qlang.passes.translation import settle
from qlang.passes.unsaid import DIRECTIONS, unsaid_direction
from qlang.syntax import gqa
from tests.conftest import all_questions

LEFT = qlang.parse("query(unique(relate(select(scene(), pillow), device, to_the_left_of, subject)), name)")


def test_every_direction_a_gold_program_names_is_said() -> None:
    named = 0
    for record in all_questions().values():
        gold = gqa.to_ir(gqa.steps_from_json(record["semantic"]))
        assert unsaid_direction(gold, record["question"]) is None, record["question"]
        named += any(re.search(rf"\b{d}\b", str(gold)) for d in DIRECTIONS)
    assert named > 400  # the rule is tried on hundreds of programs, not on none


@pytest.mark.parametrize(("question", "unsaid"), [
    ("What kind of device is right of the pillow?", "left"),
    ("Which device is beside the pillow?", "left"),
    ("What device is to the LEFT of the pillow?", None),
    ("What is the leftmost device?", None),  # a word that begins with it says it
    ("Is the bright device left of the pillow?", None),
])
def test_a_direction_is_said_by_a_word_that_begins_with_it(question, unsaid) -> None:
    assert unsaid_direction(LEFT, question) == unsaid


@pytest.mark.parametrize(("question", "unsaid"), [
    ("Which color is the curtain to the right of the picture?", "middle"),
    ("What color is the towel in the center?", None),
    ("What color is the towel in the middle?", None),
])
def test_the_middle_is_said_as_itself_or_the_center(question, unsaid) -> None:
    middle = qlang.parse("query(unique(filter(select(scene(), towel), vposition, middle)), color)")
    assert unsaid_direction(middle, question) == unsaid


def test_settle_refuses_a_program_of_another_direction_with_a_check_error() -> None:
    with pytest.raises(CheckError, match="says 'left', which the question never says"):
        settle(LEFT, "What kind of device is right of the pillow?")
    assert settle(LEFT, "What kind of device is left of the pillow?") == LEFT


def test_the_small_parser_no_longer_reads_right_as_left() -> None:
    """It gave `to the left of` 0.977 for this dev question; refused, its next candidate
    answers."""
    result = CliRunner().invoke(cli, ["translate", "What kind of device is right of the pillow?",
                                      "--translator", "small"])
    assert result.exit_code == 0, result.output
    gold = qlang.parse(str(LEFT).replace("to the left of", "to_the_right_of"))
    assert equivalent(qlang.parse(result.stdout.strip()), gold), result.stdout
