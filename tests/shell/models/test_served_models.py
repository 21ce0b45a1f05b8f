"""Models any server offers: ``/models`` of models.json providers and ``--api-base``, over real
HTTP on 127.0.0.1 (OpenAI's, vLLM's, Ollama's and llama.cpp's answers; huge, garbage, slow,
failing servers), the cache, ``pi --list-models`` and the ``/model`` rows."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pi_cli.args import LaunchArgs
from pi_cli.modes.list_models import print_models
from pi_cli.shell.models.choices import model_rows
from pi_cli.shell.models.served import (
    MAX_BODY,
    MAX_MODELS,
    ServedSource,
    cache_path,
    fetch_models,
    served_models,
    served_sources,
)
from pi_cli.shell.options import ShellOptions
from tests.fakes.model_list_server import ModelListServer as _Server
from tests.fakes.model_list_server import model_list_server  # noqa: F401 - a fixture

LISTS = Path(__file__).parents[2] / "fixtures" / "model_lists"


@pytest.fixture
def server(model_list_server: _Server) -> _Server:  # noqa: F811 - the fixture imported above
    return model_list_server


def _base(server: _Server, path: str = "/v1") -> str:
    return server.base(path)


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("openai.json", ["gpt-4o-mini", "gpt-4.1", "text-embedding-3-small"]),
        ("vllm.json", ["Qwen/Qwen2.5-Coder-7B-Instruct"]),
        ("ollama.json", ["qwen2.5-coder:7b", "llama3.2:latest"]),
        ("llamacpp.json", ["gemma-3-4b-it-Q4_K_M.gguf"]),
    ],
)
def test_real_answer_shapes(server: _Server, fixture: str, expected: list[str]) -> None:
    server.routes["/v1/models"] = (200, (LISTS / fixture).read_bytes())
    answer = fetch_models(ServedSource("myprov", _base(server), (("Authorization", "Bearer k"),)))
    assert answer.error is None and list(answer.models) == expected
    assert answer.specs[0] == f"myprov/{expected[0]}"
    assert server.seen[0][1]["Authorization"] == "Bearer k"


def test_a_base_without_v1_falls_back_and_ollamas_tags_are_read(server: _Server) -> None:
    tags = {"models": [{"name": "llama3.2:3b", "model": "llama3.2:3b"}, {"name": 7}, "bare"]}
    server.routes["/v1/models"] = (200, json.dumps(tags).encode())
    answer = fetch_models(ServedSource("ol", _base(server, "")))
    assert list(answer.models) == ["llama3.2:3b", "bare"]
    assert [path for path, _ in server.seen] == ["/models", "/v1/models"]


@pytest.mark.parametrize(
    ("status", "body", "error"),
    [
        (200, b"<html>not json</html>", "not JSON"),
        (200, b"[" * 200_000 + b"]" * 200_000, "not JSON"),
        (200, b'{"object": "list"}', "no model list"),
        (500, b"{}", "HTTP 500"),
        (401, b'{"error": "bad key"}', "HTTP 401"),
        (200, b'{"data": "' + b"x" * (MAX_BODY + 10) + b'"}', "larger than 4 MiB"),
    ],
)
def test_hostile_answers_are_said_plainly(
    server: _Server, status: int, body: bytes, error: str
) -> None:
    server.routes["/v1/models"] = (status, body)
    answer = fetch_models(ServedSource("p", _base(server)))
    assert answer.models == () and answer.error is not None and error in answer.error
    assert answer.problem is not None and answer.problem.startswith("p: cannot list the models of")


def test_a_silent_server_costs_the_timeout_only(server: _Server) -> None:
    server.routes["/v1/models"] = (0, b"")
    answer = fetch_models(ServedSource("p", _base(server)), timeout=0.3)
    assert answer.error == "no answer within 0.3 s"


def test_a_huge_list_is_capped_and_ids_cleaned(server: _Server) -> None:
    data = [{"id": f"m{i}"} for i in range(MAX_MODELS + 500)]
    data[0]["id"] = "evil\x1b]52;c;QQ==\x07-model"
    data[1]["id"] = "x" * 5000
    server.routes["/v1/models"] = (200, json.dumps({"data": data}).encode())
    answer = fetch_models(ServedSource("p", _base(server)))
    assert answer.models[0] == "evil-model" and "x" * 5000 not in answer.models
    assert len(answer.models) == MAX_MODELS and answer.more == 499


def test_models_json_providers_and_api_base_are_the_sources(
    server: _Server, tmp_path: Path
) -> None:
    models_json = tmp_path / "models.json"
    models_json.write_text(
        json.dumps(
            {
                "providers": {
                    "lab": {"baseUrl": _base(server), "apiKey": "lab-key", "models": []},
                    "claude-proxy": {
                        "baseUrl": _base(server, "/anthropic"),
                        "api": "anthropic-messages",
                        "apiKeyEnv": "PROXY_KEY",
                    },
                }
            }
        )
    )
    env = {"PROXY_KEY": "pk"}
    sources = served_sources(
        "openai/gpt-x", "http://10.0.0.9:8000/v1", "cli-key", env, [models_json]
    )
    by_provider = {s.provider: s for s in sources}
    assert set(by_provider) == {"openai", "lab", "claude-proxy"}
    assert dict(by_provider["openai"].headers)["Authorization"] == "Bearer cli-key"
    assert by_provider["openai"].base_url == "http://10.0.0.9:8000/v1"
    assert dict(by_provider["lab"].headers)["Authorization"] == "Bearer lab-key"
    assert dict(by_provider["claude-proxy"].headers)["x-api-key"] == "pk"
    assert served_sources("openai/gpt-x", None, None, {}, [models_json])[0].provider == "lab"


def test_answers_are_cached_and_failures_briefly(server: _Server) -> None:
    server.routes["/v1/models"] = (200, (LISTS / "ollama.json").read_bytes())
    source = ServedSource("ol", _base(server))
    first = served_models([source])
    assert list(first[0].models) == ["qwen2.5-coder:7b", "llama3.2:latest"]
    server.routes["/v1/models"] = (200, b'{"data": [{"id": "new"}]}')
    assert served_models([source])[0].models == first[0].models  # from the cache
    assert cache_path().is_file() and "qwen2.5-coder" in cache_path().read_text()
    assert list(served_models([source], fresh=True)[0].models) == ["new"]
    cache_path().write_text("{garbage")  # a damaged cache is asked again
    assert list(served_models([source])[0].models) == ["new"]
    assert len(server.seen) == 3


def test_list_models_and_the_model_rows_show_served_models(
    server: _Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.routes["/v1/models"] = (200, (LISTS / "vllm.json").read_bytes())
    options = ShellOptions(cwd=tmp_path, api_base=_base(server), model="openai/whatever")
    out = io.StringIO()
    assert print_models(LaunchArgs(shell=options, prompt="qwen", list_models=True), out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("openai/Qwen/Qwen2.5-Coder-7B-Instruct")
    assert f"served {_base(server)}" in lines[0]
    answers = served_models(served_sources("openai/whatever", _base(server), None, {}, []))
    problems: list[str] = []
    rows = model_rows(
        "openai/whatever", env={}, catalogue=[], local=[], served=answers, problems=problems
    )
    assert [r.spec for r in rows] == ["openai/whatever", "openai/Qwen/Qwen2.5-Coder-7B-Instruct"]
    assert rows[1].configured and rows[1].note == f"served by {_base(server)}"
    server.routes.clear()
    options = ShellOptions(cwd=tmp_path, api_base=_base(server, "/dead"), model="openai/x")
    assert print_models(LaunchArgs(shell=options, list_models=True), io.StringIO()) == 0
    assert "cannot list the models of" in capsys.readouterr().err
