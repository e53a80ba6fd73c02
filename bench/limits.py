"""Do `solve --timeout` and `ask --seek --budget-ms` hold within a second, whatever the rules file?

    .venv/bin/python bench/limits.py [--runs 3] [--seconds 1]

clingo cannot be interrupted while it grounds, so a time limit holds only if every rules file
the bounds let through grounds quickly.  Each rules file below is one the bounds accept at
their defaults, chosen to ground as much as they allow over the real scene 2353884 (about 90
objects): the most conditions (62 rules of 32), and joins of distinct objects up to the
grounding guard.  Printed: each command's wall time (process start, model loads and the
answer included), the limit it was given and by how much the worst run went past it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "examples" / "scene_2353884.json"
PROGRAM = "query(unique(select(scene(), man)), name)\n"
QUESTION = "Who is wearing the hat?"
_VALUES = ("color, red", "color, white", "material, wood", "size, small", "shape, round")


def _same_object(conditions: int, shift: int) -> str:
    return ", ".join(f"attr(X, {_VALUES[(i + shift) % 5]})" if i % 2 else "class(X, man)"
                     for i in range(conditions))


#: Rules files the default bounds let through, each grounding as much as they allow.
RULES = {
    "62 rules of 32 conditions": "".join(f"class(X, lb) :- {_same_object(32, k)}.\n" for k in range(62)),
    "3 objects, any classes": "class(X0, lb) :- class(X0, C0), class(X1, C1), class(X2, C2).\n",
    "a chain of 3 relations": "class(X0, lb) :- rel(X0, R0, X1), rel(X1, R1, X2), rel(X2, R2, X3).\n",
    "5 objects' colours": "class(X0, lb) :- "
                          + ", ".join(f"attr(X{i}, color, C{i})" for i in range(5)) + ".\n",
}


def timed(command: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    code = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT).returncode
    return time.perf_counter() - started, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0, help="the limit given to each command")
    args = parser.parse_args()
    qlangc = [sys.executable, "-m", "qlang.commands.main"]
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "q.qn"
        program.write_text(PROGRAM)
        print("| rules file | command | limit | wall s (runs) | exit codes | worst past the limit |")
        print("|---|---|---:|---|---|---:|")
        for name, text in RULES.items():
            rules = Path(folder) / "r.rules"
            rules.write_text("class lb.\n" + text)
            commands = {
                "solve --timeout": [*qlangc, "solve", "--program", str(program), "--scene", str(SCENE),
                                    "--rules", str(rules), "--timeout", str(args.seconds)],
                "ask --seek --budget-ms": [*qlangc, "ask", QUESTION, "--scene", str(SCENE), "--seek",
                                           "--rules", str(rules), "--budget-ms", f"{1e3 * args.seconds:.0f}"],
            }
            for label, command in commands.items():
                runs = [timed(command) for _ in range(args.runs)]
                walls = ", ".join(f"{wall:.2f}" for wall, _ in runs)
                codes = ", ".join(sorted({str(code) for _, code in runs}))
                worst = max(wall for wall, _ in runs) - args.seconds
                print(f"| {name} | `{label}` | {args.seconds:g} s | {walls} | {codes} | {worst:+.2f} s |")


if __name__ == "__main__":
    main()
