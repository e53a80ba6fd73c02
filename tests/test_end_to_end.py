"""`qlangc experiment pipeline`: the thesis's Table 10 rows from stand-in translators and a small
weighted scene built here."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from qlang.asp.scene import SceneLibrary
from qlang.commands.main import cli
from qlang.errors import Source
from qlang.evaluate import end_to_end
from qlang.evaluate.experiments import LOG, questions_from
from qlang.translate.translator import Translation


def box(x: int) -> dict[str, int]:
    return {"x": x, "y": 10, "w": 50, "h": 50}


#: The truth: a white cup on a table.
TRUTH = {"img": {"width": 300, "height": 300, "objects": {
    "1": {"name": "cup", **box(10), "attributes": ["white"], "relations": [{"name": "on", "object": "2"}]},
    "2": {"name": "table", **box(100), "attributes": [], "relations": []}}}}
#: What the front end saw with the gold concepts: a cup, likelier red than white, and a table.
WEIGHTED = {"img": {"width": 300, "height": 300, "objects": {
    "a": {"name": "cup", "confidence": 0.9, **box(10), "relations": [],
          "attributes": [{"value": "red", "confidence": 0.7}, {"value": "white", "confidence": 0.6}]},
    "b": {"name": "table", "confidence": 0.8, **box(100), "relations": [], "attributes": []}}}}
#: With the translation's concepts, for question q1 only: the cup, surely white.
BLIND = {"q1": {"width": 300, "height": 300, "objects": {
    "a": {"name": "cup", **box(10), "relations": [], "attributes": [{"value": "white", "confidence": 0.9}]}}}}
QUESTIONS = [
    {"id": "q1", "question": "What color is the cup?", "answer": "white", "imageId": "img",
     "semantic": [{"operation": "select", "dependencies": [], "argument": "cup (1)"},
                  {"operation": "query", "dependencies": [0], "argument": "color"}]},
    {"id": "q2", "question": "Is there a table?", "answer": "yes", "imageId": "img",
     "semantic": [{"operation": "select", "dependencies": [], "argument": "table (2)"},
                  {"operation": "exist", "dependencies": [0], "argument": "?"}]},
]
#: The stand-in translator: right about the cup, wrong about the table.
TRANSLATIONS = {"What color is the cup?": "query(unique(select(scene(), cup)), color)",
                "Is there a table?": "exist(select(scene(), chair))"}


class StandIn:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def translate(self, question: str) -> Translation:
        self.asked.append(question)
        program = TRANSLATIONS[question]
        return Translation(question, program, raw=[program])


def library(scenes: dict[str, object]) -> SceneLibrary:
    return SceneLibrary(Source(json.dumps(scenes)))


def test_the_rows_of_table_10(tmp_path: Path) -> None:
    scenes = end_to_end.PipelineScenes(library(TRUTH), library(WEIGHTED), library(BLIND))
    translator = StandIn()
    log = end_to_end.run(questions_from(QUESTIONS), tmp_path, lambda: translator, scenes,  # type: ignore[arg-type]
                       "nested", progress=False)
    assert translator.asked == [q["question"] for q in QUESTIONS]  # once per question, for all rows
    results = {(r["config"], r["id"]): r for r in map(json.loads, log.read_text().splitlines())}
    rows = [(row, q) for row in ("isolated", "base", "pipeline") for q in ("q1", "q2")]
    assert sorted(results) == sorted([*rows, ("blind", "q1")])  # blind scenes only for q1
    assert results[("isolated", "q1")]["answers"] == ["white"]
    # the weighted scene's likeliest cup is red; white comes second
    assert results[("base", "q1")]["answers"][0] == results[("pipeline", "q1")]["answers"][0] == "red"
    assert results[("pipeline", "q1")]["answer_correct"]["strict@3"]
    assert results[("blind", "q1")]["correct"]
    assert results[("base", "q2")]["correct"] and not results[("pipeline", "q2")]["correct"]

    text = end_to_end.write(tmp_path, log, "qlangc experiment pipeline").read_text()
    assert "| row | n | generosity | top 1 | top 3 | top 5 | top 1 vs base |" in text
    assert "| isolated | 2 | strict | 50.00% | 50.00% | 50.00% | – |" in text
    assert "| base | 2 | strict | 50.00% | 100.00% | 100.00% | 100.00% |" in text
    assert "| pipeline | 2 | strict | 0.00% | 50.00% | 50.00% | 0.00% |" in text
    assert "| blind | 1 | strict | 100.00% | 100.00% | 100.00% | 0.00% |" in text


def test_a_resumed_run_translates_only_what_is_missing(tmp_path: Path) -> None:
    scenes = end_to_end.PipelineScenes(library(TRUTH), library(WEIGHTED))
    questions = questions_from(QUESTIONS)
    end_to_end.run(questions[:1], tmp_path, StandIn, scenes, "nested", progress=False)  # type: ignore[arg-type]
    again = StandIn()
    log = end_to_end.run(questions, tmp_path, lambda: again, scenes, "nested",  # type: ignore[arg-type]
                       progress=False)
    assert again.asked == ["Is there a table?"]
    assert len(log.read_text().splitlines()) == 6 and (tmp_path / LOG) == log


def test_the_command_needs_the_ground_truth(tmp_path: Path) -> None:
    questions, weighted = tmp_path / "q.json", tmp_path / "w.json"
    questions.write_text(json.dumps({q["id"]: q for q in QUESTIONS}))
    weighted.write_text(json.dumps(WEIGHTED))
    result = CliRunner().invoke(cli, ["experiment", "pipeline", "--questions", str(questions),
                                      "--weighted", str(weighted), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "needs --scenes" in result.output
