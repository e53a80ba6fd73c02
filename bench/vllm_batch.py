"""The vLLM backend on a GPU: engine start, throughput by batch size, accuracy on the dev split.

    python bench/vllm_batch.py [--dev runs/data-aug3/dev.jsonl] [--sizes 1 8 32 128 0] [--out DIR]
                               [--unconstrained] [--enforce-eager] [--gpu-memory-utilization 0.85]
                               [--shard I/K --barrier DIR]

(Not `bench/vllm.py`: run as a script, that name would hide the vllm package.)  The fine-tuned
translator (the bundled SmolLM2 dequantised into a transformers folder, qlang's LoRA adapter,
nested syntax under the typed Lark grammar as vLLM structured output) through
`Translator.translate_many`, as `qlangc translate --backend vllm --jsonl` runs it.  Timed apart:
the base model's folder (dequantised once), the adapter's PEFT folder (converted once), the
engine's start.  Then every dev question at each batch size (0: all in one batch; the first
batch of a size is a warm-up, not timed), reporting questions/s and generated tokens/s; every
size must give the same programs (greedy decoding).  The last size's translations are scored
against the gold programs (valid, exact, strict, as `qlangc eval` does) and written to
DIR/vllm-dev.jsonl, in `translate --jsonl`'s format, for `qlangc eval`; DIR/vllm.json holds the
figures.  `--unconstrained` adds all questions in one batch without the grammar.

`--shard I/K`: only every K-th question from the I-th, for K engines sharing one GPU (each with
a K-th of `--gpu-memory-utilization` or less); `--barrier DIR` makes the K processes start their
timed batch together once all engines are up.  Each prints its start and end (epoch seconds);
the K of them together answer all questions from the first start to the last end.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path
from typing import Any

from qlang.evaluate.programs import score
from qlang.records.questions import questions_by_id
from qlang.syntax import gqa
from qlang.translate.backends.vllm_engine import VllmBackend, peft_adapter
from qlang.translate.models import ADAPTER, hf_directory
from qlang.translate.translator import Settings, Translation, Translator


def gpu_memory() -> dict[str, Any]:
    """nvidia-smi's reading of the GPU: its name and the memory in use (MiB)."""
    fields = "name,memory.used,memory.total"
    line = subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader,nounits"],
                          capture_output=True, text=True, check=True).stdout.splitlines()[0]
    name, used, total = (part.strip() for part in line.split(","))
    return {"gpu": name, "used_mib": int(used), "total_mib": int(total)}


def run(translator: Translator, questions: list[str], size: int, barrier: Path | None = None,
        shard: str = "") -> tuple[list[Translation], float, float]:
    """Every question in batches of `size` (0: one batch), after a warm-up batch (and the
    barrier: every shard's file there); the epoch seconds of the start and the end."""
    size = size or len(questions)
    translator.translate_many(questions[:size])  # warm-up: this batch shape's first run
    if barrier is not None:
        barrier.mkdir(parents=True, exist_ok=True)
        (barrier / shard.replace("/", "-of-")).touch()
        while len(list(barrier.iterdir())) < int(shard.split("/")[1]):
            time.sleep(0.01)
    start = time.time()
    results: list[Translation] = []
    for i in range(0, len(questions), size):
        results += translator.translate_many(questions[i:i + size])
    return results, start, time.time()


def row(size: int, results: list[Translation], start: float, end: float) -> dict[str, Any]:
    tokens = sum(r.completion_tokens for r in results)
    return {"batch": size or len(results), "questions": len(results), "seconds": round(end - start, 3),
            "questions_per_s": round(len(results) / (end - start), 1),
            "tokens_per_s": round(tokens / (end - start)), "tokens": tokens,
            "start": round(start, 3), "end": round(end, 3)}


def accuracy(records: list[dict[str, Any]], results: list[Translation]) -> dict[str, float]:
    metrics = [score(r.program if r.raw else None, "nested", gqa.to_ir(gqa.steps_from_json(rec["semantic"])))
               for rec, r in zip(records, results, strict=True)]
    return {name: round(sum(getattr(m, name) for m in metrics) / len(metrics), 4)
            for name in ("checked", "exact", "strict")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--dev", default="runs/data-aug3/dev.jsonl")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 8, 32, 128, 0])
    parser.add_argument("--out", default=".")
    parser.add_argument("--unconstrained", action="store_true", help="also all questions without the grammar")
    parser.add_argument("--enforce-eager", action="store_true", help="no torch.compile, no CUDA graphs")
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.85)
    parser.add_argument("--shard", default="0/1", help="I/K: every K-th question from the I-th")
    parser.add_argument("--barrier", type=Path, help="a folder where the K shards meet before timing")
    args = parser.parse_args()
    out = Path(args.out)
    index, count = map(int, args.shard.split("/"))
    records = list(questions_by_id(args.dev).values())[index::count]
    questions = [r["question"] for r in records]
    figures: dict[str, Any] = {"questions": len(questions), "shard": args.shard, "idle": gpu_memory()}

    start = time.perf_counter()
    base = hf_directory(None)
    figures["base_folder_s"] = round(time.perf_counter() - start, 2)
    start = time.perf_counter()
    peft_adapter(str(ADAPTER), base)
    figures["adapter_folder_s"] = round(time.perf_counter() - start, 2)
    start = time.perf_counter()
    backend = VllmBackend(lora=str(ADAPTER), gpu_memory_utilization=args.gpu_memory_utilization,
                          enforce_eager=args.enforce_eager)
    figures["engine_start_s"] = round(time.perf_counter() - start, 2)
    figures["loaded"] = gpu_memory()
    print(json.dumps(figures), flush=True)

    translator = Translator(backend, [], Settings(translator="finetuned"))
    programs: list[str | None] | None = None
    figures["sizes"] = []
    for size in args.sizes:
        results, start, end = run(translator, questions, size, args.barrier, args.shard)
        if programs is None:
            programs = [r.program for r in results]
        same = sum(a == r.program for a, r in zip(programs, results, strict=True))
        figures["sizes"].append(row(size, results, start, end) | {"same_programs": same})
        print(json.dumps(figures["sizes"][-1]), flush=True)
    figures["peak"] = gpu_memory()
    figures |= accuracy(records, results)
    if args.unconstrained:
        free = Translator(backend, [], Settings(translator="finetuned", constrained=False))
        loose, start, end = run(free, questions, 0)
        figures["unconstrained"] = row(0, loose, start, end) | accuracy(records, loose)
        print(json.dumps(figures["unconstrained"]), flush=True)
    if args.barrier is None:
        with (out / "vllm-dev.jsonl").open("w") as f:
            for rec, r in zip(records, results, strict=True):
                f.write(json.dumps({"id": rec["id"], **r.to_json()}) + "\n")
        (out / "vllm.json").write_text(json.dumps(figures, indent=1))
    print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
