"""``@`` file completion lists the project in a thread: the UI never waits for it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from pi_cli.tui import completion
from pi_cli.tui.completion import Completer, CompletionRequest, list_project_files
from tests.agent_core.scripted_stream import ScriptedStream
from tests.tui.helpers import SIZE, make_app, make_project, make_shell, type_text, wait_until


async def test_the_file_list_loads_in_a_thread_and_the_menu_fills_when_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(tmp_path)
    release = threading.Event()
    real = completion.list_project_files

    def slow_listing(cwd: Path, stop: threading.Event | None = None) -> list[str]:
        release.wait(5)  # a huge tree
        return real(cwd, stop)

    monkeypatch.setattr(completion, "list_project_files", slow_listing)
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "look at @hlm")
        await pilot.pause()
        assert app.editor.text == "look at @hlm"  # keys answered while listing
        assert not app.menu.is_open
        release.set()
        await wait_until(pilot, lambda: app.menu.is_open)
        assert app.menu.items[0].label == "hello.mjs"


def test_no_file_candidates_until_loaded(tmp_path: Path) -> None:
    make_project(tmp_path)
    completer = Completer(tmp_path, lambda prefix: [])
    request = CompletionRequest(0, 4, "file", "hlm")
    assert completer.complete(request) == [] and not completer.files_ready
    completer.load_files()
    assert [c.label for c in completer.complete(request)] == ["hello.mjs"]


@pytest.mark.parametrize("with_rg", [True, False])
def test_listing_stops_at_max_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_rg: bool
) -> None:
    for i in range(30):
        (tmp_path / f"f{i:02}.txt").write_text("x")
    monkeypatch.setattr(completion, "MAX_FILES", 7)
    if not with_rg:
        monkeypatch.setattr(completion, "_rg_files", lambda *args: None)
    files = list_project_files(tmp_path)
    assert len(files) == 7 and files == sorted(files)


def test_a_set_stop_event_ends_the_listing_early(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"f{i:02}.txt").write_text("x")
    stop = threading.Event()
    stop.set()
    assert len(list_project_files(tmp_path, stop)) <= 1
