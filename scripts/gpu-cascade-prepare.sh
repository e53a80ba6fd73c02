#!/usr/bin/env bash
# Make, here, what scripts/gpu-cascade.sh carries to a lent GPU machine (bench/README.md, "The
# cascade on a GPU"), all in folders git ignores, in the checkout the session started in:
#
#   .whl/          the cp312 wheels the machine's python3 lacks (it has torch, transformers,
#                  peft, safetensors, numpy, click, tqdm, pyyaml, requests): lark, lark-cython,
#                  clingo (and cffi, pycparser), llguidance, gguf, at this venv's versions
#   .gpu-data/     the two shared GQA question files ($QLANG_DATA there)
#   .cache/knowledge   the bundled knowledge base's index (there is no WordNet there)
#   .gpu-model-N/  the bundled SmolLM2 GGUF in parts of PART_MB MiB (default 25) and its manifest
#
# then prints what each call carries against the 64 MiB limit.
#
#   scripts/gpu-cascade-prepare.sh [PART_MB]
set -euo pipefail
cd "$(dirname "$0")/.."
part_mb=${1:-25}
python=.venv/bin/python
exclude=$(git rev-parse --git-common-dir)/info/exclude
for ignored in /.whl/ /.gpu-data/ '/.gpu-model-*/'; do
    grep -qxF "$ignored" "$exclude" || echo "$ignored" >> "$exclude"
done

version() { "$python" -c "import importlib.metadata as m; print(m.version('$1'))"; }
platforms=(--platform manylinux2014_x86_64)
for n in 17 24 27 28 31 34 35; do platforms+=(--platform "manylinux_2_${n}_x86_64"); done
mkdir -p .whl
for package in lark lark-cython clingo cffi pycparser llguidance gguf; do
    wanted=$(version "$package")
    ls .whl | grep -qi "^${package//-/_}-$wanted-" && continue
    rm -f .whl/"${package//-/_}"-*.whl  # one version of each: two stop the install there
    "$python" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        "${platforms[@]}" -d .whl "$package==$wanted"
done

data=${QLANG_DATA:-../shared/data}
mkdir -p .gpu-data/gqa/questions
cp "$data"/gqa/questions/testdev_ood_head.json "$data"/gqa/questions/val_balanced_tail.json .gpu-data/gqa/questions/
PYTHONPATH=$PWD "$python" -c "from qlang.knowledge import sources; sources.knowledge([])"  # the index, once

model=$(PYTHONPATH=$PWD "$python" -c "from qlang.translate.models import gguf_model; print(gguf_model(None).path)")
rm -rf .gpu-model-*/ /tmp/gpu-model-parts && mkdir -p /tmp/gpu-model-parts
split -b "${part_mb}M" -d -a 2 "$model" /tmp/gpu-model-parts/part-
count=$(ls /tmp/gpu-model-parts | wc -l)
i=0
for part in /tmp/gpu-model-parts/part-*; do
    i=$((i + 1))
    mkdir -p ".gpu-model-$i" && mv "$part" ".gpu-model-$i/part"
    echo "$(sha256sum "$model" | cut -d' ' -f1) $count $(basename "$model")" > ".gpu-model-$i/manifest"
done

bytes() { du -cb "$@" | tail -1 | cut -f1; }
tree=$( (git ls-files -z; git ls-files -z -o --exclude-standard) | xargs -0 du -cb 2>/dev/null \
        | awk '$2 == "total" {t += $1} END {print t}')
limit=$((64 * 1024 * 1024))
echo "the working tree: $((tree / 1048576)) MiB; every call carries it"
for i in $(seq 1 "$count"); do
    carried=(".gpu-model-$i")
    [ "$i" -eq "$count" ] && carried+=(.whl .gpu-data .cache/knowledge)
    total=$((tree + $(bytes "${carried[@]}")))
    verdict=$([ "$total" -lt "$limit" ] && echo "fits" || echo "TOO LARGE")
    echo "call $i carries ${carried[*]}: $((total / 1048576)) MiB of 64: $verdict"
done
