"""How fast grammar-constrained decoding is: plain word lists, trie-factored GBNF, llguidance.

``python -m qlang.translate.grammar_bench [--syntax nested] [--questions 6]`` translates the
first dev questions with the bundled model under each engine and prints a Markdown table (the
figures in bench/README.md).  Every prompt is first decoded unconstrained, so llama.cpp's KV
cache holds it and the constrained runs time generation, not prompt processing; one question
warms every engine up (grammar compilation is not timed).  Temperature 0.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace

from qlang.translate.backends import Request
from qlang.translate.backends.llama import LlamaCppBackend
from qlang.translate.examples import DEFAULT_POOL, load_pool, read_pool
from qlang.translate.grammar import generate
from qlang.translate.translator import Settings, Translator

#: engine -> the request for a syntax, given the unconstrained one
ENGINES: dict[str, Callable[[str, Request], Request]] = {
    "unconstrained": lambda syntax, request: request,
    "GBNF, plain word lists":
        lambda syntax, request: replace(request, gbnf=generate(syntax, "gbnf", factor=False)),
    "GBNF, trie-factored": lambda syntax, request: replace(request, gbnf=generate(syntax, "gbnf")),
    "llguidance (Lark form)": lambda syntax, request: replace(request, lark=generate(syntax, "lark")),
}


def _dev_questions(count: int) -> list[str]:
    dev = read_pool(DEFAULT_POOL.with_name("testdev_ood_head.json"))
    return [example.question for example in dev.examples[:count]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--syntax", default="nested", choices=("flat", "nested", "code"))
    parser.add_argument("--questions", type=int, default=6, help="timed, after one warm-up")
    parser.add_argument("--examples", type=int, default=5)
    args = parser.parse_args()
    backend = LlamaCppBackend()
    translator = Translator(backend, load_pool(), Settings(syntax=args.syntax, examples=args.examples,
                                                           constrained=False, max_tokens=96))
    totals = {engine: [0, 0.0] for engine in ENGINES}
    outputs: dict[str, list[str]] = {engine: [] for engine in ENGINES}
    for index, question in enumerate(_dev_questions(args.questions + 1)):
        base = translator.request(translator.prompt(question)[0])
        for engine, constrain in ENGINES.items():
            generation = backend.generate(constrain(args.syntax, base))
            if index:  # the first question warms up caches and grammar compilation
                totals[engine][0] += generation.completion_tokens
                totals[engine][1] += generation.seconds
                outputs[engine].append(generation.text)
    print(f"syntax {args.syntax}, {args.questions} questions, model {backend.model}\n")
    print("| engine | tokens | ms/token | tokens/s | s/question |\n|---|---:|---:|---:|---:|")
    for engine, (tokens, seconds) in totals.items():
        print(f"| {engine} | {tokens} | {1000 * seconds / max(tokens, 1):.1f} | "
              f"{tokens / seconds:.1f} | {seconds / args.questions:.2f} |")
    same = outputs["GBNF, plain word lists"] == outputs["GBNF, trie-factored"]
    print(f"\nplain and trie-factored GBNF decode the same text: {same}")


if __name__ == "__main__":
    main()
