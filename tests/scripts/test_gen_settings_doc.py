"""The settings reference is generated from the settings records and cannot go stale."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec
import pytest
from msgspec import Meta

from agent_core.records import Record, field
from pi_cli.shell.config.settings import Settings
from tests.scripts.conftest import ROOT, load_script

gen = load_script("gen_settings_doc")
PAGE = ROOT / "docs" / "settings.md"


def _every_key(model: type[msgspec.Struct], prefix: str = "") -> list[str]:
    keys = []
    for info in msgspec.structs.fields(model):
        key = prefix + info.encode_name
        annotation = _unless_none(_plain(info.type))
        if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
            keys += _every_key(annotation, key + ".")
        else:
            keys.append(key)
            keys += [k for item in _list_models(annotation) for k in _every_key(item, key + "[].")]
    return keys


def _plain(annotation: Any) -> Any:
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _unless_none(annotation: Any) -> Any:
    """``Model | None`` (a section that may be left out, ``statusLine``): the model."""
    if get_origin(annotation) in (Union, UnionType):
        options = [o for o in get_args(annotation) if o is not type(None)]
        if len(options) == 1:
            return _plain(options[0])
    return annotation


def _list_models(annotation: Any) -> list[type[msgspec.Struct]]:
    """The models a list's items may be (``list[str | PackageSpec]``: PackageSpec)."""
    if get_origin(annotation) is not list:
        return []
    (item,) = get_args(annotation)
    options = get_args(item) if get_origin(item) in (Union, UnionType) else (item,)
    return [o for o in options if isinstance(o, type) and issubclass(o, msgspec.Struct)]


def test_every_settings_key_is_documented_exactly_once() -> None:
    rows = re.findall(r"^\| `([^`]+)` \|", PAGE.read_text(encoding="utf-8"), flags=re.M)
    keys = _every_key(Settings)
    assert sorted(rows) == sorted(keys)
    assert len(rows) == len(set(rows))
    assert "sandbox.mode" in keys and "webFetch.allowPrivateHosts" in keys  # camelCase paths


def test_the_committed_page_is_up_to_date_as_make_lint_checks_it() -> None:
    script = ROOT / "scripts" / "gen_settings_doc.py"
    result = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_a_stale_page_fails_the_check_and_a_run_rewrites_it(tmp_path: Path) -> None:
    page = tmp_path / "settings.md"
    stale = PAGE.read_text(encoding="utf-8").replace("`sandbox.network`", "`sandbox.netwerk`")
    page.write_text(stale, encoding="utf-8")
    assert gen.main(["--check", "--page", str(page)]) == 1
    assert page.read_text(encoding="utf-8") == stale  # --check never writes
    assert gen.main(["--page", str(page)]) == 0
    assert page.read_text(encoding="utf-8") == PAGE.read_text(encoding="utf-8")
    assert gen.main(["--check", "--page", str(page)]) == 0


def test_the_hand_written_prose_around_the_markers_is_kept(tmp_path: Path) -> None:
    page = tmp_path / "settings.md"
    page.write_text(
        f"# Title\n\nIntro.\n\n{gen.START}\nstale words\n{gen.END}\n\nOutro.\n", encoding="utf-8"
    )
    assert gen.main(["--page", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Title\n\nIntro.\n\n" + gen.START)
    assert text.endswith(gen.END + "\n\nOutro.\n") and "stale words" not in text


def test_a_page_without_the_markers_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "settings.md"
    page.write_text("# Settings\n", encoding="utf-8")
    assert gen.main(["--page", str(page)]) == 1
    assert "must hold the markers" in capsys.readouterr().err


class _Inner(Record):
    port: Annotated[int, Meta(ge=1, le=65535, description="The port.")] = 1


class _Undocumented(Record):
    documented: Annotated[bool, Meta(description="Yes.")] = True
    forgotten: int = 3


def test_a_field_without_a_description_is_named() -> None:
    with pytest.raises(
        gen.MissingDescription, match=r"_Undocumented\.forgotten has no description"
    ):
        gen.collect(_Undocumented)


class _Kinds(Record):
    mode: Annotated[Literal["a", "b"], Meta(description="M.")] = "a"
    names: Annotated[list[str] | None, Meta(description="N.")] = None
    ports: Annotated[dict[str, int], Meta(description="P.")] = {}
    blob: Annotated[dict[str, Any], Meta(description="B.")] = {}
    ratio: Annotated[float, Meta(gt=0, description="R.")] = 2.0
    limit: Annotated[int, Meta(ge=1, description="L.")] | None = None
    servers: Annotated[dict[str, _Inner], Meta(description="S.")] = {}
    inner: Annotated[_Inner, Meta(description="I.")] = field(default_factory=_Inner)


def test_types_defaults_bounds_and_nested_models_render_as_users_write_them() -> None:
    sections = gen.collect(_Kinds)
    rows = {row.key: row for section in sections for row in section.rows}
    assert rows["mode"].type == '`"a"` or `"b"`' and rows["mode"].default == '`"a"`'
    assert rows["names"].type == "array of strings" and rows["names"].default == "unset"
    assert rows["ports"].type == "object: name → integer" and rows["ports"].default == "`{}`"
    assert rows["blob"].type == "object"
    assert rows["ratio"].type == "number (> 0)" and rows["ratio"].default == "`2`"
    assert rows["limit"].type == "integer (≥ 1)" and rows["limit"].default == "unset"
    assert rows["limit"].description == "L."  # the Meta of X in X | None
    assert rows["servers.<name>.port"].type == "integer (≥ 1, ≤ 65535)"
    assert rows["inner.port"].default == "`1`"
    assert [s.title for s in sections] == ["Top-level keys", "inner", "servers.<name>"]
    assert sections[1].description == "I."


def test_a_pipe_in_a_cell_is_escaped() -> None:
    out = gen.render([gen.Section("x", "", [gen.Row("x.a", "t", "`1`", "a | b")])])
    assert "a \\| b" in out
