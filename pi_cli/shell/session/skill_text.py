"""How a skill call reads in the transcript: ``/skill:name args``, not the whole skill file.

A leaf module (no imports from the shell), shared by the session tree, pickers and front ends.
"""

from __future__ import annotations

import re

_SKILL_CALL = re.compile(
    r'<skill name="([^"\n]+)" location="[^"\n]*">\n(.*?)\n</skill>(?:\n\n(.*))?\Z', re.S
)


def skill_call_of(text: str) -> tuple[str, str, str] | None:
    """(``/skill:name args``, args, the skill file's body) when ``text`` is a :func:`skill_prompt`.

    Front ends show the short form (the model received the whole file); ``None`` otherwise.
    """
    match = _SKILL_CALL.match(text)
    if match is None:
        return None
    name, body, args = match.group(1), match.group(2), (match.group(3) or "").strip()
    return (f"/skill:{name} {args}".rstrip(), args, body)
