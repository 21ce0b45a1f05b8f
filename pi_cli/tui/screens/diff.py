"""``/diff`` in the TUI: everything this session changed, file by file, coloured.

A screen of its own (the transcript is not touched). The left list holds the files of the
session's total and of each prompt (``t`` switches between the two views); the right pane
shows the highlighted file's patch, added lines green and removed lines red (theme colours).
``r`` puts the highlighted file back as it was when the session started, through the
checkpoints' restore path (``/rewind undo`` undoes it); the list is read again after it. A
session attached from ``pi serve`` is read and reverted through its ``/diff`` command there.
"""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from pi_cli.tui.messages import clean
from pi_cli.tui.widgets.key_hints import KeyHints

if TYPE_CHECKING:
    from pi_cli.shell import ChangeSet, CodingAgent, DiffFile, FrontShell
    from pi_cli.tui.host import TuiHost

MAX_PATCH_LINES = 4000


def local_shell(shell: FrontShell | None) -> CodingAgent | None:
    """The shell when it runs here: a session in ``pi serve`` keeps its checkpoints there."""
    return None if shell is None or shell.remote else cast("CodingAgent", shell)


def patch_text(file: DiffFile, styles: dict[str, str]) -> Text:
    """The file's patch with added, removed and hunk lines styled."""
    text = Text(no_wrap=True)
    lines = file.text().rstrip("\n").split("\n")
    for line in lines[:MAX_PATCH_LINES]:
        shown = clean(line.removesuffix("\r"))
        if line.startswith("+") and not line.startswith("+++"):
            style = styles["added"]
        elif line.startswith("-") and not line.startswith("---"):
            style = styles["removed"]
        elif line.startswith("@@"):
            style = styles["hunk"]
        else:
            style = ""
        text.append(shown + "\n", style=style)
    if len(lines) > MAX_PATCH_LINES:
        text.append(f"… {len(lines) - MAX_PATCH_LINES} more lines (pi diff prints them all)\n")
    if file.binary:
        text.append("(binary file)\n", style=styles["hunk"])
    return text


