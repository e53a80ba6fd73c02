"""Honest evaluation: `eval` counts every translation, a failure that is not the
translation's as wrong and named; experiments write a record for every line of the question file.

Each case breaks one input of the real emma questions and scene graphs: a scene whose object is
related to one that is not there (the oracle's reader and the encoder disagree on it), a step
number beyond Python's integer parsing, a gold program GQA has no operation for, question lines
that are no questions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qlang import wordnet
from tests.conftest import EMMA, SCENES, graphs, run, write

QUESTIONS = str(SCENES / "emma_questions.json")
#: "Who wears shorts?" and its right answer, over the scene graph of image 2353884
SHORTS = "query(unique(relate(select(scene(), shorts), person, wearing, subject)), name)"
#: a step number Python refuses to parse (more than 4,300 digits)
HUGE = "1" * 5000
#: an experiment with qlang's small parser alone (no language model to load)
SMALL = ("experiment", "models", "--models", "small")


def emma(qid: str) -> dict[str, Any]:
    return {"id": qid, **json.loads(Path(QUESTIONS).read_text())[qid]}


def broken_scenes(tmp_path: Path) -> str:
    """The emma scene graphs, one object of image 2353884 related to an object not there."""
    scenes = graphs("emma")
    image = json.loads(json.dumps(scenes["2353884"]))
    next(iter(image["objects"].values()))["relations"].append({"name": "near", "object": "nowhere"})
    return write(tmp_path / "scenes.json", json.dumps(scenes | {"2353884": image}))


def lines(tmp_path: Path, name: str, *records: dict[str, Any] | str) -> str:
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)
    return write(tmp_path / name, text)


def evaluated(*args: str) -> tuple[dict[str, Any], str]:
    code, out, err = run("eval", *args, "--json", "--workers", "1")
    assert code == 0, err
    return json.loads(out), err


def top1(figures: dict[str, Any]) -> dict[str, Any]:
    return next(r for r in figures["answers"] if (r["generosity"], r["k"]) == ("strict", 1))


def test_a_translation_its_scene_fails_is_counted_wrong_and_named(tmp_path: Path) -> None:
    """The right program over a scene that cannot be used: counted, wrong, the scene's error
    on standard error; the text figures say how many failed."""
    translations = lines(tmp_path, "t.jsonl", {"id": "041477", "program": SHORTS})
    options = ["--questions", QUESTIONS, "--scenes", broken_scenes(tmp_path)]
    figures, err = evaluated(translations, *options)
    assert (top1(figures)["questions"], top1(figures)["accuracy"]) == (1, 0.0)
    assert figures["failed"] == 1
    assert "id 041477: counted wrong:" in err and "an 'object' of the scene" in err
    code, out, _ = run("eval", translations, *options, "--workers", "1")
    assert code == 0 and "failed: 1 of 1 counted wrong" in out


def test_a_translation_whose_judging_fails_is_counted_wrong(tmp_path: Path) -> None:
    """The raw output the lenient reader answers with (the strict one refused it) holds a step
    number the lenient reader's own pass over the text cannot parse."""
    raw = f"select(1, {HUGE}, shorts). exist(2, 1). end(2)."
    translations = lines(tmp_path, "t.jsonl", {"id": "041477", "program": None, "raw": raw})
    figures, _ = evaluated(translations, "--questions", QUESTIONS, "--syntax", "flat", "--scenes", EMMA)
    assert (top1(figures)["questions"], top1(figures)["accuracy"]) == (1, 0.0)


def test_a_gold_program_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    question = emma("041477") | {"id": "q1", "semantic": [
        {"operation": "fly", "dependencies": [], "argument": "shorts"}]}
    questions = lines(tmp_path, "q.jsonl", question)
    translations = lines(tmp_path, "t.jsonl", {"id": "q1", "program": SHORTS})
    figures, err = evaluated(translations, "--questions", questions)
    assert figures["programs"]["total"] == 0
    assert "id q1: not scored: its gold program cannot be read" in err and "'fly'" in err


