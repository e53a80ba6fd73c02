#!/usr/bin/env bash
# Train the small parser on a GPU machine, from a data folder `qlangc data` made here: the
# model card's run (8,000 steps), about 2 minutes on one H100 where the project's loaded 2-core
# CPU takes an hour; several seeds at once share the GPU (each run is mostly Python), and
# several calls of this script (other data, other OUT) may run side by side.  The machine's
# python3 has torch, numpy, click and tqdm but not lark or clingo, whose wheels travel in .whl/
# (cp312, as /work/main/.whl holds them).
#
#   scripts/train-small-gpu.sh DATA OUT [STEPS [SEED ...]]
#
# writes OUT/seed-N/model.safetensors and OUT/seed-N/config.json (the run's summary under
# "notes"), one folder a seed (default: seed 0), and prints each run's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$1 out=$2 steps=${3:-8000}
seeds=("${@:4}")
[ ${#seeds[@]} -gt 0 ] || seeds=(0)
wheels=/tmp/qlang-wheels
# one install for all side-by-side calls: the first to take the lock installs
( flock 9 2>/dev/null || true; [ -d "$wheels/lark" ] || python3 -m pip install --quiet --no-index --no-deps --target "$wheels" .whl/*.whl ) 9>/tmp/qlang-wheels.lock
export PYTHONPATH="$PWD:$wheels" OMP_NUM_THREADS=2
nvidia-smi -L || true
runs=/tmp/qlang-small/$(basename "$out")
for seed in "${seeds[@]}"; do
    mkdir -p "$runs"
    python3 -m qlang.commands.main train --arch seq2seq --data "$data/train.jsonl" \
        --out "$runs/$seed" --max-steps "$steps" --seed "$seed" > "$runs/$seed.json" &
done
wait
for seed in "${seeds[@]}"; do
    mkdir -p "$out/seed-$seed"
    cp "$runs/$seed/model/model.safetensors" "$runs/$seed/model/config.json" "$out/seed-$seed/"
    cat "$runs/$seed.json"
    sha256sum "$out/seed-$seed/model.safetensors"
done
