"""--output-schema: validated JSON on stdout, the model told why and asked again, exit 6."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.agent_tools.conftest import RunPi, fake_args

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "files": {"type": "integer", "minimum": 0}},
    "required": ["name", "files"],
    "additionalProperties": False,
}


@pytest.fixture
def schema(project: Path) -> Path:
    path = project / "schema.json"
    path.write_text(json.dumps(SCHEMA))
    return path


def last_user_text(body: dict) -> str:
    users = [m for m in body["messages"] if m["role"] == "user"]
    content = users[-1]["content"]
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


def test_a_valid_answer_is_printed_as_json(
    server: FakeProviderServer, run_pi: RunPi, schema: Path
) -> None:
    read = ToolCallSpec("read", {"path": "package.json"}, id="r1")
    server.add(Turn(tool_calls=[read]), Turn(text='```json\n{"name": "hello", "files": 2}\n```'))
    result = run_pi(*fake_args(server, "--output-schema", "schema.json"), "describe it")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"name": "hello", "files": 2}
    assert result.stdout == '{"name": "hello", "files": 2}\n'
    system = server.requests[0]["messages"][0]["content"]
    assert "# Output format" in system and '"additionalProperties": false' in system


def test_the_model_is_told_why_and_tries_again(
    server: FakeProviderServer, run_pi: RunPi, schema: Path
) -> None:
    server.add(
        Turn(text="The project is called hello."),
        Turn(text='{"name": "hello", "files": -1, "extra": true}'),
        Turn(text='{"name": "hello", "files": 2}'),
    )
    result = run_pi(*fake_args(server, "--output-schema", str(schema)), "describe it")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"name": "hello", "files": 2}
    first = last_user_text(server.requests[1])
    assert first.startswith("Your final answer does not match the required JSON Schema")
    assert "it is not JSON: Expecting value at line 1, column 1" in first
    second = last_user_text(server.requests[2])
    assert "at /files: -1 is less than the minimum of 0" in second
    assert "Additional properties are not allowed ('extra' was unexpected)" in second


def test_never_valid_exits_6(server: FakeProviderServer, run_pi: RunPi, schema: Path) -> None:
    server.add(*[Turn(text="no json here") for _ in range(3)])
    result = run_pi(*fake_args(server, "--output-schema", str(schema)), "describe it")
    assert result.returncode == 6
    assert result.stdout == ""
    assert "does not match --output-schema after 3 attempts: it is not JSON" in result.stderr
    assert len(server.requests) == 3  # the first answer and outputSchemaRetries (2) more


def test_json_mode_has_a_structured_output_line(
    server: FakeProviderServer, run_pi: RunPi, schema: Path, pi_home: Path
) -> None:
    (pi_home / "settings.json").write_text(json.dumps({"outputSchemaRetries": 0}))
    server.add(Turn(text='{"name": "x", "files": 1}'))
    result = run_pi(*fake_args(server, "--mode", "json", "--output-schema", str(schema)), "go")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[-1] == {
        "type": "structured_output",
        "valid": True,
        "value": {"name": "x", "files": 1},
        "errors": [],
        "attempts": 1,
    }
    server.add(Turn(text="[]"))
    result = run_pi(*fake_args(server, "--mode", "json", "--output-schema", str(schema)), "go")
    assert result.returncode == 6
    last = json.loads(result.stdout.splitlines()[-1])
    assert last["type"] == "structured_output" and last["valid"] is False
    assert last["errors"] == ["[] is not of type 'object'"]


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("{not json", "not JSON (line 1, column 2"),
        ('{"type": "nonsense"}', "not a valid JSON Schema"),
        ("[1, 2]", "a JSON Schema here is a JSON object"),
        (None, "cannot be read"),
    ],
)
def test_a_bad_schema_file_is_a_usage_error(
    server: FakeProviderServer, run_pi: RunPi, project: Path, content: str | None, why: str
) -> None:
    if content is not None:
        (project / "bad.json").write_text(content)
    result = run_pi(*fake_args(server, "--output-schema", "bad.json"), "go")
    assert result.returncode == 2
    assert why in result.stderr and "Traceback" not in result.stderr
    assert server.requests == []


def test_interactive_and_rpc_refuse_it(
    server: FakeProviderServer, run_pi: RunPi, schema: Path
) -> None:
    result = run_pi(*fake_args(server, "--mode", "rpc", "--output-schema", str(schema)))
    assert result.returncode == 2
    assert "--output-schema works in one-shot and JSON mode only" in result.stderr


def test_a_budget_stop_wins_over_the_schema(
    server: FakeProviderServer, run_pi: RunPi, schema: Path
) -> None:
    read = ToolCallSpec("read", {"path": "package.json"}, id="r1")
    server.add(Turn(tool_calls=[read]), Turn(text='{"name": "x", "files": 1}'))
    args = fake_args(server, "--output-schema", str(schema), "--max-turns", "1")
    result = run_pi(*args, "go")
    assert result.returncode == 5 and result.stdout == ""
