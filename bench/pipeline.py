"""The three-step batch conversion, every program checked: GQA JSON -> flat -> nested -> flat.

    .venv/bin/python bench/pipeline.py [--jobs N ...] [--repeat N] [--copies N] [--checkout DIR]

Each step is one ``qlangc compile --jsonl`` process reading the previous step's output (the
first reads one ``{"id", "semantic"}`` line per real GQA question).  A step's time is its wall
time less the process start-up, measured as the same command on an empty input (best of
`--repeat`), as the regex peer was measured; grammar loading is not start-up and counts.
The CPU time the steps used (their worker processes' included, start-up subtracted) is shown
per program too: on a busy machine it moves far less than the wall time.
Every program must come through every step, and the last step must print exactly what the first
printed.  ``--checkout DIR`` runs the qlang of another work tree (an older commit, say, from
``git worktree add``) for a before/after on the same machine; ``--in-process`` adds the same
three steps through `qlang.program_lines.run` in this process, with no start-up at all.

The peer, the public reproduction's regex converters, is not run here (no network); its figure
is the one measured for it once: 3,314 programs/s, on the machine it was measured on.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "gqa" / "questions"
STEPS = (("gqa", "flat"), ("flat", "nested"), ("nested", "flat"))
PEER = 3_314  # programs/s: the thesis reproduction's regex converters, as measured once


def gqa_lines() -> bytes:
    lines = []
    for path in sorted(DATA.glob("*.json")):
        for qid, question in json.loads(path.read_text()).items():
            lines.append(json.dumps({"id": qid, "semantic": question["semantic"]}))
    return ("\n".join(lines) + "\n").encode()


def qlangc(checkout: str | None) -> tuple[list[str], dict[str, str]]:
    """The command that runs qlangc from `checkout` (it runs in it: ``-c`` puts the working
    directory first on the path), or the installed one."""
    env = dict(os.environ)
    env["QLANG_BENCH_CWD"] = os.path.abspath(checkout) if checkout else os.getcwd()
    if checkout:
        env["PYTHONPATH"] = env["QLANG_BENCH_CWD"]
    # qlangc's module: qlang/commands/main.py since the restructuring, qlang/cli.py before it
    tree = Path(env["QLANG_BENCH_CWD"])
    module = "qlang.commands.main" if (tree / "qlang" / "commands" / "main.py").exists() else "qlang.cli"
    return [sys.executable, "-c", f"from {module} import main; main()"], env


def timed(command: list[str], env: dict[str, str], data: bytes) -> tuple[float, float, bytes]:
    """Wall seconds, CPU seconds (the process and its workers) and the output of a command."""
    with tempfile.TemporaryFile() as stdin:
        stdin.write(data)
        stdin.seek(0)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, stdin=stdin, capture_output=True, env=env, check=False,
                              cwd=env["QLANG_BENCH_CWD"])
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[3:])} failed:\n{done.stderr.decode()}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return elapsed, cpu, done.stdout


def pipeline(jobs: int | None, checkout: str | None, data: bytes,
             repeat: int) -> tuple[dict[str, float], dict[str, float]]:
    """Wall and CPU seconds per step (start-up subtracted, each the best of `repeat`), and the
    start-up itself."""
    base, env = qlangc(checkout)
    empty = [timed([*base, *_args("flat", "nested", jobs)], env, b"") for _ in range(repeat)]
    wall = {"start-up": min(e[0] for e in empty)}
    cpu = {"start-up": min(e[1] for e in empty)}
    outputs = []
    for source, target in STEPS:
        runs = [timed([*base, *_args(source, target, jobs)], env, data) for _ in range(repeat)]
        out = runs[-1][2]
        _verify(data, out, f"{source} -> {target}")
        wall[f"{source} -> {target}"] = min(r[0] for r in runs) - wall["start-up"]
        cpu[f"{source} -> {target}"] = min(r[1] for r in runs) - cpu["start-up"]
        outputs.append(out)
        data = out
    if outputs[0] != outputs[-1]:
        raise SystemExit("the round trip flat -> nested -> flat changed a program")
    return wall, cpu


def _args(source: str, target: str, jobs: int | None) -> list[str]:
    return ["compile", "--jsonl", "--from", source, "--to", target,
            *(["--jobs", str(jobs)] if jobs else []), "-"]


def _verify(data: bytes, out: bytes, step: str) -> None:
    results = [json.loads(line) for line in out.splitlines()]
    wanted = [json.loads(line)["id"] for line in data.splitlines() if line.strip()]
    if [r["id"] for r in results] != wanted or any("program" not in r for r in results):
        failed = next((r for r in results if "program" not in r), None)
        raise SystemExit(f"{step}: not every program came through ({failed})")


def in_process(data: bytes, repeat: int, jobs: int) -> dict[str, float]:
    from qlang.passes.canonical import canonicalize
    from qlang.records import output, program_lines
    from qlang.syntax import SYNTAXES

    def converter(target: str) -> program_lines.Handler:
        printer = SYNTAXES[target].print
        return lambda record: {"id": record.id, "program": printer(canonicalize(record.root))}

    figures: dict[str, float] = {}
    for source, target in STEPS:
        lines = data.split(b"\n")
        best = float("inf")
        for _ in range(repeat):
            out = io.StringIO()
            start = time.perf_counter()
            program_lines.run(lines, converter(target), output.Output(out), syntax=source, jobs=jobs)
            best = min(best, time.perf_counter() - start)
        figures[f"{source} -> {target}"] = best
        data = out.getvalue().encode()
    return figures


def report(label: str, figures: dict[str, float], programs: int,
           cpu: dict[str, float] | None = None) -> None:
    steps = {k: v for k, v in figures.items() if k != "start-up"}
    total = sum(steps.values())
    cells = "  ".join(f"{k} {programs / v:7,.0f}/s" for k, v in steps.items())
    startup = f"  (start-up {figures['start-up'] * 1000:.0f} ms)" if "start-up" in figures else ""
    used = ""
    if cpu:
        steps_cpu = [v / programs * 1e6 for k, v in cpu.items() if k != "start-up"]
        used = f" {sum(steps_cpu):5.0f} µs CPU/program ({' + '.join(f'{v:.0f}' for v in steps_cpu)})"
    print(f"{label:26} {programs / total:7,.0f} programs/s {programs / total / PEER:5.2f}x peer{used}   "
          f"{cells}{startup}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, nargs="*", default=[1, 0],
                        help="--jobs values to run (0: leave it out, i.e. all cores)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per step; the best counts")
    parser.add_argument("--checkout", help="the qlang work tree to run (default: this one)")
    parser.add_argument("--copies", type=int, default=1,
                        help="the programs this many times over, so that start-up, subtracted, "
                        "is a small part of a step (a busy machine's start-up swings)")
    parser.add_argument("--in-process", action="store_true", help="also time qlang.program_lines.run itself")
    args = parser.parse_args(argv)
    data = gqa_lines() * args.copies
    programs = data.count(b"\n")
    print(f"{programs} real GQA programs, GQA JSON -> flat -> nested -> flat, {os.cpu_count()} cores, "
          f"Python {sys.version.split()[0]}; regex converters (not run here): {PEER:,} programs/s")
    for jobs in args.jobs:
        label = f"qlangc --jobs {jobs}" if jobs else "qlangc (all cores)"
        wall, cpu = pipeline(jobs or None, args.checkout, data, args.repeat)
        report(label + (" [checkout]" if args.checkout else ""), wall, programs, cpu)
    if args.in_process:
        for jobs in (1, len(os.sched_getaffinity(0))):
            report(f"program_lines.run, jobs={jobs}", in_process(data, args.repeat, jobs), programs)


if __name__ == "__main__":
    main()
