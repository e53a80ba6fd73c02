"""The cascade end to end on a GPU: questions/s, the share deferred and exact match at scale.

    python bench/gpu_cascade.py [--device cuda|cpu|numpy] [--fallback transformers|vllm|llama]
                                [--total 100000] [--batch 2048] [--fallback-batch 256]
                                [--workers N] [--scorer shipped|fallback] [--out DIR]

qlang's own cascade (`qlang.translate.cascade.Cascade`, as `qlangc translate` runs it): the
shipped small parser decodes a batch of `--batch` questions on `--device` (`numpy`: the CPU
network answering uses; `cpu`/`cuda`: its torch module, `bench/gpu_small.py`), and the
questions below its calibrated threshold are deferred to the fine-tuned translator (the bundled
SmolLM2 with qlang's adapter) on `--fallback`: `transformers` (on the same torch device, or the
CPU beside numpy; the deferred questions of a batch rescored and generated `--fallback-batch`
at a time, each under its own grammar mask, the grammar compiled once: `backends.batched`),
`vllm` (one engine batch, no rescoring: vLLM does not score) or `llama` (llama.cpp, decoded
together, all layers on the GPU where there is one).  The 3,091 shared GQA questions are
repeated to `--total`; every one is translated (a repeat is decoded again, never looked up).
Exact match is order-insensitive, as `qlangc eval` counts it.

The candidates are scored as the shipped cascade scores them, by the Gemma 3 adapter the small
parser's config names (`--scorer shipped`); `--scorer fallback` has SmolLM2 score them too, as
before Gemma: scripts/gpu-cascade.sh runs that, since Gemma's 253 MB GGUF does not fit what
its calls can carry to a lent machine.

`--check N` first compares, on the first N shared questions, the fine-tuned translator's
programs generated one by one and together (and the seconds each way took).

`--workers N` runs N processes that share the device, each with its own models, which load,
wait for each other, then translate their share: the figure is all questions over the slowest
worker's time, model loads and a warm-up batch left out (they are reported apart).  The
figures go to DIR/gpu-cascade.json.

The shared questions include the small parser's training questions (`bench/gpu_small.py`): the
exact-match figure says what the GPU path reproduces, not how well the cascade generalises.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gpu_small import in_workers, shared_questions
from qlang.ir import Node
from qlang.passes.canonical import equivalent
from qlang.translate.cascade import Cascade

#: --fallback -> qlang's backend
BACKENDS = {"transformers": "transformers", "vllm": "vllm", "llama": "llama-cpp"}


@dataclass(frozen=True)
class Share:
    """One worker's job: how to build the cascade, and its questions with their gold programs."""

    device: str
    fallback: str
    batch: int
    fallback_batch: int
    workers: int
    questions: list[str]
    golds: list[Node]
    #: who scores the candidates: the adapter the small parser's config names, or the fallback
    scorer: str = "shipped"


def backend_options(fallback: str, device: str, batch: int, workers: int) -> dict[str, Any]:
    """The fallback backend's options: its device, batch, or share of the GPU."""
    gpu = device == "cuda"
    options: dict[str, Any] = {
        "transformers": {"device": "cpu" if device == "numpy" else device, "batch": batch},
        "vllm": {"gpu_memory_utilization": round(0.8 / workers, 3)},
        "llama": {"together": True, "n_gpu_layers": -1 if gpu else 0},
    }[fallback]
    return options


def cascade(share: Share) -> Cascade:
    from qlang.small.parser import SmallParser
    from qlang.translate.backends import load_backend
    from qlang.translate.cascade import SmallTranslator
    from qlang.translate.models import ADAPTER, adapter
    from qlang.translate.translator import Settings, Translator

    settings = Settings(translator="cascade")
    parser = SmallParser.load(device=None if share.device == "numpy" else share.device)
    options = backend_options(share.fallback, share.device, share.fallback_batch, share.workers)

    def finetuned(model: str | None, lora: Path) -> Translator:
        backend = load_backend(BACKENDS[share.fallback], model, lora=str(lora), **options)
        return Translator(backend, [], Settings(translator="finetuned"))

    # the shipped cascade's models: SmolLM2 writes, the adapter its config names scores
    bundled = None if parser.scorer is None or share.scorer == "fallback" else adapter(parser.scorer)
    scorer = None if bundled is None else finetuned(bundled.base, bundled.path)
    return Cascade(SmallTranslator(parser, settings), finetuned(None, ADAPTER), scorer=scorer)


def _load(share: Share) -> tuple[Cascade, float]:
    """The cascade, warmed up on a batch that defers (kernels, the grammar's compilation)."""
    start = time.perf_counter()
    made = cascade(share)
    made.translate_many(share.questions[:min(len(share.questions), 64)])
    return made, time.perf_counter() - start


