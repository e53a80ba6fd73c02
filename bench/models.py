"""Small-parser models side by side, each alone: exact match and the gold among its beam.

    .venv/bin/python bench/models.py --dev runs/data/dev.jsonl MODEL_FOLDER ...

For each model folder (a `qlangc train --arch seq2seq` run's `model`, or the shipped one), the
dev pairs of `qlangc data` and the held-out knowledge and text pairs shipped beside the model
(`knowledge-dev.jsonl`, `text-dev.jsonl`) are decoded together (beam 4, under the automaton,
every candidate checked): how often the best candidate is the gold program (order-insensitive)
and how often any candidate is.  The second says what a cascade choosing among the candidates
could reach; the model card's retraining table was made with it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from qlang.api import parse
from qlang.passes.canonical import equivalent
from qlang.small.parser import SMALL_MODEL, SmallParser
from qlang.train.pairs import Pair, read_pairs


def measure(parser: SmallParser, pairs: list[Pair]) -> tuple[int, int]:
    """(best candidate exact, gold among the candidates) over `pairs`."""
    exact = in_beam = 0
    for pair, candidates in zip(pairs, parser.candidates([p.question for p in pairs]), strict=True):
        gold = parse(pair.program, "nested")
        best = SmallParser.best(candidates).root
        exact += best is not None and equivalent(best, gold)
        in_beam += any(c.root is not None and equivalent(c.root, gold) for c in candidates)
    return exact, in_beam


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    args.add_argument("--dev", type=Path, required=True, help="dev.jsonl of `qlangc data`")
    args.add_argument("models", nargs="*", type=Path, default=[SMALL_MODEL])
    options = args.parse_args()
    sets = {"GQA dev": options.dev, "knowledge": SMALL_MODEL / "knowledge-dev.jsonl",
            "text": SMALL_MODEL / "text-dev.jsonl"}
    data = {name: list(read_pairs(path)) for name, path in sets.items()}
    for folder in options.models:
        parser = SmallParser.load(folder)
        cells = []
        for name, pairs in data.items():
            exact, in_beam = measure(parser, pairs)
            cells.append(f"{name} {exact}/{len(pairs)} ({exact / len(pairs):.1%}), in beam {in_beam}")
        print(f"{folder}: " + "; ".join(cells), flush=True)


if __name__ == "__main__":
    main()
