"""Values of models.json that may come from elsewhere: a command, an environment variable."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping

from agent_core.providers.catalog import ModelConfigError

_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*\Z")
COMMAND_TIMEOUT_S = 10.0


def config_value(value: str, env: Mapping[str, str]) -> str:
    """A models.json ``apiKey`` or header value as the TypeScript pi reads it: ``!command`` runs
    the command (its first line of output; models.json lives in the user's own home, never in a
    project), an environment variable's name gives its value when it is set, anything else is
    the value itself."""
    if value.startswith("!"):
        try:
            done = subprocess.run(
                value[1:], shell=True, capture_output=True, text=True,
                timeout=COMMAND_TIMEOUT_S, check=False,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError) as exc:
            raise ModelConfigError(
                f"models.json: the command {value[1:]!r} failed: {exc}"
            ) from None
        if done.returncode != 0:
            raise ModelConfigError(
                f"models.json: the command {value[1:]!r} exited with {done.returncode}."
            )
        return done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""
    if _ENV_NAME.match(value) and env.get(value):
        return env[value]
    return value
