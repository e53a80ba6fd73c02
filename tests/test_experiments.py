"""Experiments: they run, report, and resume after being killed without redoing work."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import qlang
from qlang.evaluate import report
from qlang.evaluate.answers import THESIS_JUDGING
from qlang.evaluate.experiments import (
    LOG,
    Question,
    TranslatorConfig,
    _result,
    constrained,
    models,
    prompt_grid,
    syntaxes,
)
from qlang.translate.translator import Settings, Translation
from tests.conftest import DATA, killed_qlangc

QUESTIONS = str(DATA / "gqa" / "questions" / "testdev_ood_head.json")


def test_the_grids_are_the_thesis_tables() -> None:
    base = Settings()
    assert len(prompt_grid(base)) == 5 * 3 * 2
    free = syntaxes(replace(base, constrained=False))  # the thesis's: every syntax decoded alike
    assert [c.settings.syntax for c in free] == ["gqa", "flat", "nested", "code"]
    assert not any(c.settings.constrained for c in free)
    assert [c.settings.syntax for c in syntaxes(base) if c.settings.constrained] == ["flat", "nested", "code"]
    assert len(syntaxes(base)) == 3  # GQA's JSON has no grammar: left out, not decoded differently
    assert [c.settings.constrained for c in constrained(base)] == [False, True, True, True]


def test_model_specs_name_the_translator_backend_and_model() -> None:
    fine, gemma, plain = models(Settings(), ["finetuned/llama-cpp", "fewshot/llama-cpp:gemma3",
                                             "llama-cpp:smollm2"])
    assert (fine.settings.translator, fine.backend, fine.model) == ("finetuned", "llama-cpp", None)
    assert (gemma.settings.translator, gemma.model) == ("fewshot", "gemma3")
    assert (plain.settings.translator, plain.model) == ("fewshot", "smollm2")
    with pytest.raises(qlang.QlangError, match="unknown translator"):
        models(Settings(), ["clever/llama-cpp"])
    small, cascade = models(Settings(), ["small", "cascade"])
    assert (small.settings.translator, cascade.settings.translator) == ("small", "cascade")
    assert cascade.backend == "llama-cpp" and cascade.model is None


def test_the_models_report_shows_each_path_of_the_small_parser(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from qlang.commands.main import cli

    out = tmp_path / "run"
    result = CliRunner().invoke(cli, ["experiment", "models", "--models", "small", "--questions",
                                      QUESTIONS, "--limit", "20", "--out", str(out)])
    assert result.exit_code == 0, result.output
    logged = [json.loads(line) for line in (out / LOG).read_text().splitlines()]
    assert len(logged) == 20 and all(r["path"] == "small" and r["checked"] for r in logged)
    text = (out / "report.md").read_text()
    assert "| configuration | path | answers | exact there | time (s) |" in text
    assert "| small | small | 100.0% |" in text


class _Fixed:
    """A translator that always answers with the same program (showing `shown` examples)."""

    def __init__(self, program: str, shown: int = 0) -> None:
        self.program = program
        self.shown = shown

    def translate(self, question: str) -> Translation:
        return Translation(question, self.program, raw=[self.program], examples=self.shown)


def test_each_result_records_exact_strict_and_execution() -> None:
    gold = qlang.parse("and(exist(select(scene(), cat)), exist(filter(select(scene(), dog), color, black)))")
    question = Question("1", "Is there a cat and a black dog?", gold)
    config = TranslatorConfig("c", Settings(syntax="nested"))
    swapped = _result(config, question, _Fixed(  # type: ignore[arg-type]
        "and(exist(filter(select(scene(), dog), color, black)), exist(select(scene(), cat)))"))
    assert (swapped["exact"], swapped["strict"], swapped["execution"]) == (True, False, True)
    dropped = _result(config, question, _Fixed(  # type: ignore[arg-type]
        "and(exist(select(scene(), cat)), exist(select(scene(), dog)))"))
    assert dropped["checked"] and not dropped["exact"] and not dropped["execution"]
    assert dropped["dropped"] == {"filter": 1}


def test_the_report_has_exact_strict_and_execution_and_reads_old_logs(tmp_path: Path) -> None:
    """A log from before `strict` existed: its `exact` was order-sensitive, so it is strict."""
    results = [{"config": "new", "id": "1", "parsed": True, "checked": True, "exact": True,
                "strict": False, "execution": True, "seconds": 1.0, "completion_tokens": 10},
               {"config": "new", "id": "2", "parsed": True, "checked": True, "exact": False,
                "strict": False, "execution": True, "seconds": 1.0, "completion_tokens": 10},
               {"config": "old", "id": "1", "parsed": True, "checked": True, "exact": True,
                "seconds": 2.0, "completion_tokens": 10}]
    log = tmp_path / LOG
    log.write_text("".join(json.dumps(r) + "\n" for r in results))
    text = report.write(tmp_path, "Test", log, [], "qlangc test").read_text()
    assert "| n | parse | check | exact | strict | execution | answer acc. | answerable | vs oracle |" in text
    assert "| 2 | 100.0% | 100.0% | 50.0% | 0.0% | 100.0% | – | – | – |" in text
    assert "| 1 | 100.0% | 100.0% | – | 100.0% | – | – | – | – |" in text
    assert (tmp_path / "rates.png").stat().st_size > 1000


def _keys(log: Path) -> list[tuple[str, str]]:
    return [(r["config"], r["id"]) for r in map(json.loads, log.read_text().splitlines())]


def test_a_killed_experiment_resumes_without_recomputing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    options = ["experiment", "constrained", "--questions", QUESTIONS, "--limit", "3", "--out", str(out),
               "--examples", "2", "--max-tokens", "48"]
    first = subprocess.run([*killed_qlangc(2), *options], capture_output=True, timeout=900)
    assert first.returncode == -signal.SIGKILL, first.stderr
    log = out / LOG
    before = log.read_text().splitlines()
    assert len(before) == 2  # killed part way, with its results so far logged
    command = [sys.executable, "-m", "qlang.commands.main", *options]
    second = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert second.returncode == 0, second.stderr
    after = log.read_text().splitlines()
    assert after[:2] == before  # finished results were kept, not recomputed
    keys = _keys(log)
    assert len(keys) == len(set(keys)) == 4 * 3  # every (configuration, question) exactly once
    report = (out / "report.md").read_text()
    assert "| decoding |" in report and "GBNF" in report and "unconstrained" in report
    assert (out / "rates.png").stat().st_size > 1000


def test_the_prompt_grid_log_keeps_the_configured_example_count(tmp_path: Path) -> None:
    """"1 example + cover" shows 9 examples: the log says examples=1, examples_shown=9; the
    report has the thesis's #Avg Examples and a row per sampling strategy (Table 5)."""
    one_cover = next(c for c in prompt_grid(Settings()) if c.label == "n=1 random +cover")
    gold = qlang.parse("exist(select(scene(), cat))")
    record = _result(one_cover, Question("1", "Is there a cat?", gold),
                     _Fixed("exist(select(scene(), cat))", shown=9))  # type: ignore[arg-type]
    assert (record["examples"], record["examples_shown"], record["cover_operators"]) == (1, 9, True)
    results = [record, record | {"id": "2", "examples_shown": 8, "exact": False},
               record | {"config": "n=3 jaccard", "examples": 3, "sampling": "jaccard",
                         "cover_operators": False, "examples_shown": 3}]
    log = tmp_path / LOG
    log.write_text("".join(json.dumps(r) + "\n" for r in results))
    text = report.write(tmp_path, "Grid", log, ["examples", "sampling", "cover_operators"], "q").read_text()
    assert "| examples | sampling | cover_operators | n | #avg examples | parse |" in text
    assert "| 1 | random | True | 2 | 8.50 | 100.0% | 100.0% | 50.0% |" in text
    assert "By sampling strategy" in text
    assert "| random | 2 | 8.50 |" in text and "| jaccard | 1 | 3.00 |" in text


