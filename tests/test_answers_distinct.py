"""What `ask --top-k` and the web page list: the k best distinct answers, each with its best
cost, tied ones sharing a rank; `solve --top-k` keeps the seed thesis's k best models (the
ranking `eval` counts), and `solve --distinct` lists what `ask` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import qlang
from qlang import pipeline
from qlang.asp.scene import SceneLibrary
from qlang.errors import Source
from qlang.web import report
from tests.conftest import graphs, run, write

#: Real GQA scenes where `unique` is ambiguous: two brown pillows (so two models answer "brown"),
#: and a man in black pants and one in blue (two answers, tied).
PILLOWS = ("graphvqa_debug", "2336498", "query(unique(select(scene(), pillow)), color)")
PANTS = ("emma", "2410046", "query(unique(select(scene(), pants)), color)")


def facts(name: str, image: str) -> str:
    return SceneLibrary(Source(json.dumps(graphs(name)[image]))).facts()


def answered(name: str, image: str, program: str) -> pipeline.Answered:
    """What `ask` (after translating) and the page answer with the default top-k of three."""
    return pipeline.answer(qlang.compile(program), pipeline.Subject(facts(name, image)))


def scene_file(tmp_path: Path, name: str, image: str) -> str:
    return write(tmp_path / f"{image}.json", json.dumps(graphs(name)[image]))


def test_two_models_with_the_same_answer_are_one_answer(tmp_path: Path) -> None:
    name, image, program = PILLOWS
    code, out, _ = run("solve", "--top-k", "3", "--scene", scene_file(tmp_path, name, image), input=program)
    assert (code, out.splitlines()) == (0, ["1\tbrown", "1\tbrown"])  # the models: one per pillow
    result = answered(name, image, program)
    assert [(a.value, a.rank) for a in result.answers] == [("brown", 1)]
    assert [a["answer"] for a in report.answered(result, None, None, None)["answers"]] == ["brown"]


@pytest.mark.parametrize("case", [PILLOWS, PANTS], ids=["pillows", "pants"])
def test_ask_lists_what_solve_distinct_prints(case: tuple[str, str, str], tmp_path: Path) -> None:
    name, image, program = case
    code, out, _ = run("solve", "--top-k", "3", "--distinct", "--json", "--scene",
                       scene_file(tmp_path, name, image), input=program)
    assert code == 0
    assert [a.to_json() for a in answered(name, image, program).answers] == json.loads(out)["answers"]


def test_tied_distinct_answers_share_a_rank() -> None:
    found = answered(*PANTS).answers
    assert sorted(a.value for a in found) == ["black", "blue"]
    assert found[0].cost == found[1].cost  # a ground-truth scene: every model costs the same
    assert [a.rank for a in found] == [1, 1]
