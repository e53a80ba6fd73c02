"""The ASP theory against real GQA data: every example answers as its gold answer says."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

import qlang
from qlang.asp.query import Query, read
from qlang.asp.solve import solve
from qlang.asp.theory import theory
from qlang.passes import lower
from qlang.signatures import SIGNATURES
from tests.conftest import ASP, encoded_question, yesno_examples


def answers(question: Query, scene: str) -> list[str]:
    return [a.value for a in solve(question, scene).answers]


def test_there_are_fifty_examples() -> None:
    assert len(yesno_examples()) == 50


@pytest.mark.parametrize("index", range(50))
def test_yes_no_example_gets_its_gold_answer(index: int) -> None:
    gold, program, scene = yesno_examples()[index]
    assert answers(lower.facts(qlang.compile(program, "flat")), scene) == [gold]


@pytest.mark.parametrize("path", sorted((ASP / "encoded_questions").glob("*.lp")), ids=lambda p: p.stem)
def test_encoded_question_answer_is_in_its_gold_full_answer(path: Path) -> None:
    scene, program, full = encoded_question(path)
    (answer,) = answers(read(program, name=path.name), scene)  # the question as the ASP it is
    assert re.search(rf"\b{re.escape(answer)}", full, re.IGNORECASE), (answer, full)


@pytest.mark.parametrize("path", sorted((ASP / "encoded_questions").glob("*.lp")), ids=lambda p: p.stem)
def test_an_encoded_question_read_as_asp_is_its_flat_program_lowered(path: Path) -> None:
    _, program, _ = encoded_question(path)
    assert read(program) == lower.facts(qlang.compile(program, "flat"))


@pytest.mark.parametrize("op", sorted(SIGNATURES))
def test_every_operation_is_defined_under_a_comment_naming_it(op: str) -> None:
    lines = theory().splitlines()
    sig = SIGNATURES[op]
    declared = lines.index(f"#defined {op}/{sig.arity + 1}.")
    comment = next(line for line in reversed(lines[:declared]) if line.startswith("% -----"))
    assert re.search(rf"\b{op}\b", comment)
    assert re.search(rf"^[^%]*:-.*\b{op}\(T\b", theory(), re.MULTILINE), "no rule reads it"


@pytest.mark.parametrize("module", ["qlang.asp.facts", "qlang.asp.guard", "qlang.asp.multishot",
                                    "qlang.asp.query", "qlang.asp.scene", "qlang.asp.solve"])
def test_doctests(module: str) -> None:
    assert doctest.testmod(importlib.import_module(module)).failed == 0
