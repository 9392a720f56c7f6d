# Two promises on a fresh machine with only Python: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# The installed metadata carries the version (tipc/version.py): a new one reinstalls, as a new pyproject.toml does.
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml tipc/version.py | cksum | cut -d" " -f1)
DEMO_CONFIG ?= tinyrec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt
DEMO_MODE   ?= lite_train_lite_infer
PYTEST_ARGS ?=
# The suite on every core (pytest-xdist, in the [test] extra): 2 workers on a 2-core machine. loadfile keeps each
# test file on one worker, so a file's module-scoped fixture (a trained model, the compat venv, the Slurm cluster)
# is made once. Not loadgroup: on pytest 9.2 it silently stops grouping (pytest-xdist#1386).
# `PYTEST_XDIST=` (or `PYTEST_ARGS=-n0`) runs in one process, e.g. for --pdb.
PYTEST_XDIST ?= -n auto --dist loadfile
FLEET_CONFIG ?= tinyrec/train_linux_cpu_fleet_normal_infer_python_linux_cpu.txt
# The configs say `python:python3`; tipc uses it when it resolves on PATH, so the venv comes first.
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: install demo browser test test-fast lint typecheck docs bench nightly-local gpu-check clean

$(STAMP): pyproject.toml tipc/version.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[cpu,test,onnx]'
	rm -f $(VENV)/.installed-* && touch $@

install: $(STAMP)

demo: install
	$(VENV)/bin/tipc prepare --config $(DEMO_CONFIG) --mode $(DEMO_MODE)
	$(VENV)/bin/pytest tipc --config $(DEMO_CONFIG) --mode $(DEMO_MODE) -p no:cacheprovider

# The report's real-browser test needs Chromium: Debian's package when we may install it (root with
# apt-get). Otherwise, or if apt fails (offline), carry on: that test skips and says why.
browser:
	@command -v chromium >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1 || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  echo "make browser: chromium not installed; the browser test will skip" >&2

# The suite starts a few hundred Python processes (tipc's CLI, pytest in a subprocess). Where the environment sets
# PYTHONDONTWRITEBYTECODE (some CI images do), each of them would compile tipc anew, and each pytest would rewrite
# the asserts of every plugin package again (all of hypothesis): the suite writes its bytecode instead, into
# the checkout's and the venv's __pycache__ (ignored by git). The suite's CPU time drops by about a tenth.
test: browser install
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest tests $(PYTEST_XDIST) $(PYTEST_ARGS)

test-fast: install
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest tests -m "not slow" $(PYTEST_XDIST) $(PYTEST_ARGS)

# The checks are the ones of .pre-commit-config.yaml (`pre-commit install` runs them on each commit).
lint: install
	$(VENV)/bin/pre-commit run --all-files ruff-check
	$(VENV)/bin/pre-commit run --all-files ruff-format

typecheck: install
	$(VENV)/bin/pre-commit run --all-files mypy

# Two nodes on one machine (127.0.0.2 and 127.0.0.3), merged, then reported: see docs/nightly.md.
nightly-local: install
	TIPC_CONFIG=$(FLEET_CONFIG) TIPC_MODE=$(DEMO_MODE) \
	TIPC_RESULTS=examples/tinyrec/test_tipc/output/tinyrec/$(DEMO_MODE) nightly/local-2node.sh

# The documentation site (docs/, Sphinx + MyST), warnings as errors: docs/_build/html/index.html.
DOCS_STAMP := $(VENV)/.docs-$(shell cksum pyproject.toml | cut -d' ' -f1)
$(DOCS_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[docs]'
	rm -f $(VENV)/.docs-* && touch $@

docs: $(DOCS_STAMP)
	$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "docs: docs/_build/html/index.html"

bench: install
	for b in benchmarks/*.py; do $(PY) $$b || exit 1; done

# On a machine with NVIDIA GPUs and PyTorch, offline: the stand-in GPU target through tipc's GPU
# paths, judged by tests/gpu/gpu_check.py (docs/gpu-check.md). Builds its own venv, .venv-gpu.
gpu-check:
	sh tests/gpu/gpu-check.sh

clean:
	rm -rf $(VENV) .venv-gpu reports/*/ examples/*/test_tipc/output examples/gpurec/test_tipc/gpu-check docs/_build
