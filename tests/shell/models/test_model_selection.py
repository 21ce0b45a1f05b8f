"""Model selection: an unknown provider is refused at once in one line (every front end goes
through the resolver), an unknown model of a known provider gets one warning and is tried,
the pickable list puts what is configured first and has no provider-less rows."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent_core.providers import list_models
from pi_cli.shell.coding_agent import CodingAgent, ConfigError, ShellOptions
from pi_cli.shell.config.settings import Settings
from pi_cli.shell.models.choices import model_rows
from pi_cli.shell.models.local import DEFAULT_SERVERS


def _shell(tmp_path: Path, **options: object) -> CodingAgent:
    return CodingAgent(
        ShellOptions(cwd=tmp_path, persist_session=False, settings=Settings(), **options)  # type: ignore[arg-type]
    )


def test_an_unknown_provider_is_refused_at_once_in_one_line(tmp_path: Path) -> None:
    started = time.perf_counter()
    with pytest.raises(ConfigError) as caught:
        _shell(tmp_path, model="nonexist/zzz")
    message = str(caught.value)
    assert time.perf_counter() - started < 2.0 and "\n" not in message
    assert message.startswith('Unknown provider "nonexist" in model "nonexist/zzz"')
    assert "--list-models" in message and "litellm" not in message.lower()


async def test_model_command_refuses_an_unknown_provider_and_keeps_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    shell = _shell(tmp_path, model="openai/gpt-4o")
    result = await shell.submit("/model nonexist/zzz")
    assert result is not None and result.error and result.output is not None
    assert "\n" not in result.output and "Unknown provider" in result.output
    assert shell.model_id == "openai/gpt-4o"


def test_an_unknown_model_of_a_known_provider_warns_once_and_is_tried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    shell = _shell(tmp_path, model="openai/gpt-from-the-future")
    warnings = [n.text for n in shell.startup_notices if n.level == "warning"]
    assert warnings == [
        "Model openai/gpt-from-the-future is not in pi's model list; trying it anyway."
    ]
    assert shell.model_id == "openai/gpt-from-the-future"
    known = _shell(tmp_path, model="openai/gpt-4o")
    assert not [n for n in known.startup_notices if n.level == "warning"]
    # A server of one's own (--api-base) or a local server names its own models: no warning.
    own = _shell(tmp_path, model="openai/mine", api_base="http://127.0.0.1:9/v1")
    local = _shell(tmp_path, model="ollama/qwen-local")
    assert not [n for n in [*own.startup_notices, *local.startup_notices] if n.level == "warning"]


def test_a_models_json_provider_is_known(tmp_path: Path, pi_home: Path) -> None:
    (pi_home / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "myprov": {"baseUrl": "http://127.0.0.1:9/v1", "models": [{"id": "m1"}]}
                }
            }
        )
    )
    shell = _shell(tmp_path, model="myprov/m1")
    assert shell.model_id == "myprov/m1"
    assert not [n for n in shell.startup_notices if n.level == "warning"]


def test_no_model_row_has_an_empty_provider() -> None:
    rows = list_models()
    assert rows and all(row.provider and not row.id.startswith("/") for row in rows)
    assert all(row.id.startswith(row.provider + "/") for row in rows)


@dataclass
class _Detected:
    server: object
    models: tuple[str, ...]


def test_configured_models_come_first_and_the_current_one_is_marked(pi_home: Path) -> None:
    (pi_home / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "myprov": {"baseUrl": "http://127.0.0.1:9/v1", "models": [{"id": "m1"}]}
                }
            }
        )
    )
    env = {"ANTHROPIC_API_KEY": "sk-ant"}
    local = [_Detected(DEFAULT_SERVERS[0], ("qwen:7b",))]
    rows = model_rows("openai/fake-model", env=env, local=local)
    assert rows[0].spec == "openai/fake-model" and rows[0].current and rows[0].configured
    specs = [row.spec for row in rows]
    assert "ollama/qwen:7b" in specs and "myprov/m1" in specs
    first_other = next(i for i, row in enumerate(rows) if not row.configured)
    configured = rows[:first_other]
    assert all(row.configured for row in configured)
    assert not any(row.configured for row in rows[first_other:])
    assert any(row.spec.startswith("anthropic/") for row in configured)
    assert not any(row.spec.startswith("openai/gpt") for row in configured)  # no OpenAI key
    assert len(specs) == len(set(specs))
    keyed = next(row for row in configured if row.spec.startswith("anthropic/"))
    assert keyed.note == "key ANTHROPIC_API_KEY"
