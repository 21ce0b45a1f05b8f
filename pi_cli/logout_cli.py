"""``pi logout [PROVIDER]``: forget stored sign-in tokens (all of them without a name)."""

from __future__ import annotations


def accepts(argv: list[str]) -> bool:
    """``pi logout`` alone or with one known provider."""
    from pi_cli.shell import OAUTH_PROVIDERS as PROVIDERS

    return not argv or (len(argv) == 1 and argv[0] in PROVIDERS)


def run(argv: list[str]) -> int:
    """Remove the tokens; says what was removed."""
    from pi_cli.shell import AuthStore, one_line, say

    store = AuthStore()
    names = argv or store.providers()
    if not names:
        say("Not signed in anywhere.")
    for name in names:
        say(f"{'Signed out of' if store.remove(name) else 'Not signed in to'} {one_line(name)}.")
    return 0
