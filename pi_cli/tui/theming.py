"""Themes: ``themes/*.toml`` (built in), the TypeScript pi's ``~/.pi/agent/themes/*.json`` (a
fallback layer: :mod:`.pi_ts_themes`), installed packages' and ``$PI_HOME/themes/*.toml`` (user)
as Textual themes.

A theme file holds ``dark`` (bool), ``ansi`` (bool: ANSI colours such as ``ansi_default``, the
terminal's own background, are passed through instead of converted to RGB), a ``[palette]`` of
Textual's base colours and ``[tokens]``:
pi's semantic colours (``tool-error-bg``, ``diff-add``, ``thinking-text``...). Tokens become
theme variables, so the CSS refers to them as ``$tool-error-bg`` and never to a hex colour.
The theme's name is the file stem (``dark``, ``light``, ``mytheme``).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

from pi_cli.shell import package_paths, pi_home, pi_ts_home
from pi_cli.tui.pi_ts_themes import theme_from_pi_ts

if TYPE_CHECKING:
    from pi_cli.tui.host import TuiHost

PALETTE_KEYS = (
    "primary",
    "secondary",
    "accent",
    "warning",
    "error",
    "success",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
DEFAULT_THEME = "dark"
_TOKEN_NAME = re.compile(r"[a-z][a-z0-9-]*\Z")  # becomes a CSS variable name: nothing else gets in


@dataclass
class ThemeLoadError:
    """A theme file that could not be loaded (shown as a warning, never fatal)."""

    path: Path
    reason: str


def builtin_theme_dir() -> Path:
    """The directory of the themes shipped with pi."""
    import themes

    return Path(themes.__file__).parent


def _colour(where: str, value: Any) -> str:
    """``value`` if it is a colour Textual can parse (else ``ValueError`` naming ``where``).

    Values end up inside the app's CSS: a non-colour (``"red; color: blue"``) would make the
    stylesheet fail to parse when the theme is selected, which kills the app.
    """
    if not isinstance(value, str):
        raise ValueError(f"{where} must be a colour string, not {type(value).__name__}")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ValueError(f"{where} = {value!r} is not a colour") from None
    return value


def theme_from_toml(path: Path) -> Theme:
    """Parse one theme file into a Textual :class:`Theme` (raises ``ValueError`` if invalid)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(str(exc)) from None
    palette = data.get("palette", {})
    tokens = data.get("tokens", {})
    if not isinstance(palette, dict) or not isinstance(tokens, dict) or "primary" not in palette:
        raise ValueError("needs a [palette] table with at least 'primary' and a [tokens] table")
    dark = data.get("dark", True)
    ansi = data.get("ansi", False)  # true: ANSI colours (ansi_default) reach the terminal as is
    for key, value in (("dark", dark), ("ansi", ansi)):
        if not isinstance(value, bool):
            raise ValueError(f"{key} must be true or false, not {value!r}")
    colours = {
        key: _colour(f"palette.{key}", palette[key]) for key in PALETTE_KEYS if key in palette
    }
    variables: dict[str, str] = {}
    for name, value in tokens.items():
        if not _TOKEN_NAME.match(name):
            raise ValueError(f"token name {name!r} must be lower-case letters, digits and '-'")
        variables[name] = _colour(f"tokens.{name}", value)
    return Theme(name=path.stem, dark=dark, ansi=ansi, variables=variables, **colours)  # type: ignore[arg-type]


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
    ts_home = pi_ts_home()  # the TypeScript pi's themes first: every theme of pi's wins
    files = sorted((ts_home / "themes").glob("*.json")) if ts_home is not None else []
    files += [p for folder in package_paths("themes") for p in sorted(folder.glob("*.toml"))]
    if user_dir.is_dir():  # the user's own after the packages' (a same name: the user's wins)
        files += sorted(user_dir.glob("*.toml"))
    if files:
        for path in files:
            try:
                theme = theme_from_pi_ts(path) if path.suffix == ".json" else theme_from_toml(path)
            except ValueError as exc:
                problems.append(ThemeLoadError(path, str(exc)))
                continue
            if path.suffix == ".json" and theme.name in found:
                continue  # the TypeScript pi's theme of a name pi has: pi's wins
            base = found.get("dark" if theme.dark else "light")
            if base is not None:
                theme.variables = {**base.variables, **theme.variables}
            found[theme.name] = theme
    return found, problems


def token_defaults() -> dict[str, str]:
    """Fallback values of every token (the dark theme's), so CSS always parses."""
    return dict(_builtin_tokens())


@cache
def _builtin_tokens() -> dict[str, str]:
    # Textual asks for the defaults on every CSS refresh (theme switch): parse the file once.
    return theme_from_toml(builtin_theme_dir() / f"{DEFAULT_THEME}.toml").variables


def save_theme_choice(name: str) -> str | None:
    """Remember ``name`` in the global settings; the problem to show if that failed."""
    from pi_cli.shell import SettingsError, save_global_setting

    try:
        save_global_setting("theme", name)
    except (OSError, SettingsError) as exc:
        return f"Theme not saved: {exc}"
    return None


def switch_theme(app: TuiHost, name: str) -> None:
    """Apply theme ``name`` to ``app`` and remember it in the global settings."""
    app.theme = name
    if app.options.persist_theme and (problem := save_theme_choice(name)):
        app.notify(problem, severity="warning")
