"""The commands every front end has: /help, /model, /thinking, /new, /session, /resume, /copy, /quit,
/review."""

from __future__ import annotations

from agent_core import AssistantMessage
from pi_cli.shell.bash.commands import sandbox_commands
from pi_cli.shell.commands import CommandResult, ShellAPI, SlashCommand
from pi_cli.shell.paths import pi_home

THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")


async def _help(shell: ShellAPI, args: str) -> CommandResult:
    lines = ["Commands:"]
    for command in shell.commands.visible():
        usage = f" {command.usage}" if command.usage else ""
        lines.append(f"  /{command.name}{usage} — {command.description}")
    for prefix, command in shell.commands.prefixed.items():  # "# note": memory
        lines.append(f"  {prefix} {command.usage} — {command.description}")
    return CommandResult(output="\n".join(lines))


async def _model(shell: ShellAPI, args: str) -> CommandResult:
    if not args:
        return CommandResult(
            output=f"Model: {shell.model_id} (thinking: {shell.thinking})", action="pick_model"
        )
    try:
        shell.set_model(args)
    except Exception as exc:  # noqa: BLE001 - ConfigError and friends carry a user-facing message
        return CommandResult(output=str(exc), error=True)
    return CommandResult(output=f"Model set to {shell.model_id}")


async def _thinking(shell: ShellAPI, args: str) -> CommandResult:
    if args not in THINKING_LEVELS:
        return CommandResult(
            output=f"Thinking: {shell.thinking}. Usage: /thinking {'|'.join(THINKING_LEVELS)}",
            error=bool(args),
        )
    shell.set_thinking(args)
    return CommandResult(output=f"Thinking level set to {args}")


async def _new(shell: ShellAPI, args: str) -> CommandResult:
    shell.new_session()
    return CommandResult(output="Started a new session.")


def session_summary(shell: ShellAPI) -> str:
    """The text of /session."""
    usage = shell.usage
    used, window = shell.context_usage()
    messages = shell.messages
    answers = sum(isinstance(m, AssistantMessage) for m in messages)
    return "\n".join(
        [
            f"Session: {shell.session.session_id}",
            f"File: {shell.session.path or '(not saved: --no-session)'}",
            f"Model: {shell.model_id} (thinking: {shell.thinking})",
            f"Messages: {len(messages)} ({answers} from the model)",
            f"Tokens: {usage.input} in, {usage.output} out, {usage.cache_read} cache read, "
            f"{usage.cache_write} cache write",
            f"Cost: ${usage.cost:.4f}",
            f"Context: {used} / {window} tokens ({100 * used / max(window, 1):.0f}%)",
        ]
    )


async def _session(shell: ShellAPI, args: str) -> CommandResult:
    return CommandResult(output=session_summary(shell))


async def _resume(shell: ShellAPI, args: str) -> CommandResult:
    if not args:
        return CommandResult(action="pick_session", output="Usage: /resume <session id or path>")
    try:
        shell.switch_session(args)
    except Exception as exc:  # noqa: BLE001 - SessionError: a user-facing message
        return CommandResult(output=str(exc), error=True)
    return CommandResult(output=f"Resumed session {shell.session.session_id}")


def last_answer(shell: ShellAPI) -> str | None:
    """The text of the model's last answer that has any ("" parts skipped)."""
    for message in reversed(shell.messages):
        if isinstance(message, AssistantMessage) and message.text.strip():
            return message.text
    return None


async def _copy(shell: ShellAPI, args: str) -> CommandResult:
    """The last answer for the clipboard (the front end writes OSC 52), and saved to a file."""
    text = last_answer(shell)
    if text is None:
        return CommandResult(output="Nothing to copy yet: no answer in this session.", error=True)
    path = pi_home() / "last-answer.md"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        saved = f"saved to {path}"
    except OSError as exc:
        saved = f"not saved to {path}: {exc.strerror or exc}"
    return CommandResult(output=f"Last answer ({len(text)} characters) {saved}.", clipboard=text)


async def _context(shell: ShellAPI, args: str) -> CommandResult:
    from pi_cli.shell.reports.context import context_command  # loaded when asked

    return await context_command(shell, args)


async def _usage(shell: ShellAPI, args: str) -> CommandResult:
    from pi_cli.shell.reports.usage import usage_command  # reads session files: when asked

    return await usage_command(shell, args)


async def _quit(shell: ShellAPI, args: str) -> CommandResult:
    return CommandResult(quit=True)


async def _diff(shell: ShellAPI, args: str) -> CommandResult:
    from pi_cli.shell.review.session_changes import diff_command  # only when used

    return await diff_command(shell, args)


async def _review(shell: ShellAPI, args: str) -> CommandResult:
    from pi_cli.shell.review.command import review_command  # only when used

    return await review_command(shell, args)


def builtin_commands() -> list[SlashCommand]:
    """The commands every front end has."""
    return [
        SlashCommand("help", "List commands", _help, aliases=("?",), while_running=True),
        SlashCommand("model", "Show or switch the model", _model, usage="[provider/model]"),
        SlashCommand(
            "thinking", "Show or set the thinking level", _thinking, usage="[off|low|medium|high]"
        ),
        SlashCommand("new", "Start a new session", _new),
        SlashCommand(
            "session",
            "Show session file, id, messages, tokens and cost",
            _session,
            while_running=True,
        ),
        SlashCommand("resume", "Resume an earlier session", _resume, usage="[id|path]"),
        SlashCommand(
            "context",
            "What fills the context window (system prompt, files, skills, tools, messages)",
            _context,
            while_running=True,
        ),
        SlashCommand(
            "usage",
            "Tokens, cost and cache hit rate per model: this session and today",
            _usage,
            while_running=True,
        ),
        SlashCommand(
            "copy", "Copy the last answer (clipboard and a file)", _copy, while_running=True
        ),
        SlashCommand("quit", "Quit pi", _quit, aliases=("exit", "q"), while_running=True),
        SlashCommand(
            "diff",
            "What this session changed (in total or per prompt); revert a file",
            _diff,
            usage="[--turns] [--json] | revert PATH",
        ),
        SlashCommand(
            "review",
            "Review changes with a read-only reviewer (uncommitted, a commit, a range, the branch)",
            _review,
            usage="[commit|A..B|--branch] [--focus TEXT]",
        ),
        *sandbox_commands(),
    ]