def test_answers_are_judged_where_the_image_has_a_scene_graph(tmp_path: Path) -> None:
    """The emma questions with a scene: the gold program's own translation answers them all;
    the report gives top-1/3/5 at each generosity, raw and against the oracle."""
    from qlang.asp.scene import SceneLibrary
    from qlang.errors import Source
    from qlang.evaluate.experiments import answerable_only, questions_from, run

    scenes_dir = DATA / "gqa" / "scenes"
    emma = json.loads((scenes_dir / "emma_questions.json").read_text())
    records = [{"id": k, **v} for k, v in emma.items()]
    questions = questions_from(records)
    library = SceneLibrary(Source((scenes_dir / "emma_sceneGraphs.json").read_text()))
    kept = answerable_only(questions, library)
    assert [q.id for q in kept] == ["142457", "123159", "041477", "041438"]

    class Gold:
        """Translates each question into its gold program."""

        def translate(self, text: str) -> Translation:
            semantic = next(q.record["semantic"] for q in questions if q.text == text)
            program = qlang.convert(json.dumps(semantic), to="nested", from_="gqa")
            return Translation(text, program, raw=[program])

    config = TranslatorConfig("gold", Settings(syntax="nested"))
    log = run([config], questions, tmp_path, lambda _: Gold(),  # type: ignore[arg-type, return-value]
              progress=False, scenes=library)
    results = [json.loads(line) for line in log.read_text().splitlines()]
    judged = [r for r in results if "answer_correct" in r]
    assert len(results) == 9 and len(judged) == 4
    assert all(r["correct"] and r["answerable"] for r in judged)
    text = report.write(tmp_path, "Gold", log, [], "q").read_text()
    assert "| 9 | " in text and "strict@1 (raw / oracle)" in text
    assert "100.0% / 100.0%" in text


