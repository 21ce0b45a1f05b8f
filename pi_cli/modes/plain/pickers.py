"""Line-mode stand-ins for the TUI's pickers: numbered lists, then ``/model 2`` or ``/resume 1``.

A command answering with ``action="pick_model"`` or ``"pick_session"`` gets a numbered list
printed; the numbers stay valid for the next ``/model N`` / ``/resume N``, which :meth:`expand`
rewrites to the real argument before the shell sees it.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
from typing import Any

from pi_cli.shell import parse_command_line

MAX_SESSIONS = 10


class Pickers:
    """Numbered choices for the ``pick_*`` actions of slash commands.

    Args:
        shell: the CodingAgent (settings for probe ports, cwd for sessions).
    """

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.choices: dict[str, list[str]] = {}

    def expand(self, text: str) -> str:
        """``/model 2`` -> ``/model <second listed model>`` (unchanged if nothing matches)."""
        parsed = parse_command_line(text)
        if parsed is None:
            return text
        name, args = parsed
        command = self.shell.commands.get(name)
        key = command.name if command is not None else name
        options = self.choices.get(key)
        if options and args.isdigit() and 1 <= int(args) <= len(options):
            return f"/{key} {options[int(args) - 1]}"
        return text

    async def show(self, action: str) -> list[str]:
        """Lines to print for ``action`` (a numbered list plus how to choose)."""
        if action == "pick_model":
            return await self._models()
        if action == "pick_session":
            return self._sessions()
        if action in ("pick_bash", "pick_plugin", "pick_agent"):
            return []  # the command's own output already lists them with the text commands
        if action in ("pick_rewind", "pick_diff"):
            return []  # /rewind's own output is the numbered list (/rewind N picks)
        name = action.removeprefix("pick_")
        return [
            f"(the {name} picker needs the full-screen UI; pass the value as an argument instead)"
        ]

    async def _models(self) -> list[str]:
        from pi_cli.shell import probe_local_servers, probe_targets, probing_disabled, served_models

        found = (
            []
            if probing_disabled()
            else await probe_local_servers(probe_targets(self.shell.settings.local_probe_ports))
        )
        rows = [(f"{d.server.key}/{name}", "local") for d in found for name in d.models]
        served = await asyncio.to_thread(served_models, self.shell.served_sources())
        for answer in served:
            rows += [(spec, f"served by {answer.source.base_url}") for spec in answer.specs]
        options = list(dict.fromkeys(spec for spec, _ in rows))
        notes = dict(reversed(rows))  # the first note of each spec
        self.choices["model"] = options
        lines = [f"  {i}. {spec}  ({notes[spec]})" for i, spec in enumerate(options, 1)]
        lines += [f"  {answer.problem}" for answer in served if answer.problem]
        hint = "/model N picks from the list; " if options else ""
        lines.append(
            f"{hint}/model provider/model switches; `pi --list-models [filter]` lists known models."
        )
        return lines

    def _sessions(self) -> list[str]:
        from pi_cli.shell import sessions_dir

        directory = sessions_dir(self.shell.cwd)
        files = (
            sorted(directory.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
            if directory.is_dir()
            else []
        )
        files = files[:MAX_SESSIONS]
        self.choices["resume"] = [str(p) for p in files]
        if not files:
            return ["No saved sessions for this directory."]
        lines = []
        for i, path in enumerate(files, 1):
            when = _dt.datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
            lines.append(f"  {i}. {when}  {path.stem}")
        lines.append("/resume N resumes one of these.")
        return lines
