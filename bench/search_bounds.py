"""Do `kb paths` over a 2,000,000-edge index, and `kb build` of a gzip bomb, end within 10 s and 2 GB?

    .venv/bin/python bench/search_bounds.py [--edges 2000000]

Two generated indexes of `--edges` edges, built once (untimed): a dense one (about 1,414 words,
each linked to every other) and a star (one hub linked both ways to `--edges` / 2 leaves).
`kb paths` asks for a path six hops long between two of their words, with a `--limit` of 1,000,
under an address-space limit of 2 GB.  The bomb is about 1 GB of valid lines compressed into 2 MB.
Printed per command: wall seconds, peak memory, exit code and the last line it printed.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from qlang.knowledge.index import build
from qlang.knowledge.triples import Triple

QLANGC = [sys.executable, "-m", "qlang.commands.main"]
CEILING = 2 << 30


def dense(edges: int) -> Iterator[Triple]:
    nodes = math.isqrt(edges) + 1
    pairs = itertools.islice(((a, b) for a in range(nodes) for b in range(nodes) if a != b), edges)
    return (Triple(f"w{a}", "related_to", f"w{b}", 0.5) for a, b in pairs)


def star(edges: int) -> Iterator[Triple]:
    for i in range(edges):
        leaf = f"w{i // 2}"
        yield Triple("hub", "related_to", leaf, 0.5) if i % 2 else Triple(leaf, "related_to", "hub", 0.5)


def _ceiling() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CEILING, CEILING))


def timed(args: list[str]) -> str:
    """One command's wall seconds, peak memory (its own, from wait4), exit code and last line."""
    started = time.perf_counter()
    process = subprocess.Popen([*QLANGC, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               preexec_fn=_ceiling)
    assert process.stdout is not None
    output = process.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    last = output.strip().splitlines()[-1:] or [""]
    return f"{wall:.1f} s | {usage.ru_maxrss / 1024:.0f} MB | {process.returncode} | {last[0][:90]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=2_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        print("| case | wall | peak memory | exit | last line |\n|---|---:|---:|---:|---|")
        for name, edges in (("dense", dense(args.edges)), ("star", star(args.edges))):
            index = Path(folder) / f"{name}.sqlite"
            build(edges, index, {"source": "bench"})
            paths = ["kb", "paths", "w1", "w2", "--max-hops", "6", "--limit", "1000", "--kb", str(index)]
            print(f"| `kb paths w1 w2 --max-hops 6 --limit 1000`, {name}, {args.edges:,} edges | "
                  f"{timed(paths)} |")
        bomb = Path(folder) / "bomb.tsv.gz"
        bomb.write_bytes(gzip.compress(b"cup\tis_a\tcontainer\n" * 5_000_000, compresslevel=9) * 10)
        print(f"| `kb build` of a gzip bomb ({bomb.stat().st_size / 1e6:.1f} MB, about 1 GB expanded) | "
              + timed(["kb", "build", str(bomb), "--out", str(Path(folder) / "bomb.sqlite")]) + " |")


if __name__ == "__main__":
    main()