def logged(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_every_line_of_the_question_file_gets_a_record(tmp_path: Path) -> None:
    """A question that is a number, a line nested 5,000 deep, a line that is no JSON: each a
    failure record (by id, else by line), counted in the report."""
    questions = lines(tmp_path, "q.jsonl", emma("041477"), {"id": "q2", "question": 7}, "[" * 5000,
                      "not json")
    out = tmp_path / "run"
    code, _, err = run(*SMALL, "--questions", questions, "--out", str(out))
    assert code == 0, err
    records = logged(out)
    assert [(r["id"], r.get("input_line")) for r in records] == [("041477", None), ("q2", None), (None, 3),
                                                                 (None, 4)]
    assert records[0]["checked"] and "failure" not in records[0]
    assert all(r["failure"]["kind"] == "input" for r in records[1:])
    assert "'question'" in records[1]["failure"]["message"]
    assert "Failures: 3 results count as wrong" in (out / "report.md").read_text()


def test_an_experiment_over_a_scene_that_fails_records_the_failure(tmp_path: Path) -> None:
    questions, scenes = lines(tmp_path, "q.jsonl", emma("041477"), emma("142457")), broken_scenes(tmp_path)
    out = tmp_path / "run"
    code, _, err = run(*SMALL, "--questions", questions, "--out", str(out), "--scenes", scenes)
    assert code == 0, err
    shorts, shelf = logged(out)
    assert "an 'object' of the scene" in shorts["failure"]["message"]
    assert shorts["answers"] == [] and not shorts["correct"] and shorts["exact"]
    assert "failure" not in shelf and shelf["correct"]  # its image (2320168) is whole
    assert "Failures: 1 results count as wrong" in (out / "report.md").read_text()


def test_the_pipeline_experiment_records_every_line_and_row(tmp_path: Path) -> None:
    """Table 10 with a line that is no question (a failure record in the isolated row) and a
    weighted scene that cannot be used (the rows over it fail; the isolated row is judged)."""
    questions = lines(tmp_path, "q.jsonl", emma("041477"), {"id": "q2", "question": 7})
    out = tmp_path / "run"
    code, _, err = run("experiment", "pipeline", "--translator", "small", "--questions", questions,
                       "--scenes", EMMA, "--weighted", broken_scenes(tmp_path), "--out", str(out))
    assert code == 0, err
    records = {(r["config"], r["id"]): r for r in logged(out)}
    assert sorted(records) == [("base", "041477"), ("isolated", "041477"), ("isolated", "q2"),
                               ("pipeline", "041477")]
    assert records[("isolated", "041477")]["correct"] and "failure" not in records[("isolated", "041477")]
    assert all("failure" in records[(row, "041477")] and not records[(row, "041477")]["correct"]
               for row in ("base", "pipeline"))
    assert records[("isolated", "q2")]["failure"]["kind"] == "input"
    report = (out / "report.md").read_text()
    assert "Failures: 3 results count as wrong" in report and "| isolated | 2 | strict | 50.00% |" in report


def test_eval_without_wordnet_is_a_setup_error_not_every_question_wrong(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle reads WordNet: missing, it used to fail every question alone, so that eval
    printed 0 % and exit 0; now it stops before the first, saying what to install."""
    translations = lines(tmp_path, "t.jsonl", {"id": "041477", "program": SHORTS})
    monkeypatch.setenv(wordnet.ENV_VAR, str(tmp_path))
    wordnet.reader.cache_clear()
    try:
        code, out, err = run("eval", translations, "--questions", QUESTIONS, "--scenes", EMMA)
    finally:
        wordnet.reader.cache_clear()
    assert (code, out) == (1, "")
    assert err.startswith("error: the oracle needs WordNet") and "make install" in err
