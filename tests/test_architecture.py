"""Layering rules: agent_core stays independent; heavy UI/LLM libraries stay off start-up paths."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN_FOR_CORE = {"pi_cli", "tools", "textual", "typer", "rich", "litellm"}


def _loaded_top_modules(code: str) -> set[str]:
    probe = (
        f"import sys\n{code}\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_agent_core_imports_no_shell_tools_ui_or_litellm() -> None:
    loaded = _loaded_top_modules("import agent_core")
    assert loaded & FORBIDDEN_FOR_CORE == set()


def test_pi_cli_package_import_is_light() -> None:
    loaded = _loaded_top_modules("import pi_cli")
    assert loaded & {"textual", "litellm"} == set()
