"""What a bash call returns: the cleaned tail, the notes the model reads, and the error cases."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from agent_core import ToolError, ToolResult
from tools._truncate import Truncation, format_size
from tools.sandbox import failed_paths_explained

if TYPE_CHECKING:
    from tools._output import OutputBuffer
    from tools.sandbox import Job, Sandbox

Outcome = Literal["exit", "timeout", "aborted"]
# ANSI escape sequences and control characters other than tab/newline: noise for the model.
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.|[\x00-\x08\x0b-\x1f\x7f]"
)


def clean_output(text: str) -> str:
    """Drop ANSI escapes and control characters (keeping newlines and tabs)."""
    return _CONTROL.sub("", text.replace("\r\n", "\n"))


def partial(cut: Truncation) -> ToolResult:
    """A streaming update: the tail so far."""
    return ToolResult.of_text(
        clean_output(cut.content),
        details={
            "truncated": cut.truncated,
            "total_lines": cut.total_lines,
            "total_bytes": cut.total_bytes,
        },
    )


def truncation_note(buf: OutputBuffer, cut: Truncation) -> str:
    """``[Showing lines ...]`` plus, past the cap, how much the saved file left out."""
    total = cut.total_lines
    where = f"Full output: {buf.full_output_path}"
    if cut.last_line_partial:
        note = f"[Showing last {format_size(cut.output_bytes)} of line {total}. {where}]"
    else:
        start = total - cut.output_lines + 1
        limit = f" ({format_size(cut.max_bytes)} limit)" if cut.truncated_by == "bytes" else ""
        note = f"[Showing lines {start}-{total} of {total}{limit}. {where}]"
    if buf.dropped:
        note += (
            f"\n[Output passed the {format_size(buf.cap)} cap: {format_size(buf.dropped)} were "
            "dropped from the middle of the saved file, which keeps the start and the latest "
            "output. The command was not stopped.]"
        )
    return note


def finish(
    buf: OutputBuffer,
    job: Job,
    outcome: Outcome,
    timeout: float,
    sandbox: Sandbox | None,
    notes: Sequence[str] = (),
) -> ToolResult:
    """The call's result (or :class:`ToolError`): ``sandbox`` is set when it ran inside;
    ``notes``: what pi undid after the command (said at the end either way)."""
    after = "".join(f"\n\n{note}" for note in notes)
    try:
        result = _finish(buf, job, outcome, timeout, sandbox)
    except ToolError as exc:
        if not notes:
            raise
        raise ToolError(str(exc) + after) from None
    return ToolResult.of_text(result.text + after, result.details) if notes else result


def _finish(
    buf: OutputBuffer, job: Job, outcome: Outcome, timeout: float, sandbox: Sandbox | None
) -> ToolResult:
    cut = buf.tail()
    text = clean_output(cut.content) or "(no output)"
    code = job.returncode
    details: dict[str, Any] = {"exit_code": code, "truncated": cut.truncated}
    if buf.full_output_path is not None:
        details["full_output_path"] = buf.full_output_path
    if buf.dropped:
        details["dropped_bytes"] = buf.dropped
    if cut.truncated:
        text += "\n\n" + truncation_note(buf, cut)
    if outcome == "aborted":
        details["aborted"] = True
        return ToolResult.of_text(
            text + "\n\nCommand aborted; the process tree was killed.", details
        )
    if outcome == "timeout":
        raise ToolError(
            f"{text}\n\nCommand timed out after {timeout:g} second{'' if timeout == 1 else 's'}; "
            "the process tree was killed."
        )
    if job.error is not None:
        raise ToolError(f"Cannot run the command: {job.error}")
    if job.lost:
        raise ToolError(f"{text}\n\nThe command was lost: {job.lost_reason}.")
    if code:
        hint = sandbox_hint(text, sandbox) if sandbox is not None else None
        raise ToolError(
            f"{text}\n\nCommand exited with code {code}" + (f"\n\n{hint}" if hint else "")
        )
    return ToolResult.of_text(text, details)


_READ_ONLY = re.compile(r"read-only file system|EROFS", re.IGNORECASE)
_DENIED = re.compile(r"permission denied|operation not permitted|EACCES|EPERM", re.IGNORECASE)
_NETWORK = re.compile(
    r"network is unreachable|could not resolve host|temporary failure in name resolution|"
    r"name or service not known|nodename nor servname|getaddrinfo|ENETUNREACH|EAI_AGAIN|"
    r"connection refused|ECONNREFUSED|failed to connect|no route to host",
    re.IGNORECASE,
)
_PATH = re.compile(r"(?<![\w.])(/[^\s:'\"`,;()]+)")


def sandbox_hint(output: str, sandbox: Sandbox) -> str | None:
    """Why a failed command may have failed because of the sandbox, or None.

    First what the sandbox's mount table says about each path a failing line names (hidden,
    private, protected: :mod:`tools.sandbox._explain`); else a heuristic on the output: EROFS
    anywhere; EACCES/EPERM on a line naming a path outside the writable roots. And a DNS
    failure, an unreachable network or a refused connection while the network is off.
    """
    reasons: list[str] = []
    if sandbox.layout is not None:
        reasons += failed_paths_explained(output, sandbox.layout, sandbox.writable_roots())
    if not reasons:
        reasons += _generic(output, sandbox)
    if not sandbox.network and _NETWORK.search(output):
        reasons.append("the network is off inside the sandbox (only its own loopback works)")
    if not reasons:
        return None
    roots = ", ".join(str(root) for root in sandbox.writable_roots())
    return (
        f"[pi: this may have failed because of the sandbox: {'; '.join(reasons)}. Writable "
        f"inside: {roots}. If the command really needs more, ask the user whether you may rerun "
        "it with sandbox: false (they are asked to approve it); do not retry on your own.]"
    )


def _generic(output: str, sandbox: Sandbox) -> list[str]:
    if _READ_ONLY.search(output):
        return ["it wrote to a path that is read-only inside the sandbox"]
    denied = (
        path for line in output.splitlines() if _DENIED.search(line) for path in _PATH.findall(line)
    )
    if any(_outside(path, sandbox) for path in denied):
        return ["it was denied access to a path outside the sandbox's writable places"]
    return []


def _outside(path: str, sandbox: Sandbox) -> bool:
    from pathlib import Path

    candidate = Path(path)
    return not any(candidate.is_relative_to(root) for root in sandbox.writable_roots())
