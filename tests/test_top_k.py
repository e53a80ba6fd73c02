"""Top-k as the seed thesis defines it: the k best models by cost, ties shown as ties."""

from __future__ import annotations

import json
from pathlib import Path

import qlang
from qlang.asp.options import SolveOptions
from qlang.asp.scene import SceneLibrary
from qlang.asp.solve import solve
from qlang.errors import Source
from qlang.evaluate.matching import Generosity, top_k_match
from qlang.passes import lower
from tests.conftest import TIE, WEIGHTED, run, write


def models(scene: dict[str, object], program: str, k: int) -> list[tuple[int, str]]:
    facts = SceneLibrary(Source(json.dumps(scene))).facts()
    result = solve(lower.facts(qlang.compile(program)), facts, SolveOptions(top_k=k))
    return [(a.rank, a.value) for a in result.answers]


def test_tied_models_share_rank_one_and_each_counts_once() -> None:
    found = models(TIE, "verify_attr(unique(select(scene(), dog)), color, black)", 5)
    assert sorted(found) == [(1, "no"), (1, "yes")]  # two models, not padded to five
    assert len(models(TIE, "verify_attr(unique(select(scene(), dog)), color, black)", 1)) == 1


def test_an_unambiguous_ground_truth_question_has_one_model_so_top_1_is_top_5() -> None:
    found = models(TIE, "query(unique(select(scene(), cat)), color)", 5)
    assert found == [(1, "black")]
    answers = [value for _, value in found]
    assert [top_k_match(answers, "black", k, Generosity.parse("strict")) for k in (1, 3, 5)] == [True] * 3


def test_weighted_models_repeat_an_answer_in_cost_order_and_distinct_does_not() -> None:
    program = "query(unique(filter(select(scene(), cup), color, green)), material)"
    found = models(WEIGHTED, program, 3)
    assert [value for _, value in found] == ["plastic", "plastic", "glass"]
    assert [rank for rank, _ in found] == [1, 2, 3]
    facts = SceneLibrary(Source(json.dumps(WEIGHTED))).facts()
    distinct = solve(lower.facts(qlang.compile(program)), facts, SolveOptions(top_k=3, distinct=True))
    assert [a.value for a in distinct.answers] == ["plastic", "glass"]


def test_solve_prints_each_model_with_its_rank(tmp_path: Path) -> None:
    scene = write(tmp_path / "tie.json", json.dumps(TIE))
    code, out, _ = run("solve", "--top-k", "3", "--scene", scene,
                       input="verify_attr(unique(select(scene(), dog)), color, black)")
    assert code == 0
    assert sorted(out.splitlines()) == ["1\tno", "1\tyes"]
