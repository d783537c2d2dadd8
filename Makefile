# Two entry points: `make demo` and `make test`. Both create .venv when missing and
# (re)install only when pyproject.toml changed, so they are idempotent and quick to repeat.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# numba's on-disk cache of compiled kernels: kept inside the checkout so repeated runs reuse it
# and tests never touch the user's cache (outside make, treebound caches kernels in the user
# cache directory: docs/getting_started.md).
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache

.PHONY: demo test lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

# The bench extra (STreeD, GOSDT: wheels) lets the certificate adapter tests run; where its
# wheels do not install, the dev extra alone is installed and those tests skip, saying why.
$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[dev,bench]" || $(BIN)/python -m pip install -q -e ".[dev]"
	touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/treebound demo

# The suite runs on every core (pytest-xdist; tests hand work out as workers free up).
test: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/python -m pytest -q -n auto --dist worksteal

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests benchmarks

clean:
	rm -rf $(VENV) .numba_cache .pytest_cache
