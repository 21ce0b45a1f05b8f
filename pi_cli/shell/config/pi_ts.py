"""The TypeScript pi's ``settings.json`` (``~/.pi/agent/settings.json``) as pi's lowest layer.

Coming from the TypeScript pi, its settings keep working: the keys both understand are taken
(``defaultProvider`` + ``defaultModel`` as ``model``, ``defaultThinkingLevel`` as ``thinking``,
``steeringMode``, ``followUpMode``, ``theme`` (``dark``/``light``), ``compaction``, ``retry``,
``skills``); every pi settings file, the user's own included, wins over it. Its other keys (the
TypeScript pi's UI, packages and extensions) mean nothing here and are left alone. A file that
cannot be read is a warning, never an error: it is another program's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_THINKING = ("off", "minimal", "low", "medium", "high", "xhigh")
_MODES = ("all", "one-at-a-time")
_SECTIONS = {
    "compaction": ("enabled", "reserveTokens", "keepRecentTokens"),
    "retry": ("enabled", "maxRetries", "baseDelayMs"),
}


def translate(data: dict[str, Any], base: Path) -> dict[str, Any]:
    """The keys of a TypeScript pi settings object that pi's settings share, in pi's names
    (``skills`` paths relative to ``base``, the file's folder)."""
    out: dict[str, Any] = {}
    provider, model = data.get("defaultProvider"), data.get("defaultModel")
    if isinstance(model, str) and model.strip():
        model = model.strip()
        if isinstance(provider, str) and provider.strip() and "/" not in model:
            model = f"{provider.strip()}/{model}"
        out["model"] = model
    if data.get("defaultThinkingLevel") in _THINKING:
        out["thinking"] = data["defaultThinkingLevel"]
    for key in ("steeringMode", "followUpMode"):
        if data.get(key) in _MODES:
            out[key] = data[key]
    if data.get("theme") in ("dark", "light"):
        out["theme"] = data["theme"]
    for section, keys in _SECTIONS.items():
        value = data.get(section)
        if isinstance(value, dict):
            kept = {k: value[k] for k in keys if isinstance(value.get(k), bool | int)}
            if kept:
                out[section] = kept
    skills = data.get("skills")
    if isinstance(skills, list):
        paths = [Path(s).expanduser() for s in skills if isinstance(s, str) and s.strip()]
        out["skills"] = [str(p if p.is_absolute() else base / p) for p in paths]
    return out


def read_pi_ts_settings(path: Path) -> tuple[dict[str, Any], list[str]]:
    """pi's part of the TypeScript pi's settings file (``{}`` when missing), and problems."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        return {}, []
    except (OSError, ValueError, RecursionError) as exc:
        return {}, [f"Ignoring the TypeScript pi's settings {path}: {exc}"]
    if not isinstance(data, dict):
        return {}, [f"Ignoring the TypeScript pi's settings {path}: not a JSON object"]
    return translate(data, path.parent), []
