"""pi's Python versions of the TypeScript pi's example extensions do what the originals do.

The same scripted model (the fake provider on loopback) drives the TypeScript pi (its npm package,
its own ``examples/extensions/*.ts``) and pi (``examples/extensions/*.py``); what each sends back
to the model as tool results, and what ends up on disk, are compared. Skipped (with the reason)
when node or pi's npm package is missing (``.ci/run`` installs them).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.pi_npm import require_pi_package

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples" / "extensions"
PROTECTED = [
    ".env",
    ".git/hooks/pre-commit",
    "node_modules/a/index.js",
    "src/ok.txt",
    "a.env.example",
]


def models(server: FakeProviderServer) -> str:
    provider = {
        "baseUrl": server.openai_base_url,
        "api": "openai-completions",
        "apiKey": "test-key",
        "models": [{"id": "fake-model"}],
    }
    return json.dumps({"providers": {"fake": provider}})


def run_pi_ts(
    package: Path, home: Path, project: Path, server: FakeProviderServer, ts: str
) -> None:
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    (agent / "models.json").write_text(models(server))
    env = {**{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}, "HOME": str(home)}
    extension = package / "examples" / "extensions" / ts
    command = ["node", str(package / "dist" / "cli.js"), "-p", "--provider", "fake"]
    command += ["--model", "fake-model", "-e", str(extension), "go"]
    done = subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]


def run_pi(home: Path, pi_home: Path, project: Path, server: FakeProviderServer, py: str) -> None:
    pi_home.mkdir(parents=True, exist_ok=True)
    (pi_home / "models.json").write_text(models(server))
    (pi_home / "settings.json").write_text(json.dumps({"extensions": [str(EXAMPLES / py)]}))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        {
            "HOME": str(home),
            "PI_HOME": str(pi_home),
            "PYTHONPATH": str(REPO),
            "PI_NO_LOCAL_PROBE": "1",
        }
    )
    command = [sys.executable, "-m", "pi_cli.cli", "-p", "--model", "fake/fake-model", "go"]
    done = subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]


def tool_results(server: FakeProviderServer) -> dict[str, str]:
    """tool_call_id -> the text the model got back."""
    messages: list[dict[str, Any]] = server.requests[-1]["messages"]
    return {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}


def files(root: Path) -> set[str]:
    return {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and ".git/objects" not in str(p)
    }


def both(tmp_path: Path, turns: list[Turn], ts: str, py: str) -> dict[str, Any]:
    package = require_pi_package()
    outcome: dict[str, Any] = {}
    for agent in ("pi-ts", "pi"):
        root = tmp_path / agent
        project = root / "project"
        project.mkdir(parents=True)
        with FakeProviderServer(list(turns)) as server:
            if agent == "pi-ts":
                run_pi_ts(package, root / "home", project, server, ts)
            else:
                run_pi(root / "home", root / "pi_home", project, server, py)
            outcome[agent] = (tool_results(server), files(project))
    return outcome


def test_protected_paths_blocks_what_the_typescript_example_blocks(tmp_path: Path) -> None:
    calls = [
        ToolCallSpec("write", {"path": path, "content": "x"}, id=f"call_{i}")
        for i, path in enumerate(PROTECTED)
    ]
    outcome = both(
        tmp_path,
        [Turn(tool_calls=calls), Turn(text="done")],
        "protected-paths.ts",
        "protected_paths.py",
    )
    (ts_results, ts_files), (py_results, py_files) = outcome["pi-ts"], outcome["pi"]
    blocked = {k: v for k, v in ts_results.items() if v.endswith("is protected")}
    assert blocked == {k: v for k, v in py_results.items() if v.endswith("is protected")}
    assert set(blocked) == {"call_0", "call_1", "call_2", "call_4"}  # ".env" is in "a.env.example"
    assert blocked["call_0"] == 'Path ".env" is protected'
    assert ts_files == py_files == {"src/ok.txt"}


def test_the_python_example_protects_the_same_paths_as_the_typescript_one() -> None:
    package = require_pi_package()
    source = (package / "examples" / "extensions" / "protected-paths.ts").read_text()
    listed = re.search(r"protectedPaths\s*=\s*\[([^\]]*)\]", source)
    assert listed is not None
    theirs = json.loads(f"[{listed.group(1)}]")
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "protected_paths_example", EXAMPLES / "protected_paths.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.PROTECTED_PATHS == theirs


def test_hello_is_the_same_tool(tmp_path: Path) -> None:
    call = ToolCallSpec("hello", {"name": "Ada"}, id="call_0")
    outcome = both(tmp_path, [Turn(tool_calls=[call]), Turn(text="done")], "hello.ts", "hello.py")
    assert outcome["pi-ts"][0] == outcome["pi"][0] == {"call_0": "Hello, Ada!"}
    for agent in ("pi-ts", "pi"):
        assert not outcome[agent][1]  # no file written
    # And the model was offered the same tool: name, description, parameters.
    package = require_pi_package()
    with FakeProviderServer([Turn(text="ok"), Turn(text="ok")]) as server:
        run_pi_ts(
            package, tmp_path / "t" / "home", _mkdir(tmp_path / "t" / "p"), server, "hello.ts"
        )
        run_pi(
            tmp_path / "u" / "home",
            tmp_path / "u" / "pi_home",
            _mkdir(tmp_path / "u" / "p"),
            server,
            "hello.py",
        )
        offered = [
            next(t["function"] for t in r["tools"] if t["function"]["name"] == "hello")
            for r in server.requests
        ]
    ts_tool, py_tool = offered
    assert ts_tool["description"] == py_tool["description"] == "A simple greeting tool"
    for tool in offered:
        tool["parameters"].pop("additionalProperties", None)
    assert ts_tool["parameters"]["properties"]["name"]["description"] == "Name to greet"
    assert ts_tool["parameters"]["required"] == py_tool["parameters"]["required"] == ["name"]
    assert py_tool["parameters"]["properties"]["name"]["type"] == "string"


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True)
    return path


@pytest.fixture(autouse=True)
def _no_pi_ts_home_of_the_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
