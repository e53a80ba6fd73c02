"""The ASP theory against real GQA data: every example answers as its gold answer says."""

from __future__ import annotations

import doctest
import importlib
import re
from functools import cache
from pathlib import Path

import pytest

import qlang
from qlang.asp.question import Question, read
from qlang.asp.solve import solve, theory
from qlang.passes import lower
from qlang.signatures import END, SIGNATURES
from tests.conftest import DATA

ASP = DATA / "asp"
_FACT = re.compile(r"(\w+)\([^()]*\)\.")


@cache
def yesno_examples() -> list[tuple[str, str, str]]:
    """(gold answer, flat program, scene facts) of each `#pos` example."""
    text = (ASP / "gqa_yesno_examples_dev.pl").read_text()
    examples = []
    for gold, body in re.findall(r"#pos\(\{ans\((\w+)\)\}, \{\}, \{(.*?)\}\)", text, re.S):
        program, scene = [], []
        for fact in _FACT.finditer(body):
            (program if fact[1] in SIGNATURES or fact[1] == END else scene).append(fact[0])
        examples.append((gold, " ".join(program), "\n".join(scene)))
    return examples


def encoded_question(path: Path) -> tuple[str, str, str]:
    """(scene facts, flat program, full gold answer) of a GS-VQA encoding."""
    scene, rest = path.read_text().split("% ------ question encoding ------")
    program, rest = rest.split("% ------ NL question ------")
    return scene, program, rest.split("% ------ Full answer ------")[1].strip("% \n")


def answers(question: Question, scene: str) -> list[str]:
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


@pytest.mark.parametrize("module", ["qlang.asp.facts", "qlang.asp.guard", "qlang.asp.question",
                                    "qlang.asp.scene", "qlang.asp.solve"])
def test_doctests(module: str) -> None:
    assert doctest.testmod(importlib.import_module(module)).failed == 0
