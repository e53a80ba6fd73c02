"""The theory's two semantics of query, choose_attr, choose_rel and common (theory/semantics/):
qlang's chooses among the values the scene has, the seed thesis's among the value domain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import qlang
from qlang.asp.options import SolveOptions
from qlang.asp.scene import SceneLibrary, domain
from qlang.asp.solve import solve
from qlang.asp.theory import SEMANTICS, theory
from qlang.asp_names import from_term
from qlang.commands.main import cli
from qlang.errors import Source
from qlang.ontology import load
from qlang.passes import lower


def box(x: int) -> dict[str, int]:
    return {"x": x, "y": 10, "w": 10, "h": 10}


#: A cup that is white and red, on a table of no colour; a white chair near nothing.
SCENE = {"width": 300, "height": 300, "objects": {
    "1": {"name": "cup", **box(10), "attributes": ["white", "red"],
          "relations": [{"name": "on", "object": "2"}]},
    "2": {"name": "table", **box(100), "attributes": ["wooden"], "relations": []},
    "3": {"name": "chair", **box(200), "attributes": ["white"], "relations": []},
}}


def answers(program: str, semantics: str, scene: dict[str, object] = SCENE) -> set[str]:
    """Every answer of a tie (all models cost the same on a ground-truth scene)."""
    facts = SceneLibrary(Source(json.dumps(scene))).facts()
    result = solve(lower.facts(qlang.compile(program)), facts, SolveOptions(top_k=100, semantics=semantics))
    return {a.value for a in result.answers}


#: The thesis's domain, as answers: GQA's attribute categories, and its colours.
CATEGORIES = {from_term(line[len("is_attr("):-2]) for line in domain().splitlines()
              if line.startswith("is_attr(")}
COLOURS = set(load().categories["color"])


@pytest.mark.parametrize(("program", "qlang_answers", "thesis_answers"), [
    # one value: both semantics answer it
    ("query(unique(select(scene(), chair)), color)", {"white"}, {"white"}),
    ("choose_attr(unique(select(scene(), chair)), color, white, red)", {"white"}, {"white"}),
    ("choose_rel(unique(select(scene(), cup)), table, on, under, object)", {"on"}, {"on"}),
    ("common(unique(select(scene(), cup)), unique(select(scene(), chair)))", {"color"}, {"color"}),
    # two values: qlang chooses either, the thesis's "exactly one" has no model
    ("query(unique(select(scene(), cup)), color)", {"white", "red"}, set()),
    ("choose_attr(unique(select(scene(), cup)), color, white, red)", {"white", "red"}, set()),
    # no value: qlang has no answer, the thesis guesses from the domain
    ("query(unique(select(scene(), table)), color)", set(), COLOURS),
    ("choose_attr(unique(select(scene(), table)), color, blue, red)", set(), {"blue", "red"}),
    ("choose_rel(unique(select(scene(), chair)), table, on, under, object)", set(), {"on", "under"}),
])
def test_the_semantics_differ_where_the_scene_has_not_exactly_one_value(
        program: str, qlang_answers: set[str], thesis_answers: set[str]) -> None:
    assert answers(program, "qlang") == qlang_answers
    assert answers(program, "thesis") == thesis_answers


def test_common_with_nothing_shared_is_any_category_for_the_thesis_and_none_for_qlang() -> None:
    program = "common(unique(select(scene(), table)), unique(select(scene(), chair)))"
    assert answers(program, "qlang") == set()
    assert answers(program, "thesis") == CATEGORIES
    assert {"color", "material"} <= CATEGORIES and not {"hposition", "any", "name"} & CATEGORIES


def test_the_thesis_guess_in_an_uncertain_scene_prices_the_values_it_denies() -> None:
    """A table likely white: white is the best answer under both; the thesis may still guess an
    unlisted colour, at the price of white not holding."""
    scene = {"width": 300, "height": 300, "objects": {
        "t": {"name": "table", **box(100), "relations": [],
              "attributes": [{"value": "white", "confidence": 0.9}]}}}
    facts = SceneLibrary(Source(json.dumps(scene))).facts()
    question = lower.facts(qlang.compile("query(unique(select(scene(), table)), color)"))
    best = {s: solve(question, facts, SolveOptions(top_k=2, semantics=s)).answers for s in SEMANTICS}
    assert [a.value for a in best["qlang"]] == ["white"]
    white, guess = best["thesis"]
    assert white.value == "white" and guess.value in COLOURS - {"white"}
    assert white.cost < guess.cost


def test_every_semantics_defines_every_operation_once() -> None:
    for semantics in SEMANTICS:
        assert theory(semantics).count("#defined query/3.") == 1
    assert "is_attr_value(color, white)." in theory("thesis")
    with pytest.raises(ValueError, match="unknown semantics"):
        theory("gqa")


def test_solve_and_explain_take_the_semantics(tmp_path: Path) -> None:
    path = str(tmp_path / "scene.json")
    Path(path).write_text(json.dumps(SCENE), encoding="utf-8")
    program = "choose_attr(unique(select(scene(), table)), color, blue, red)"
    runner = CliRunner()
    qlang_run = runner.invoke(cli, ["solve", "--scene", path], input=program)
    assert qlang_run.exit_code == 1 and "no answer" in qlang_run.output
    thesis = runner.invoke(cli, ["solve", "--scene", path, "--semantics", "thesis", "--top-k", "2"],
                           input=program)
    assert thesis.exit_code == 0 and sorted(thesis.output.split()) == ["1", "1", "blue", "red"]
    explained = runner.invoke(cli, ["explain", "--scene", path, "--semantics", "thesis",
                                    "--answer", "blue"], input=program)
    assert explained.exit_code == 0 and "has_attr(2,color,blue)" in explained.output
