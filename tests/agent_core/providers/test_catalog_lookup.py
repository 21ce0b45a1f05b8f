"""One model's cost-map entry, found without parsing the whole map, is exactly the map's entry."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agent_core.providers import catalog


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """No map parsed and nothing remembered yet."""
    monkeypatch.setattr(catalog, "_cost_map", None)
    monkeypatch.setattr(catalog, "_entries", {})


def use_file(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setattr(catalog, "_cost_map_files", lambda: [path])


def test_real_map_entries_match_the_whole_map(fresh: None) -> None:
    whole = catalog._load_cost_map()
    if not whole:
        pytest.skip("litellm's cost map is not installed")
    keys = random.Random(5).sample(sorted(whole), min(300, len(whole)))
    keys += ["no-such-model-anywhere", "sample_spec", "openai/no-such-model"]
    for key in keys:
        catalog._cost_map, catalog._entries = None, {}
        assert catalog._entries_for((key,)) == [whole.get(key)], key


def test_a_miss_parses_nothing(fresh: None) -> None:
    if not catalog._cost_map_files():
        pytest.skip("litellm's cost map is not installed")
    assert catalog.lookup_metadata("openai", "no-such-model-anywhere") is None
    assert catalog._cost_map is None  # answered from the text alone


def test_a_known_model_parses_nothing_else(fresh: None) -> None:
    whole = catalog._load_cost_map()
    name = next((k for k, v in whole.items() if v.get("litellm_provider") == "openai"), None)
    if name is None:
        pytest.skip("no OpenAI model in the installed cost map")
    catalog._cost_map = None
    assert catalog.lookup_metadata("openai", name.removeprefix("openai/")) == whole[name]


@pytest.mark.parametrize(
    "text",
    [
        # Another layout: compact, an entry at column 0, a duplicate key (the last wins).
        '{"m": {"max_tokens": 1}, "x": {"mode": "chat"}}',
        '{\n    "x": {\n        "mode": "chat"\n    },\n"m": {"max_tokens": 2}\n}',
        '{\n    "m": {\n        "max_tokens": 1\n    },\n    "m": {\n        "max_tokens": 3\n    }\n}',
        # A key spelled with an escape: only the whole map knows it is "m".
        '{\n    "\\u006d": {\n        "max_tokens": 4\n    }\n}',
        # A value that is not an object; a nested field named like the key.
        '{\n    "m": 5,\n    "y": {\n        "m": {"max_tokens": 6}\n    }\n}',
        # The ordinary layout.
        '{\n    "x": {\n        "mode": "chat"\n    },\n    "m": {\n        "max_tokens": 7\n    }\n}',
    ],
)
def test_unusual_files_give_what_the_whole_map_gives(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str
) -> None:
    path = tmp_path / "map.json"
    path.write_text(text)
    use_file(monkeypatch, path)
    data = json.loads(text)
    expected = data.get("m") if isinstance(data.get("m"), dict) else None
    assert catalog._entries_for(("m",)) == [expected]
    assert catalog._entries_for(("absent",)) == [None]


def test_unreadable_or_broken_files_fall_back(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{\n    "m": {\n        "max_tokens": ')
    use_file(monkeypatch, broken)
    assert catalog._entries_for(("m",)) == [None]  # the whole map is {}: nothing parses
