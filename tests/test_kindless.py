"""An `infer` of a class nothing is a kind of answers nothing: a translation writing one is
refused (`qlang.passes.kindless`), and the small parser's next candidate answers."""

from __future__ import annotations

import json

import pytest

import qlang
from qlang.errors import CheckError
from qlang.knowledge import sources
from qlang.knowledge.graph import Knowledge
from qlang.passes.canonical import equivalent
from qlang.passes.kindless import kindless
from qlang.passes.translation import settle
from qlang.small.parser import SMALL_MODEL, SmallParser

PEANUT = "What drink might go with that peanut?"


def infer(cls: str) -> qlang.Node:
    return qlang.parse(f"infer(select(scene(), peanut), {cls})")


def test_no_held_out_gold_program_infers_a_kindless_class() -> None:
    """The rule is tried on the 29 `infer` programs of the shipped held-out knowledge questions."""
    bundled, tried = sources.knowledge([]), 0
    for line in (SMALL_MODEL / "knowledge-dev.jsonl").read_text().splitlines():
        gold = qlang.parse(json.loads(line)["program"])
        tried += gold.op == "infer"
        assert kindless(gold, bundled) is None, line
    assert tried > 20


@pytest.mark.parametrize(("cls", "knowledge", "refused"), [
    ("drink", [], False),         # the bundled base's kinds of drink, and GQA's
    ("go", [], True),             # a word the base knows, which nothing is a kind of
    ("baked_good", ["none"], False),  # GQA's category without any knowledge
    ("peanut", ["none"], True),
])
def test_a_class_is_kindless_where_neither_knowledge_nor_gqa_has_a_kind_of_it(
        cls: str, knowledge: list[str], refused: bool) -> None:
    assert (kindless(infer(cls), sources.knowledge(knowledge)) is not None) == refused


def test_settle_refuses_it_with_a_located_check_error() -> None:
    program = qlang.parse("exist(select(scene(), peanut))")
    assert settle(program, PEANUT, Knowledge(())) == program  # no infer: no knowledge opened
    with pytest.raises(CheckError, match="nothing in the knowledge is a kind of 'go'") as caught:
        settle(infer("go"), PEANUT)
    assert caught.value.diagnostics[0].span is not None


def test_the_small_parser_reads_the_class_asked_not_the_verb() -> None:
    """It gave `infer(..., go)` 0.998: refused, its next candidate answers."""
    parsed = SmallParser.load().parse([PEANUT])[0]
    assert parsed.root is not None and equivalent(parsed.root, infer("drink")), parsed.tokens
