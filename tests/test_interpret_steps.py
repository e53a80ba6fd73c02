"""GQA's steps run directly agree with the converted program under the thesis semantics."""

from __future__ import annotations

from typing import Any

import pytest

from qlang.interpret import InterpretError, Membership, MissingEdge, Outcome, evaluate
from qlang.interpret.gqa_steps import evaluate_steps
from qlang.syntax import gqa
from tests.conftest import EXAMPLE, asp_example, emma_questions, scene


def result(outcome: Outcome) -> str:
    try:
        return outcome.answer
    except InterpretError as failure:
        return type(failure).__name__


@pytest.mark.parametrize("question", emma_questions(), ids=lambda q: q["question"])
def test_emma_steps_answer_as_the_converted_program(question: dict[str, Any]) -> None:
    steps = gqa.steps_from_json(question["semantic"])
    where = scene("emma", question["imageId"])
    direct = result(evaluate_steps(steps, where))
    assert direct == result(evaluate(gqa.to_ir(steps), where, semantics="thesis"))
    assert direct == question["answer"]


def test_real_yes_no_examples_as_steps_answer_as_the_converted_program(data_dir: Any) -> None:
    text = (data_dir / "asp" / "gqa_yesno_examples_dev.pl").read_text()
    examples = [asp_example(body) for _, body in EXAMPLE.findall(text)]
    assert len(examples) == 50
    for root, where in examples:
        direct = evaluate_steps(gqa.to_steps(root), where, Membership())
        assert result(direct) == result(evaluate(root, where, Membership(), "thesis"))


def test_an_empty_relate_step_is_a_missing_edge() -> None:
    steps = [gqa.GqaStep("select", "shorts", ()), gqa.GqaStep("relate", "person,eating,s", (0,)),
             gqa.GqaStep("exist", "?", (1,))]
    with pytest.raises(MissingEdge):
        _ = evaluate_steps(steps, scene("emma", "2353884")).answer
