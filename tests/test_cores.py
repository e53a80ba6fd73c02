"""The threads llama.cpp runs: the cores a busy machine leaves free, asked before each request."""

from __future__ import annotations

import os
from pathlib import Path

from qlang.translate.backends.cores import free_cores


def test_the_free_cores_are_the_affinity_less_what_else_runs(tmp_path: Path) -> None:
    mine, machine = len(os.sched_getaffinity(0)), os.cpu_count() or 1
    loadavg = tmp_path / "loadavg"
    loadavg.write_text("0.50 0.40 0.30 1/345 6789\n")
    assert free_cores(loadavg) == mine
    loadavg.write_text(f"9.0 9.0 9.0 {1 + 4 * machine}/345 6789\n")
    assert free_cores(loadavg) == 1
    assert free_cores(tmp_path / "missing") == mine
