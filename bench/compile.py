"""Programs per second for parse + check + lower, per syntax, over the 3,091 real GQA programs.

    .venv/bin/python bench/compile.py [--repeat N] [--reference]

Each program is first converted to every syntax (not timed); then, per syntax, every text is
parsed, type- and vocabulary-checked and lowered to ASP facts on one core.  The parse is
qlang's (lark_cython, positions from the tokens); ``--reference`` adds a column for Lark's
pure-Python parser alone (`qlang.syntax.parsing.Grammar.parse_reference`), as qlang parsed before.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from unittest import mock

import qlang
from qlang.passes.canonical import canonicalize
from qlang.passes.lower import facts
from qlang.passes.typecheck import check
from qlang.paths import GQA_QUESTIONS
from qlang.syntax import SYNTAXES, gqa
from qlang.syntax.parsing import Grammar

DATA = GQA_QUESTIONS


def gold_programs() -> list[qlang.Node]:
    roots = []
    for name in ("testdev_ood_head.json", "val_balanced_tail.json"):
        for question in json.loads((DATA / name).read_text()).values():
            roots.append(canonicalize(gqa.to_ir(gqa.steps_from_json(question["semantic"]))))
    return roots


def rate(syntax: str, texts: list[str], repeat: int) -> float:
    parse = SYNTAXES[syntax].parse
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for text in texts:
            root = parse(qlang.errors.Source(text))
            assert not check(root)
            facts(root)
        best = min(best, time.perf_counter() - start)
    return len(texts) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="runs per syntax; the best counts")
    parser.add_argument("--reference", action="store_true",
                        help="also time Lark's pure-Python parser alone")
    args = parser.parse_args()
    roots = gold_programs()
    print(f"{len(roots)} real GQA programs, Python {platform.python_version()}, one core")
    reference = f" {'reference/s':>11} {'speed-up':>8}" if args.reference else ""
    print(f"{'syntax':8} {'programs/s':>11} {'µs/program':>11} {'mean chars':>11}{reference}")
    for syntax in ("nested", "code", "flat", "gqa", "gqa-str"):
        texts = [SYNTAXES[syntax].print(root) for root in roots]
        per_second = rate(syntax, texts, args.repeat)
        mean_chars = sum(map(len, texts)) / len(texts)
        line = f"{syntax:8} {per_second:11,.0f} {1e6 / per_second:11.0f} {mean_chars:11.0f}"
        if args.reference:
            with mock.patch.object(Grammar, "parse", Grammar.parse_reference):
                slow = rate(syntax, texts, args.repeat)
            line += f" {slow:11,.0f} {per_second / slow:7.2f}x"
        print(line)


if __name__ == "__main__":
    main()
