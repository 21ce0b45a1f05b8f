"""``?`` / F1 / ``/keys``: every binding of the key table in effect, by scope, and the commands."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from pi_cli.tui.keymap import DEFAULT_KEYS, SCOPES, bindings, effective_keys, pretty


def keys_content(
    keymap: dict[str, str],
    commands: list[tuple[str, str]],
    extension_keys: list[tuple[str, str, str]] | None = None,
) -> Content:
    """The table: one line per binding (keys, what it does, its id), extensions' bindings
    ((keys, description, id)), then the commands."""
    keys = effective_keys(keymap)
    lines: list[Content] = []
    for scope, title in SCOPES.items():
        specs = [spec for spec in DEFAULT_KEYS if spec.scope == scope]
        if not specs:
            continue
        lines.append(Content.styled(title, "bold $turn-title"))
        for spec in specs:
            chord = " / ".join(pretty(k) for k in keys[spec.id])
            lines.append(
                Content.assemble(
                    (f"  {chord:<24}", "bold $hint-key"),
                    (f"{spec.description:<47}", "$notice-text"),
                    (spec.id, "$hint-text"),
                )
            )
        lines.append(Content(""))
    if extension_keys:
        lines.append(Content.styled("Extensions", "bold $turn-title"))
        for chords, description, key_id in extension_keys:
            chord = " / ".join(pretty(k) for k in chords.split(","))
            lines.append(
                Content.assemble(
                    (f"  {chord:<24}", "bold $hint-key"),
                    (f"{description:<47}", "$notice-text"),
                    (key_id, "$hint-text"),
                )
            )
        lines.append(Content(""))
    if commands:
        lines.append(Content.styled("Commands", "bold $turn-title"))
        for usage, description in commands:
            lines.append(
                Content.assemble(
                    (f"  {usage:<26}", "bold $hint-key"), (description, "$notice-text")
                )
            )
    lines.append(Content(""))
    lines.append(
        Content.styled(
            'Change a key in ~/.pi/keybindings.json: {"pi.follow_up": "ctrl+enter,f2"}',
            "$hint-text",
        )
    )
    return Content("\n").join(lines)


class KeysScreen(ModalScreen[None]):
    """The list; Esc, q, ? or F1 closes it."""

    BINDINGS = bindings("keys")

    def __init__(
        self,
        keymap: dict[str, str],
        commands: list[tuple[str, str]],
        extension_keys: list[tuple[str, str, str]] | None = None,
    ) -> None:
        super().__init__(classes="picker")
        self.keymap = keymap
        self.commands = commands
        self.extension_keys = extension_keys or []

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box", classes="keys-box"):
            yield Label("Keys and commands", id="picker-title")
            with VerticalScroll(id="keys-scroll"):
                content = keys_content(self.keymap, self.commands, self.extension_keys)
                yield Static(content, id="keys-list")

    def action_close(self) -> None:
        """Close the list."""
        self.dismiss(None)
