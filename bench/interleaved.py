"""Start-up, compile and solve figures of several commits, run interleaved, in one table.

    .venv/bin/python bench/interleaved.py [--rounds N] [--copies N] COMMIT [COMMIT ...]

Each commit (whatever `git rev-parse` reads; ``.`` is this work tree as it stands) is checked
out once into a worktree of a temporary folder, its ``.cache`` linked to this checkout's (the
knowledge base, WordNet), and run by this venv's Python (``PYTHONPATH``).  Each round runs
every figure of every commit in turn, so that a busy moment of the machine falls on all of them
alike: on a shared machine the seconds swing, the ratios between commits far less.  The table
gives each figure's median over the rounds and, in brackets, its ratio to the first commit's
(above 1: better).  The figures:

- ``--help`` and ``compile``: `qlangc --help`, and a one-line `compile` (bench/startup.py's two
  commands), wall seconds;
- ``pipeline``: bench/pipeline.py's GQA JSON -> flat -> nested -> flat over the 3,091 real
  programs, one job, every program checked through every step, start-up subtracted: programs/s;
- ``solve``: `qlangc solve --jsonl` over the emma questions that have scene graphs, repeated
  `--copies` times, one worker, start-up included (what a user waits for): questions/s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pipeline
import startup

HERE = Path(__file__).resolve().parents[1]
SCENES = pipeline.DATA.parent / "scenes"
Figure = Callable[[Path], float]


def checkout(commit: str, folder: Path) -> Path:
    """A worktree of `commit` in `folder` (this work tree itself for ``.``)."""
    if commit == ".":
        return HERE
    tree = folder / commit.replace("/", "-")
    subprocess.run(["git", "-C", str(HERE), "worktree", "add", "--detach", "--quiet", str(tree), commit],
                   check=True)
    (tree / ".cache").symlink_to(HERE / ".cache")
    return tree


def figures(folder: Path, copies: int) -> dict[str, tuple[Figure, bool]]:
    """Each figure: how to measure it for a checkout, and whether more is better."""
    bytecode = folder / "bytecode"
    programs = pipeline.gqa_lines()
    count = programs.count(b"\n")
    questions = folder / "solve.jsonl"
    questions.write_text(_solve_lines(copies))
    asked = copies * len(_emma())

    def command(name: str) -> Figure:
        args, stdin = startup.COMMANDS[name]
        return lambda tree: startup.run(tree, args, stdin, bytecode)[0]

    def converting(tree: Path) -> float:
        wall, _ = pipeline.pipeline(1, str(tree), programs, 1)
        return count / sum(v for k, v in wall.items() if k != "start-up")

    def solving(tree: Path) -> float:
        base, env = pipeline.qlangc(str(tree))
        args = ["solve", "--jsonl", "--program", str(questions),
                "--scene", str(SCENES / "emma_sceneGraphs.json")]
        seconds, _, out = pipeline.timed([*base, *args], env, b"")
        answered = [json.loads(line) for line in out.splitlines()]
        if len(answered) != asked or any("error" in a for a in answered):
            raise SystemExit(f"{tree}: solve did not answer every question")
        return asked / seconds

    names = list(startup.COMMANDS)
    return {"--help s": (command(names[0]), False), "compile s": (command(names[1]), False),
            "pipeline programs/s": (converting, True), "solve questions/s": (solving, True)}


def _emma() -> list[dict[str, object]]:
    scenes = json.loads((SCENES / "emma_sceneGraphs.json").read_text())
    asked = json.loads((SCENES / "emma_questions.json").read_text())
    return [{"semantic": q["semantic"], "imageId": q["imageId"]} for q in asked.values()
            if q["imageId"] in scenes]


def _solve_lines(copies: int) -> str:
    emma = _emma()
    return "".join(json.dumps({"id": f"{n}-{i}", **q}) + "\n"
                   for n in range(copies) for i, q in enumerate(emma))


def main(argv: Sequence[str] | None = None) -> None:
    options = argparse.ArgumentParser(description=__doc__,
                                      formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("commits", nargs="+")
    options.add_argument("--rounds", type=int, default=3)
    options.add_argument("--copies", type=int, default=250, help="solve: copies of the emma questions")
    args = options.parse_args(argv)
    os.environ.setdefault("QLANG_DATA", str(pipeline.DATA.parents[1]))
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        trees = {commit: checkout(commit, folder) for commit in args.commits}
        try:
            measured = _measure(trees, figures(folder, args.copies), args.rounds)
        finally:
            for tree in trees.values():
                if tree != HERE:
                    subprocess.run(["git", "-C", str(HERE), "worktree", "remove", "--force", str(tree)],
                                   check=False)
    _table(measured, args.rounds)


def _measure(trees: dict[str, Path], chosen: dict[str, tuple[Figure, bool]],
             rounds: int) -> dict[str, dict[str, tuple[list[float], bool]]]:
    found = {commit: {name: ([], better) for name, (_, better) in chosen.items()} for commit in trees}
    for tree in trees.values():  # the warm-up: file caches, bytecode, the knowledge base
        chosen["compile s"][0](tree)
    for done in range(rounds):
        for name, (measure, _) in chosen.items():
            for commit, tree in trees.items():
                found[commit][name][0].append(measure(tree))
        print(f"round {done + 1} of {rounds} done", file=sys.stderr)
    return found


def _table(measured: dict[str, dict[str, tuple[list[float], bool]]], rounds: int) -> None:
    first = next(iter(measured.values()))
    names = list(first)
    print(f"medians of {rounds} interleaved rounds; (ratio to {next(iter(measured))}, above 1: better)\n")
    print("| commit | " + " | ".join(names) + " |\n|---|" + "---:|" * len(names))
    for commit, found in measured.items():
        label = commit if commit != "." else f"this tree ({_head()})"
        cells = []
        for name in names:
            values, better = found[name]
            value, reference = statistics.median(values), statistics.median(first[name][0])
            ratio = value / reference if better else reference / value
            cells.append(f"{value:,.3f} ({ratio:.2f}x)" if value < 10 else f"{value:,.0f} ({ratio:.2f}x)")
        print(f"| {label} | " + " | ".join(cells) + " |")


def _head() -> str:
    named = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True,
                           text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(HERE), "diff", "--quiet", "HEAD"], check=False).returncode
    return named + (" and changes" if dirty else "")


if __name__ == "__main__":
    main()
