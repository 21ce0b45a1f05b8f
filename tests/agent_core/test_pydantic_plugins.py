"""Pydantic plugins still load when one is installed; without one, discovery costs nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = """
import sys
import agent_core
agent_core.skip_pydantic_plugin_discovery()
from pydantic import BaseModel

class M(BaseModel):
    x: int

M(x=1)
print('metadata' if 'importlib.metadata' in sys.modules else 'no-metadata',
      'seen' if getattr(sys.modules.get('plug_mod'), 'SEEN', False) else 'unseen')
"""

PLUGIN = """
SEEN = False

class Plugin:
    def new_schema_validator(self, *args, **kwargs):
        global SEEN
        SEEN = True
        return None, None, None

plugin = Plugin()
"""


def _run(path: Path, env_extra: dict[str, str] | None = None) -> str:
    import os

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(path)])}
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    env.update(env_extra or {})
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_an_installed_plugin_is_still_discovered_and_used(tmp_path: Path) -> None:
    (tmp_path / "plug_mod.py").write_text(PLUGIN)
    info = tmp_path / "plug_dist-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plug-dist\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pydantic]\nplug = plug_mod:plugin\n")
    assert _run(tmp_path) == "metadata seen"


def test_without_a_plugin_importlib_metadata_is_not_loaded(tmp_path: Path) -> None:
    import pytest

    from agent_core._pydantic_plugins import _no_plugin_declared

    if not _no_plugin_declared():
        pytest.skip("an installed distribution names pydantic in its entry points")
    assert _run(tmp_path) == "no-metadata unseen"


def test_pydantics_own_switch_is_left_to_pydantic(tmp_path: Path) -> None:
    (tmp_path / "plug_mod.py").write_text(PLUGIN)
    info = tmp_path / "plug_dist-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plug-dist\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pydantic]\nplug = plug_mod:plugin\n")
    assert _run(tmp_path, {"PYDANTIC_DISABLE_PLUGINS": "__all__"}).endswith("unseen")
