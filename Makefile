# The two set-up commands of the README: `make demo` and `make test`.
# Both install into a project-local virtual environment once; a second run installs nothing.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test install lint bench

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/qlangc compile --from gqa --to nested examples/truck_tire.json
	$(VENV)/bin/qlangc compile --from gqa --to code examples/truck_tire.json
	$(VENV)/bin/qlangc compile --from gqa --to flat examples/truck_tire.json

test: $(STAMP)
	$(VENV)/bin/ruff check qlang tests bench
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) bench/compile.py
