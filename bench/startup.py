"""How long `qlangc` takes to start: `qlangc --help` and a one-line `compile`, per checkout.

    .venv/bin/python bench/startup.py [--runs N] CHECKOUT [CHECKOUT ...]

Each checkout's qlang (``PYTHONPATH=CHECKOUT``, run by this venv's Python) is timed in turn,
round after round, so that a busy moment of the machine falls on all of them alike; printed are
the median and the range of the wall times, the median CPU time (user and system: on a busy
machine it moves far less than the wall time) and the median peak memory.  A checkout of another
commit comes from ``git worktree add``.  Python's bytecode is kept, in a folder of its own (an
installed qlang has its bytecode compiled at install), whatever PYTHONDONTWRITEBYTECODE says.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAM = b"exist(select(scene(), man))\n"
#: The commands timed: their arguments and standard input.
COMMANDS = {"qlangc --help": (["--help"], b""),
            "echo 'exist(select(scene(), man))' | qlangc compile --to code -": (
                ["compile", "--to", "code", "-"], PROGRAM)}


def run(checkout: Path, args: list[str], stdin: bytes, bytecode: Path) -> tuple[float, float, float]:
    """One run of `qlangc ARGS` from `checkout`: wall and CPU seconds, peak memory (MB)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env |= {"PYTHONPATH": str(checkout), "PYTHONPYCACHEPREFIX": str(bytecode / checkout.name)}
    # qlangc's module: qlang/commands/main.py since the restructuring, qlang/cli.py before it
    module = "qlang.commands.main" if (checkout / "qlang" / "commands" / "main.py").exists() else "qlang.cli"
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", f"from {module} import main; main()", *args],
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, cwd=checkout)
    assert process.stdin is not None
    process.stdin.write(stdin)
    process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.returncode == 0, (checkout, args)
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def measure(args: list[str], stdin: bytes, checkouts: list[Path], runs: int, bytecode: Path) -> None:
    """Time `qlangc ARGS` from each checkout, `runs` rounds after one to warm up; print the table."""
    times: dict[Path, list[tuple[float, float, float]]] = {c: [] for c in checkouts}
    for checkout in checkouts:
        run(checkout, args, stdin, bytecode)  # the file cache warmed and the bytecode written
    for _ in range(runs):
        for checkout in checkouts:
            times[checkout].append(run(checkout, args, stdin, bytecode))
    print("| checkout | median s | range s | median CPU s | median peak MB |\n|---|---:|---:|---:|---:|")
    for checkout, timed in times.items():
        wall, cpu, memory = ([one[i] for one in timed] for i in range(3))
        print(f"| {checkout} | {statistics.median(wall):.3f} | {min(wall):.3f}–{max(wall):.3f} "
              f"| {statistics.median(cpu):.3f} | {statistics.median(memory):.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    options = parser.parse_args()
    checkouts = [c.resolve() for c in options.checkouts]
    with tempfile.TemporaryDirectory() as bytecode:
        for name, (args, stdin) in COMMANDS.items():
            print(f"\n{name}  ({options.runs} runs each, interleaved)")
            measure(args, stdin, checkouts, options.runs, Path(bytecode))


if __name__ == "__main__":
    main()