def test_the_lenient_reader_answers_what_the_strict_one_refuses(tmp_path: Path) -> None:
    """As the thesis's converter: `Truck = ...` is a variable, an undefined flat step is scene."""
    from qlang.asp.scene import SceneLibrary
    from qlang.errors import Source
    from qlang.evaluate import lenient

    assert lenient.read("Truck = unique(select(scene(), truck))\nquery(Truck, color)", "code") == \
        qlang.parse("query(unique(select(scene(), truck)), color)")
    assert lenient.read("select(1, 7, shorts). relate(2, 1, person, wearing, subject). unique(3, 2). "
                        "query(4, 3, name). end(4).", "flat") == \
        qlang.parse("query(unique(relate(select(scene(), shorts), person, wearing, subject)), name)")
    with pytest.raises(qlang.QlangError):
        qlang.parse("Truck = unique(select(scene(), truck))\nquery(Truck, color)", "code")

    scenes_dir = DATA / "gqa" / "scenes"
    library = SceneLibrary(Source((scenes_dir / "emma_sceneGraphs.json").read_text()))
    record = {"id": "041477", **json.loads((scenes_dir / "emma_questions.json").read_text())["041477"]}
    question = Question("041477", record["question"], None, record)
    output = "Man = unique(relate(select(scene(), shorts), person, wearing, subject))\nquery(Man, name)"

    class Refused:
        def translate(self, text: str) -> Translation:
            return Translation(text, None, raw=[output])  # the strict reader refused it

    config = TranslatorConfig("code", Settings(syntax="code"))
    read = _result(config, question, Refused(), library)  # type: ignore[arg-type]
    strict = _result(config, question, Refused(), library, replace(THESIS_JUDGING, lenient=False))  # type: ignore[arg-type]
    assert (read["answers"][:1], read["correct"]) == (["man"], True)
    assert (strict["answers"], strict["correct"]) == ([], False)
