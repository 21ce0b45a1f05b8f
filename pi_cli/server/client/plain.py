"""The plain REPL on a session living in the server (``pi attach --plain``)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from pi_cli.server.client.connect import ClientError

if TYPE_CHECKING:
    from pi_cli.server.client.connect import ServerAddress


def run_plain_remote(where: ServerAddress, session_id: str) -> int:
    """Run the REPL on the remote session until the user quits (the session goes on)."""
    from pi_cli.args import ExitCode, error
    from pi_cli.modes.plain.repl import PlainRepl
    from pi_cli.server.client.session import attach_remote

    async def main() -> int:
        shell = await attach_remote(where, session_id, "plain")
        return await PlainRepl(shell).run()

    try:
        return asyncio.run(main())
    except ClientError as exc:
        error(str(exc))
        return ExitCode.ERROR
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
