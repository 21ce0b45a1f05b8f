"""One-shot mode: run the prompt to the end; the final answer on stdout, progress on stderr.

With ``--mode json`` every event is written to stdout as one JSON line instead.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import Any

from agent_core import AssistantMessage, MessageEnd, ToolExecutionEnd, ToolExecutionStart
from pi_cli.launch import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, LaunchArgs, error
from pi_cli.modes.common import build_shell
from pi_cli.modes.json_writer import JsonEventWriter, write_command_output
from pi_cli.shell.events import AutoRetryStart, CompactionStart, Notice


def run_print(args: LaunchArgs, prompt: str) -> int:
    """Run one prompt; return the exit code."""
    shell = build_shell(args)
    if isinstance(shell, int):
        return shell
    try:
        return asyncio.run(_run(shell, args, prompt))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def _progress(event: Any) -> None:
    if isinstance(event, ToolExecutionStart):
        print(f"→ {event.tool_name} {_brief(event.args)}", file=sys.stderr, flush=True)
    elif isinstance(event, ToolExecutionEnd) and event.is_error:
        first = event.result.text.strip().splitlines()[:1]
        print(
            f"  ✗ {event.tool_name}: {first[0] if first else 'failed'}", file=sys.stderr, flush=True
        )
    elif isinstance(event, AutoRetryStart):
        print(
            f"  retrying in {event.delay_ms / 1000:.1f}s (attempt {event.attempt}/{event.max_attempts}): "
            f"{event.error_message}",
            file=sys.stderr,
            flush=True,
        )
    elif isinstance(event, CompactionStart):
        print("  compacting context…", file=sys.stderr, flush=True)
    elif isinstance(event, Notice) and event.level != "info":
        print(f"pi: {event.text}", file=sys.stderr, flush=True)


def _brief(args: Any) -> str:
    if isinstance(args, dict):
        for key in ("command", "path", "pattern"):
            if key in args:
                text = str(args[key]).replace("\n", " ")
                return text if len(text) <= 100 else text[:97] + "…"
    return ""


async def _run(shell: Any, args: LaunchArgs, prompt: str) -> int:
    json_mode = args.mode == "json"
    writer = JsonEventWriter(sys.stdout) if json_mode else None
    if writer is not None:
        writer.write_header(shell.session.header.to_json())
        shell.subscribe(writer)
    else:
        shell.subscribe(_progress)
    interrupted = False
    # What this prompt produced: a resumed session's earlier answer must never be reprinted.
    answers: list[AssistantMessage] = []
    infos: list[str] = []

    def collect(event: Any) -> None:
        if isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            answers.append(event.message)
        elif isinstance(event, Notice) and event.level == "info":
            infos.append(event.text)  # e.g. the output of an input hook that handled the prompt

    shell.subscribe(collect)
    infos.clear()  # start-up notices replayed by subscribe

    def on_sigint() -> None:
        nonlocal interrupted
        if interrupted:
            raise KeyboardInterrupt
        interrupted = True
        shell.abort()

    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError):
        pass
    try:
        result = await shell.submit(prompt)
    finally:
        await shell.aclose()
    if writer is not None and writer.broken:
        return EXIT_OK
    if interrupted:
        return EXIT_INTERRUPTED
    if result is not None and result.output:
        if writer is not None:
            write_command_output(writer, result)
        else:
            print(result.output, file=sys.stderr if result.error else sys.stdout, flush=True)
        return EXIT_ERROR if result.error else EXIT_OK
    return _outcome(shell, answers[-1] if answers else None, infos, json_mode)


def _outcome(shell: Any, last: AssistantMessage | None, infos: list[str], json_mode: bool) -> int:
    """Print the answer (text mode) and choose the exit code."""
    if last is not None and last.stop_reason in ("error", "aborted"):
        if not json_mode:  # JSON mode: the message_end event says it
            error(last.error_message or f"the run ended: {last.stop_reason}")
        return EXIT_ERROR
    if shell.agent.state.error:  # the loop itself failed (a bug or a broken provider)
        error(shell.agent.state.error)
        return EXIT_ERROR
    if last is None:
        if infos:  # an input hook handled the prompt and said something
            if not json_mode:
                print("\n".join(infos), flush=True)
            return EXIT_OK
        error("no answer: the prompt was not sent to the model (blocked or consumed by a hook)")
        return EXIT_ERROR
    if not json_mode:
        text = last.text
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
    return EXIT_OK
