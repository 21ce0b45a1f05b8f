"""The shell's front door (``pi_cli/shell/__init__.py``): one list of names, lazy, unambiguous,
and the import contract that keeps front ends on it."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pi_cli.shell as front_door
from pi_cli.shell._exports import EXPORTS

ROOT = Path(__file__).resolve().parents[2]
INIT = ROOT / "pi_cli" / "shell" / "__init__.py"


def _type_checking_imports() -> dict[str, str]:
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If))
    found: dict[str, str] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.module is not None
        for alias in node.names:
            found[alias.asname or alias.name] = node.module
    return found


def test_the_type_checking_block_and_the_lazy_table_name_the_same_things() -> None:
    assert _type_checking_imports() == EXPORTS
    assert sorted(front_door.__all__) == sorted(EXPORTS)


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_each_name_is_the_object_its_module_defines(name: str) -> None:
    module = importlib.import_module(EXPORTS[name])
    assert getattr(front_door, name) is getattr(module, name)


def test_no_name_is_also_a_submodule() -> None:
    """``from pi_cli.shell import x`` must not mean the module ``x`` once someone imported it."""
    children = {info.name for info in pkgutil.iter_modules([str(INIT.parent)])}
    assert children & set(EXPORTS) == set()


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = front_door.Nope  # type: ignore[attr-defined]


def test_importing_the_front_door_loads_nothing_else() -> None:
    probe = (
        "import sys, pi_cli.shell\n"
        "print(sorted(m for m in sys.modules if m.startswith('pi_cli.shell.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_front_end_reaching_past_the_door_breaks_the_contract(tmp_path: Path) -> None:
    """The contract is not vacuous: one deep import from a mode fails ``lint-imports``."""
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        pytest.skip("import-linter is not installed next to this interpreter")
    for package in ("agent_core", "tools", "pi_cli"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("*.pyc"))
    for config in ("pyproject.toml", ".importlinter-cli"):
        shutil.copy(ROOT / config, tmp_path / config)
    common = tmp_path / "pi_cli" / "modes" / "common.py"
    common.write_text(
        common.read_text() + "\nfrom pi_cli.shell.session.store import SessionStore  # noqa\n"
    )
    run = subprocess.run(
        [str(lint), "--no-cache", "--no-logo", "pyproject.toml", ".importlinter-cli"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode != 0
    assert "pi_cli.modes.common -> pi_cli.shell.session.store" in run.stdout
