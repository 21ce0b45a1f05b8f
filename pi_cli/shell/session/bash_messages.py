"""pi's record of a command the user ran (``BashExecutionMessage``), and how the model reads it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_core import TextContent, UserMessage


@dataclass
class BashResult:
    """What a user command produced (pi's ``BashResult``)."""

    output: str
    exit_code: int | None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None

    def wire(self) -> dict[str, Any]:
        """camelCase, as RPC's ``bash`` answers (``fullOutputPath`` only when truncated)."""
        data: dict[str, Any] = {
            "output": self.output,
            "exitCode": self.exit_code,
            "cancelled": self.cancelled,
            "truncated": self.truncated,
        }
        if self.full_output_path:
            data["fullOutputPath"] = self.full_output_path
        return data


def bash_execution_text(result: BashResult, command: str) -> str:
    """How the model reads a user command (pi's ``bashExecutionToText``)."""
    text = f"Ran `{command}`\n"
    text += f"```\n{result.output}\n```" if result.output else "(no output)"
    if result.cancelled:
        text += "\n\n(command cancelled)"
    elif result.exit_code:
        text += f"\n\nCommand exited with code {result.exit_code}"
    if result.truncated and result.full_output_path:
        text += f"\n\n[Output truncated. Full output: {result.full_output_path}]"
    return text


class BashExecutionMessage(UserMessage):
    """A user command as the user message the model reads, keeping pi's record beside it."""

    command: str = ""
    result: BashResult | None = None
    exclude_from_context: bool = False

    @classmethod
    def of(cls, command: str, result: BashResult, exclude: bool = False) -> BashExecutionMessage:
        """The message for ``command`` and its ``result``."""
        text = bash_execution_text(result, command)
        return cls(
            content=[TextContent(text=text)],
            command=command,
            result=result,
            exclude_from_context=exclude,
        )

    def pi_wire(self) -> dict[str, Any]:
        """pi's ``BashExecutionMessage`` (role ``bashExecution``): session files and RPC."""
        result = self.result or BashResult("", None)
        data: dict[str, Any] = {"role": "bashExecution", "command": self.command}
        data |= {k: v for k, v in result.wire().items()}
        data.setdefault("fullOutputPath", None)
        data["timestamp"] = self.timestamp
        if self.exclude_from_context:
            data["excludeFromContext"] = True
        return data


def bash_message_from_wire(data: dict[str, Any]) -> BashExecutionMessage:
    """The message of a ``bashExecution`` record (from pi's or our session files)."""
    code = data.get("exitCode")
    result = BashResult(
        output=str(data.get("output") or ""),
        exit_code=code if isinstance(code, int) else None,
        cancelled=bool(data.get("cancelled")),
        truncated=bool(data.get("truncated")),
        full_output_path=data.get("fullOutputPath") or None,
    )
    message = BashExecutionMessage.of(
        str(data.get("command") or ""), result, bool(data.get("excludeFromContext"))
    )
    if isinstance(data.get("timestamp"), int):
        message.timestamp = data["timestamp"]
    return message
