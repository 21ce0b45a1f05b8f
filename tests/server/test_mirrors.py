"""The parts of an attached client's RemoteShell added for dialogs, extension UI, language
servers and goals: each follows the server's events as the local shell's own objects do, and a
dialog's answer goes back in the wire shape the server's shell checks again."""

from __future__ import annotations

import pytest

from pi_cli.server.client.decode import Decoder
from pi_cli.server.client.parts import DialogsMirror, GoalsMirror, LspMirror, dialog_reply
from pi_cli.shell import DialogAnswer, DialogRequested, UiChanged
from pi_cli.shell.dialogs.answers import parse_answer
from pi_cli.shell.events.dialogs import DialogOption
from pi_cli.shell.events.lsp import LspServerStatus


def _select(multiple: bool = False, allow_other: bool = False) -> DialogRequested:
    options = [DialogOption(label="staging"), DialogOption(label="production")]
    return DialogRequested(
        id="d1", kind="select", title="Deploy where?", options=options,
        multiple=multiple, allow_other=allow_other,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("request_", "answer"),
    [
        (_select(), DialogAnswer(values=("production",))),
        (_select(multiple=True), DialogAnswer(values=("staging", "production"))),
        (_select(allow_other=True), DialogAnswer(other="canary")),
        (_select(), DialogAnswer(cancelled=True)),
        (DialogRequested(id="d2", kind="confirm", title="Go?"), DialogAnswer(confirmed=True)),
        (DialogRequested(id="d3", kind="confirm", title="Go?"), DialogAnswer(confirmed=False)),
        (DialogRequested(id="d4", kind="input", title="Name?"), DialogAnswer(text="pi ✓")),
        (DialogRequested(id="d5", kind="editor", title="Text"), DialogAnswer(text="")),
    ],
)
def test_a_dialog_answer_survives_the_wire(request_: DialogRequested, answer: DialogAnswer) -> None:
    """What the client sends is read by the server's shell as the very answer given."""
    assert parse_answer(request_, dialog_reply(request_, answer)) == answer


def test_an_answer_of_no_known_shape_is_refused() -> None:
    with pytest.raises(ValueError):
        dialog_reply(_select(), 3.5)


def test_dialogs_and_ui_follow_the_server_events() -> None:
    decoder = Decoder()
    mirror = DialogsMirror()
    request = _select()
    for event in decoder.events(request.model_dump(by_alias=True)):
        assert isinstance(event, DialogRequested)
        mirror.pending[event.id] = event
    assert mirror.knows("d1") and not mirror.knows("d2")
    mirror.show(UiChanged(slot="footer", key="git.branch", text="main"))
    mirror.show(UiChanged(slot="panel", key="todo.notes", lines=["☐ ship"]))
    mirror.show(UiChanged(slot="footer", key="git.branch", text="dev"))  # replaced
    assert [(p.key, p.text or p.lines) for p in mirror.ui_state()] == [
        ("git.branch", "dev"),
        ("todo.notes", ["☐ ship"]),
    ]
    mirror.show(UiChanged(slot="panel", key="todo.notes"))  # cleared
    assert [p.key for p in mirror.ui_state()] == ["git.branch"]


def test_language_servers_and_goal_follow_the_server() -> None:
    lsp = LspMirror()
    assert lsp.started is None  # no footer item until a server started
    lsp.show_wire([{"name": "python", "state": "starting"}])
    assert lsp.started is lsp and lsp.footer() == "LSP python…"
    lsp.show(
        [LspServerStatus(name="python", state="ready"), LspServerStatus(name="ts", state="failed")]
    )
    assert lsp.footer() == "LSP python✓ ts✗"
    lsp.show([])
    assert lsp.started is None and lsp.footer() == ""
    goals = GoalsMirror()
    assert goals.event().goal is None
