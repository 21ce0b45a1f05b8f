"""One model's cost-map entry, found through the catalogue's index without parsing or scanning the
whole map, is exactly the map's entry."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agent_core.providers import catalog


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No map parsed, no index loaded, an empty cache folder."""
    monkeypatch.setattr(catalog, "_cost_map", None)
    monkeypatch.setattr(catalog, "_index", None)
    monkeypatch.setenv("PI_HOME", str(tmp_path / "pi-home"))


def use_file(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setattr(catalog, "_cost_map_files", lambda: [path])


def test_real_map_entries_match_the_whole_map(fresh: None) -> None:
    whole = catalog._load_cost_map()
    if not whole:
        pytest.skip("litellm's cost map is not installed")
    keys = random.Random(5).sample(sorted(whole), min(300, len(whole)))
    keys += ["no-such-model-anywhere", "sample_spec", "openai/no-such-model"]
    for key in keys:
        catalog._cost_map, catalog._index = None, None
        assert catalog._entries_for((key,)) == [whole.get(key)], key


def test_a_miss_parses_nothing(fresh: None) -> None:
    if not catalog._cost_map_files():
        pytest.skip("litellm's cost map is not installed")
    catalog._load_index()  # the first start after an install builds the index
    catalog._cost_map, catalog._index = None, None
    assert catalog.lookup_metadata("openai", "no-such-model-anywhere") is None
    assert catalog._cost_map is None  # answered from the index alone


def test_a_known_model_parses_nothing_else(fresh: None) -> None:
    whole = catalog._load_cost_map()
    name = next((k for k, v in whole.items() if v.get("litellm_provider") == "openai"), None)
    if name is None:
        pytest.skip("no OpenAI model in the installed cost map")
    catalog._load_index()
    catalog._cost_map, catalog._index = None, None
    assert catalog.lookup_metadata("openai", name.removeprefix("openai/")) == whole[name]
    assert catalog._cost_map is None


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


def test_the_index_is_built_once_and_read_after(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "map.json"
    path.write_text(json.dumps({"a/m": {"max_tokens": 1, "litellm_provider": "a"}}, indent=4))
    use_file(monkeypatch, path)
    assert catalog.lookup_metadata("a", "m") == {"max_tokens": 1, "litellm_provider": "a"}
    saved = list((tmp_path / "pi-home" / "cache").glob("model-catalog-*.index"))
    assert len(saved) == 1

    def no_build(path: Path, table: object) -> None:
        raise AssertionError("the saved index should have been used")

    monkeypatch.setattr(catalog, "_index", None)
    monkeypatch.setattr(catalog, "_cost_map", None)
    monkeypatch.setattr(catalog, "write_index", no_build)
    assert catalog.known_providers() == frozenset({"a"})
    assert catalog.provider_of_bare_name("a/m") == "a"
    assert catalog._cost_map is None
    # A new version of the map (another size or mtime) gets its own index.
    path.write_text(json.dumps({"b/m": {"max_tokens": 2}, "a/m": {"max_tokens": 1}}, indent=4))
    monkeypatch.setattr(catalog, "_index", None)
    monkeypatch.undo()
    monkeypatch.setattr(catalog, "_cost_map", None)
    monkeypatch.setattr(catalog, "_index", None)
    monkeypatch.setenv("PI_HOME", str(tmp_path / "pi-home"))
    use_file(monkeypatch, path)
    assert catalog._entries_for(("b/m", "a/m", "c")) == [{"max_tokens": 2}, {"max_tokens": 1}, None]


def test_a_new_index_removes_the_indexes_of_maps_unused_for_a_week(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import os
    import time

    cache = tmp_path / "pi-home" / "cache"
    cache.mkdir(parents=True)
    week = 7 * 24 * 3600
    files = {
        "model-catalog-1-1-311.index": time.time() - week - 60,  # an old litellm's: removed
        "model-catalog-2-2-311.123.tmp": time.time() - week - 60,  # a crashed write: removed
        "model-catalog-3-3-311.index": time.time() - week + 3600,  # another install's: kept
        "extensions.json": time.time() - 10 * week,  # not an index: kept
    }
    for name, when in files.items():
        (cache / name).write_bytes(b"x")
        os.utime(cache / name, (when, when))
    path = tmp_path / "map.json"
    path.write_text(json.dumps({"a/m": {"max_tokens": 1}}, indent=4))
    use_file(monkeypatch, path)
    assert catalog.lookup_metadata("a", "m") == {"max_tokens": 1}
    left = sorted(p.name for p in cache.iterdir())
    (new,) = [name for name in left if name not in files]
    assert left == sorted([new, "model-catalog-3-3-311.index", "extensions.json"])
    catalog._cost_map, catalog._index = None, None
    os.utime(cache / new, (time.time() - 2 * week, time.time() - 2 * week))
    assert catalog.lookup_metadata("a", "m") == {"max_tokens": 1}  # read, not rewritten:
    assert (cache / new).exists()  # an old index in use is never removed by its own pi


def test_an_unwritable_cache_reads_the_whole_map(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "pi-home").write_text("a file where the folder would be")
    path = tmp_path / "map.json"
    path.write_text(json.dumps({"m": {"max_tokens": 1}}, indent=4))
    use_file(monkeypatch, path)
    assert catalog._entries_for(("m", "x")) == [{"max_tokens": 1}, None]


def _listed(providers: set[str] | None) -> list[tuple[str, str, str, int | None]]:
    from agent_core.providers import list_models

    rows = list_models(None, models_file=[], env={}, providers=providers)
    return [(r.id, r.provider, r.api, r.context_window) for r in rows]


def test_a_providers_models_come_from_the_index_alone(fresh: None) -> None:
    whole = catalog._load_cost_map()
    if not whole:
        pytest.skip("litellm's cost map is not installed")
    every = _listed(None)
    wanted = {"openai", "anthropic", "no-such-provider"}
    catalog._cost_map, catalog._index = None, None
    catalog._load_index()
    catalog._cost_map, catalog._index = None, None
    assert _listed(wanted) == [row for row in every if row[1] in wanted]
    assert any(row[1] == "openai" for row in every)
    assert catalog._cost_map is None  # their entries were read, not the whole map
    assert _listed(set()) == []


def test_a_providers_models_in_unusual_maps(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    table = {
        "a/m": {"litellm_provider": "a", "max_input_tokens": 1},
        "m2": {"litellm_provider": "a-region", "max_input_tokens": 2},  # owner "a"
        "b/m": {"max_input_tokens": 3},  # owner from the key
        "bare": {"max_input_tokens": 4},  # no provider known: never listed
        "a/embed": {"litellm_provider": "a", "mode": "embedding"},
        "c/m": {"litellm_provider": "c", "mode": "chat"},
    }
    path = tmp_path / "map.json"
    path.write_text(json.dumps(table, indent=4))
    use_file(monkeypatch, path)
    expected = [("a/m", "a", "litellm", 1), ("a/m2", "a", "litellm", 2), ("b/m", "b", "litellm", 3)]
    assert _listed({"a", "b"}) == expected  # the index is built here
    catalog._cost_map, catalog._index = None, None
    assert _listed({"a", "b"}) == expected  # through the index
    assert catalog._cost_map is None
    catalog._index = None
    monkeypatch.setattr(catalog, "_load_index", lambda: None)  # no usable index
    assert _listed({"a", "b"}) == expected
    assert _listed(None) == [*expected, ("c/m", "c", "litellm", 128_000)]  # the default


def test_keys_match_whole_names_only_and_odd_keys_are_safe(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The header finds a key in one text of them: a prefix, a suffix or a part of a name is
    no name, and a key holding the separator is left out (a model nobody can be named)."""
    table = {
        "gpt-4o": {"max_tokens": 1},
        "gpt-4o-mini": {"max_tokens": 2},
        "x/gpt-4o": {"max_tokens": 3},
        "bad\nkey": {"max_tokens": 4},
        "": {"max_tokens": 5},
        "ünïcode/模型": {"max_tokens": 6},
    }
    path = tmp_path / "map.json"
    path.write_text(json.dumps(table, indent=4))
    use_file(monkeypatch, path)
    catalog._load_index()  # the first start after an install builds the index
    catalog._cost_map, catalog._index = None, None
    wanted = ("gpt-4o", "gpt-4o-mini", "x/gpt-4o", "ünïcode/模型", "gpt-4", "4o", "o\ngpt", "")
    found = catalog._entries_for(wanted)
    assert found == [{"max_tokens": 1}, {"max_tokens": 2}, {"max_tokens": 3}, {"max_tokens": 6},
                     None, None, None, {"max_tokens": 5}]  # fmt: skip
    assert catalog._entries_for(("bad\nkey",)) == [None]
    assert catalog._cost_map is None  # all answered from the index


@pytest.mark.parametrize(
    "damage",
    [
        {"keys": None},
        {"spans": b"\x00" * 3},
        {"keys": "no separators"},
        {"chat": "not bytes"},
        {"spans": "text"},
    ],
)
def test_a_damaged_header_means_the_whole_map(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, damage: dict[str, object]
) -> None:
    import marshal

    from agent_core.providers._catalog_index import read_header, write_index

    index = tmp_path / "map.index"
    write_index(index, {"a/m": {"max_tokens": 1, "litellm_provider": "a"}})
    header = read_header(index)
    assert header is not None
    raw = index.read_bytes()
    size = int.from_bytes(raw[:8], "big")
    fields = marshal.loads(raw[8 : 8 + size]) | damage
    body = marshal.dumps(fields)
    index.write_bytes(len(body).to_bytes(8, "big") + body + raw[8 + size :])
    assert read_header(index) is None


def test_damaged_chat_lists_fall_back_to_the_whole_map(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    table = {"a/m": {"litellm_provider": "a", "max_input_tokens": 1}}
    path = tmp_path / "map.json"
    path.write_text(json.dumps(table))
    use_file(monkeypatch, path)
    index = catalog._load_index()
    assert index is not None
    index["chat"] = b"\xff not marshal"
    rows = catalog.chat_entries({"a"})
    assert [(key, owner) for key, owner, _ in rows] == [("a/m", "a")]
