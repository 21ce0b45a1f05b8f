"""What each extension registered, cached, so pi starts without importing any of them.

After an extension is loaded its registrations are written to
``$PI_HOME/cache/extensions.json`` with the stamp of its files (paths, sizes, modification
times; an installed package's name and version). At the next start an extension whose stamp
matches is not imported: its tools (with their schemas), commands, key bindings and pieces of UI
come from the cache, and it is loaded when something needs its code: a call of one of its tools,
one of its commands or keys, an event it handles. A changed file, a newer pi (``API``), or a
cache that cannot be read means a normal load. The file is rewritten whole, atomically.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_cli.shell.extensions.registry import Registration

API = 2
"""Bumped when what is cached changes shape (or its meaning)."""


@dataclass
class Manifest:
    """One extension's cached registrations (plain JSON data)."""

    stamp: str
    tools: list[dict[str, Any]] = field(default_factory=list)
    commands: list[dict[str, Any]] = field(default_factory=list)
    keys: list[dict[str, Any]] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    ui: list[dict[str, Any]] = field(default_factory=list)
    flags: list[dict[str, Any]] = field(default_factory=list)
    providers: list[dict[str, Any]] = field(default_factory=list)

    @property
    def provider_names(self) -> list[str]:
        """The model providers it registered."""
        return [str(p.get("name")) for p in self.providers if isinstance(p, dict)]

    @classmethod
    def of(cls, registration: Registration, stamp: str) -> Manifest:
        """The manifest of what ``registration`` holds."""
        return cls(
            stamp,
            tools=[
                {
                    "name": t.name,
                    "description": t.description,
                    "schema": t.schema(),
                    "label": t.label,
                    "readOnly": t.read_only,
                    "guideline": t.guideline,
                }
                for t in registration.tools.values()
            ],
            commands=[
                {
                    "name": c.name,
                    "description": c.description,
                    "usage": c.usage,
                    "whileRunning": c.while_running,
                    "completes": c.complete is not None,
                }
                for c in registration.commands.values()
            ],
            keys=[
                {"id": k.id, "keys": k.keys, "description": k.description}
                for k in registration.keys.values()
            ],
            events=registration.events,
            ui=[
                {"slot": slot, "key": key, "text": text, "lines": lines}
                for (slot, key), (text, lines) in registration.ui.items()
                if slot != "editor"
            ],
            flags=[dict(flag, extension=registration.name) for flag in registration.flags],
            providers=[
                {"name": p.name, "models": p.models} for p in registration.providers.values()
            ],
        )

    def wire(self) -> dict[str, Any]:
        """The JSON form."""
        return {"api": API, **vars(self)}

    @classmethod
    def parse(cls, data: object, stamp: str) -> Manifest | None:
        """The cached manifest if it is for this stamp and this pi, else ``None``."""
        if not isinstance(data, dict) or data.get("api") != API or data.get("stamp") != stamp:
            return None
        try:
            manifest = cls(
                stamp,
                tools=list(data["tools"]),
                commands=list(data["commands"]),
                keys=list(data["keys"]),
                events=[str(e) for e in data["events"]],
                ui=list(data["ui"]),
                flags=list(data.get("flags") or []),
                providers=list(data.get("providers") or []),
            )
            for tool in manifest.tools:
                str(tool["name"]), str(tool["description"]), dict(tool["schema"])
            for command in manifest.commands:
                str(command["name"])
            for key in manifest.keys:
                str(key["id"]), str(key["keys"])
        except (KeyError, TypeError, ValueError):
            return None
        return manifest
