# pi — developer commands. `make test` installs what it needs first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint bench snapshot-update clean compile

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@# PYTHONDONTWRITEBYTECODE is common here: precompile so start-up does not recompile pi's own code.
	$(BIN)/python -m compileall -q agent_core tools pi_cli > /dev/null
	touch $(STAMP)

install: $(STAMP)

compile: $(STAMP)
	$(BIN)/python -m compileall -q agent_core tools pi_cli > /dev/null

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n 2 --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check .

bench: compile
	@for script in bench/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

snapshot-update: $(STAMP)
	$(BIN)/python -m pytest tests -k snapshot --snapshot-update

clean:
	rm -rf $(VENV) .pytest_cache
