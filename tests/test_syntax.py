"""The syntaxes on fixed examples: the thesis's example in every form, identity fixtures,
whole error messages with their caret lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import qlang
from qlang.errors import Source
from qlang.syntax import SYNTAXES, detect
from tests.conftest import FORMS, TRUCK_TIRE

FIXTURES = Path(__file__).parent / "fixtures"

@pytest.mark.parametrize("syntax", FORMS)
def test_the_thesis_example_reads_the_same_in_every_syntax(syntax: str) -> None:
    assert detect(FORMS[syntax]) == syntax
    assert qlang.parse(FORMS[syntax]) == TRUCK_TIRE


def test_printers_write_the_canonical_forms() -> None:
    assert SYNTAXES["code"].print(TRUCK_TIRE) == (
        "var1 = unique(relate(select(scene(), truck), tire, of, subject))\n"
        "and(verify_attr(var1, color, black), verify_attr(var1, shape, round))")
    assert SYNTAXES["flat"].print(TRUCK_TIRE).split("\n") == [
        "scene(0).", "select(1, 0, truck).", "relate(2, 1, tire, of, subject).", "unique(3, 2).",
        "verify_attr(4, 3, color, black).", "verify_attr(5, 3, shape, round).", "and(6, 4, 5).",
        "end(6)."]
    assert SYNTAXES["gqa-str"].print(TRUCK_TIRE) == (
        "select: truck->relate: tire,of,s [0]->verify color: black [1]->verify shape: round [1]"
        "->and: [2, 3]")


def _identity_lines() -> list[str]:
    lines = (FIXTURES / "identity.nested").read_text().splitlines()
    return [line for line in lines if line and not line.startswith("%")]


@pytest.mark.parametrize("text", _identity_lines())
def test_identity_fixtures_print_back_unchanged(text: str) -> None:
    assert qlang.format(text, "nested") == text
    assert qlang.check(qlang.parse(text)) == []


@pytest.mark.parametrize("text, message", [
    ("query(unique(select(scene(), dihs)), colour)",
     "<input>:1:30: error: 'dihs' is not a known class (did you mean 'dish'?)\n"
     "  query(unique(select(scene(), dihs)), colour)\n"
     "                               ^~~~\n"
     "<input>:1:38: error: 'colour' is not a known attribute category (did you mean 'color'?)\n"
     "  query(unique(select(scene(), dihs)), colour)\n"
     "                                       ^~~~~~"),
    ("query(select(scene(), dish), name)",
     "<input>:1:7: error: argument 1 of query must yield Object, but select yields Objects "
     "(wrap it in unique(...))\n"
     "  query(select(scene(), dish), name)\n"
     "        ^~~~~~~~~~~~~~~~~~~~~"),
    ("select(scene(), dish)",
     "<input>:1:1: error: the program must end in an answer (Bool or Value), but select yields "
     "Objects (add query(...), exist(...) or another answering operation)\n"
     "  select(scene(), dish)\n"
     "  ^~~~~~~~~~~~~~~~~~~~~"),
    ("relate(select(scene(), dish), cup, on, sideways)",
     "<input>:1:40: error: argument 4 of relate must be one of subject, object, not 'sideways'\n"
     "  relate(select(scene(), dish), cup, on, sideways)\n"
     "                                         ^~~~~~~~\n"
     "<input>:1:1: error: the program must end in an answer (Bool or Value), but relate yields "
     "Objects (add query(...), exist(...) or another answering operation)\n"
     "  relate(select(scene(), dish), cup, on, sideways)\n"
     "  ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~"),
    ("exsit(scene())",
     "<input>:1:1: error: unknown operation 'exsit' (did you mean 'exist'?)\n"
     "  exsit(scene())\n"
     "  ^~~~~~~~~~~~~~"),
])
def test_check_errors_are_whole_located_messages(text: str, message: str) -> None:
    with pytest.raises(qlang.CheckError) as caught:
        qlang.check(qlang.parse(text), source=Source(text))
    assert caught.value.render() == message


@pytest.mark.parametrize("text, syntax, message", [
    ("scene(0). select(1, 0, car). exist(2, 5). end(2).", "flat", "1:39: error: step 5 is not defined"),
    ("scene(0). exist(1, 2). exist(2, 1). end(2).", "flat", "error: step 2 depends on itself"),
    ("scene(0). exist(1, 0). exist(1, 0). end(1).", "flat",
     "1:30: error: step 1 is defined twice (first at line 1)"),
    ("scene(0). exist(1, 0).", "flat", "no end(N) fact"),
    ("v = scene()\nv = scene()\nexist(v)", "code", "2:1: error: variable 'v' is defined twice"),
    ("exist(w)\nw = scene()", "code", "only the last statement may be the answer"),
    ("x = exist(w)\nw = scene()\nx", "code", "1:11: error: variable 'w' is used before it is defined"),
    ("exist(select(scene(), car)", "nested", "1:27: error: unexpected end of input; expected ')', ','"),
    ("exist(select(scene() car))", "nested", "1:22: error: unexpected 'car'; expected ')', ','"),
    ("select: car->exist: ? [3]", "gqa-str", "error: step 1 (exist) depends on a step that does not "
     "come before it: [3]"),
])
def test_reference_and_syntax_errors_are_located(text: str, syntax: str, message: str) -> None:
    with pytest.raises(qlang.ParseError) as caught:
        qlang.parse(text, syntax)
    assert message in caught.value.render()


def test_unsupported_gqa_operations_are_named() -> None:
    comparative = ('[{"operation": "select", "dependencies": [], "argument": "man"},'
                   ' {"operation": "select", "dependencies": [], "argument": "woman"},'
                   ' {"operation": "choose older", "dependencies": [0, 1], "argument": ""}]')
    with pytest.raises(qlang.UnsupportedOperation, match="comparative 'choose older'"):
        qlang.parse(comparative)
    with pytest.raises(qlang.UnsupportedOperation, match="GQA cannot express compare"):
        SYNTAXES["gqa"].print(qlang.parse(_identity_lines()[8]))


def test_the_documented_operation_table_is_generated_from_the_code() -> None:
    from qlang.signatures import markdown_table

    page = (Path(__file__).parents[1] / "docs" / "language.md").read_text()
    block = page.split("<!-- operation-table -->\n")[1].split("\n<!-- /operation-table -->")[0]
    assert block == markdown_table()


def test_only_the_syntax_package_decides_by_a_syntax_s_name() -> None:
    """What differs between the syntaxes is on their records: no module outside `qlang.syntax`
    compares a syntax's name or keys a table by it."""
    names = "|".join(re.escape(name) for name in SYNTAXES)
    deciding = re.compile(rf"""(==|!=)\s*["']({names})["']|\{{\s*["']({names})["']\s*:""")
    package = Path(qlang.__file__).parent
    found = [f"{path.relative_to(package)}:{number}: {line.strip()}"
             for path in sorted(package.rglob("*.py")) if path.parent.name != "syntax"
             for number, line in enumerate(path.read_text().splitlines(), start=1) if deciding.search(line)]
    assert found == []
