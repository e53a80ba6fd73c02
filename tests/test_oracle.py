"""`qlangc oracle`: the failure classes of the gold programs (thesis Table 11), the answerable subset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from qlang.commands.main import cli
from qlang.evaluate.oracle import verdicts
from tests.conftest import DATA

SCENES = DATA / "gqa" / "scenes"
EMMA_QUESTIONS, EMMA_SCENES = SCENES / "emma_questions.json", SCENES / "emma_sceneGraphs.json"


def oracle(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["oracle", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout


def row(table: str, verdict: str) -> list[str]:
    return next(line for line in table.splitlines() if line.startswith(f"| {verdict} |")).split(" | ")[1:3]


def test_the_shared_questions_four_with_a_scene_all_answerable(tmp_path: Path) -> None:
    out = tmp_path / "answerable.json"
    code, table = oracle(str(EMMA_QUESTIONS), "--scenes", str(EMMA_SCENES), "--output", str(out))
    assert code == 0
    assert row(table, "answerable") == ["4", "4"] and row(table, "NoSceneGraph") == ["5", "5"]
    assert all(row(table, name) == ["0", "0"] for name in ("EmptyQuery", "MissingEdge", "WrongAnswer"))
    assert "4 of 9 questions answerable (curated, thesis semantics)" in table
    kept = json.loads(out.read_text())
    assert set(kept) == {"142457", "123159", "041477", "041438"}
    assert kept["041477"]["answer"] == "man" and "id" not in kept["041477"]


def step(operation: str, argument: str, *dependencies: int) -> dict[str, Any]:
    return {"operation": operation, "argument": argument, "dependencies": list(dependencies)}


#: Questions about the shared emma images whose gold programs fail, one failure class each.
FAILING = {
    "missing-edge": ("2353884", "no", [step("select", "shorts"), step("relate", "person,eating,s", 0),
                                        step("exist", "?", 1)]),
    "empty-query": ("2353884", "red", [step("select", "nose"), step("query", "color", 0)]),
    "non-trivial": ("2353884", "beach", [step("select", "scene"), step("query", "place", 0)]),
    "wrong": ("2320168", "right", [step("select", "shelf"), step("choose hposition", "left|right", 0)]),
    "uncategorized": ("2320168", "yes", [step("unheard of", "x")]),
}


def test_each_failure_class_is_counted() -> None:
    questions = [{"id": key, "imageId": image, "answer": answer, "semantic": program}
                 for key, (image, answer, program) in FAILING.items()]
    graphs = json.loads(EMMA_SCENES.read_text())
    assert verdicts(questions, graphs, "curated") == {
        "missing-edge": "MissingEdge", "empty-query": "EmptyQuery", "non-trivial": "NonTrivialCategory",
        "wrong": "WrongAnswer", "uncategorized": "Uncategorized"}
    # the ASP theory's semantics: an empty relation is an empty set, so "is there ...?" says no
    assert verdicts(questions[:1], graphs, "curated", "qlang") == {"missing-edge": "answerable"}
