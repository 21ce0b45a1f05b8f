"""Every screen of the TUI has a test that looks at what it draws (issue 26: the /model picker
once showed only a loading animation while its attribute-level test passed).

The table names, for each ``Screen`` subclass in ``pi_cli/tui``, the tests that open it and
assert on the drawn rows (``screen_text`` in Pilot, an SVG snapshot, or tmux's ``capture-pane``).
A new screen fails here until it has one; a test that stops looking at the screen fails too.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

from textual.screen import Screen

import pi_cli.tui

HERE = Path(__file__).parent

DRAWN: dict[str, list[str]] = {
    "AgentThreadScreen": ["test_background_agents.py::test_footer_picker_thread_message_and_stop"],
    "ApprovalScreen": [
        "test_approval_dialogs.py::test_every_key_of_the_approval_is_drawn_at_any_width",
        "test_approval_modal.py::test_a_web_fetch_approval_shows_the_request_as_text",
    ],
    "ChoiceScreen": [
        "test_session_screens.py::test_rewind_picker_restores_code_and_conversation",
        "test_session_screens.py::test_tree_offers_to_restore_the_code_of_the_chosen_entry",
    ],
    "DialogScreen": [
        "test_dialog_modal.py::test_select_one_option_draws_title_message_options_and_answers",
    ],
    "DiffScreen": ["test_diff_screen.py::test_diff_screen_draws_the_changes_and_reverts_a_file"],
    "KeysScreen": [
        "test_snapshots_daily.py::test_the_keys_overlay",
    ],
    "OverlayScreen": ["test_extensions_tui.py::test_an_extensions_overlay_is_drawn_and_answered"],
    "PickerScreen": [  # every picker built on it
        "test_pickers_drawn.py::test_the_model_picker_draws_its_rows_and_filters_what_is_drawn",
        "test_pickers_drawn.py::test_the_theme_and_history_pickers_draw_their_rows",
        "test_pickers_drawn.py::test_the_tree_and_resume_pickers_draw_their_rows",
        "test_pickers_drawn.py::test_the_tree_names_entries_readably",
        "test_background_shells.py::test_the_bash_picker_draws_its_rows_and_view_follows_the_output_live",
        "test_plugin_picker.py::test_plugin_picker_installs_and_shows_state",
        "test_session_screens.py::test_rewind_picker_restores_code_and_conversation",
    ],
    "QueueScreen": ["test_snapshots_daily.py::test_the_queue_view"],
    "ResumeScreen": ["test_pickers_drawn.py::test_the_tree_and_resume_pickers_draw_their_rows"],
    "SearchScreen": ["test_transcript_search.py::test_search_finds_highlights_steps_and_unfolds"],
    "ShellOutputScreen": [
        "test_background_shells.py::test_the_bash_picker_draws_its_rows_and_view_follows_the_output_live",
        "test_background_shells.py::test_the_live_view_says_when_the_shell_has_exited",
    ],
    "TrustScreen": ["test_approval_dialogs.py::test_every_dialog_ends_with_the_same_hint_row"],
}

LOOKS = ("screen_text(", "snap_compare(", "capture-pane", "drawn(")


def _screens() -> set[str]:
    """Every Screen subclass defined in pi_cli.tui (every module imported)."""
    found: set[str] = set()
    for info in pkgutil.walk_packages(pi_cli.tui.__path__, "pi_cli.tui."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, Screen)
                and value.__module__ == module.__name__
            ):
                found.add(name)
    return found


def _function(file: str, name: str) -> str | None:
    source = (HERE / file).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return ast.get_source_segment(source, node)
    return None


def test_every_screen_has_a_test_of_what_it_draws() -> None:
    screens = _screens()
    assert screens, "no screens found"
    missing = sorted(screens - set(DRAWN))
    assert not missing, f"screens without a drawn-rows test (add one, then list it): {missing}"
    assert not sorted(set(DRAWN) - screens), "listed screens that no longer exist"


def test_each_listed_test_exists_and_looks_at_the_screen() -> None:
    for screen, tests in DRAWN.items():
        for test in tests:
            file, _, name = test.partition("::")
            body = _function(file, name)
            assert body is not None, f"{screen}: {test} does not exist"
            assert any(look in body for look in LOOKS), (
                f"{screen}: {test} never looks at the screen"
            )
