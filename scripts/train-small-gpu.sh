#!/usr/bin/env bash
# Train the small parser on a GPU machine, from a data folder `qlangc data` made here: the
# model card's run (8,000 steps, seed 0), minutes on one H100/H200 where the project's loaded
# 2-core CPU takes an hour.  The machine's python3 has torch, numpy, click and tqdm but not
# lark or clingo, whose wheels travel in .whl/ (cp312, as /work/main/.whl holds them).
#
#   scripts/train-small-gpu.sh DATA OUT [STEPS]
#
# writes OUT/model.safetensors, OUT/config.json, OUT/train.json (the summary: device, seconds,
# losses' first and last), OUT/losses.json and OUT/train.log; the checkpoint stays behind.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$1 out=$2 steps=${3:-8000}
wheels=/tmp/qlang-wheels
python3 -m pip install --quiet --no-index --no-deps --target "$wheels" .whl/*.whl
export PYTHONPATH="$PWD:$wheels"
nvidia-smi -L || true
run=/tmp/qlang-small-run
mkdir -p "$out"
python3 -m qlang.commands.main train --arch seq2seq --data "$data/train.jsonl" --out "$run" \
    --max-steps "$steps" 2>&1 | tee "$out/train.log"
cp "$run/model/model.safetensors" "$run/model/config.json" "$run/train.json" "$run/losses.json" "$out/"
sha256sum "$out/model.safetensors"
