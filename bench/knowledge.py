"""Indexing a ConceptNet-sized knowledge file, asking the index what a question asks, and
answering knowledge questions over a real scene end to end.

    .venv/bin/python bench/knowledge.py [--edges N] [--runs R] [--queries Q] [--solves S] [--keep DIR]

Writes a file of `--edges` lines in ConceptNet 5.7's assertion format (generated: English
edges of qlang's relations, each with JSON as ConceptNet's, about 300 bytes a line, between
made-up concepts, a quarter as many as edges, and GQA's 1,786 classes: each end of an edge is
a class one time in five, so that a class has about 110 edges out and 110 in, as a common word
has in ConceptNet), then, `--runs` times, reads and indexes it as `qlangc kb build` does
(`qlang.knowledge.sources.triples` into `qlang.knowledge.index.build`), and times what a
question asks of the index: the 3-hop neighbourhood of three GQA classes (all relations, 3
times: a fifth of the graph; three relations; all relations, at most 1,000 edges, as GATHER
bounds its graph) and `qlangc kb paths`'s search (best 10 paths of at most 3 steps).  Then
`QUESTIONS` over the real GQA scene of image 2353884 (examples/), each compiled, lowered and
solved (best answer) as `qlangc solve --scene ... --kb ...` does it in one warm process (the
index open, the scene read; one untimed round first), with the bundled base and with the
1,000,000-edge index, `--solves` rounds each asking every question of both; beside each, how
long the knowledge facts alone took (`qlang.asp.knowledge_facts.facts`, timed in the same rounds) and
how many edges they ground.  With `--runs 0`, the index
an earlier run left in `--keep DIR` is used as it is.  Medians; the machine's load is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from qlang import api
from qlang.asp import knowledge_facts
from qlang.asp.background import Background
from qlang.asp.options import SolveOptions
from qlang.asp.scene import SceneLibrary
from qlang.asp.solve import solve
from qlang.errors import Source
from qlang.knowledge import sources
from qlang.knowledge.graph import Knowledge
from qlang.knowledge.index import Index, build
from qlang.knowledge.relations import RELATIONS
from qlang.ontology import load
from qlang.passes.lower import facts

SCENE = Path(__file__).resolve().parents[1] / "examples" / "scene_2353884.json"
#: What a user asks of the knowledge about that scene (a man in shorts, socks and shoes, a woman,
#: a frisbee, a tent, a roof, a sign), as programs.
QUESTIONS = (
    ("What is the man like?", "know(unique(select(scene(), man)), has_property)"),
    ("Is the woman feminine?", "verify_know(unique(select(scene(), woman)), has_property, feminine)"),
    ("What is the roof part of?", "know(unique(select(scene(), roof)), part_of)"),
    ("What kind of clothing is the man wearing?",
     "infer(relate_any(select(scene(), man), wearing, object), clothing)"),
    ("What material may the roof be?", "infer(select(scene(), roof), material)"),
    ("What kind of animal is the man?", "infer(select(scene(), man), animal)"),
)

_SOURCE = {"activity": "/s/activity/omcs/omcs1_possibly_free_text",
           "contributor": "/s/contributor/omcs/bench"}


def generate(path: Path, edges: int, seed: int = 0) -> None:
    """Write `edges` ConceptNet lines to `path`."""
    rng = random.Random(seed)
    classes = [name.replace(" ", "_") for name in sorted(load().classes)]
    concepts = [f"concept_{n}" for n in range(edges // 4)]
    relations = [relation.conceptnet for relation in RELATIONS]
    with path.open("w", encoding="utf-8") as out:
        for _ in range(edges):
            head, tail = (rng.choice(classes if rng.random() < 0.2 else concepts) for _ in range(2))
            relation = rng.choice(relations)
            info = {"dataset": "/d/conceptnet/4/en", "license": "cc:by/4.0", "sources": [_SOURCE],
                    "weight": rng.choice((0.5, 1.0, 1.0, 2.0, 3.464))}
            out.write(f"/a/[/r/{relation}/,/c/en/{head}/n/,/c/en/{tail}/]\t/r/{relation}\t/c/en/{head}/n\t"
                      f"/c/en/{tail}\t{json.dumps(info)}\n")


def median_ms(work: Callable[[], object], runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), result


def index_file(csv: Path, target: Path, edges: int, runs: int) -> Index:
    """Write `edges` lines to `csv`, index them into `target` `runs` times, and print how long."""
    start = time.perf_counter()
    generate(csv, edges)
    print(f"load average {os.getloadavg()[0]:.1f}; generated {edges:,} lines "
          f"({csv.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - start:.1f} s")
    builds = []
    for _ in range(runs):
        start = time.perf_counter()
        index = build(sources.triples(str(csv), Counter()), target, {"source": "bench"})
        builds.append(time.perf_counter() - start)
    print(f"index build: median {statistics.median(builds):.1f} s of {runs} "
          f"({', '.join(f'{b:.1f}' for b in builds)}); {index.edge_count:,} edges, "
          f"{index.words:,} words, {target.stat().st_size / 1e6:.0f} MB")
    return index


def answer_questions(bases: dict[str, Knowledge], rounds: int) -> None:
    """Print each of `QUESTIONS` answered over `SCENE` with each of `bases`, as `solve` answers
    it, and the time of its knowledge facts alone: `rounds` rounds, each every question with
    every base."""
    scene = SceneLibrary(Source(SCENE.read_text(encoding="utf-8"), str(SCENE))).facts(None)
    backgrounds = {name: Background(knowledge) for name, knowledge in bases.items()}
    words = Background().words(scene)  # no rules: the scene's own

    def answer(name: str, program: str) -> str:
        question = facts(api.compile(program, ontology=backgrounds[name].ontology()))
        found = solve(question, scene, SolveOptions(background=backgrounds[name])).answers
        return found[0].value if found else "(none)"

    def grounded(name: str, program: str) -> int:
        question = facts(api.compile(program, ontology=backgrounds[name].ontology()))
        return len(knowledge_facts.facts(bases[name], question, words.classes, together=words.together)) // 2

    cases = [(name, program) for name in bases for _, program in QUESTIONS]
    answers = {case: (answer(*case), grounded(*case)) for case in cases}  # the untimed round
    times: dict[tuple[str, str, str], list[float]] = {}
    load = [os.getloadavg()[0]]
    for _ in range(rounds):
        for case in cases:
            for part, work in (("solve", answer), ("facts", grounded)):
                start = time.perf_counter()
                work(*case)
                times.setdefault((*case, part), []).append((time.perf_counter() - start) * 1000)
        load.append(os.getloadavg()[0])
    print(f"questions over {SCENE.name}: median ms of {rounds} interleaved rounds, end to end | the "
          f"knowledge facts alone (edges grounded); load average {min(load):.1f}-{max(load):.1f}")
    for name, program in cases:
        value, edges = answers[name, program]
        print(f"  {name}: {statistics.median(times[name, program, 'solve']):6.1f} | "
              f"{statistics.median(times[name, program, 'facts']):5.1f} ({edges:,})  {program} -> {value}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--queries", type=int, default=21)
    parser.add_argument("--solves", type=int, default=21)
    parser.add_argument("--keep", type=Path,
                        help="the folder for the file and its index (default: a temporary one)")
    args = parser.parse_args()
    if args.runs == 0 and args.keep is None:
        parser.error("--runs 0 uses the index an earlier run left in --keep DIR")
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        csv, target = folder / "assertions.csv", folder / "assertions.sqlite"
        index = Index(target) if args.runs == 0 else index_file(csv, target, args.edges, args.runs)
        knowledge = Knowledge([index])
        classes = ["cup", "table", "man"]
        some = {"is_a", "used_for", "at_location"}
        for what, runs, work in (
                ("neighbourhood, 3 hops, all relations", 3, lambda: knowledge.neighbourhood(classes, 3)),
                ("neighbourhood, 3 hops, 3 relations", args.queries,
                 lambda: knowledge.neighbourhood(classes, 3, relations=some)),
                ("neighbourhood, 3 hops, at most 1,000 edges", args.queries,
                 lambda: knowledge.neighbourhood(classes, 3, limit=1000)),
                ("paths cup -> man, at most 3 steps", args.queries,
                 lambda: knowledge.paths("cup", "man", 3))):
            ms, found = median_ms(work, runs)
            print(f"{what}: median {ms:.1f} ms of {runs} ({len(found):,} found)")  # type: ignore[arg-type]
        answer_questions({"bundled": sources.knowledge([]), f"{index.edge_count:,} edges": knowledge},
                         args.solves)


if __name__ == "__main__":
    main()
