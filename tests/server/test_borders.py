"""The server stays off every other path, and RPC's commands and their models stay one set."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pi_cli.modes.rpc.connection import RpcConnection
from pi_cli.modes.rpc.output import RpcOutput
from pi_cli.modes.rpc.schema import COMMAND_MODELS
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream

ROOT = Path(__file__).resolve().parents[2]
SERVER_ONLY = ("pi_cli.server", "starlette", "uvicorn", "websockets")


def test_every_rpc_command_has_a_model_and_every_model_a_command(project: Path) -> None:
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=ScriptedStream()))
    connection = RpcConnection(shell, lambda data: None, RpcOutput(shell, lambda data: None))
    assert set(connection.handlers) == set(COMMAND_MODELS)


def _loaded(code: str, home: Path, cwd: Path) -> set[str]:
    probe = f"import sys\n{code}\nprint('LOADED', ' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    env = {
        "PI_HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "PI_NO_LOCAL_PROBE": "1",
        "PATH": "/usr/bin:/bin",
    }
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=cwd, env=env, timeout=60
    )
    line = next((x for x in out.stderr.splitlines() if x.startswith("LOADED")), None)
    assert line is not None, out.stderr
    return set(line.split()[1:])


def _server_modules(loaded: set[str]) -> set[str]:
    return {m for m in loaded if m.startswith(SERVER_ONLY)}


def test_one_shot_and_interactive_start_up_load_nothing_of_the_server(tmp_path: Path) -> None:
    from tests.fakes.provider_server import FakeProviderServer
    from tests.fakes.script import seed_script

    (tmp_path / "package.json").write_text('{"name": "hello"}\n')
    with FakeProviderServer() as fake:
        fake.add(*seed_script())
        argv = [
            "--model",
            "openai/fake",
            "--api-base",
            fake.openai_base_url,
            "--api-key",
            "x",
            "-p",
            "go",
        ]
        loaded = _loaded(f"from pi_cli.cli import main\nmain({argv!r})", tmp_path, tmp_path)
        assert len(fake.requests) == 4
    assert not _server_modules(loaded)
    for module in (
        "pi_cli.tui.app",
        "pi_cli.tui.run",
        "pi_cli.modes.plain.repl",
        "pi_cli.modes.rpc.mode",
    ):
        assert not _server_modules(_loaded(f"import {module}", tmp_path, tmp_path)), module
