"""Locating edit targets: exact match first, then a whitespace/quote/dash-tolerant match.

The tolerant pass compares normalized text but maps the hit back to the *original* characters,
so only the matched region is rewritten; the rest of the file keeps its exact bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

_CHAR_MAP = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u00a0\u2002\u2003\u2007\u2009\u200a\u202f\u205f\u3000", " "),
    }
)
_TRAILING = " \t\r\f\v"


@dataclass
class Match:
    """Where one edit applies in the original text, or why it cannot."""

    start: int = 0
    end: int = 0
    count: int = 0
    tolerant: bool = False


def _count(haystack: str, needle: str, limit: int = 100) -> tuple[int, int]:
    """(first index, number of occurrences, overlapping ones included, capped at ``limit``)."""
    first = haystack.find(needle)
    if first < 0:
        return -1, 0
    count, at = 1, first
    while count < limit:
        at = haystack.find(needle, at + 1)
        if at < 0:
            break
        count += 1
    return first, count


def normalize(text: str) -> str:
    """Map quotes, dashes and odd spaces to ASCII and drop trailing whitespace on every line."""
    return "\n".join(line.rstrip(_TRAILING) for line in text.translate(_CHAR_MAP).split("\n"))


def _normalize_with_map(text: str) -> tuple[str, list[int]]:
    """Like :func:`normalize`, plus for each kept character its index in ``text``.

    The list has one extra entry mapping the end of the normalized text to ``len(text)``.
    """
    translated = text.translate(_CHAR_MAP)  # one-to-one, so indices survive
    out: list[str] = []
    index: list[int] = []
    pos = 0
    for line in translated.split("\n"):
        kept = line.rstrip(_TRAILING)
        out.append(kept)
        index.extend(range(pos, pos + len(kept)))
        pos += len(line)
        index.append(pos)  # the "\n" (or the end of text after the last line)
        pos += 1
    return "\n".join(out), index


def find_match(content: str, old_text: str) -> Match:
    """Find ``old_text`` in ``content``: exact first, then tolerant. ``count`` 0 = not found."""
    first, count = _count(content, old_text)
    if count:
        return Match(first, first + len(old_text), count)
    needle = normalize(old_text)
    if not needle.strip():
        return Match()
    norm, index = _normalize_with_map(content)
    first, count = _count(norm, needle)
    if count != 1:
        return Match(count=count, tolerant=True)
    end = first + len(needle)
    if end == len(norm) or norm[end] == "\n":
        # The hit ends a line: also take that line's trailing whitespace in the original.
        orig_end = index[end]
    else:
        orig_end = index[end - 1] + 1
    return Match(index[first], orig_end, 1, tolerant=True)
