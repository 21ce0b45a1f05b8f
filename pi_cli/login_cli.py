"""``pi login [PROVIDER]``, ``pi login --list``, ``pi logout [PROVIDER]``: subscription sign-in.

Tokens go to ``$PI_HOME/auth.json`` (0600); see ``docs/login.md``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from pi_cli.shell import say

USAGE = "usage: pi login [anthropic|openai-codex|github-copilot] | pi login --list | pi logout [PROVIDER]"


def accepts(argv: list[str]) -> bool:
    """``pi login`` alone, ``--list``, or one known provider name; anything else is a prompt."""
    from pi_cli.shell import OAUTH_PROVIDERS as PROVIDERS

    return not argv or argv == ["--list"] or (len(argv) == 1 and argv[0] in PROVIDERS)


def run(argv: list[str]) -> int:
    """Sign in (browser or device code) and store the tokens."""
    from pi_cli.shell import OAUTH_PROVIDERS as PROVIDERS
    from pi_cli.shell import AuthError, AuthStore, device_login, one_line, pkce_login

    store = AuthStore()
    if argv == ["--list"] or not argv:
        signed = set(store.providers())
        for name, provider in PROVIDERS.items():
            mark = "signed in" if name in signed else "-"
            say(f"{name:16} {mark:10} {one_line(provider.title)}")
        if not argv:
            say(USAGE, err=True)
        return 0
    provider = PROVIDERS[argv[0]]
    try:
        if provider.flow == "device":
            credentials = device_login(provider, say)  # the server's words, cleaned
        else:
            credentials = pkce_login(
                provider, say, open_browser=_browser(), paste=_paste, timeout_s=600
            )
        store.save(provider.name, credentials)
    except AuthError as exc:
        say(f"pi login: {exc}", err=True)
        return 1
    except KeyboardInterrupt:
        return 130
    say(f"Signed in to {one_line(provider.title)}; the tokens are in {one_line(store.location)}.")
    return 0


def _browser() -> Callable[[str], object] | None:
    if os.environ.get("PI_NO_BROWSER"):
        return None
    import webbrowser

    return webbrowser.open


def _paste() -> str | None:
    if not sys.stdin.isatty():
        return None
    say("(Or paste the code or the address the browser ends on, then Enter.)")
    try:
        return input()
    except EOFError:
        return None
