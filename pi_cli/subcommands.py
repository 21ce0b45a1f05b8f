"""``pi <name> ...`` subcommands (``pi trust``, ``pi mcp``, ``pi plugin``...): recognised only as
the exact first word followed by arguments their module ``accepts``; each module is imported only
when its word is typed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

PACKAGE_VERBS = ("install", "list", "update", "remove")
"""``pi install|list|update|remove``: packages (pi_cli/package_cli.py)."""


@dataclass(frozen=True)
class Subcommand:
    """A ``pi <name> ...`` subcommand: recognised only as the exact first word followed by
    arguments it ``accepts``; anything else stays a prompt (``pi rewind the last change``)."""

    name: str
    accepts: Callable[[list[str]], bool]
    run: Callable[[list[str]], int]


def _lazy(
    module: str, word: str | None = None
) -> tuple[Callable[[list[str]], bool], Callable[[list[str]], int]]:
    """``accepts`` and ``run`` of a subcommand module, imported only when called (``word``: the
    module serves several words and is given the word first)."""
    import importlib

    def accepts(argv: list[str]) -> bool:
        words = argv if word is None else [word, *argv]
        return bool(importlib.import_module(module).accepts(words))

    def run(argv: list[str]) -> int:
        return int(importlib.import_module(module).run(argv if word is None else [word, *argv]))

    return accepts, run


SUBCOMMANDS: dict[str, Subcommand] = {
    name: Subcommand(name, *_lazy(module))
    for name, module in [
        ("trust", "pi_cli.trust_cli"),
        ("mcp", "pi_cli.mcp_cli"),
        ("plugin", "pi_cli.plugin_cli"),
        ("rewind", "pi_cli.rewind_cli"),
        ("login", "pi_cli.login_cli"),
        ("logout", "pi_cli.logout_cli"),
        ("import", "pi_cli.import_cli"),
        ("lsp", "pi_cli.shell.lsp.commands"),  # the report is the feature's own
        ("review", "pi_cli.review_cli"),
        ("diff", "pi_cli.diff_cli"),
        ("serve", "pi_cli.server.serve_cli"),
        ("ps", "pi_cli.server.ps_cli"),
        ("attach", "pi_cli.server.attach_cli"),
        ("worktree", "pi_cli.worktree_cli"),
    ]
} | {verb: Subcommand(verb, *_lazy("pi_cli.package_cli", verb)) for verb in PACKAGE_VERBS}
"""Registered subcommands by name (features add theirs)."""


def find_subcommand(argv: list[str]) -> Subcommand | None:
    """The subcommand ``argv`` invokes, if any (``pi -p ...`` / ``pi -- ...`` never do)."""
    if not argv or argv[0].startswith("-"):
        return None
    command = SUBCOMMANDS.get(argv[0])
    if command is None or not command.accepts(argv[1:]):
        return None
    return command
