"""Questions/s of `solve --jsonl` on each executor: local processes, and Ray on this machine.

    .venv/bin/python bench/executors.py [--copies N] [--repeat N]

The lines are the emma questions (GQA questions with their scene graphs) `--copies` times; each
configuration solves them all through `qlang.asp.batch.run` into memory: the local executor
with one process and with two, then a Ray instance on this machine (loopback only, started
once, its start-up timed apart) with one actor and with two.  Ray's figures include starting
its actors and Ray Data's planning, as a run of `qlangc solve --jsonl --executor ray` pays them.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from qlang.asp import batch
from qlang.asp.scene import SceneLibrary
from qlang.errors import Source
from qlang.executors import Executor, Local, Ray
from tests.test_asp_scene import SCENES, emma_questions


def rate(lines: list[bytes], settings: batch.BatchSettings, executor: Executor) -> float:
    out = io.StringIO()
    start = time.perf_counter()
    batch.run(lines, settings, out, executor=executor)
    seconds = time.perf_counter() - start
    assert out.getvalue().count("\n") == len(lines)
    return len(lines) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--copies", type=int, default=250, help="emma questions x N (default 250: 1,000)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    lines = [json.dumps({**q, "id": f"{n}-{k}"}).encode() for n in range(args.copies)
             for k, q in enumerate(emma_questions())]
    settings = batch.BatchSettings(SceneLibrary(Source((SCENES / "emma_sceneGraphs.json").read_text())))
    print(f"{len(lines)} lines, {os.cpu_count()} cores, {platform.processor() or platform.machine()}")
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # loopback only
    import ray

    start = time.perf_counter()
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False, logging_level="warning")
    print(f"ray.init (a new instance on this machine): {time.perf_counter() - start:.1f} s")
    configs: list[tuple[str, Executor]] = [
        ("local, 1 process", Local(1, batch.RECYCLE)), ("local, 2 processes", Local(2, batch.RECYCLE)),
        ("Ray on this machine, 1 actor", Ray(workers=1)), ("Ray on this machine, 2 actors", Ray(workers=2))]
    rates: dict[str, list[float]] = {name: [] for name, _ in configs}
    for _ in range(args.repeat):  # interleaved, so that a busy moment does not favour one
        for name, executor in configs:
            rates[name].append(rate(lines, settings, executor))
    for name, values in rates.items():
        print(f"{name:32} {statistics.median(values):7.0f} questions/s  "
              f"(runs: {', '.join(f'{v:.0f}' for v in values)})")
    ray.shutdown()


if __name__ == "__main__":
    main()
