"""``pi --list-models [filter]``: configured and known models, plus models on local servers."""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from pi_cli.launch import EXIT_OK, EXIT_USAGE, LaunchArgs, error


def _known_models(needle: str | None, env: dict[str, str]) -> list[Any]:
    """Rows from ``agent_core.providers.list_models`` ([] while providers are not built yet)."""
    try:
        from agent_core.providers import list_models
    except ImportError:
        return []
    from pi_cli.shell.paths import pi_home

    return list(list_models(needle, models_file=pi_home() / "models.json", env=env))


def _local_ports(args: LaunchArgs) -> dict[str, int] | None:
    from pi_cli.shell.settings import load_settings

    return load_settings(args.cwd).local_probe_ports


def _format_tokens(count: int) -> str:
    return f"{count // 1000}k" if count >= 1000 else str(count)


def print_models(args: LaunchArgs, out: TextIO | None = None) -> int:
    """Print one model per line (``id  context  $in/$out per Mtok``); local ones are marked.

    Args:
        args: ``args.prompt`` is the optional substring filter.
        out: where to write (default stdout).
    """
    from pi_cli.shell.local_models import detect_local_servers
    from pi_cli.shell.settings import SettingsError

    out = out or sys.stdout
    needle = args.prompt.strip().lower() or None
    env = dict(os.environ)
    try:
        ports = _local_ports(args)
    except SettingsError as exc:
        error(str(exc))
        return EXIT_USAGE
    lines: list[str] = []
    for server in detect_local_servers(ports, env):
        for name in server.models:
            spec = f"{server.server.key}/{name}"
            if needle and needle not in spec.lower():
                continue
            lines.append(f"{spec:<50} local  {server.server.label} at {server.server.address}")
    try:
        rows = _known_models(needle, env)
    except Exception as exc:  # a bad models.json carries a user-facing message
        error(str(exc))
        return EXIT_USAGE
    for row in rows:
        price = f"${row.input_cost:g}/${row.output_cost:g} per Mtok" if row.input_cost or row.output_cost else ""
        lines.append(f"{row.id:<50} {_format_tokens(row.context_window):>5}  {price}".rstrip())
    if not lines:
        hint = f" matching {needle!r}" if needle else ""
        print(f"No models{hint}. Set a provider key or start a local server (see README: Models).", file=out)
        return EXIT_OK
    out.write("\n".join(lines) + "\n")
    out.flush()
    return EXIT_OK
