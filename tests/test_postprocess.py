"""Clean-up of raw model output: real GPT-4o outputs, each syntax's cases, properties."""

from __future__ import annotations

import csv
import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import qlang
from qlang.errors import QlangError, UnsupportedOperation
from qlang.ir import Node
from qlang.translate import postprocess
from qlang.translate.examples import load_pool
from qlang.translate.postprocess import clean
from tests.conftest import DATA
from tests.strategies import programs

SYNTAXES = sorted(qlang.SYNTAXES)


def _parses(text: str, syntax: str) -> bool:
    try:
        qlang.parse(text, syntax)
    except QlangError:
        return False
    return True


def test_cleaning_real_gpt4o_output_loses_no_program_and_rescues_some(data_dir) -> None:
    with open(DATA / "llm_outputs" / "gpt4o_nested_val_eval.csv", newline="") as handle:
        raw = [row["answer"] for row in csv.DictReader(handle) if row["agent"] == "gpt-4o_raw"]
    before = [_parses(text, "nested") for text in raw]
    after = [_parses(clean(text, "nested"), "nested") for text in raw]
    lost = [text for text, was, now in zip(raw, before, after, strict=True) if was and not now]
    assert lost == []
    print(f"\nGPT-4o nested outputs that parse: {sum(before)} raw, {sum(after)} cleaned")
    assert sum(after) > sum(before)  # the program with a stray fence before its last ')'
    for text, was in zip(raw, before, strict=True):  # a program that parsed is left as it was
        if was:
            assert qlang.parse(clean(text, "nested"), "nested") == qlang.parse(text, "nested")


NESTED = "exist(select(scene(), car))"
FLAT = "scene(0). select(1, 0, car). exist(2, 1). end(2)."
CAR = "var1 = unique(select(scene(), car))"
CODE = f"{CAR}\nand(exist(var1), verify_attr(var1, color, red))"
GQA = '[{"operation": "select", "dependencies": [], "argument": "car (1)"}]'
STEP = '{"operation": "exist", "dependencies": [0], "argument": "?]"}'
GQA_STR = "select: car->exist: ? [0]"

CASES = [
    # fences, with and without a language tag
    ("nested", f"```\n{NESTED}\n```", NESTED),
    ("nested", f"```asp\n{NESTED}\n```", NESTED),
    ("nested", f"```{NESTED}```", NESTED),
    ("flat", f"```prolog\n{FLAT}\n```", FLAT),
    ("code", f"```python\n{CODE}\n```", CODE),
    ("gqa", f"```json\n{GQA}\n```", GQA),
    ("gqa-str", f"```\n{GQA_STR}\n```", GQA_STR),
    # chatter before
    ("nested", f"Sure! Here is the ASP program for your question (as asked):\n{NESTED}", NESTED),
    ("nested", f"Answer: `{NESTED}`", NESTED),
    ("flat", f"The program is as follows, ending with end (the answer):\n{FLAT}", FLAT),
    ("code", f"# the car, used twice\n{CODE}", CODE),
    ("gqa", f"Here is the program [JSON]:\n{GQA}", GQA),
    ("gqa-str", f"Program: {GQA_STR}", GQA_STR),
    # trailing junk: another invented question, prose, a stray fence
    ("nested", f"{NESTED}\nIs the car red?\nquery(unique(select(scene(), car)), color)", NESTED),
    ("nested", f"{NESTED}) This checks for a car.", NESTED),
    # a made-up operation around the first known one stays (the checker names it)
    ("nested", "Here:\ntwo_diff(unique(select(scene(), cheese)), unique(select(scene(), flour)), color)",
     "two_diff(unique(select(scene(), cheese)), unique(select(scene(), flour)), color)"),
    ("code", "Here:\nvar1 = same_as(unique(select(scene(), car)))\nexist(var1)",
     "var1 = same_as(unique(select(scene(), car)))\nexist(var1)"),
    ("nested", 'query(unique(select(scene(), "t-shirt (big)")), color) % done',
     'query(unique(select(scene(), "t-shirt (big)")), color)'),
    ("flat", f"{FLAT}\nWhat is red?\nscene(0). select(1, 0, red).", FLAT),
    ("flat", "scene(0).\nselect(1, 0, car).\nexist(2, 1).\nend(2) .\n```",
     "scene(0).\nselect(1, 0, car).\nexist(2, 1).\nend(2) ."),
    ("code", f"{CODE}\nThis program checks (twice) for the car.", CODE),
    ("code", f"{CAR}\nvar1\nDone (really).", f"{CAR}\nvar1"),
    ("code", f"{CAR}\nThat is all (really).", CAR),
    ("gqa", f'{GQA[:-1]}, {STEP}]\nAnd [1] more.', f'{GQA[:-1]}, {STEP}]'),
    ("gqa-str", f"{GQA_STR}.\nQuestion: Is it red?", GQA_STR),
    ("gqa-str", "select: car\n->exist: ? [0]\nselect: bus", "select: car\n->exist: ? [0]"),
    # nothing that looks like a program: left to the parser, stripped
    ("nested", "  I cannot answer that.  ", "I cannot answer that."),
    ("gqa", "no list here", "no list here"),
]


@pytest.mark.parametrize(("syntax", "raw", "expected"), CASES)
def test_clean(syntax: str, raw: str, expected: str) -> None:
    assert clean(raw, syntax) == expected


def test_every_cleaned_case_parses() -> None:
    for syntax, _raw, expected in CASES[:-2]:
        assert _parses(expected, syntax), (syntax, expected)


def test_the_real_gold_programs_are_left_as_printed(data_dir) -> None:
    for example in load_pool()[::5]:
        for syntax in SYNTAXES:
            printed = qlang.SYNTAXES[syntax].print(example.root)
            assert clean(printed, syntax) == printed
            assert clean(f"Sure:\n```\n{printed}\n```\nAnything else?", syntax) == printed


def _printed(root: Node, syntax: str) -> str | None:
    try:
        return qlang.SYNTAXES[syntax].print(root)
    except UnsupportedOperation:
        return None


@settings(max_examples=200, deadline=None)
@given(programs(), st.sampled_from(SYNTAXES), st.sampled_from(["", "Here you go:\n", "```asp\n"]),
       st.sampled_from(["", "\n```", "\nQuestion: Is it red?\nexist(select(scene(), red))"]))
def test_a_program_survives_any_wrapping(root: Node, syntax: str, before: str, after: str) -> None:
    printed = _printed(root, syntax)
    if printed is not None:
        assert clean(before + printed + after, syntax) == printed


#: pieces of programs and of chatter, so that random text reaches every path of `clean`
PIECES = st.sampled_from([
    "(", ")", "[", "]", "{", "}", '"', "\\", "`", "```", "```asp", "\n", " ", ".", ",", "=", "->",
    ":", "end(", "end(3).", "scene(", "select(", "unique(", "query(", "var1", "var1 = ", "select:",
    '[{"operation": ', "0", "car", "Sure!", "%",
])
TEXTS = st.one_of(st.text(), st.lists(PIECES | st.text(max_size=3)).map("".join))


@settings(max_examples=500, deadline=None)
@given(TEXTS, st.sampled_from(SYNTAXES))
def test_clean_is_total_and_idempotent(text: str, syntax: str) -> None:
    once = clean(text, syntax)
    assert clean(once, syntax) == once


def test_doctests() -> None:
    assert doctest.testmod(postprocess, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0
