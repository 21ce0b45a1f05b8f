# pi — developer commands. `make test` installs what it needs first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint typecheck-cli bench snapshot-update clean compile

# Import-contract files `make lint` checks. pi_cli's contracts (.importlinter-cli) join after
# the pi_cli refactor: IMPORT_CONTRACTS := pyproject.toml .importlinter-cli
IMPORT_CONTRACTS := pyproject.toml

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

# Formatting, lint rules, strict types for agent_core and tools, import contracts. mypy and
# lint-imports keep caches (.mypy_cache, .import_linter_cache), so a re-run takes seconds.
lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy agent_core tools
	$(BIN)/lint-imports --no-logo $(IMPORT_CONTRACTS)

# pi_cli in mypy's basic mode (see [tool.mypy] in pyproject.toml); not part of lint yet.
typecheck-cli: $(STAMP)
	$(BIN)/mypy pi_cli

bench: compile
	@for script in bench/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

snapshot-update: $(STAMP)
	$(BIN)/python -m pytest tests -k snapshot --snapshot-update

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .import_linter_cache
