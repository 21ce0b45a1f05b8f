"""``ctx.ui.set_title``, ``set_editor_text``, ``get_editor_text`` and ``notify`` from hostile
extensions: what reaches front ends is one clean line (a title) or clean text (the editor)."""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell import Notice, UiChanged
from tests.shell.extensions.helpers import shell_with, texts, write_extension

HOSTILE = """
    def register(pi):
        @pi.command("mess")
        def mess(args, ctx):
            ctx.ui.set_title("\\x1b]0;pwned\\x07ok\\x1b[2J\\r\\n" + "x" * 10000)
            ctx.ui.set_editor_text("line one\\n\\x1b]52;c;c2VjcmV0\\x07line two\\x9b31m")
            ctx.ui.notify("\\x1b[31mred\\x1b[0m \\x1b]8;;http://evil\\x07link", "bogus-level")
            return "editor: " + repr(ctx.ui.get_editor_text())

        @pi.command("clear-title")
        def clear(args, ctx):
            ctx.ui.set_title(None)
"""


async def test_titles_editor_text_and_notices_are_cleaned(project: Path, pi_home: Path) -> None:
    write_extension(pi_home / "extensions", "hostile", HOSTILE)
    events: list[object] = []
    shell = shell_with(project)
    shell.subscribe(events.append)
    shell.dialogs.editor_text = lambda: "typed so far"
    result = await shell.submit("/mess")
    assert result is not None and result.output == "editor: 'typed so far'"
    pieces = [e for e in events if isinstance(e, UiChanged)]
    title = next(p for p in pieces if p.slot == "title")
    assert title.text == "ok " + "x" * 197 and len(title.text) == 200
    editor = next(p for p in pieces if p.slot == "editor")
    assert editor.text == "line one\nline two31m"
    notice = next(e for e in events if isinstance(e, Notice) and e.source == "extension hostile")
    assert notice.text == "red link" and notice.level == "info"
    assert ("title", "title") in {(u.slot, u.key) for u in shell.dialogs.ui_state()}
    assert not any(u.slot == "editor" for u in shell.dialogs.ui_state())  # an action, not state
    await shell.submit("/clear-title")
    assert not any(u.slot == "title" for u in shell.dialogs.ui_state())
    await shell.aclose()


async def test_editor_calls_without_a_front_end_and_in_register(
    project: Path, pi_home: Path
) -> None:
    write_extension(
        pi_home / "extensions",
        "early",
        """
        def register(pi):
            assert pi.ui.get_editor_text() == ""
            pi.ui.set_title("set in register")
            pi.ui.set_editor_text("too early")
        """,
    )
    write_extension(
        pi_home / "extensions",
        "reader",
        """
        def register(pi):
            @pi.command("read")
            def read(args, ctx):
                return repr(ctx.ui.get_editor_text())
        """,
    )
    notices: list[Notice] = []
    shell = shell_with(project, notices=notices)
    assert "set_editor_text is for handlers, not register()" in texts(notices)
    result = await shell.submit("/read")  # no front end with an editor (pi -p, RPC): ""
    assert result is not None and result.output == "''"
    await shell.aclose()
