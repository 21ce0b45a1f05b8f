"""Local model auto-detection: fake Ollama / OpenAI-compatible servers on free ports."""

from __future__ import annotations

import io
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pi_cli.args import LaunchArgs
from pi_cli.modes.list_models import print_models
from pi_cli.shell.models.local import (
    PROBE_BUDGET_S,
    LocalModel,
    announce,
    detect_local_model,
    detect_local_servers,
    probe_targets,
)
from pi_cli.shell.options import ShellOptions
from tests.fakes.provider_server import FakeProviderServer

OLLAMA_TAGS = {
    "models": [{"name": "qwen2.5-coder:7b", "model": "qwen2.5-coder:7b"}, {"name": "llama3.2:3b"}]
}


def _providers_ready() -> bool:
    try:
        from agent_core.providers import resolve_model  # noqa: F401
    except ImportError:
        return False
    return True


needs_providers = pytest.mark.skipif(
    not _providers_ready(), reason="agent_core.providers.resolve_model not importable yet"
)


class _OllamaHandler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # stdlib signature
        pass

    def do_GET(self) -> None:  # stdlib naming
        body = json.dumps(OLLAMA_TAGS if self.path == "/api/tags" else {"error": "no"}).encode()
        self.send_response(200 if self.path == "/api/tags" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def ollama() -> Iterator[int]:
    """A fake Ollama answering ``GET /api/tags`` on a free port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _OllamaHandler)
    server.daemon_threads = True
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()
    server.server_close()


@pytest.fixture
def openai_models() -> Iterator[int]:
    """An OpenAI-compatible server whose ``/v1/models`` lists one model."""
    with FakeProviderServer(models=["Qwen/Qwen2.5-7B-Instruct", "other"]) as server:
        yield server.port


@pytest.fixture
def dead_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def hanging_port() -> Iterator[int]:
    """A port that accepts connections (backlog) but never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    yield int(sock.getsockname()[1])
    sock.close()


@pytest.fixture(autouse=True)
def probing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_NO_LOCAL_PROBE", raising=False)


def test_ollama_first_model(ollama: int) -> None:
    model = detect_local_model({"ollama": ollama}, env={})
    assert model is not None
    assert model.spec == "ollama/qwen2.5-coder:7b"
    assert model.api_base == f"http://127.0.0.1:{ollama}/v1"
    assert model.describe() == f"qwen2.5-coder:7b from Ollama at 127.0.0.1:{ollama}"


@pytest.mark.parametrize(
    "key,label", [("llamacpp", "llama.cpp server"), ("lmstudio", "LM Studio"), ("vllm", "vLLM")]
)
def test_openai_compatible_servers(openai_models: int, key: str, label: str) -> None:
    model = detect_local_model({key: openai_models}, env={})
    assert model is not None
    assert model.spec == f"{key}/Qwen/Qwen2.5-7B-Instruct"
    assert model.api_base == f"http://127.0.0.1:{openai_models}/v1"
    assert model.describe().endswith(f"from {label} at 127.0.0.1:{openai_models}")


def test_priority_and_all_servers(ollama: int, openai_models: int, dead_port: int) -> None:
    ports = {"ollama": ollama, "llamacpp": openai_models, "lmstudio": dead_port}
    model = detect_local_model(ports, env={})
    assert model is not None and model.server.key == "ollama"
    found = detect_local_servers(ports, env={})
    assert [(d.server.key, d.models[0]) for d in found] == [
        ("ollama", "qwen2.5-coder:7b"),
        ("llamacpp", "Qwen/Qwen2.5-7B-Instruct"),
    ]


def test_nothing_listening_is_fast(dead_port: int) -> None:
    ports = {"ollama": dead_port, "llamacpp": dead_port, "lmstudio": dead_port, "vllm": dead_port}
    start = time.perf_counter()
    assert detect_local_model(ports, env={}) is None
    assert time.perf_counter() - start < PROBE_BUDGET_S


def test_hanging_server_respects_the_budget(hanging_port: int, ollama: int) -> None:
    start = time.perf_counter()
    assert detect_local_model({"ollama": hanging_port}, env={}) is None
    elapsed = time.perf_counter() - start
    assert PROBE_BUDGET_S * 0.9 <= elapsed < PROBE_BUDGET_S + 0.1
    # A hung lower-priority server does not delay an answering higher-priority one.
    start = time.perf_counter()
    model = detect_local_model({"ollama": ollama, "vllm": hanging_port}, env={})
    assert model is not None and model.server.key == "ollama"
    assert time.perf_counter() - start < PROBE_BUDGET_S


async def test_probe_inside_a_running_loop(ollama: int) -> None:
    model = detect_local_model({"ollama": ollama}, env={})
    assert model is not None and model.name == "qwen2.5-coder:7b"


def test_disabled_by_env(ollama: int) -> None:
    assert detect_local_model({"ollama": ollama}, env={"PI_NO_LOCAL_PROBE": "1"}) is None


def test_default_targets_and_overrides() -> None:
    assert [(s.key, s.port, s.path) for s in probe_targets()] == [
        ("ollama", 11434, "/api/tags"),
        ("llamacpp", 8080, "/v1/models"),
        ("lmstudio", 1234, "/v1/models"),
        ("vllm", 8000, "/v1/models"),
    ]
    assert [(s.key, s.port) for s in probe_targets({"vllm": 9})] == [("vllm", 9)]


def test_announce_message() -> None:
    server = probe_targets()[0]
    out = io.StringIO()
    announce(LocalModel(server, "qwen2.5-coder:7b"), out)
    assert out.getvalue() == "using local model qwen2.5-coder:7b from Ollama at 127.0.0.1:11434\n"


def _project(tmp_path: Path, ports: dict[str, int]) -> Path:
    project = tmp_path / "project"
    (project / ".pi").mkdir(parents=True)
    (project / ".pi" / "settings.json").write_text(json.dumps({"localProbePorts": ports}))
    return project


def test_list_models_marks_local_models(tmp_path: Path, ollama: int) -> None:
    out = io.StringIO()
    cwd = _project(tmp_path, {"ollama": ollama})
    args = LaunchArgs(shell=ShellOptions(cwd=cwd), prompt="qwen2.5-coder", list_models=True)
    assert print_models(args, out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("ollama/qwen2.5-coder:7b")
    assert f"local  Ollama at 127.0.0.1:{ollama}" in lines[0]
    assert not any("llama3.2" in line for line in lines)  # the filter applies to local models too


def test_list_models_without_anything(tmp_path: Path, dead_port: int) -> None:
    out = io.StringIO()
    cwd = _project(tmp_path, {"ollama": dead_port})
    args = LaunchArgs(shell=ShellOptions(cwd=cwd), prompt="no-such-model-xyz", list_models=True)
    assert print_models(args, out) == 0
    assert "No models matching 'no-such-model-xyz'" in out.getvalue()


@needs_providers
def test_shell_uses_the_local_model(
    tmp_path: Path, ollama: int, capsys: pytest.CaptureFixture[str]
) -> None:
    from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
    from pi_cli.shell.config.settings import Settings

    shell = CodingAgent(
        ShellOptions(
            cwd=tmp_path,
            no_tools=True,
            persist_session=False,
            settings=Settings(local_probe_ports={"ollama": ollama}),
        )
    )
    assert shell.model_id == "ollama/qwen2.5-coder:7b"
    assert shell.resolved_model.base_url == f"http://127.0.0.1:{ollama}/v1"
    assert (
        capsys.readouterr().err
        == f"using local model qwen2.5-coder:7b from Ollama at 127.0.0.1:{ollama}\n"
    )


@needs_providers
def test_no_model_no_server_keeps_the_friendly_message(tmp_path: Path, dead_port: int) -> None:
    from pi_cli.shell.coding_agent import CodingAgent, ConfigError, ShellOptions
    from pi_cli.shell.config.settings import Settings

    with pytest.raises(ConfigError, match="No model configured"):
        CodingAgent(
            ShellOptions(
                cwd=tmp_path,
                no_tools=True,
                persist_session=False,
                settings=Settings(local_probe_ports={"ollama": dead_port}),
            )
        )


@needs_providers
def test_a_key_skips_probing(tmp_path: Path, ollama: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
    from pi_cli.shell.config.settings import Settings

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    shell = CodingAgent(
        ShellOptions(
            cwd=tmp_path,
            no_tools=True,
            persist_session=False,
            settings=Settings(local_probe_ports={"ollama": ollama}),
        )
    )
    assert shell.model_id.startswith("anthropic/")
