"""Translation latency and decoding speed: unconstrained vs GBNF vs llguidance, same questions.

    .venv/bin/python bench/translate.py [--questions 30] [--examples 5] [--model smollm2]
                                        [--n-gpu-layers 0] [--finetuned]

`--finetuned`: the default translator instead (the bundled adapter, no examples).

One model load; for each engine, one warm-up question (grammar compilation is not counted),
then the same N dev questions.  Per question: the whole translation (examples, prompt, prompt
evaluation, decoding, clean-up, check) and, separately, decoding alone: the prompt is evaluated
by a one-token call first, so the timed call finds it in llama.cpp's KV cache and only decodes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
from dataclasses import replace

from qlang.paths import GQA_QUESTIONS
from qlang.translate.backends import load_backend
from qlang.translate.examples import load_pool
from qlang.translate.models import ADAPTER
from qlang.translate.translator import Settings, Translator

DEV = GQA_QUESTIONS / "testdev_ood_head.json"
ENGINES = {
    "unconstrained": Settings(constrained=False, max_tokens=64),
    "GBNF (llama.cpp)": Settings(engine="gbnf"),
    "llguidance (Lark)": Settings(engine="lark"),
}


def measure(translator: Translator, questions: list[str]) -> dict[str, float]:
    translator.translate(questions[0])  # warm-up
    whole, decode_seconds, decode_tokens, checked = [], 0.0, 0, 0
    for question in questions[1:]:
        result = translator.translate(question)
        whole.append(result.seconds)
        checked += result.ok
        prompt, _ = translator.prompt(question)
        request = translator.request(prompt)
        translator.backend.generate(replace(request, max_tokens=1, gbnf=None, lark=None))
        timed = translator.backend.generate(request)
        decode_seconds += timed.seconds
        decode_tokens += timed.completion_tokens
    whole.sort()
    return {"median": statistics.median(whole), "mean": statistics.mean(whole),
            "p95": whole[int(0.95 * (len(whole) - 1))], "ms_per_token": 1000 * decode_seconds / decode_tokens,
            "tokens": decode_tokens / len(whole), "checked": checked, "n": len(whole)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--examples", type=int, default=5)
    parser.add_argument("--model", default=None)
    parser.add_argument("--n-gpu-layers", type=int, default=0)
    parser.add_argument("--finetuned", action="store_true")
    args = parser.parse_args()
    questions = [q["question"] for q in json.loads(DEV.read_text()).values()][: args.questions + 1]
    backend = load_backend("llama-cpp", args.model, n_gpu_layers=args.n_gpu_layers,
                           lora=str(ADAPTER) if args.finetuned else None)
    kind = "finetuned" if args.finetuned else "fewshot"
    pool = load_pool()
    print(f"model {backend.model}; {args.questions} dev questions, {args.examples} examples; "
          f"{os.cpu_count()} CPUs ({platform.machine()}), n_gpu_layers={args.n_gpu_layers}")
    print(f"{'engine':18} {'median s/q':>10} {'mean s/q':>9} {'p95 s/q':>8} {'ms/token':>9} "
          f"{'vs free':>8} {'tok/q':>6} {'checked':>8}")
    free = None
    for name, settings in ENGINES.items():
        row = measure(Translator(backend, pool, replace(settings, examples=args.examples, translator=kind)),
                      questions)
        free = free or row["ms_per_token"]
        print(f"{name:18} {row['median']:10.2f} {row['mean']:9.2f} {row['p95']:8.2f} "
              f"{row['ms_per_token']:9.1f} {row['ms_per_token'] / free - 1:+8.0%} {row['tokens']:6.1f} "
              f"{row['checked']:4.0f}/{row['n']:.0f}")


if __name__ == "__main__":
    main()
