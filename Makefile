# Two commands do all set-up on a fresh machine:
#   make run    create .venv, install, run the whole line on the offline default (runs/default)
#   make test   the same install plus the test services (Label Studio venv, Chromium), then pytest
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
OUT ?= runs/default

.PHONY: run test test-deps install lint clean

install: $(VENV)/.installed

# torch first and pinned: 2.13.0 is the CPU build on local disk (an unpinned one pulls CUDA).
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

run: install
	$(BIN)/comlq run --out $(OUT)

# Test services: the Label Studio server in its own venv (.venv-ls, with a migrated empty database)
# and Debian's Chromium for the browser test (CI runs as root).
test-deps: install
	$(BIN)/comlq review server install
	test -x /usr/bin/chromium || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)

# ruff: pyflakes, pycodestyle, import order, complexity (pyproject.toml [tool.ruff])
lint: install
	$(BIN)/ruff check .

test: install test-deps
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) runs build *.egg-info
