"""One-shot mode: run the prompt to the end; the final answer on stdout, progress on stderr.

With ``--mode json`` every event is written to stdout as one JSON line instead.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import TYPE_CHECKING, Any

from agent_core import AgentEnd, AssistantMessage, MessageEnd, ToolExecutionEnd, ToolExecutionStart
from pi_cli.args import ExitCode, LaunchArgs, error
from pi_cli.modes.common import build_shell
from pi_cli.modes.termination import Termination
from pi_cli.shell import (
    AutoRetryStart,
    BudgetExceeded,
    CompactionStart,
    GoalChanged,
    GoalChecked,
    Notice,
    PermissionResolved,
    ShellEvent,
    StructuredOutput,
    SubagentEvent,
    clean,
    json_text,
    redact,
    say,
)

if TYPE_CHECKING:
    from pi_cli.modes.json_writer import JsonEventWriter
    from pi_cli.shell import CodingAgent, CommandResult


def run_print(args: LaunchArgs, prompt: str) -> int:
    """Run one prompt; return the exit code."""
    from pi_cli.shell import ImageError, load_image

    try:
        images = [load_image(args.cwd / path) for path in args.images]
    except ImageError as exc:
        error(str(exc))
        return ExitCode.USAGE
    shell = build_shell(args)
    if isinstance(shell, int):
        return shell
    try:
        code = asyncio.run(_run(shell, args, prompt, images))
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    from pi_cli import fast_exit

    fast_exit.arm()  # finished: no interpreter teardown needed (see there)
    return code


class Progress:
    """Tool calls, retries and warnings on stderr (text mode)."""

    def __init__(self, shell: CodingAgent) -> None:
        self.shell = shell

    def __call__(self, event: ShellEvent) -> None:
        match event:
            case ToolExecutionStart(tool_name=name, args=args):
                title = self.shell.describe_call(name, args)
                _say(f"→ {name} {title}".rstrip())
            case ToolExecutionEnd(tool_name=name, result=result, is_error=True):
                first = result.text.strip().splitlines()[:1]
                _say(f"  ✗ {name}: {first[0] if first else 'failed'}")
            case AutoRetryStart():
                _say(
                    f"  retrying in {event.delay_ms / 1000:.1f}s "
                    f"(attempt {event.attempt}/{event.max_attempts}): {event.error_message}"
                )
            case CompactionStart():
                _say("  compacting context…")
            case Notice(level="warning" | "error"):
                _say(f"pi: {event.text}")
            case GoalChecked():
                _say(f"  {event.line()}")
            case GoalChanged(goal=goal) if goal is not None and goal.status != "pursuing":
                _say(f"  {goal.line()}")
            case SubagentEvent(agent=agent, event=ToolExecutionStart(tool_name=name, args=args)):
                _say(f"  ⤷ {agent} → {name} {self.shell.describe_call(name, args)}".rstrip())
            case _:
                pass


def denial_line(event: ShellEvent) -> None:
    """One stderr line for a call denied because one-shot/JSON mode cannot ask (both modes)."""
    if isinstance(event, PermissionResolved) and event.by == "non_interactive":
        _say(
            f"pi: denied {event.tool_name} {event.title}: it needs approval, and this mode cannot ask"
        )


def _say(line: str) -> None:
    # Model and tool text never reaches the terminal raw (OSC 52, title changes, clears).
    say(redact(line), err=True)


class Outcome:
    """What this prompt produced: a resumed session's earlier answer is never reprinted."""

    def __init__(self) -> None:
        self.answers: list[AssistantMessage] = []
        self.infos: list[str] = []
        self.crash: str | None = None
        self.budget: BudgetExceeded | None = None
        self.structured: StructuredOutput | None = None
        self.goal: GoalChanged | None = None  # the goal as this run left it (--goal, pi -c)

    def __call__(self, event: ShellEvent) -> None:
        match event:
            case MessageEnd(message=AssistantMessage() as message):
                self.answers.append(message)
            case Notice(level="info", text=text):
                self.infos.append(text)  # e.g. the output of an input hook that handled the prompt
            case AgentEnd(error_message=str() as crash):
                self.crash = crash  # the loop itself failed (a bug or a broken provider)
            case BudgetExceeded():
                self.budget = event
            case StructuredOutput():
                self.structured = event
            case GoalChanged():
                self.goal = event
            case _:
                pass


