"""Experiments: they run, report, and resume after being killed without redoing work."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import qlang
from qlang.evaluate import report
from qlang.evaluate.experiments import (
    LOG,
    Config,
    Question,
    _result,
    constrained,
    models,
    prompt_grid,
    syntaxes,
)
from qlang.translate.translator import Settings, Translation
from tests.conftest import DATA

QUESTIONS = str(DATA / "gqa" / "questions" / "testdev_ood_head.json")


def test_the_grids_are_the_thesis_tables() -> None:
    base = Settings()
    assert len(prompt_grid(base)) == 5 * 3 * 2
    assert {c.settings.syntax for c in syntaxes(base)} == {"gqa", "flat", "nested", "code"}
    assert not next(c for c in syntaxes(base) if c.label == "gqa").settings.constrained
    assert [c.settings.constrained for c in constrained(base)] == [False, True, True, True]


def test_model_specs_name_the_translator_backend_and_model() -> None:
    fine, gemma, plain = models(Settings(), ["finetuned/llama-cpp", "fewshot/llama-cpp:gemma3",
                                             "llama-cpp:smollm2"])
    assert (fine.settings.translator, fine.backend, fine.model) == ("finetuned", "llama-cpp", None)
    assert (gemma.settings.translator, gemma.model) == ("fewshot", "gemma3")
    assert (plain.settings.translator, plain.model) == ("fewshot", "smollm2")
    with pytest.raises(qlang.QlangError, match="unknown translator"):
        models(Settings(), ["clever/llama-cpp"])


class _Fixed:
    """A translator that always answers with the same program."""

    def __init__(self, program: str) -> None:
        self.program = program

    def translate(self, question: str) -> Translation:
        return Translation(question, self.program, raw=[self.program])


def test_each_result_records_exact_strict_and_execution() -> None:
    gold = qlang.parse("and(exist(select(scene(), cat)), exist(filter(select(scene(), dog), color, black)))")
    question = Question("1", "Is there a cat and a black dog?", gold)
    config = Config("c", Settings(syntax="nested"))
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
    assert "| n | parse | check | exact | strict | execution | answer acc. |" in text
    assert "| 2 | 100.0% | 100.0% | 50.0% | 0.0% | 100.0% | – |" in text
    assert "| 1 | 100.0% | 100.0% | – | 100.0% | – | – |" in text
    assert (tmp_path / "rates.png").stat().st_size > 1000


def _keys(log: Path) -> list[tuple[str, str]]:
    return [(r["config"], r["id"]) for r in map(json.loads, log.read_text().splitlines())]


def test_a_killed_experiment_resumes_without_recomputing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [sys.executable, "-m", "qlang.cli", "experiment", "constrained", "--questions",
               QUESTIONS, "--limit", "3", "--out", str(out), "--examples", "2", "--max-tokens", "48"]
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = out / LOG
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 2):
        time.sleep(0.2)
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    before = log.read_text().splitlines()
    assert 2 <= len(before) < 12, "the first run should have been killed part way"
    second = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert second.returncode == 0, second.stderr
    after = log.read_text().splitlines()
    kept = [line for line in before if line.endswith("}")]
    assert after[: len(kept)] == kept  # finished results were kept, not recomputed
    keys = _keys(log)
    assert len(keys) == len(set(keys)) == 4 * 3  # every (configuration, question) exactly once
    report = (out / "report.md").read_text()
    assert "| decoding |" in report and "GBNF" in report and "unconstrained" in report
    assert (out / "rates.png").stat().st_size > 1000
