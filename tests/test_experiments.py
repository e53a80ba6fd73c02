"""Experiments: they run, report, and resume after being killed without redoing work."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from qlang.evaluate.experiments import LOG, constrained, prompt_grid, syntaxes
from qlang.translate.translator import Settings
from tests.conftest import DATA

QUESTIONS = str(DATA / "gqa" / "questions" / "testdev_ood_head.json")


def test_the_grids_are_the_thesis_tables() -> None:
    base = Settings()
    assert len(prompt_grid(base)) == 5 * 3 * 2
    assert {c.settings.syntax for c in syntaxes(base)} == {"gqa", "flat", "nested", "code"}
    assert not next(c for c in syntaxes(base) if c.label == "gqa").settings.constrained
    assert [c.settings.constrained for c in constrained(base)] == [False, True, True, True]


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
