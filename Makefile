# pi — developer commands. `make test` installs what it needs first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint bench snapshot-update clean compile

# Import-contract files `make lint` checks: the core's (pyproject.toml) and pi_cli's.
IMPORT_CONTRACTS := pyproject.toml .importlinter-cli

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

test: lint
	$(BIN)/python -m pytest -n 2 --dist loadfile

# Formatting, lint rules, strict types for agent_core and tools (basic for pi_cli), import contracts. mypy and
# lint-imports keep caches (.mypy_cache, .import_linter_cache), so a re-run takes seconds.
lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy agent_core tools
	$(BIN)/mypy pi_cli
	$(BIN)/lint-imports --no-logo $(IMPORT_CONTRACTS)

bench: compile
	@for script in bench/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

snapshot-update: $(STAMP)
	$(BIN)/python -m pytest tests -k snapshot --snapshot-update

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .import_linter_cache