class DiffScreen(ModalScreen[None]):
    """The session's changes; Esc closes."""

    BINDINGS = [
        Binding("escape,q", "close", "Close", id="diff.close"),
        Binding("t", "toggle_turns", "Per prompt", id="diff.turns"),
        Binding("r", "revert", "Revert file", id="diff.revert"),
    ]
    DEFAULT_CSS = """
    DiffScreen { align: center middle; }
    DiffScreen #diff-box { width: 95%; height: 90%; background: $surface; border: round $primary; }
    DiffScreen #diff-panes { height: 1fr; }
    DiffScreen #diff-files { width: 40%; height: 1fr; }
    DiffScreen #diff-patch { width: 60%; height: 1fr; }
    """

    def __init__(self, host: TuiHost, sets: list[ChangeSet]) -> None:
        super().__init__(classes="picker")
        self.host = host
        self.sets = sets
        self.per_turn = False
        self.rows: list[tuple[int, int]] = []  # (set index, file index) per list row

    def compose(self) -> ComposeResult:
        with Vertical(id="diff-box"):
            yield Label("", id="picker-title")
            with Horizontal(id="diff-panes"):
                yield OptionList(id="diff-files")
                with VerticalScroll(id="diff-patch"):
                    yield Static("", id="diff-text", markup=False)
            yield KeyHints(
                [
                    ("↑↓", "File"),
                    ("t", "Total / per prompt"),
                    ("r", "Revert file"),
                    ("Esc", "Close"),
                ]
            )

    def on_mount(self) -> None:
        self._fill()
        self.query_one(OptionList).focus()

    def _styles(self) -> dict[str, str]:
        variables = self.app.get_css_variables()
        return {
            "added": variables.get("text-success", "green"),
            "removed": variables.get("text-error", "red"),
            "hunk": variables.get("text-accent", "cyan"),
        }

    def _fill(self) -> None:
        shown = self.sets[1:] if self.per_turn else self.sets[:1]
        offset = 1 if self.per_turn else 0
        files = self.query_one(OptionList)
        files.clear_options()
        self.rows = []
        options: list[Option] = []
        for index, change in enumerate(shown, offset):
            options.append(Option(Text(clean(change.label), style="bold"), disabled=True))
            self.rows.append((index, -1))
            for number, file in enumerate(change.files):
                name = file.path + (f" ← {file.old_path}" if file.old_path else "")
                label = f"  {name}  +{file.additions} -{file.deletions}"
                options.append(Option(Text(clean(label))))
                self.rows.append((index, number))
        files.add_options(options)
        count = sum(len(c.files) for c in shown)
        view = "per prompt" if self.per_turn else "in total"
        self.query_one("#picker-title", Label).update(
            f"Changes of this session, {view}: {count} file(s)"
        )
        first = next((i for i, (_, f) in enumerate(self.rows) if f >= 0), None)
        if first is not None:
            files.highlighted = first
        self._show(first)

    def _selected_file(self, row: int | None) -> DiffFile | None:
        if row is None or row >= len(self.rows):
            return None
        set_index, file_index = self.rows[row]
        return self.sets[set_index].files[file_index] if file_index >= 0 else None

    def _show(self, row: int | None) -> None:
        file = self._selected_file(row)
        body = self.query_one("#diff-text", Static)
        if file is None:
            body.update("Nothing changed in this session." if row is None else "")
            return
        body.update(patch_text(file, self._styles()))

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show(event.option_index)

    def action_toggle_turns(self) -> None:
        """Switch between the session's total and its changes prompt by prompt."""
        self.per_turn = not self.per_turn
        self._fill()

    async def action_revert(self) -> None:
        """Put the highlighted file back as it was at the session's start."""
        file = self._selected_file(self.query_one(OptionList).highlighted)
        shell = self.host.shell
        if file is None or shell is None:
            return
        said, failed = await revert_file(shell, file.path)
        if failed:
            self.notify(said, severity="error")
            return
        self.notify(said)
        sets = await read_change_sets(shell)
        if isinstance(sets, list):
            self.sets = sets or self.sets
        self._fill()

    def action_close(self) -> None:
        """Close the screen."""
        self.dismiss(None)


async def read_change_sets(shell: FrontShell) -> list[ChangeSet] | str:
    """The session's changes, in total then per prompt (or what to say instead). A session
    attached from ``pi serve`` keeps its checkpoints there: its ``/diff --turns --json`` is read."""
    from pi_cli.shell import RewindError, change_sets, change_sets_of_json, session_changes

    local = local_shell(shell)
    if local is None:
        result = await shell.submit("/diff --turns --json")
        output = (result.output or "") if result is not None else ""
        if result is None or result.error or not output.startswith("{"):
            return output or "Nothing changed in this session."
        try:
            return change_sets_of_json(json.loads(output))
        except (ValueError, TypeError, AttributeError):
            return "The server's /diff answer could not be read."
    try:
        changes = await session_changes(local.session, local.checkpoints, per_turn=True)
    except RewindError as exc:
        return str(exc)
    if changes.problem and changes.total is None:
        return changes.problem
    return change_sets(changes)


async def revert_file(shell: FrontShell, path: str) -> tuple[str, bool]:
    """Put ``path`` back as it was at the session's start: what was done, and whether it failed."""
    from pi_cli.shell import RewindError, revert_session_file

    local = local_shell(shell)
    if local is None:
        result = await shell.submit(f"/diff revert {shlex.quote(path)}")
        if result is None:
            return "The server did not answer.", True
        return result.output or "", result.error
    try:
        return await revert_session_file(local.session, local.checkpoints, path), False
    except RewindError as exc:
        return str(exc), True


async def show_diff(host: Any) -> None:
    """``/diff``: read the session's changes, then open the screen."""
    if host.shell is None:
        return
    sets = await read_change_sets(host.shell)
    if isinstance(sets, str):
        host.notify(sets)
        return
    await host.push_screen_wait(DiffScreen(host, sets))
