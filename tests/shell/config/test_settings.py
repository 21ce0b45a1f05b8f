"""Settings: merge order, validation errors naming file and key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.shell.config.settings import SettingsError, load_settings, save_global_setting


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")


def test_defaults_without_files(tmp_path: Path) -> None:
    settings = load_settings(tmp_path)
    assert settings.model is None
    assert settings.compaction.reserve_tokens == 16384
    assert settings.steering_mode == "one-at-a-time"


def test_project_wins_over_global_and_sections_merge(tmp_path: Path, pi_home: Path) -> None:
    _write(
        pi_home / "settings.json",
        {
            "model": "openai/gpt-4o",
            "theme": "light",
            "compaction": {"reserveTokens": 1000, "keepRecentTokens": 5},
        },
    )
    _write(
        tmp_path / ".pi" / "settings.json",
        {"model": "anthropic/claude-sonnet-4-5", "compaction": {"reserveTokens": 2000}},
    )
    settings = load_settings(tmp_path)
    assert settings.model == "anthropic/claude-sonnet-4-5"
    assert settings.theme == "light"
    assert settings.compaction.reserve_tokens == 2000
    assert settings.compaction.keep_recent_tokens == 5


def test_invalid_json_names_file_and_position(tmp_path: Path) -> None:
    _write(tmp_path / ".pi" / "settings.json", '{"model": "x",,}')
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path)
    message = str(info.value)
    assert str(tmp_path / ".pi" / "settings.json") in message
    assert "line 1" in message


def test_invalid_value_names_file_and_key(tmp_path: Path, pi_home: Path) -> None:
    _write(pi_home / "settings.json", {"compaction": {"reserveTokens": "lots"}})
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path)
    message = str(info.value)
    assert str(pi_home / "settings.json") in message
    assert "compaction.reserveTokens" in message


def test_non_object_settings_rejected(tmp_path: Path, pi_home: Path) -> None:
    _write(pi_home / "settings.json", "[1, 2]")
    with pytest.raises(SettingsError, match="JSON object"):
        load_settings(tmp_path)


def test_unknown_keys_are_ignored(tmp_path: Path, pi_home: Path) -> None:
    _write(pi_home / "settings.json", {"someFutureKey": 1, "thinking": "high"})
    assert load_settings(tmp_path).thinking == "high"


def test_save_global_setting_keeps_other_keys(tmp_path: Path, pi_home: Path) -> None:
    _write(pi_home / "settings.json", {"theme": "light"})
    save_global_setting("model", "openai/gpt-4o")
    data = json.loads((pi_home / "settings.json").read_text())
    assert data == {"theme": "light", "model": "openai/gpt-4o"}


DEFAULTS_BEFORE = Path(__file__).with_name("defaults_before_records.json")


def test_every_default_is_what_the_pydantic_models_gave() -> None:
    """The sections moved from pydantic models to records (issue 25): every default, with its
    JSON type (``50.0``, not ``50``), is the one ``Settings.model_validate({})`` gave before
    (``defaults_before_records.json``, dumped by the pydantic models); keys added since have
    no earlier default to keep."""
    from pi_cli.shell.config.settings import Settings

    before = json.loads(DEFAULTS_BEFORE.read_text(encoding="utf-8"))
    now = Settings().model_dump(by_alias=True)

    def same(old: object, new: object, key: str) -> None:
        assert json.dumps(new, sort_keys=True) == json.dumps(old, sort_keys=True), key

    for name, value in before.items():
        assert name in now, f"{name} is gone"
        if isinstance(value, dict) and value:  # a section: its keys one by one
            for inner, default in value.items():
                assert inner in now[name], f"{name}.{inner} is gone"
                same(default, now[name][inner], f"{name}.{inner}")
        else:
            same(value, now[name], name)


def test_the_defaults_are_what_an_empty_file_gives_and_no_section_is_shared(
    tmp_path: Path, pi_home: Path
) -> None:
    from pi_cli.shell.config.settings import Settings

    (pi_home / "settings.json").write_text('{"someFutureKey": {"x": 1}}')
    assert load_settings(tmp_path) == Settings() == Settings.model_validate({})
    first, second = Settings(), Settings()
    assert first.checkpoints is not second.checkpoints  # no section shared between shells
    assert first.permissions.allow is not second.permissions.allow


def test_an_empty_file_gives_the_defaults_and_any_key_is_validated(
    tmp_path: Path, pi_home: Path
) -> None:
    (pi_home / "settings.json").write_text("{}")
    assert load_settings(tmp_path).model_dump() == load_settings(tmp_path / "x").model_dump()
    (pi_home / "settings.json").write_text('{"retry": {"maxRetries": "many"}}')
    with pytest.raises(SettingsError, match="retry.maxRetries"):
        load_settings(tmp_path)


@pytest.mark.parametrize(
    ("content", "key", "says"),
    [
        ('{"compaction": {"reserveTokens": "lots"}}', "compaction.reserveTokens", "Expected `int`"),
        ('{"compaction": {"reserveTokens": -1}}', "compaction.reserveTokens", ">= 0"),
        ('{"maxTurns": true}', "maxTurns", "got `bool`"),
        ('{"retry": {"maxRetries": 1000000000000000000000000000000}}', "retry.maxRetries", "<= 10"),
        ('{"extensionTimeoutS": NaN}', "extensionTimeoutS", "> 0"),
        ('{"theme": null}', "theme", "got `null`"),
        ('{"sandbox": null}', "sandbox", "Expected `object`, got `null`"),
        ('{"sandbox": {"mode": "Auto"}}', "sandbox.mode", 'expected "auto", "required" or "off"'),
        ('{"thinking": ["high"]}', "thinking", "got `array`"),
        ('{"tools": ["read", 7]}', "tools.1", "Expected `str`"),
        ('{"localProbePorts": {"ollama": 1, "vllm": "x"}}', "localProbePorts.vllm", "`int`"),
        ('{"telemetry": {"headers": {"ok": "1", "bad": {}}}}', "telemetry.headers.bad", "`str`"),
        ('{"packages": ["a", {"src": "b"}]}', "packages.1", "missing required field `source`"),
        ('{"statusLine": {"padding": 1}}', "statusLine", "missing required field `command`"),
        ('{"permissions": {"allow": "Bash"}}', "permissions.allow", "Expected `array`"),
        ('{"compaction": {"reserve_tokens": "x"}}', "compaction.reserveTokens", "`int`"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_file_and_the_key(
    tmp_path: Path, pi_home: Path, content: str, key: str, says: str
) -> None:
    path = tmp_path / ".pi" / "settings.json"
    _write(path, content)
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path)
    message = str(info.value)
    assert message.startswith(f'Invalid settings in {path}: "{key}": '), message
    assert says in message and "\n" not in message and len(message) <= 600


def test_a_huge_bad_value_is_cut_to_one_short_line(tmp_path: Path, pi_home: Path) -> None:
    _write(pi_home / "settings.json", {"sandbox": {"mode": "x" * 1_000_000}})
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path)
    message = str(info.value)
    assert '"sandbox.mode"' in message and len(message) <= 600 and message.endswith("…")


def test_keys_in_snake_case_keep_working_and_camel_case_wins(tmp_path: Path, pi_home: Path) -> None:
    """pydantic took a field's Python name too; a file written that way keeps its meaning."""
    _write(
        pi_home / "settings.json",
        {
            "compaction": {"reserve_tokens": 1000, "keep_recent_tokens": 7, "keepRecentTokens": 9},
            "mcp_servers": {"docs": {"command": "docs-server"}},
            "max_turns": 5,
        },
    )
    settings = load_settings(tmp_path)
    assert (
        settings.compaction.reserve_tokens == 1000 and settings.compaction.keep_recent_tokens == 9
    )
    assert settings.mcp_servers == {"docs": {"command": "docs-server"}}
    assert settings.max_turns == 5
    assert json.loads((pi_home / "settings.json").read_text())["max_turns"] == 5  # file untouched


