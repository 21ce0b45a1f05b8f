"""What one shell sends every RPC client: its events in pi's shape, and the requests of the
extension UI sub-protocol (approvals, dialogs, extension UI).

One per shell, whatever the number of clients: stdio RPC mode has one client, ``pi serve``
fans the lines out to each client attached to a session (and keeps them for those that attach
later). Responses are per client (:class:`~pi_cli.modes.rpc.connection.RpcConnection`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_cli.modes.pi_events import PiEventWriter
from pi_cli.modes.rpc.ui import RpcApprovals
from pi_cli.shell import ShellEvent

if TYPE_CHECKING:
    from pi_cli.shell import CodingAgent

Write = Callable[[dict[str, Any]], None]


class RpcOutput:
    """A shell listener writing pi's event lines and ``extension_ui_request`` lines (approvals,
    dialogs, extension UI; the UI set while the shell was built first).

    Args:
        shell: the shell whose events these are.
        write: where each line goes (one JSON object).
    """

    def __init__(self, shell: CodingAgent, write: Write) -> None:
        self.events = PiEventWriter(write, shell.thinking)
        self.approvals = RpcApprovals(shell, write)
        for piece in shell.dialogs.ui_state():  # extension UI set while the shell was built
            self.approvals.on_event(piece)

    def __call__(self, event: ShellEvent) -> None:
        # The request line first, as pi writes it, then the event (which flushes updates).
        self.approvals.on_event(event)
        self.events(event)

    def flush(self) -> None:
        """Send the pending merged ``message_update``, if any."""
        self.events.flush()
