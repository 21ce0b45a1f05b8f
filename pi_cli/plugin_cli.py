"""``pi plugin …``: Claude Code plugins and marketplaces (see docs/plugins.md).

``pi plugin marketplace add SOURCE``, ``pi plugin browse``, ``pi plugin install NAME@MARKET``,
``pi plugin list``, ``enable``/``disable``/``uninstall``; the words are ``/plugin``'s.
"""

from __future__ import annotations

from pathlib import Path


def accepts(argv: list[str]) -> bool:
    """``pi plugin <verb> ...`` with a known verb; anything else stays a prompt."""
    from pi_cli.shell import PLUGIN_VERBS

    return bool(argv) and argv[0] in PLUGIN_VERBS


def run(argv: list[str]) -> int:
    """Do it; 0, or 1 with the reason on stderr."""
    from pi_cli.shell import PluginError, plugin_words, say

    try:
        lines = plugin_words(argv, Path.cwd())
    except PluginError as exc:
        say(f"pi plugin: {exc}", err=True)
        return 1
    for line in lines:
        say(line)
    return 0