def test_numbers_and_strings_convert_as_json_writers_expect(tmp_path: Path, pi_home: Path) -> None:
    _write(
        pi_home / "settings.json",
        {
            "checkpoints": {"keepDays": 7, "maxFiles": 10.0},
            "maxCost": "1.5",
            "retry": {"enabled": "false"},
        },
    )
    settings = load_settings(tmp_path)
    assert settings.checkpoints.keep_days == 7.0 and isinstance(
        settings.checkpoints.keep_days, float
    )
    assert settings.checkpoints.max_files == 10 and isinstance(settings.checkpoints.max_files, int)
    assert settings.max_cost == 1.5 and settings.retry.enabled is False


def test_injected_settings_become_a_layer_of_what_they_change(tmp_path: Path) -> None:
    from pi_cli.shell.config.layers import load_layered
    from pi_cli.shell.config.settings import PermissionSettings, Settings, StatusLineSettings

    injected = Settings(
        permissions=PermissionSettings(deny=["Bash(rm:*)"]),
        hooks={"Stop": [{"hooks": []}]},
        status_line=StatusLineSettings(command="date"),
        max_cost=2.0,
    )
    loaded = load_layered(tmp_path, trusted=False, injected=injected)
    assert loaded.settings is injected
    assert loaded.layers[0].data == {
        "permissions": {"deny": ["Bash(rm:*)"]},
        "hooks": {"Stop": [{"hooks": []}]},
        "statusLine": {"type": "command", "command": "date", "padding": 0, "timeoutMs": 2000},
        "maxCost": 2.0,
    }
    assert load_layered(tmp_path, trusted=False, injected=Settings()).layers[0].data == {}


