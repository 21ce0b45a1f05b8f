"""OpenTelemetry export of runs, turns, model calls, tool calls and permission decisions.

Off unless ``telemetry.enabled`` is set (or ``PI_TELEMETRY=1``): then, and only then, the
OpenTelemetry SDK is imported (:mod:`.otel`) and traces and metrics go to an OTLP/HTTP endpoint.
Prompts, answers, tool arguments and tool output are left out unless ``telemetry.logPrompts``.
See ``docs/telemetry.md``.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["attach_telemetry"]


def attach_telemetry(shell: Any) -> Any:
    """Start exporting this shell's events when configured; the exporter, or None."""
    settings = shell.settings.telemetry
    if not (settings.enabled or os.environ.get("PI_TELEMETRY") == "1"):
        return None
    from pi_cli.shell.telemetry.otel import Telemetry  # the SDK loads here, never otherwise

    telemetry = Telemetry(settings)
    shell.subscribe(telemetry.on_event)
    return telemetry
