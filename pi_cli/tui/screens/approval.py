"""The approval modal (a tool call waits for the user) and the folder-trust question.

Both are modal screens with their own bindings: their keys work only while they are shown and
never reach the editor underneath.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from pi_cli.tui.document.tool import diff_content
from pi_cli.tui.keymap import bindings
from pi_cli.tui.widgets.key_hints import Hint, KeyHints


@dataclass
class Approval:
    """What the modal shows (plain data from the bridge)."""

    request_id: str
    tool_name: str
    title: str
    reason: str
    preview: str
    options: list[str] = field(default_factory=list)
    rules: dict[str, list[str]] = field(default_factory=dict)
    question: str = ""
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    """The user's answer: a choice id, the settings scope for "always", a denial message."""

    choice: str
    scope: str = "user"
    message: str = ""


CHOICE_KEYS = (
    ("allow_once", "y", "Allow once"),
    ("allow_session", "s", "Allow for this session"),
    ("allow_always", "a", "Always…"),
    ("deny", "n", "Deny"),
)


class ApprovalScreen(ModalScreen[Verdict]):
    """y allow once · s this session · a always (then p project / u user) · n deny ·
    m deny with a message · Esc deny; in a sub-step (where to save, the message) Esc goes back
    one step."""

    BINDINGS = bindings("approval")  # the key table, scope "approval"

    def __init__(self, approval: Approval) -> None:
        super().__init__(classes="approval")
        self.approval = approval
        self.picking_scope = False

    def compose(self) -> ComposeResult:
        approval = self.approval
        with Vertical(id="approval-box"):
            question = approval.question or f"Allow {approval.tool_name}: {approval.title}?"
            yield Static(Content(question), id="approval-title")
            yield Static(Content(approval.reason), id="approval-reason")
            with VerticalScroll(id="approval-preview"):
                yield Static(self._preview(), markup=False)
            yield KeyHints(self._choices(), id="approval-keys")
            yield Input(
                placeholder="why (the model reads it) — Enter denies", id="approval-message"
            )

    def _preview(self) -> Content:
        text = self.approval.preview
        if text.startswith("--- ") or "\n@@ " in text:
            return diff_content(text, limit=300)
        return Content(text)

    def _choices(self) -> list[Hint]:
        hints = [
            (key, self.approval.labels.get(choice, label))
            for choice, key, label in CHOICE_KEYS
            if choice in self.approval.options
        ]
        return [*hints, ("m", "Deny with a message"), ("Esc", "Deny")]

    def on_mount(self) -> None:
        self.query_one(Input).display = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While the message box has focus only Esc works (letters are typed)."""
        typing = self.query_one(Input).display
        if typing:
            return action == "escape"
        if action == "scope":
            return self.picking_scope
        if action == "choose" and parameters and parameters[0] not in self.approval.options:
            return False
        if action == "always":
            return "allow_always" in self.approval.options
        return True

    def action_choose(self, choice: str) -> None:
        """Answer with ``choice``."""
        self.dismiss(Verdict(choice))

    def action_always(self) -> None:
        """Ask where to save the rule."""
        self.picking_scope = True
        rules = self.approval.rules
        project = ", ".join(rules.get("project", []))
        user = ", ".join(rules.get("user", []))
        self.query_one(KeyHints).show(
            [
                ("p", f"Always, in the project settings ({project})"),
                ("u", f"Always, in the user settings ({user})"),
                ("Esc", "Back"),
            ]
        )

    def action_scope(self, scope: str) -> None:
        """Save "always" in the project or the user settings."""
        self.dismiss(Verdict("allow_always", scope))

    def action_deny_with_message(self) -> None:
        """Show the message box."""
        box = self.query_one(Input)
        box.display = True
        box.focus()
        self.query_one(KeyHints).show([("Enter", "Deny with this message"), ("Esc", "Back")])

    def action_escape(self) -> None:
        """Back one step from a sub-step (where to save, the message box); deny at the first."""
        box = self.query_one(Input)
        if box.display or self.picking_scope:
            box.display, self.picking_scope = False, False
            self.set_focus(None)
            self.query_one(KeyHints).show(self._choices())
            return
        self.dismiss(Verdict("deny"))

    @on(Input.Submitted, "#approval-message")
    def _message(self, event: Input.Submitted) -> None:
        self.dismiss(Verdict("deny", message=event.value.strip()))


class TrustScreen(ModalScreen[bool]):
    """y trust this folder · n do not (both remembered) · Esc = no."""

    BINDINGS = bindings("trust")

    def __init__(self, folder: str, items: list[str], changed: bool) -> None:
        super().__init__(classes="approval")
        self.folder = folder
        self.items = items
        self.changed = changed

    def compose(self) -> ComposeResult:
        changed = " changed since you trusted it and" if self.changed else ""
        with Vertical(id="approval-box"):
            yield Static(Content("Trust this folder?"), id="approval-title")
            yield Static(Content(self.folder), markup=False, id="trust-folder")
            yield Static(
                Content(f"Its configuration{changed} would run code or use your keys:"),
                id="approval-reason",
            )
            with VerticalScroll(id="approval-preview"):
                yield Static(Content("\n".join(f"• {item}" for item in self.items)), markup=False)
            yield KeyHints(
                [
                    ("y", "Trust this folder (remembered)"),
                    ("n", "Do not trust it (remembered)"),
                    ("Esc", "Do not trust it (remembered)"),
                ],
                id="approval-keys",
            )

    def action_answer(self, trusted: bool) -> None:
        """Answer."""
        self.dismiss(trusted)
