# pi — developer commands. `make test` installs what it needs first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.docs-installed

.PHONY: install test lint bench snapshot-update clean compile docs docs-settings

# Import-contract files `make lint` checks: the core's (pyproject.toml) and pi_cli's, on the full
# import graph; the shell's layers (.importlinter-shell) on a graph without TYPE_CHECKING imports
# (one run builds one graph, with the first file's settings: hence two runs).
IMPORT_CONTRACTS := pyproject.toml .importlinter-cli
SHELL_CONTRACTS := .importlinter-shell

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

# Formatting, lint rules, strict types for all of agent_core, tools and pi_cli, import contracts,
# the docs' links and anchors, the generated settings reference. mypy keeps a cache (.mypy_cache),
# so a re-run takes seconds; lint-imports runs without its cache (0.2 s each: a stale cache once
# passed a broken layer that a clean clone refused).
lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-logo --no-cache $(IMPORT_CONTRACTS)
	$(BIN)/lint-imports --no-logo --no-cache $(SHELL_CONTRACTS)
	$(BIN)/python scripts/check_docs.py
	$(BIN)/python scripts/gen_settings_doc.py --check

# The documentation site, offline, into build/docs/ (open build/docs/index.html). Warnings are
# errors: a broken link or anchor, a page outside the nav.
$(DOCS_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev,docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(BIN)/sphinx-build -q -E -W --keep-going -b html docs build/docs
	@echo "site: build/docs/index.html"

# Rewrite the generated part of docs/settings.md after changing a settings model.
docs-settings: $(STAMP)
	$(BIN)/python scripts/gen_settings_doc.py

bench: compile
	@for script in bench/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

snapshot-update: $(STAMP)
	$(BIN)/python -m pytest tests -k snapshot --snapshot-update

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .import_linter_cache
