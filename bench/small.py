"""The small parser and the cascade on the dev split: accuracy, latency, batch throughput.

    .venv/bin/python bench/small.py [--model FOLDER] [--no-cascade] [--no-finetuned] [--knowledge FILE]

The dev split is `qlangc data`'s over the shared GQA question files (314 questions, images never
trained on: the fine-tuned model's dev split).  For each translator, one process, models loaded
first (not timed), then every dev question translated one at a time, end to end (tokenise,
decode, check, canonicalise, print): valid, exact (order-insensitive) and strict against the
gold program, median and p90 seconds.  The small parser is also run in batches of 32, as
`translate --jsonl` does.  The cascade's rows say how often each path answered and how exact
each was (`qlangc calibrate` prints the cascade calibrated on one half of dev and measured on
the other, both ways); `--no-finetuned` leaves out the fine-tuned model's own row.
`--knowledge`: the held-out phrasings' knowledge pairs (`qlangc data --knowledge N` writes
them to knowledge-dev.jsonl), translated one at a time by each translator: exact (the gold
program up to order), per family, and how often a knowledge operation was written at all.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections import Counter
from collections.abc import Sequence

import numpy as np

from qlang.api import parse
from qlang.evaluate.programs import score
from qlang.ir import Node
from qlang.passes.canonical import equivalent
from qlang.paths import GQA_QUESTIONS, resource_dir
from qlang.signatures import SIGNATURES
from qlang.small.parser import SmallParser
from qlang.syntax import detect, gqa
from qlang.train.pairs import Pair, make_pairs, read_pairs
from qlang.translate.cascade import Cascade, SmallTranslator
from qlang.translate.translator import Settings, Translates, Translation


def dev_pairs() -> list[Pair]:
    pairs, _ = make_pairs(sorted(GQA_QUESTIONS.glob("*.json")))
    return [p for p in pairs if p.split == "dev"]


def gold(pair: Pair) -> Node:
    return gqa.to_ir(gqa.steps_from_json(pair.record["semantic"]))


def report(name: str, pairs: Sequence[Pair], results: Sequence[Translation]) -> None:
    metrics = [score(r.program if r.raw else None, "nested", gold(p))
               for p, r in zip(pairs, results, strict=True)]
    seconds = sorted(r.seconds for r in results)
    n = len(results)
    median, p90 = 1000 * statistics.median(seconds), 1000 * seconds[int(0.9 * (n - 1))]
    print(f"{name:28} valid {sum(m.checked for m in metrics) / n:6.1%}  exact "
          f"{sum(m.exact for m in metrics) / n:6.1%}  strict {sum(m.strict for m in metrics) / n:6.1%}  "
          f"median {median:7.1f} ms  p90 {p90:7.1f} ms")
    paths = Counter(r.path for r in results)
    if len(paths) > 1:
        for path, count in paths.most_common():
            exact = sum(m.exact for m, r in zip(metrics, results, strict=True) if r.path == path)
            print(f"    path {path:10} answers {count / n:6.1%}  exact there {exact / count:6.1%}")


def knowledge_report(name: str, pairs: Sequence[Pair], results: Sequence[Translation]) -> None:
    """Exact match on knowledge pairs (their gold is their program: GQA has none of them)."""
    exact: Counter[str] = Counter()
    operations = 0
    for pair, result in zip(pairs, results, strict=True):
        root, gold = result.root, parse(pair.program, detect(pair.program))
        exact[pair.record["family"]] += root is not None and equivalent(root, gold)
        operations += root is not None and SIGNATURES[root.op].knowledge
    families = Counter(p.record["family"] for p in pairs)
    print(f"{name:28} knowledge exact {exact.total() / len(pairs):6.1%}  a knowledge operation "
          f"{operations / len(pairs):6.1%}  ({len(pairs)} held-out questions)")
    for family, count in sorted(families.items()):
        print(f"    {family:26} {exact[family] / count:6.1%} of {count}")
    paths = Counter(r.path for r in results)
    if len(paths) > 1:
        print("    " + ", ".join(f"path {path} {count / len(pairs):.1%}"
                                  for path, count in paths.most_common()))


def one_by_one(translator: Translates, pairs: Sequence[Pair]) -> list[Translation]:
    translator.translate(pairs[0].question)  # warm-up
    return [translator.translate(p.question) for p in pairs]


def batches(translator: SmallTranslator, pairs: Sequence[Pair], passes: int = 1, size: int = 32) -> None:
    """Every dev question in batches of `size`, `passes` times: the median pass's rate."""
    seconds = []
    for _ in range(passes):
        start = time.perf_counter()
        for i in range(0, len(pairs), size):
            translator.translate_many([p.question for p in pairs[i:i + size]])
        seconds.append(time.perf_counter() - start)
    rate = len(pairs) / statistics.median(seconds)
    print(f"{'small, batches of ' + str(size):28} {rate:8.0f} questions/s (median of {passes})")


