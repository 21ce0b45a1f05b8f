"""Slash-command pickers and themes of the TUI (a mixin of :class:`~pi_cli.tui.app.PiApp`).

``/model``, ``/resume``, ``/tree`` and ``/theme`` open pickers; choosing goes through the same
paths as typing (the shell's commands, or ``navigate_to`` for the tree).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_cli.tui.widgets.editor import Editor

if TYPE_CHECKING:
    from pi_cli.shell.coding_agent import CodingAgent
    from pi_cli.tui.app import TuiOptions


class PickerActions:
    """Pickers and theme switching; relies on the app's ``shell``, ``editor`` and screens."""

    shell: CodingAgent
    options: TuiOptions
    pi_themes: dict[str, Any]
    editor: Editor

    def _register_commands(self) -> None:
        from pi_cli.shell.slash_commands import CommandResult, SlashCommand

        async def theme_command(shell: Any, args: str) -> CommandResult:
            if not args:
                return CommandResult(action="pick_theme", output=f"Theme: {self.theme}")
            if args not in self.pi_themes:
                return CommandResult(
                    output=f"Unknown theme {args!r}. Themes: {', '.join(self.pi_themes)}",
                    error=True,
                )
            self.switch_theme(args)
            return CommandResult(output=f"Theme set to {args}")

        if self.shell.commands.get("theme") is None:
            self.shell.commands.register(
                SlashCommand(
                    "theme", "Switch the colour theme", theme_command, usage="[name]", source="tui"
                )
            )

    def switch_theme(self, name: str) -> None:
        """Apply a theme and remember it in the global settings."""
        self.theme = name
        if self.options.persist_theme:
            from pi_cli.shell.settings import SettingsError, save_global_setting

            try:
                save_global_setting("theme", name)
            except (OSError, SettingsError) as exc:
                self.notify(f"Theme not saved: {exc}", severity="warning")

    def _pick_theme(self) -> None:
        from pi_cli.tui.screens.pickers import theme_picker

        def chosen(name: str | None) -> None:
            if name:
                self.switch_theme(name)

        self.push_screen(theme_picker(sorted(self.pi_themes), self.theme), chosen)

    def _pick_model(self) -> None:
        from pi_cli.tui.screens.pickers import model_picker

        def chosen(spec: str | None) -> None:
            if spec and spec != self.shell.model_id:
                self._submitted(Editor.Submitted(f"/model {spec}"))

        self.push_screen(model_picker(self.shell.model_id), chosen)

    def _pick_tree(self) -> None:
        from pi_cli.tui.screens.pickers import tree_picker

        entries = self.shell.tree_entries()
        if not entries:
            self.notify("Nothing in this session yet.")
            return

        def chosen(entry_id: str | None) -> None:
            if entry_id:
                self.navigate_tree(entry_id)

        self.push_screen(tree_picker(entries), chosen)

    def navigate_tree(self, entry_id: str) -> None:
        """Continue from ``entry_id``; a chosen prompt goes back into the editor to edit."""
        from pi_cli.shell.session_store import SessionError

        try:
            text = self.shell.navigate_to(
                entry_id
            )  # emits SessionChanged: the transcript is redrawn
        except SessionError as exc:
            self.notify(str(exc), severity="error")
            return
        if text:
            self.editor.set_text(text)

    def _pick_session(self) -> None:
        from pi_cli.shell.paths import sessions_dir
        from pi_cli.tui.screens.pickers import session_picker

        def chosen(path: str | None) -> None:
            if path:
                self._submitted(Editor.Submitted(f"/resume {path}"))

        current = str(self.shell.session.path) if self.shell.session.path else None
        self.push_screen(session_picker(sessions_dir(self.shell.cwd), current), chosen)
