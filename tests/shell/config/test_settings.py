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


def _tree(model: object) -> object:
    """A model as (class, fields set, each field's value), nested sections included."""
    from pydantic import BaseModel

    if isinstance(model, BaseModel):
        fields = sorted(type(model).model_fields)
        values = {name: _tree(getattr(model, name)) for name in fields}
        return (type(model).__name__, sorted(model.model_fields_set), values)
    return model


def test_defaults_made_without_validation_are_what_validation_makes() -> None:
    """With no settings file nothing is validated (pydantic's validators are built on first
    use): the defaults so made are the validated defaults, field for field, section for
    section, with nothing marked as set (``exclude_unset`` dumps nothing)."""
    from pi_cli.shell.config.settings import Settings, defaults

    made = defaults()
    assert _tree(made) == _tree(Settings.model_validate({}))
    assert made.model_dump(exclude_unset=True) == {}
    assert made.model_dump() == Settings.model_validate({}).model_dump()
    assert made.checkpoints is not defaults().checkpoints  # no section shared between shells


def test_an_empty_file_gives_the_defaults_and_any_key_is_validated(
    tmp_path: Path, pi_home: Path
) -> None:
    (pi_home / "settings.json").write_text("{}")
    assert load_settings(tmp_path).model_dump() == load_settings(tmp_path / "x").model_dump()
    (pi_home / "settings.json").write_text('{"retry": {"maxRetries": "many"}}')
    with pytest.raises(SettingsError, match="retry.maxRetries"):
        load_settings(tmp_path)
