"""Uncertain scenes: answers rank by how likely the scene they need is (seed thesis, Listing 17)."""

from __future__ import annotations

import json

import qlang
from qlang.asp.explain import explain
from qlang.asp.options import SolveOptions
from qlang.asp.outcome import Solution
from qlang.asp.scene import SceneLibrary, weight
from qlang.asp.solve import solve
from qlang.errors import Source
from qlang.passes import lower
from tests.conftest import WEIGHTED

#: Two detected cups, each unlikely to be green; a table that is likely white, maybe brown
#: (also a scene of bench/outputs.py's).


def ask(program: str, top_k: int = 3) -> Solution:
    """The top-k distinct answers (the models' ranking is tested in test_top_k.py)."""
    facts = SceneLibrary(Source(json.dumps(WEIGHTED))).facts()
    return solve(lower.facts(qlang.compile(program)), facts, SolveOptions(top_k=top_k, distinct=True))


def test_the_likeliest_scene_has_no_green_cup() -> None:
    (best, *_) = ask("exist(filter(select(scene(), cup), color, green))").answers
    assert best.value == "no"


def test_the_unlikely_reading_wins_because_the_likely_one_leaves_no_answer() -> None:
    likeliest = ask("exist(select(scene(), cup))").answers[0].cost
    result = ask("query(unique(filter(select(scene(), cup), color, green)), material)")
    assert [a.value for a in result.answers] == ["plastic", "glass"]
    plastic, glass = result.answers
    # plastic needs c1 green (p 0.3) instead of not green (0.7), and picks c1 in `unique`
    assert plastic.cost[0] - likeliest[0] == weight(0.3) - weight(0.7) + weight(0.9)
    assert glass.cost[0] - likeliest[0] == weight(0.2) - weight(0.8) + weight(0.8)
    assert plastic.cost < glass.cost


def test_query_ranks_the_likelier_of_two_possible_values_first() -> None:
    result = ask("query(unique(select(scene(), table)), color)")
    assert [a.value for a in result.answers] == ["white", "brown"]
    assert result.answers[0].cost < result.answers[1].cost


def test_verify_gives_both_answers_in_cost_order() -> None:
    result = ask("verify_attr(unique(select(scene(), table)), color, brown)")
    assert [a.value for a in result.answers] == ["yes", "no"]
    result = ask("verify_attr(unique(select(scene(), table)), color, white)")
    assert [a.value for a in result.answers] == ["yes", "no"]
    assert result.answers[1].cost[0] - result.answers[0].cost[0] == weight(0.1) - weight(0.9)


def test_top_one_is_the_first_of_top_k() -> None:
    program = "query(unique(filter(select(scene(), cup), color, green)), material)"
    assert ask(program, top_k=1).answers == ask(program).answers[:1]


def test_explanation_shows_the_uncertain_fact_the_answer_needs() -> None:
    program = "query(unique(filter(select(scene(), cup), color, green)), material)"
    facts = SceneLibrary(Source(json.dumps(WEIGHTED))).facts()
    trace = explain(lower.facts(qlang.compile(program)), facts, answer="glass")
    assert trace is not None and trace.answer.value == "glass"
    step = next(s for s in trace.steps if s.op == "filter")
    assert step.objects == ("c2",)
    assert "has_attr(c2,color,green)" in step.facts
