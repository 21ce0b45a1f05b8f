"""``--output-schema schema.json``: the final answer must be JSON matching a JSON Schema.

The schema is checked when the shell starts (a bad one is a usage error), and the system prompt
asks for a bare JSON answer (:func:`schema_prompt`). After each run the last answer is parsed
(a single surrounding code fence is forgiven) and validated with ``jsonschema``; when it does
not match, the model is told why and asked again, at most ``outputSchemaRetries`` times (default
2). A :class:`~pi_cli.shell.events.agent_tools.StructuredOutput` event carries the verdict: one-shot
mode prints the validated JSON on stdout, or exits with ``ExitCode.SCHEMA`` (6).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core import AssistantMessage
from pi_cli.shell.events.agent_tools import StructuredOutput
from pi_cli.shell.models.setup import ConfigError

if TYPE_CHECKING:
    from agent_core import Agent
    from pi_cli.shell.events import ShellEvent

MAX_SCHEMA_BYTES = 1024 * 1024
MAX_ERRORS = 8
_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*[ \t]*\n(.*?)\n?```$", re.DOTALL)


def load_schema(path: str, cwd: Path) -> dict[str, Any]:
    """The schema at ``path`` (relative to ``cwd``), checked (raises ConfigError)."""
    from jsonschema import SchemaError
    from jsonschema.validators import validator_for

    file = Path(path).expanduser()
    file = file if file.is_absolute() else cwd / file
    try:
        raw = file.read_bytes()[: MAX_SCHEMA_BYTES + 1]
        if len(raw) > MAX_SCHEMA_BYTES:
            raise ConfigError(f"--output-schema {path}: larger than 1 MB, not a schema")
        schema = json.loads(raw.decode("utf-8-sig"))
    except OSError as exc:
        raise ConfigError(
            f"--output-schema {path}: cannot be read ({exc.strerror or exc})"
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(f"--output-schema {path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"--output-schema {path}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise ConfigError(f"--output-schema {path}: nested too deeply") from None
    if not isinstance(schema, dict):
        raise ConfigError(f"--output-schema {path}: a JSON Schema here is a JSON object")
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        raise ConfigError(
            f"--output-schema {path}: not a valid JSON Schema: {exc.message}"
        ) from None
    return schema


def schema_prompt(schema: dict[str, Any]) -> str:
    """The system prompt section asking for a bare JSON answer."""
    return (
        "# Output format\n"
        "When you give your final answer, it must be one JSON value that validates against "
        "the JSON Schema below, and nothing else: no prose before or after it, no code fence. "
        "Use your tools first as usual; only the final message is parsed.\n\n"
        + json.dumps(schema, indent=2, ensure_ascii=False)
    )


def check_answer(text: str, schema: dict[str, Any]) -> tuple[Any, list[str]]:
    """(the parsed value, problems); no problems means it matches."""
    from jsonschema.validators import validator_for

    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not body:
        return None, ["the answer is empty"]
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        return None, [f"it is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"]
    except RecursionError:
        return None, ["it is nested too deeply"]
    validator = validator_for(schema)(schema)
    found = sorted(validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
    problems = []
    for error in found[:MAX_ERRORS]:
        where = "/".join(str(part) for part in error.absolute_path)
        problems.append(f"at /{where}: {error.message}" if where else error.message)
    if len(found) > MAX_ERRORS:
        problems.append(f"and {len(found) - MAX_ERRORS} more")
    return value, problems


class OutputSchema:
    """Checks the answers of one shell's runs against the schema (and asks again)."""

    def __init__(
        self, schema: dict[str, Any], retries: int, emit: Callable[[ShellEvent], None]
    ) -> None:
        self.schema = schema
        self.retries = retries
        self.emit = emit

    async def enforce(self, agent: Agent, may_retry: Callable[[], bool]) -> None:
        """After a run: validate its answer, retry while allowed, emit the verdict."""
        attempts = 1
        while True:
            last = agent.state.messages[-1] if agent.state.messages else None
            if not isinstance(last, AssistantMessage) or last.stop_reason != "stop":
                return  # failed, aborted, refused, cut or stopped by a budget: said elsewhere
            value, problems = check_answer(last.text, self.schema)
            if not problems:
                self.emit(StructuredOutput(valid=True, value=value, attempts=attempts))
                return
            if attempts > self.retries or not may_retry():
                self.emit(StructuredOutput(valid=False, errors=problems, attempts=attempts))
                return
            attempts += 1
            await agent.prompt(
                "Your final answer does not match the required JSON Schema: "
                + "; ".join(problems)
                + ". Answer again with only the corrected JSON value (no prose, no code fence)."
            )
