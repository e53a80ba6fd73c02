"""The small parser's batched beam search on a GPU: questions/s and exact match at scale.

    python bench/gpu_small.py [--device cuda|cpu|numpy] [--total 100000] [--batch 1024] [--workers N]

The 3,091 shared GQA questions (both files under ``$QLANG_DATA/gqa/questions``), repeated to
`--total`, decoded by the shipped small parser (beam 4, under the automaton, every candidate
checked), end to end: tokenise, encode, search, check, compare with the gold program
(order-insensitive exact).  `--device numpy` is the CPU network answering uses; `cpu`/`cuda`
the torch module the parser trains with (`qlang.small.device`): memory, decoder state and the
automaton's masks stay on the device, and a step brings back each row's four best tokens.
The automaton, the beam's bookkeeping and the checking of each candidate are Python, so
`--workers N` runs N processes that share the device, each its own copy of the model; they
load, wait for each other, then decode their share: the figure is all questions over the
slowest worker's time.  Before timing, the first `--check` distinct questions are decoded by
the numpy network too and the programs compared (the two networks differ only in float
rounding: a differing program is printed).

The shared questions include the small parser's training questions: the exact-match figure says
the GPU path reproduces the CPU's, not how well the parser generalises (``bench/small.py``'s dev
split does that).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from qlang.errors import QlangError
from qlang.ir import Node
from qlang.passes.canonical import equivalent
from qlang.paths import GQA_QUESTIONS
from qlang.small.parser import SmallParser
from qlang.syntax import gqa


def shared_questions() -> list[tuple[str, Node]]:
    """Every shared question whose gold program GQA's syntax reads, with that program."""
    pairs = []
    for path in sorted(GQA_QUESTIONS.glob("*.json")):
        for record in json.loads(path.read_text()).values():
            try:
                pairs.append((record["question"], gqa.to_ir(gqa.steps_from_json(record["semantic"]))))
            except QlangError:
                continue  # GQA's few unreadable programs
    if not pairs:
        raise SystemExit(f"no shared questions under {GQA_QUESTIONS} (set QLANG_DATA)")
    return pairs


def parser_for(device: str) -> SmallParser:
    return SmallParser.load(device=None if device == "numpy" else device)


def decode(parser: SmallParser, questions: Sequence[str], batch: int) -> list[Node | None]:
    roots: list[Node | None] = []
    for start in range(0, len(questions), batch):
        roots.extend(d.root for d in parser.parse(questions[start:start + batch]))
    return roots


def in_workers(load: Callable[[Any], Any], run: Callable[[Any, Any], Any],
               shares: Sequence[Any]) -> list[Any]:
    """`run(load(share), share)` in a process of its own per share (`load` and `run`: functions
    of a module, so that they reach a spawned process), every run starting once every load is
    done; each run's result and its seconds.  A failed load stops them all."""
    context = mp.get_context("spawn")
    barrier, results = context.Barrier(len(shares)), context.Queue()
    workers = [context.Process(target=_serve, args=(load, run, share, barrier, results)) for share in shares]
    for worker in workers:
        worker.start()
    done = [results.get() for _ in workers]
    for worker in workers:
        worker.join()
    if failed := [d for d in done if isinstance(d, str)]:
        raise SystemExit(f"a worker failed: {failed[0]}")
    return done


def _serve(load: Callable[[Any], Any], run: Callable[[Any, Any], Any], share: Any,
           barrier: Any, results: Any) -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        state = load(share)
    except Exception as exc:
        barrier.abort()  # the others stop waiting: the run has failed
        results.put(f"{type(exc).__name__}: {exc}")
        return
    try:
        barrier.wait()
    except threading.BrokenBarrierError:
        results.put("another worker failed")
        return
    start = time.perf_counter()
    result = run(state, share)
    results.put((result, time.perf_counter() - start))


def _load(share: tuple[str, int, list[str], list[Node]]) -> SmallParser:
    device, batch, questions, _ = share
    parser = parser_for(device)
    decode(parser, questions[:8], batch)  # warm-up: kernels, caches
    return parser


def _run(parser: SmallParser, share: tuple[str, int, list[str], list[Node]]) -> tuple[int, int, int]:
    _, batch, questions, golds = share
    roots = decode(parser, questions, batch)
    exact = sum(r is not None and equivalent(r, g) for r, g in zip(roots, golds, strict=True))
    return len(questions), exact, sum(r is not None for r in roots)


def main(argv: Sequence[str] | None = None) -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--device", default="cuda")
    options.add_argument("--total", type=int, default=100_000)
    options.add_argument("--batch", type=int, default=1024)
    options.add_argument("--workers", type=int, default=1)
    options.add_argument("--check", type=int, default=512)
    args = options.parse_args(argv)

    pairs = shared_questions()
    repeated = [pairs[i % len(pairs)] for i in range(args.total)]
    print(f"{len(pairs)} shared questions, repeated to {len(repeated)}; device {args.device}; "
          f"batch {args.batch}; workers {args.workers}; {platform.processor() or platform.machine()}")
    if args.device == "cuda":
        import torch

        print(f"GPU: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    if args.check and args.device != "numpy":
        agree(pairs[:args.check], args.device, args.batch)

    shares = [(args.device, args.batch, [q for q, _ in share], [g for _, g in share])
              for share in (repeated[w::args.workers] for w in range(args.workers))]
    done = in_workers(_load, _run, shares)
    total, exact, valid = (sum(figures[i] for figures, _ in done) for i in range(3))
    slowest = max(seconds for _, seconds in done)
    print(f"{total} questions in {slowest:.2f} s: {total / slowest:,.0f} questions/s; "
          f"exact {exact / total:.1%}, a program {valid / total:.1%}")


def agree(pairs: Sequence[tuple[str, Node]], device: str, batch: int) -> None:
    """The device's programs against the numpy network's, question by question."""
    questions = [q for q, _ in pairs]
    ours, theirs = decode(parser_for(device), questions, batch), decode(parser_for("numpy"), questions, batch)
    differ = [(q, a, b) for q, a, b in zip(questions, ours, theirs, strict=True)
              if (a is None) != (b is None) or (a is not None and b is not None and not equivalent(a, b))]
    print(f"same program as the numpy network: {len(questions) - len(differ)}/{len(questions)}")
    for question, a, b in differ[:5]:
        print(f"  differs: {question!r}: {a} / {b}")


if __name__ == "__main__":
    main()
