"""Themes: ``themes/*.toml`` (built in) and ``$PI_HOME/themes/*.toml`` (user) as Textual themes.

A theme file holds ``dark`` (bool), a ``[palette]`` of Textual's base colours and ``[tokens]``:
pi's semantic colours (``tool-error-bg``, ``diff-add``, ``thinking-text``...). Tokens become
theme variables, so the CSS refers to them as ``$tool-error-bg`` and never to a hex colour.
The theme's name is the file stem (``dark``, ``light``, ``mytheme``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from textual.theme import Theme

from pi_cli.shell.paths import pi_home

PALETTE_KEYS = (
    "primary", "secondary", "accent", "warning", "error", "success",
    "foreground", "background", "surface", "panel", "boost",
)
DEFAULT_THEME = "dark"


@dataclass
class ThemeLoadError:
    """A theme file that could not be loaded (shown as a warning, never fatal)."""

    path: Path
    reason: str


def builtin_theme_dir() -> Path:
    """The directory of the themes shipped with pi."""
    import themes

    return Path(themes.__file__).parent


def theme_from_toml(path: Path) -> Theme:
    """Parse one theme file into a Textual :class:`Theme` (raises ``ValueError`` if invalid)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(str(exc)) from None
    palette = data.get("palette", {})
    tokens = data.get("tokens", {})
    if not isinstance(palette, dict) or not isinstance(tokens, dict) or "primary" not in palette:
        raise ValueError("needs a [palette] table with at least 'primary' and a [tokens] table")
    colours = {key: str(palette[key]) for key in PALETTE_KEYS if key in palette}
    return Theme(
        name=path.stem,
        dark=bool(data.get("dark", True)),
        variables={str(k): str(v) for k, v in tokens.items()},
        **colours,  # type: ignore[arg-type]
    )


def load_themes(user_dir: Path | None = None) -> tuple[dict[str, Theme], list[ThemeLoadError]]:
    """Built-in themes, then user themes (a user theme may replace a built-in of the same name).

    User themes inherit missing tokens from the built-in theme of the same darkness, so an old
    user file keeps working when pi adds a token.
    """
    found: dict[str, Theme] = {}
    problems: list[ThemeLoadError] = []
    for path in sorted(builtin_theme_dir().glob("*.toml")):
        found[path.stem] = theme_from_toml(path)
    user_dir = user_dir if user_dir is not None else pi_home() / "themes"
    if user_dir.is_dir():
        for path in sorted(user_dir.glob("*.toml")):
            try:
                theme = theme_from_toml(path)
            except ValueError as exc:
                problems.append(ThemeLoadError(path, str(exc)))
                continue
            base = found.get("dark" if theme.dark else "light")
            if base is not None:
                theme.variables = {**base.variables, **theme.variables}
            found[theme.name] = theme
    return found, problems


def token_defaults() -> dict[str, str]:
    """Fallback values of every token (the dark theme's), so CSS always parses."""
    return dict(theme_from_toml(builtin_theme_dir() / f"{DEFAULT_THEME}.toml").variables)
