"""How fast grammar-constrained decoding is: plain word lists, trie-factored GBNF, llguidance.

``.venv/bin/python bench/grammar.py [--programs 20] [--syntax nested] [--questions 4]
[--compile]`` prints Markdown tables (the figures in bench/README.md):

- compiling (``--compile``, instead of the others): per syntax, the grammar's size (GBNF and
  Lark characters, GBNF rules), how long llama.cpp and llguidance take to compile it (median of
  `REPEATS`), and llguidance's mask per token over the first dev gold programs;

- masking: for the first dev gold programs, in each syntax, the time llama.cpp's grammar engine
  takes per token to mask SmolLM2's whole vocabulary (49,152 tokens) while the program is fed
  through it: the grammar's share of a decoding step, free of the model's and of noise;
- decoding: the first dev questions translated by the bundled model under each engine.  Every
  prompt is first decoded unconstrained, so llama.cpp's KV cache holds it and the constrained
  runs time generation, not prompt processing; one question warms every engine up (grammar
  compilation is not timed).  Temperature 0.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from qlang.syntax import SYNTAXES
from qlang.translate.backends import Request
from qlang.translate.backends.llama import LlamaCppBackend
from qlang.translate.examples import DEFAULT_POOL, Example, load_pool, read_pool
from qlang.translate.grammar import GRAMMAR_SYNTAXES, generate
from qlang.translate.translator import Settings, Translator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.grammar_check import GrammarChecker

#: engine -> the request for a syntax, given the unconstrained one
ENGINES: dict[str, Callable[[str, Request], Request]] = {
    "unconstrained": lambda syntax, request: request,
    "GBNF, plain word lists":
        lambda syntax, request: replace(request, gbnf=generate(syntax, "gbnf", factor=False)),
    "GBNF, trie-factored": lambda syntax, request: replace(request, gbnf=generate(syntax, "gbnf")),
    "llguidance (Lark form)": lambda syntax, request: replace(request, lark=generate(syntax, "lark")),
}


def _dev(count: int) -> list[Example]:
    return list(read_pool(DEFAULT_POOL.with_name("testdev_ood_head.json")).examples[:count])


def masking(programs: int) -> None:
    examples = _dev(programs)
    print(f"masking, {programs} gold programs: ms per token (mean / median / max)\n")
    print("| syntax | tokens | plain word lists | trie-factored | speed-up (mean) |\n"
          "|---|---:|---:|---:|---:|")
    for syntax in GRAMMAR_SYNTAXES:
        texts = [SYNTAXES[syntax].print(e.root) for e in examples]
        figures = []
        for factor in (False, True):
            checker = GrammarChecker(generate(syntax, "gbnf", factor=factor))
            figures.append([1000 * s for text in texts for s in checker.mask_seconds(text)])
            checker.close()
        cells = [f"{statistics.mean(f):.1f} / {statistics.median(f):.1f} / {max(f):.0f}" for f in figures]
        speedup = statistics.mean(figures[0]) / statistics.mean(figures[1])
        print(f"| {syntax} | {len(figures[0])} | {cells[0]} | {cells[1]} | {speedup:.1f}× |")


#: compilations timed per grammar and engine (the median is reported)
REPEATS = 5


def compiling(programs: int) -> None:
    import llguidance
    import llguidance.numpy

    examples = _dev(programs)
    print(f"compiling, median of {REPEATS}; llguidance mask over {programs} gold programs\n")
    print("| syntax | GBNF chars | GBNF rules | Lark chars | llama.cpp compile ms "
          "| llguidance compile ms | llguidance mask ms/token (mean) |\n"
          "|---|---:|---:|---:|---:|---:|---:|")
    checker = GrammarChecker("root ::= \"x\"")
    tokenizer = checker.guidance_tokenizer()
    for syntax in GRAMMAR_SYNTAXES:
        gbnf, lark = generate(syntax, "gbnf"), generate(syntax, "lark")
        llama_ms = statistics.median(1000 * checker.compile_seconds(gbnf) for _ in range(REPEATS))
        guidance = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            matcher = llguidance.LLMatcher(tokenizer, llguidance.LLMatcher.grammar_from_lark(lark))
            guidance.append(1000 * (time.perf_counter() - start))
            assert not matcher.is_error(), matcher.get_error()
        masks = []
        bitmask = llguidance.numpy.allocate_token_bitmask(1, tokenizer.vocab_size)
        for example in examples:
            text = SYNTAXES[syntax].print(example.root)
            matcher = llguidance.LLMatcher(tokenizer, llguidance.LLMatcher.grammar_from_lark(lark))
            for token in checker.tokens(text):
                start = time.perf_counter()
                llguidance.numpy.fill_next_token_bitmask(matcher, bitmask, 0)
                masks.append(1000 * (time.perf_counter() - start))
                assert matcher.consume_token(token), (syntax, text)
        print(f"| {syntax} | {len(gbnf):,} | {gbnf.count(chr(10)):,} | {len(lark):,} | {llama_ms:.1f} "
              f"| {statistics.median(guidance):.0f} | {statistics.mean(masks):.2f} |")
    checker.close()


def decoding(syntax: str, questions: int, examples: int) -> None:
    backend = LlamaCppBackend()
    translator = Translator(backend, load_pool(), Settings(syntax=syntax, examples=examples,
                                                           constrained=False, max_tokens=96))
    totals = {engine: [0, 0.0] for engine in ENGINES}
    outputs: dict[str, list[str]] = {engine: [] for engine in ENGINES}
    for index, example in enumerate(_dev(questions + 1)):
        base = translator.request(translator.prompt(example.question)[0])
        for engine, constrain in ENGINES.items():
            generation = backend.generate(constrain(syntax, base))
            if index:  # the first question warms up caches and grammar compilation
                totals[engine][0] += generation.completion_tokens
                totals[engine][1] += generation.seconds
                outputs[engine].append(generation.text)
    print(f"\ndecoding, syntax {syntax}, {questions} questions, model {backend.model}\n")
    print("| engine | tokens | ms/token | tokens/s | s/question |\n|---|---:|---:|---:|---:|")
    for engine, (tokens, seconds) in totals.items():
        print(f"| {engine} | {tokens} | {1000 * seconds / max(tokens, 1):.1f} | "
              f"{tokens / seconds:.1f} | {seconds / questions:.2f} |")
    same = outputs["GBNF, plain word lists"] == outputs["GBNF, trie-factored"]
    print(f"\nplain and trie-factored GBNF decode the same text: {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=20, help="gold programs to mask")
    parser.add_argument("--syntax", default="nested", choices=GRAMMAR_SYNTAXES)
    parser.add_argument("--questions", type=int, default=4, help="decoded, after one warm-up")
    parser.add_argument("--examples", type=int, default=5, help="prompt examples")
    parser.add_argument("--compile", action="store_true", help="grammar sizes and compile times only")
    args = parser.parse_args()
    if args.compile:
        compiling(args.programs)
        return
    masking(args.programs)
    if args.questions:
        decoding(args.syntax, args.questions, args.examples)


if __name__ == "__main__":
    main()
