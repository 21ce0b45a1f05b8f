"""What a paste becomes in the editor: a long block collapses to ``[paste #1 +80 lines]``
(expanded again when the prompt is sent), a pasted image path becomes an attachment.

Also finds ``@shot.png`` mentions of image files in a prompt being sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

PASTE_LINES = 10  # a paste of more lines than this is collapsed
PASTE_CHARS = 2000  # ... or of more characters
_PASTE = re.compile(r"\[paste #(\d+) \+\d+ lines?\]")
_PASTE_LABEL = re.compile(r"\[paste #(\d+) \+(\d+ lines?)\]")
_IMAGE_MENTION = re.compile(r"(?:^|(?<=\s))@(\S+\.(?:png|jpe?g|gif|webp))\b", re.I)


def pasted_path(text: str, cwd: Path) -> Path | None:
    """The file a paste names, if it is one existing image (terminals paste dropped files as
    ``/a/b\\ c.png``, ``'/a/b c.png'`` or ``file:///a/b%20c.png``)."""
    from pi_cli.shell import looks_like_image

    candidate = text.strip()
    if "\n" in candidate or not candidate or not looks_like_image(candidate.rstrip("'\"")):
        return None
    if candidate[:1] in "'\"" and candidate[-1:] == candidate[:1]:
        candidate = candidate[1:-1]
    if candidate.startswith("file://"):
        candidate = unquote(candidate.removeprefix("file://"))
    candidate = re.sub(r"\\(.)", r"\1", candidate)
    path = (cwd / Path(candidate).expanduser()).resolve()
    return path if path.is_file() else None


def is_long(text: str) -> bool:
    """More lines or characters than a paste the editor shows as it is."""
    return text.count("\n") + 1 > PASTE_LINES or len(text) > PASTE_CHARS


def short_form(text: str, chars: int = 60) -> str:
    """``first line … [+79 lines]``: a long prompt in one line (a resumed paste)."""
    first, _, rest = text.strip("\n").partition("\n")
    more = rest.count("\n") + 1 if rest else 0
    line = first if len(first) <= chars else first[: chars - 1] + "…"
    return f"{line} [+{more} line{'' if more == 1 else 's'}]" if more else line


def pasted_labels(text: str) -> str:
    """The editor's text with each ``[paste #1 +80 lines]`` as ``[pasted 80 lines]`` (how the
    sent prompt is shown in the transcript)."""
    return _PASTE_LABEL.sub(r"[pasted \2]", text)


@dataclass
class Attachments:
    """Collapsed pastes and attached images of the prompt being written."""

    pastes: dict[int, str] = field(default_factory=dict)
    images: list[Path] = field(default_factory=list)
    _next: int = 1

    def collapse(self, text: str) -> str | None:
        """The placeholder for a long paste (``None``: insert ``text`` as it is)."""
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        if lines <= PASTE_LINES and len(text) <= PASTE_CHARS:
            return None
        number, self._next = self._next, self._next + 1
        self.pastes[number] = text
        return f"[paste #{number} +{lines} line{'' if lines == 1 else 's'}]"

    def attach_image(self, path: Path) -> str:
        """Attach an image; its placeholder for the editor."""
        self.images.append(path)
        return f"[image #{len(self.images)}: {path.name}]"

    def expand(self, text: str) -> str:
        """``text`` with every paste placeholder replaced by what was pasted."""

        def paste(match: re.Match[str]) -> str:
            return self.pastes.get(int(match.group(1)), match.group(0))

        return _PASTE.sub(paste, text) if self.pastes else text

    def take_images(self, text: str, cwd: Path) -> list[Path]:
        """The images to send with ``text``: attached ones still named in it, then ``@x.png``."""
        found = [p for i, p in enumerate(self.images, 1) if f"[image #{i}: {p.name}]" in text]
        for mention in _IMAGE_MENTION.findall(text):
            path = (cwd / mention).resolve()
            if path.is_file() and path not in found:
                found.append(path)
        return found

    def clear(self) -> None:
        """Forget everything (the prompt was sent or cleared)."""
        self.pastes.clear()
        self.images.clear()
        self._next = 1
