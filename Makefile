# tempogen: two commands on a fresh machine — `make dataset` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
OUT ?= dataset
CONFIG ?= configs/default.yaml
JOBS ?=
comma := ,

.PHONY: setup dataset test test-fast quality docs style bench mutate clean

setup: $(VENV)/.installed

# torch first, pinned to the CPU build on this disk, so the resolver never pulls a CUDA build.
$(VENV)/.installed: pyproject.toml
	bash scripts/ensure_gl.sh
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[dev,ray]'
	touch $@

dataset: setup
	$(VENV)/bin/tempogen generate --config $(CONFIG) --out $(OUT) $(if $(JOBS),-j $(JOBS),)

# two pytest-xdist workers (the machine's two cores), each test file whole on one of them, so
# its module-scoped builds are made once (loadgroup does not group under pytest 9.2); -n stays
# out of pytest's addopts: scripts/mutate.py runs pytest itself. Tests marked serial (how fast
# a signal stops a build) run afterwards on their own, with no other worker loading the CPU.
# The serial run collects only the files that mark tests serial (collecting all of tests/ costs
# about 12 s of CPU a process).
TESTWORKERS ?= 2
SERIAL_FILES = $(shell grep -rl --include='test_*.py' 'mark\.serial' tests)
test: setup
	$(PY) -m pytest -q -n $(TESTWORKERS) --dist loadfile -m "not serial"
	$(PY) -m pytest -q -m serial $(SERIAL_FILES)

test-fast: setup
	$(PY) -m pytest -q -n $(TESTWORKERS) --dist loadfile -m "not slow and not serial"
	$(PY) -m pytest -q -m "serial and not slow" $(SERIAL_FILES)

# the type check: mypy, strict on the core (pyproject.toml [tool.mypy]); cache in build/mypy-cache
quality: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) scripts/lint_imports.py
	$(PY) scripts/typecheck.py
	$(MAKE) docs

# the documentation site (docs/, mkdocs.yml) into build/site; --strict: a broken link or a
# reference that cannot be generated fails it (not --quiet: under it MkDocs 1.6 drops the
# warnings before --strict counts them, and a broken link passes)
docs: setup
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

style: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# every bench under bench/, its headline figures in bench/results.jsonl (QUICK=1: small sizes)
bench: setup
	$(PY) bench/run_all.py $(if $(QUICK),--quick,)

# mutation testing of the label-critical modules (not part of `make test`; tens of minutes):
# MODULES=answers,algebra picks some, JOBS=n forks n mutants at once; figures in build/mutate.json
MODULES ?=
mutate: setup
	$(PY) scripts/mutate.py $(subst $(comma), ,$(MODULES)) $(if $(JOBS),-j $(JOBS),) --json build/mutate.json

clean:
	rm -rf $(OUT) build *.egg-info