def test_bad_permissions_in_claude_code_settings_are_a_warning(tmp_path: Path) -> None:
    from pi_cli.shell.config.layers import load_layered

    _write(tmp_path / ".claude" / "settings.json", {"permissions": {"deny": "Bash"}})
    loaded = load_layered(tmp_path, trusted=True)
    path = tmp_path / ".claude" / "settings.json"
    assert loaded.problems == [
        f'Invalid permissions in {path}: "deny": Expected `array`, got `str`'
    ]
    assert loaded.settings.permissions.deny == []


_NO_PYDANTIC = """
import importlib.abc, importlib.util, sys, types
from pathlib import Path

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pydantic", "pydantic_core"):
            raise ImportError("pydantic imported by the settings: " + name)

# agent_core's package __init__ (the loop, messages, tools) is not the settings' to judge:
# its records module is reached without it.
spec = importlib.util.find_spec("agent_core")
package = types.ModuleType("agent_core")
package.__path__ = list(spec.submodule_search_locations)
sys.modules["agent_core"] = package
sys.meta_path.insert(0, Refuse())
from pi_cli.shell.config.layers import load_layered

cwd = Path(sys.argv[1])
assert load_layered(cwd, trusted=True).settings.sandbox.mode == "auto"
(cwd / ".pi").mkdir()
(cwd / ".pi" / "settings.json").write_text('{"sandbox": {"mode": "off"}, "retry": {"maxRetries": 1}}')
assert load_layered(cwd, trusted=True).settings.sandbox.mode == "off"
(cwd / ".pi" / "settings.json").write_text('{"sandbox": {"mode": "of"}}')
try:
    load_layered(cwd, trusted=True)
except Exception as error:
    assert "sandbox.mode" in str(error), error
print("ok")
"""


def test_settings_are_read_and_checked_without_pydantic(tmp_path: Path, pi_home: Path) -> None:
    """Issue 25: a start imports pydantic only where an external client's request is checked;
    settings (none, valid, invalid) are made and validated without it."""
    import subprocess
    import sys

    work = tmp_path / "work"
    work.mkdir()
    result = subprocess.run(
        [sys.executable, "-c", _NO_PYDANTIC, str(work)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0 and result.stdout == "ok\n", result.stderr
