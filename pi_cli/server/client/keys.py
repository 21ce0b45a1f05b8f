"""The extensions' key bindings of a session hosted by ``pi serve``, as an attached front end
binds them (:class:`~pi_cli.shell.ExtensionsView`).

The extensions live in the server; their keys come with the ``attached`` line and again after
``/reload`` (``get_front_state``'s ``extensionKeys``). Pressing one sends ``run_extension_key``:
its handler runs in the server exactly as in a local session, and what it shows (a notice, a
dialog, a status line) reaches every client as events.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_cli.server.client.parts import Link


@dataclass(frozen=True)
class RemoteKey:
    """One key binding an extension registered (ids ``<extension>.<name>``)."""

    id: str
    keys: str
    description: str
    extension: str


class ExtensionKeysMirror:
    """The keys the server's extensions registered; ``version`` moves when they change (the
    plain REPL rebuilds its key bindings then, the TUI on ``reloaded``)."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.version = 0
        self._keys: list[RemoteKey] = []

    def show(self, wire: Sequence[Any]) -> None:
        """The keys as ``get_front_state`` lists them (malformed entries are skipped)."""
        keys = [
            RemoteKey(
                str(k["id"]),
                str(k["keys"]),
                str(k.get("description", "")),
                str(k.get("extension", "")),
            )
            for k in wire
            if isinstance(k, dict)
            and isinstance(k.get("id"), str)
            and isinstance(k.get("keys"), str)
        ]
        if keys != self._keys:
            self._keys = keys
            self.version += 1

    def keys(self) -> list[RemoteKey]:
        """The key bindings (the server's user remaps applied)."""
        return list(self._keys)

    def start_key(self, key_id: str) -> None:
        """Run the key's handler in the server (a refusal comes back as a notice)."""
        self.link.send({"type": "run_extension_key", "keyId": key_id})