def _run(loaded: tuple[Cascade, float], share: Share) -> dict[str, Any]:
    made, load_seconds = loaded
    paths: Counter[str] = Counter()
    exact = valid = 0
    start = time.perf_counter()
    for first in range(0, len(share.questions), share.batch):
        chunk = made.translate_many(share.questions[first:first + share.batch])
        for translation, gold in zip(chunk, share.golds[first:first + share.batch], strict=True):
            paths[translation.path or "?"] += 1
            valid += translation.ok
            exact += translation.root is not None and equivalent(translation.root, gold)
        if first // share.batch % 10 == 9:  # the figures so far, should the run be cut short
            done = first + len(chunk)
            print(f"{done} questions in {time.perf_counter() - start:.1f} s: exact {exact / done:.1%}, "
                  f"deferred {1 - paths['small'] / done:.1%}", flush=True)
    return {"questions": len(share.questions), "exact": exact, "valid": valid, "paths": dict(paths),
            "load_s": round(load_seconds, 2)}


def agree(share: Share) -> dict[str, Any]:
    """The fine-tuned translator's programs for the share's questions, one by one (`translate`)
    and together (`translate_many`): how many agree, and each way's seconds."""
    fallback = cascade(share).fallback
    fallback.translate_many(share.questions[:4])  # warm-up: kernels, the grammar's compilation
    start = time.perf_counter()
    alone = [fallback.translate(question) for question in share.questions]
    middle = time.perf_counter()
    together = fallback.translate_many(share.questions)
    end = time.perf_counter()
    same = sum(a.program == b.program for a, b in zip(alone, together, strict=True))
    for a, b in [(a, b) for a, b in zip(alone, together, strict=True) if a.program != b.program][:5]:
        print(f"  differs: {a.question!r}: {a.program} / {b.program}")
    return {"questions": len(alone), "same_programs": same, "one_by_one_s": round(middle - start, 2),
            "together_s": round(end - middle, 2)}


def device_name(device: str) -> str:
    if device != "cuda":
        return platform.processor() or platform.machine()
    import torch

    return f"{torch.cuda.get_device_name(0)}, torch {torch.__version__}"


def main(argv: Sequence[str] | None = None) -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--device", default="cuda", choices=["cuda", "cpu", "numpy"])
    options.add_argument("--fallback", default="transformers", choices=list(BACKENDS))
    options.add_argument("--total", type=int, default=100_000)
    options.add_argument("--batch", type=int, default=2048, help="questions the cascade is given at once")
    options.add_argument("--fallback-batch", type=int, default=256,
                         help="deferred questions (or scored programs) in one forward pass")
    options.add_argument("--workers", type=int, default=1)
    options.add_argument("--check", type=int, default=0,
                         help="first compare the fallback's programs one by one and together "
                              "on this many questions (transformers)")
    options.add_argument("--scorer", default="shipped", choices=["shipped", "fallback"],
                         help="who scores the candidates: the adapter the small parser's config "
                              "names (Gemma 3), or SmolLM2, the fallback, as before it")
    options.add_argument("--out", type=Path, default=Path("."))
    args = options.parse_args(argv)

    pairs = shared_questions()
    repeated = [pairs[i % len(pairs)] for i in range(args.total)]
    figures: dict[str, Any] = {
        "distinct": len(pairs), "total": len(repeated), "device": args.device, "fallback": args.fallback,
        "batch": args.batch, "fallback_batch": args.fallback_batch, "workers": args.workers,
        "scorer": args.scorer, "machine": device_name(args.device)}
    print(json.dumps(figures), flush=True)
    shares = [Share(args.device, args.fallback, args.batch, args.fallback_batch, args.workers,
                    [q for q, _ in part], [g for _, g in part], args.scorer)
              for part in (repeated[w::args.workers] for w in range(args.workers))]
    if args.check:
        first = replace(shares[0], questions=[q for q, _ in pairs[:args.check]])
        figures["check"] = agree(first)
        print(json.dumps(figures["check"]), flush=True)
    done = in_workers(_load, _run, shares)
    results = [result for result, _ in done]
    seconds = max(taken for _, taken in done)
    total = sum(r["questions"] for r in results)
    paths: Counter[str] = sum((Counter(r["paths"]) for r in results), Counter())
    figures |= {
        "seconds": round(seconds, 2), "questions_per_s": round(total / seconds, 1),
        "exact": round(sum(r["exact"] for r in results) / total, 4),
        "valid": round(sum(r["valid"] for r in results) / total, 4),
        "deferred": round(1 - paths["small"] / total, 4), "paths": dict(paths),
        "load_s": max(r["load_s"] for r in results)}
    print(f"{total} questions in {seconds:.2f} s: {total / seconds:,.1f} questions/s; exact "
          f"{figures['exact']:.1%}, a program {figures['valid']:.1%}; deferred {figures['deferred']:.1%} "
          f"({', '.join(f'{k} {v}' for k, v in sorted(paths.items()))})", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "gpu-cascade.json").write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
