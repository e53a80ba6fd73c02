"""The cascade beside a busy loop: its time over the dev questions with one core taken, against
its time without, interleaved, and whether the translations stay the same.

    .venv/bin/python bench/busy.py [--rounds N] [--threads N]

Each round translates the 314 dev questions (`bench/small.py`'s) in batches of 32, as
`qlangc translate --jsonl` does, once as the machine is and once beside one busy loop pinned
to one core (`while True: pass` in a process of its own), the order alternating from round to
round.  `--threads N` fixes llama.cpp's threads (the old default: every core), instead of the
cores free before each request.  On a machine others share, compare the ratio, not seconds.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time
from collections import Counter
from collections.abc import Sequence

from small import dev_pairs

from qlang.translate.factory import Models, make
from qlang.translate.translator import Settings, Translates


def spin(core: int) -> None:
    os.sched_setaffinity(0, {core})
    while True:
        pass


def run(translator: Translates, questions: Sequence[str]) -> tuple[float, list[str | None], dict[str, int]]:
    start = time.perf_counter()
    results = [t for i in range(0, len(questions), 32)
               for t in translator.translate_many(questions[i:i + 32])]
    paths = Counter(r.path or "?" for r in results)
    return time.perf_counter() - start, [r.program for r in results], dict(paths)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    questions = [p.question for p in dev_pairs()]
    translator = make(Settings(translator="cascade"), Models(threads=args.threads))
    run(translator, questions[:32])  # loads both models
    core = min(os.sched_getaffinity(0))
    seconds: dict[str, list[float]] = {"as is": [], "busy loop": []}
    outputs: dict[str, list[list[str | None]]] = {"as is": [], "busy loop": []}
    for round_ in range(args.rounds):
        for busy in ((False, True) if round_ % 2 == 0 else (True, False)):
            name = "busy loop" if busy else "as is"
            loop = multiprocessing.Process(target=spin, args=(core,), daemon=True) if busy else None
            if loop is not None:
                loop.start()
            load = os.getloadavg()[0]
            try:
                took, programs, paths = run(translator, questions)
            finally:
                if loop is not None:
                    loop.kill()
                    loop.join()
            seconds[name].append(took)
            outputs[name].append(programs)
            print(f"round {round_ + 1}, {name:9}: {took:7.1f} s (load before {load:.1f}); paths {paths}",
                  flush=True)
    ratio = statistics.median(seconds["busy loop"]) / statistics.median(seconds["as is"])
    same = all(o == outputs["as is"][0] for runs in outputs.values() for o in runs)
    print(f"threads {args.threads or 'free cores'}: busy / as is {ratio:.2f}x (medians); "
          f"translations {'the same' if same else 'DIFFER'} in every run")


if __name__ == "__main__":
    main()
