"""Option names as the programs read them (GNU getopt_long, git's parse-options)."""

from __future__ import annotations


def abbreviates(word: str, options: frozenset[str]) -> str | None:
    """The option of ``options`` that ``word`` names, exactly or as the unique-prefix
    abbreviation GNU getopt_long and git's parse-options accept (``--compress-prog`` is
    ``--compress-program``); any prefix of a denied name counts, ambiguous or not (then the
    program fails, or picks it)."""
    if word in options:
        return word
    if not word.startswith("--") or len(word) < 3:
        return None
    return next((option for option in sorted(options) if option.startswith(word)), None)
