"""The small parser's beam candidates on the 3,091 shared questions: write them, compare two runs.

    .venv/bin/python bench/beams.py write FILE [--batch 64] [--device numpy|cpu|cuda]
    .venv/bin/python bench/beams.py compare FILE FILE

`write` decodes every shared question (the shipped model, beam 4) with the qlang on
`PYTHONPATH` (another checkout's: PYTHONPATH=DIR), so two checkouts' searches can be held to
the same candidates, and prints the rate (questions/s, the model loaded and warm up);
`--device` other than numpy decodes with the torch module on that device
(`qlang.small.device`).  `compare` counts the questions whose candidates are the same programs
in the same order, and the largest difference of their log-probabilities, and prints the first
few that differ.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence

from qlang.paths import GQA_QUESTIONS
from qlang.small.beam import Decodes, beam_search
from qlang.small.parser import SMALL_MODEL, SmallParser


def questions() -> dict[str, str]:
    return {qid: record["question"] for path in sorted(GQA_QUESTIONS.glob("*.json"))
            for qid, record in json.loads(path.read_text()).items()}


def write(path: str, batch: int, device: str) -> None:
    parser = SmallParser.load()
    network: Decodes = parser.network
    if device != "numpy":
        from qlang.small import model
        from qlang.small.device import DeviceNetwork

        network = DeviceNetwork(model.load(SMALL_MODEL), device)
    asked = questions()
    ids, found = list(asked), {}
    beam_search(network, parser.automaton, list(asked.values())[:8], parser.beam, parser.knows)  # warm-up
    started = time.perf_counter()
    for start in range(0, len(ids), batch):
        chunk = ids[start:start + batch]
        beams = beam_search(network, parser.automaton, [asked[q] for q in chunk], parser.beam, parser.knows)
        found |= {q: [[list(c.tokens), c.logprob] for c in candidates]
                  for q, candidates in zip(chunk, beams, strict=True)}
    rate = len(ids) / (time.perf_counter() - started)
    with open(path, "w") as out:
        json.dump(found, out)
    print(f"{len(found)} questions' candidates written to {path}; decoded at {rate:.0f} questions/s "
          f"in batches of {batch}")


def compare(first: str, second: str) -> None:
    with open(first) as a, open(second) as b:
        ours, theirs = json.load(a), json.load(b)
    same, worst, shown = 0, 0.0, 0
    for qid, mine in ours.items():
        other = theirs[qid]
        if [t for t, _ in mine] == [t for t, _ in other]:
            same += 1
            worst = max([worst, *(abs(x[1] - y[1]) for x, y in zip(mine, other, strict=True))])
        elif shown < 5:
            shown += 1
            print(f"differs: {qid}: {[' '.join(t) for t, _ in mine]} / {[' '.join(t) for t, _ in other]}")
    print(f"same candidates, in the same order: {same}/{len(ours)}; their log-probabilities differ "
          f"by at most {worst:.1e}")


def main(argv: Sequence[str] | None = None) -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = options.add_subparsers(dest="command", required=True)
    writing = commands.add_parser("write")
    writing.add_argument("file")
    writing.add_argument("--batch", type=int, default=64)
    writing.add_argument("--device", default="numpy")
    comparing = commands.add_parser("compare")
    comparing.add_argument("files", nargs=2)
    args = options.parse_args(argv)
    if args.command == "write":
        write(args.file, args.batch, args.device)
    else:
        compare(*args.files)


if __name__ == "__main__":
    main()
