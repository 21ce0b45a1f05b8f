"""Images attached to a prompt (``-i/--image``, ``@shot.png``, a pasted path): files -> content blocks.

The type comes from the file's first bytes, not its name, and only the formats the providers
take are accepted (PNG, JPEG, GIF, WebP), at most :data:`MAX_IMAGE_BYTES` each.
"""

from __future__ import annotations

import base64
from pathlib import Path

from agent_core import ImageContent

MAX_IMAGE_BYTES = 20 * 1024 * 1024
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")


class ImageError(ValueError):
    """The file cannot be attached; the message is for the user."""


def image_mime(data: bytes) -> str | None:
    """The MIME type of an image from its magic bytes (``None``: not a supported image)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def looks_like_image(path: str) -> bool:
    """True when ``path`` names an image by its suffix (a cheap check before reading it)."""
    return path.lower().endswith(IMAGE_SUFFIXES)


def load_image(path: Path) -> ImageContent:
    """The image at ``path`` as a content block (raises :class:`ImageError`)."""
    try:
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            raise ImageError(f"{path}: {size // 1024 // 1024} MB is over the 20 MB image limit")
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImageError(f"{path}: no such image file") from None
    except IsADirectoryError:
        raise ImageError(f"{path}: is a directory, not an image") from None
    except OSError as exc:
        raise ImageError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    mime = image_mime(data)
    if mime is None:
        raise ImageError(f"{path}: not a PNG, JPEG, GIF or WebP image")
    return ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime)
