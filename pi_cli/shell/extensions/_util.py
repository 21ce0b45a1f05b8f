"""Small helpers of :mod:`.shell`: the user's remapped keys, completion candidates."""

from __future__ import annotations

from pi_cli.shell.text.terminal import clean


def user_keys() -> dict[str, str]:
    """The user's remapped keys (id -> ``"key,key"``) from ``$PI_HOME/keybindings.json``."""
    import json

    from pi_cli.shell.paths import pi_home

    try:
        data = json.loads((pi_home() / "keybindings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    found: dict[str, str] = {}
    for key_id, value in data.items():
        keys = ",".join(value) if isinstance(value, list) else value
        if isinstance(keys, str) and keys.strip() and all(k.strip() for k in keys.split(",")):
            found[str(key_id)] = ",".join(k.strip() for k in keys.split(","))
    return found


def candidates(found: object) -> list[tuple[str, str]]:
    if not isinstance(found, list | tuple):
        return []
    out: list[tuple[str, str]] = []
    for item in found[:200]:
        if isinstance(item, str):
            out.append((clean(item), ""))
        elif isinstance(item, tuple | list) and len(item) == 2:
            out.append((clean(str(item[0])), clean(str(item[1]))))
    return out
