"""Milliseconds per question for encoding + grounding + solving, and batch questions/s.

    .venv/bin/python bench/solve.py [--repeat N] [--copies N]

Per question: the program is compiled (parse, check, lower), the scene encoded (GQA JSON
graphs from scratch; GS-VQA ASP scenes are used as they are) and the question solved with a
fresh clingo Control (ground + optimise), over the real examples: the 50 GQA yes/no examples,
the 10 GS-VQA encodings and the 4 emma questions with GQA scene graphs.  Batch mode runs
`qlangc solve --jsonl`'s engine on the emma questions repeated `--copies` times, with one
worker and with every core: each process grounds a scene once for all its questions.  Its peer
answers the same lines in one process, each compiled and solved with a fresh Control (`solve`),
as the batch did before it grouped questions by scene.  Each batch line gives wall and CPU
time (the workers' included).
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
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import qlang
from qlang.asp import batch
from qlang.asp.scene import SceneLibrary
from qlang.asp.solve import solve
from qlang.errors import Source
from qlang.passes.lower import facts
from qlang.records import output
from qlang.records.program_lines import read_records
from tests.test_asp_scene import SCENES, emma_questions
from tests.test_asp_theory import ASP, encoded_question, yesno_examples

Question = Callable[[], str]


def questions() -> list[tuple[str, Question]]:
    """(name, run) per real example; run does the whole job and returns the answer."""
    items: list[tuple[str, Question]] = []
    for n, (_, program, scene) in enumerate(yesno_examples()):
        items.append((f"yesno {n}", lambda p=program, s=scene: _answer(p, "flat", lambda: s)))
    for path in sorted((ASP / "encoded_questions").glob("*.lp")):
        scene, program, _ = encoded_question(path)
        items.append((path.stem, lambda p=program, s=scene: _answer(p, "flat", lambda: s)))
    text = (SCENES / "emma_sceneGraphs.json").read_text()
    for q in emma_questions():
        encode = lambda image=q["imageId"]: SceneLibrary(Source(text)).facts(image)  # noqa: E731
        items.append((q["question"], lambda p=q["semanticStr"], e=encode: _answer(p, "gqa-str", e)))
    return items


def _answer(program: str, syntax: str, scene: Callable[[], str]) -> str:
    root = qlang.parse(program, syntax)
    qlang.check(root)
    return solve(facts(root), scene()).answers[0].value


def per_question(repeat: int) -> list[float]:
    samples = []
    for _, run in questions():
        for _ in range(repeat):
            start = time.perf_counter()
            run()
            samples.append((time.perf_counter() - start) * 1000)
    return samples


def batch_lines(copies: int) -> list[bytes]:
    return [json.dumps({**q, "id": f"{n}-{q['imageId']}"}).encode() for n in range(copies)
            for q in emma_questions()]


def emma_scenes() -> SceneLibrary:
    return SceneLibrary(Source((SCENES / "emma_sceneGraphs.json").read_text()))


def batch_rate(copies: int, workers: int) -> tuple[float, float]:
    """Questions/s and CPU ms a question of the batch engine."""
    lines = batch_lines(copies)
    settings = batch.BatchSettings(emma_scenes())
    out = output.Output(io.StringIO())
    return _timed(len(lines), lambda: batch.run(lines, settings, out, workers=workers))


def fresh_rate(copies: int) -> tuple[float, float]:
    """The peer: the same lines one by one in one process, each with a fresh Control."""
    lines = batch_lines(copies)
    scenes = emma_scenes()

    def run() -> bool:
        for record in read_records(enumerate(lines, start=1)):
            assert record.root is not None
            solve(facts(record.root), scenes.facts(str(record.data["imageId"])))
        return True

    return _timed(len(lines), run)


def _timed(questions: int, run: Callable[[], bool]) -> tuple[float, float]:
    before, start = os.times(), time.perf_counter()
    assert run()
    wall, after = time.perf_counter() - start, os.times()
    cpu = sum(after[:4]) - sum(before[:4])  # this process's and its ended workers'
    return questions / wall, cpu / questions * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per question")
    parser.add_argument("--copies", type=int, default=250, help="batch: copies of the emma questions")
    args = parser.parse_args()
    for _, run in questions():  # warm up: imports, the ontology, the theory file
        run()
    samples = sorted(per_question(args.repeat))
    cores = os.cpu_count() or 1
    print(f"{len(questions())} real questions x {args.repeat} runs, Python {platform.python_version()}, "
          f"clingo {__import__('clingo').__version__}, {cores} cores")
    print(f"per question: median {statistics.median(samples):.1f} ms, "
          f"p95 {samples[int(0.95 * (len(samples) - 1))]:.1f} ms, max {samples[-1]:.1f} ms")
    rate, cpu = fresh_rate(args.copies)
    print(f"fresh Control, 1 process: {rate:,.0f} questions/s, {cpu:.3f} ms CPU a question")
    for workers in sorted({1, cores}):
        grouped, cpu = batch_rate(args.copies, workers)
        print(f"batch, {workers} worker(s): {grouped:,.0f} questions/s ({grouped / rate:.2f}x the fresh "
              f"Control), {cpu:.3f} ms CPU a question")


if __name__ == "__main__":
    main()
