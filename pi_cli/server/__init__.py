"""``pi serve``: many sessions in one long-running process, attached to from anywhere.

Imported only by ``pi serve``, ``pi ps``, ``pi attach``, ``pi --detach`` and ``pi --mode acp
--attach``: nothing of it is on the one-shot or TUI start-up path. The server side
(:mod:`.serve`, :mod:`.app`, :mod:`.hub`, :mod:`.hosted`) speaks pi's RPC protocol on each
session (:mod:`pi_cli.modes.rpc`, the same implementation as ``--mode rpc``); the client side
(:mod:`.client`) drives the TUI and the plain REPL through a proxy of the shell.
"""
