"""``pi --list-models [filter]``: configured and known models, plus models on local servers."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TextIO

from pi_cli.args import ExitCode, LaunchArgs, error
from pi_cli.shell import one_line


@dataclass(frozen=True)
class LocalRow:
    """A model served by a detected local server."""

    spec: str
    label: str
    address: str


def known_models(needle: str | None, env: Mapping[str, str]) -> list[Any]:
    """Catalogue and models.json rows (``ResolvedModel``); raises on a bad models.json."""
    from agent_core.providers import list_models
    from pi_cli.shell import models_file

    return list(list_models(needle, models_file=models_file(), env=env))


def local_models(
    needle: str | None, ports: Mapping[str, int] | None, env: Mapping[str, str]
) -> list[LocalRow]:
    """Models on answering local servers (none when probing is disabled)."""
    from pi_cli.shell import detect_local_servers

    rows: list[LocalRow] = []
    for server in detect_local_servers(ports, env):
        for name in server.models:
            spec = f"{server.server.key}/{name}"
            if not needle or needle in spec.lower():
                rows.append(LocalRow(spec, server.server.label, server.server.address))
    return rows


def served_lines(args: LaunchArgs, needle: str | None, env: Mapping[str, str]) -> list[str]:
    """What custom servers (models.json providers, ``--api-base``) list; a server that does
    not answer is said on stderr (the listing goes on)."""
    from pi_cli.shell import load_settings, served_models, served_sources

    settings = load_settings(args.cwd)
    options = args.shell
    api_base = options.api_base or settings.api_base
    current = options.model or settings.model or ("openai/_" if api_base else "")
    lines: list[str] = []
    for answer in served_models(served_sources(current, api_base, options.api_key, env)):
        if answer.problem:
            error(answer.problem)
        lines += [
            f"{spec:<50} served {answer.source.base_url}"
            for spec in answer.specs
            if not needle or needle in spec.lower()
        ]
        if answer.more:
            lines.append(f"(and {answer.more} more models from {answer.source.base_url})")
    return lines


def _format_tokens(count: int) -> str:
    return f"{count // 1000}k" if count >= 1000 else str(count)


def print_models(args: LaunchArgs, out: TextIO | None = None) -> int:
    """Print one model per line (``id  context  $in/$out per Mtok``); local ones are marked.

    Args:
        args: ``args.prompt`` is the optional substring filter.
        out: where to write (default stdout).
    """
    from pi_cli.shell import SettingsError, load_settings

    out = out or sys.stdout
    needle = args.prompt.strip().lower() or None
    env = dict(os.environ)
    try:
        ports = load_settings(args.cwd).local_probe_ports
    except SettingsError as exc:
        error(str(exc))
        return ExitCode.USAGE
    lines = [
        f"{row.spec:<50} local  {row.label} at {row.address}"
        for row in local_models(needle, ports, env)
    ]
    lines += served_lines(args, needle, env)
    try:
        rows = known_models(needle, env)
    except Exception as exc:  # noqa: BLE001 - a bad models.json carries a user-facing message
        error(str(exc))
        return ExitCode.USAGE
    for row in rows:
        price = (
            f"${row.input_cost:g}/${row.output_cost:g} per Mtok"
            if row.input_cost or row.output_cost
            else ""
        )
        lines.append(f"{row.id:<50} {_format_tokens(row.context_window):>5}  {price}".rstrip())
    if not lines:
        hint = f" matching {needle!r}" if needle else ""
        out.write(
            f"No models{one_line(hint)}. Set a provider key or start a local server "
            "(see docs/models.md).\n"
        )
        return ExitCode.OK
    # Model names come from local servers and models.json: one clean line each.
    out.write("\n".join(one_line(line) for line in lines) + "\n")
    out.flush()
    return ExitCode.OK