def mask_cost(pairs: Sequence[Pair]) -> None:
    """What deciding the next allowed tokens costs a step: the typed automaton (what decoding
    uses) against Lark's interactive LALR parser on the nested grammar (`accepts()`: which
    terminals may follow, untyped and before any word list is matched against the vocabulary)."""
    from lark import Lark

    from qlang.small.automaton import Automaton
    from qlang.small.tokens import prefix, target_vocabulary
    from qlang.syntax import SYNTAXES

    automaton, steps = Automaton(target_vocabulary()), 0
    start = time.perf_counter()
    for pair in pairs:
        state = automaton.start()
        for token in prefix(gold(pair)):
            automaton.allowed(state)
            state = automaton.advance(state, automaton.vocabulary.id(token))
            steps += 1
    ours = (time.perf_counter() - start) / steps
    lark = Lark.open(str(resource_dir("grammars") / "nested.lark"), parser="lalr")
    start, steps = time.perf_counter(), 0
    for pair in pairs:
        interactive = lark.parse_interactive(SYNTAXES["nested"].print(gold(pair)))
        for _token in interactive.iter_parse():
            interactive.accepts()
            steps += 1
    theirs = (time.perf_counter() - start) / steps
    print(f"next-token sets: automaton {1e6 * ours:.1f} µs a step (typed, words included); Lark "
          f"interactive accepts() {1e6 * theirs:.1f} µs a step (terminals only)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--model", default=None, help="small-parser folder (default: the shipped one)")
    parser.add_argument("--no-cascade", action="store_true")
    parser.add_argument("--no-finetuned", action="store_true")
    parser.add_argument("--knowledge", metavar="FILE",
                        help="held-out knowledge pairs (knowledge-dev.jsonl of qlangc data --knowledge)")
    parser.add_argument("--batches", type=int, metavar="N",
                        help="only the batch rate, the median of N passes (to compare checkouts: "
                             "PYTHONPATH=DIR runs another one's qlang under this script)")
    parser.add_argument("--size", type=int, default=32, help="questions a batch (default: translate's 32)")
    args = parser.parse_args()
    pairs = dev_pairs()
    small = SmallParser.load(args.model)
    print(f"{len(pairs)} dev questions; {os.cpu_count()} CPUs ({platform.machine()}), numpy "
          f"{np.__version__}; threshold {small.threshold}")
    translator = SmallTranslator(small, Settings(translator="small"))
    if args.batches:
        batches(translator, pairs, args.batches, args.size)
        return
    knowledge = list(read_pairs(args.knowledge)) if args.knowledge else []
    report("small", pairs, one_by_one(translator, pairs))
    if knowledge:
        knowledge_report("small", knowledge, one_by_one(translator, knowledge))
    batches(translator, pairs)
    mask_cost(pairs)
    if args.no_cascade:
        return
    from qlang.translate.factory import Models, make

    models = Models(small_model=args.model, beam=small.beam)
    for kind in ("cascade",) if args.no_finetuned else ("finetuned", "cascade"):
        chosen = make(Settings(translator=kind), models)
        report(kind, pairs, one_by_one(chosen, pairs))
        if knowledge:
            knowledge_report(kind, knowledge, one_by_one(chosen, knowledge))
        assert kind != "cascade" or isinstance(chosen, Cascade)


if __name__ == "__main__":
    main()