async def _run(
    shell: CodingAgent, args: LaunchArgs, prompt: str, images: list[Any] | None = None
) -> int:
    writer: JsonEventWriter | None = None
    if args.mode == "json":  # the JSON writers load only for it (~4 ms of a text one-shot)
        from pi_cli.modes.json_writer import JsonEventWriter
        from pi_cli.modes.pi_events import PiEventWriter

        writer = JsonEventWriter(sys.stdout)
        writer.write_header(shell.session.header.to_json())
        shell.subscribe(
            PiEventWriter(writer.write_data, shell.thinking) if args.json_partials else writer
        )
        shell.subscribe(denial_line)  # text mode: the tool's ✗ line says it
    else:
        shell.subscribe(Progress(shell))
    outcome = Outcome()
    shell.subscribe(outcome)
    outcome.infos.clear()  # start-up notices replayed by subscribe
    interrupted = False

    def on_sigint() -> None:
        nonlocal interrupted
        if interrupted:
            raise KeyboardInterrupt
        interrupted = True
        _stop_all(shell)

    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError):
        pass
    # SIGTERM/SIGHUP: abort (the loop then ends by itself), stop the tools, exit 143/129.
    termination = Termination(lambda: _stop_all(shell), lambda: None).install()
    try:
        # MCP servers configured: wait for them (at most mcp.startupTimeoutS from start-up) so
        # the model sees their tools in its first request.
        await shell.mcp.wait_ready()
        result = await _prompt_to_the_end(shell, prompt, images)
    finally:
        await shell.aclose()
    if termination.code is not None:
        return termination.code
    if writer is not None and writer.broken:
        return ExitCode.OK
    if interrupted:
        return ExitCode.INTERRUPTED
    if result is not None and result.output:
        if writer is not None:
            from pi_cli.modes.json_writer import write_command_output

            write_command_output(writer, result)
        else:
            say(redact(result.output), err=bool(result.error))
        return ExitCode.ERROR if result.error else ExitCode.OK
    code = _stopped(outcome, writer)
    if code is None:
        code = _finish(outcome, writer)
    if code == ExitCode.OK and shell.permissions.denied_for_approval:
        return ExitCode.DENIED  # a call needed an approval nobody could give
    return code


def _stop_all(shell: CodingAgent) -> None:
    shell.abort()
    shell.agent_tools.background.stop_all()  # one-shot: a signal stops background agents too


async def _prompt_to_the_end(
    shell: CodingAgent, prompt: str, images: list[Any] | None
) -> CommandResult | None:
    """The prompt's run, then those background sub-agents' reports start (one-shot waits for
    them; a signal stops them, and then nothing more is delivered)."""
    result = await shell.submit(prompt, images=images or None)
    await shell.wait_idle()
    while await shell.agent_tools.background.wait_running():
        await shell.wait_idle()
    return result


def _stopped(outcome: Outcome, writer: JsonEventWriter | None) -> int | None:
    """A budget's stop (5) or ``--output-schema``'s verdict (0 with the JSON, or 6); None
    when neither decided the run (JSON mode: their events are among the lines already)."""
    if outcome.budget is not None:
        if writer is None:
            error(outcome.budget.message)
        return ExitCode.BUDGET
    goal = outcome.goal.goal if outcome.goal is not None else None
    if goal is not None and goal.status != "met":  # unmet, or paused by a failure
        if writer is None:
            error(clean(redact(f"the goal was not met: {goal.reason or goal.status}")))
        return ExitCode.ERROR
    verdict = outcome.structured
    if verdict is None:
        return None
    if not verdict.valid:
        if writer is None:
            tries = f"{verdict.attempts} attempt{'s' if verdict.attempts != 1 else ''}"
            why = clean(redact("; ".join(verdict.errors)))
            error(f"the answer does not match --output-schema after {tries}: {why}")
        return ExitCode.SCHEMA
    if writer is None:
        say(json_text(verdict.value))
    return ExitCode.OK


def _finish(outcome: Outcome, writer: JsonEventWriter | None) -> int:
    """Print the answer (text mode) and choose the exit code (the table in docs/usage.md)."""
    json_mode = writer is not None
    last = outcome.answers[-1] if outcome.answers else None
    if last is not None and last.stop_reason in ("error", "aborted"):
        if not json_mode:  # JSON mode: the message_end event says it
            error(clean(redact(last.error_message or f"the run ended: {last.stop_reason}")))
        return ExitCode.ERROR
    if outcome.crash:
        error(clean(redact(outcome.crash)))
        return ExitCode.ERROR
    if last is None:
        if outcome.infos:  # an input hook handled the prompt and said something
            if not json_mode:
                say("\n".join(outcome.infos))
            return ExitCode.OK
        error("no answer: the prompt was not sent to the model (blocked or consumed by a hook)")
        return ExitCode.ERROR
    text = clean(last.text)
    if not json_mode and text:
        say(text.removesuffix("\n"))
    code, warning = outcome_of(last, outcome.answers)
    if warning is not None:
        if writer is not None:  # a marker line among the events, besides the stopReason
            writer(Notice(text=warning, level="error" if code else "warning"))
        else:
            error(clean(redact(warning)))
    return code


def outcome_of(last: AssistantMessage, answers: list[AssistantMessage]) -> tuple[int, str | None]:
    """The exit code of a run whose final answer is ``last``, and what to tell the user.

    A refusal exits 3 and a cut answer 4 (the text that arrived is printed first). An empty
    answer (no text, no tool call) is a warning; it exits 1 when the whole run produced nothing
    (no tool call either), 0 after tool calls, whose work is then the answer.
    """
    if last.stop_reason == "refusal":
        why = (
            f": {last.refusal}"
            if last.refusal and last.refusal.strip() != last.text.strip()
            else ""
        )
        return ExitCode.REFUSED, f"the model refused to answer{why}"
    if last.stop_reason == "length":
        return ExitCode.TRUNCATED, (
            "the answer was cut at the model's output token limit (it is incomplete)"
        )
    if last.text.strip() or last.tool_calls:
        return ExitCode.OK, None
    if any(answer.tool_calls for answer in answers):
        return ExitCode.OK, "the model ended without a final answer after its tool calls"
    return ExitCode.ERROR, "the model returned an empty answer (no text, no tool call)"
