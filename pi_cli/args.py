"""What the ``pi`` command line means: the option table, the exit codes, ``LaunchArgs``.

A leaf module (no typer, no pydantic): the typer application (``--help``, error messages) and
the fast parser of the one-shot path are both built from :data:`OPTIONS`, so a flag is one row
here plus, for a shell option, one :class:`~pi_cli.shell.options.ShellOptions` field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from typing import Any, Literal

from pi_cli.shell import ShellOptions


class ExitCode(IntEnum):
    """Every outcome of a pi process, one code each (documented in docs/usage.md)."""

    OK = 0
    """The run finished and answered."""
    ERROR = 1
    """The model or the loop failed (provider error, crash, a failed command)."""
    USAGE = 2
    """Bad flags, a bad settings or config file, no model configured, a deleted working directory."""
    REFUSED = 3
    """The model refused to answer."""
    TRUNCATED = 4
    """The answer was cut at the model's output token limit."""
    BUDGET = 5
    """A budget (``--max-turns``, ``--max-cost``, a goal's ``goal.maxRounds``) stopped the run."""
    SCHEMA = 6
    """The final answer never matched ``--output-schema``."""
    DENIED = 7
    """A tool call needed an approval that nobody could give (non-interactive modes); also
    ``pi rewind`` when files changed by hand need ``--yes`` or ``--keep``."""
    DIVERGED = 8
    """``--replay``: a replayed tool call gave another result than the recorded one."""
    FINDINGS = 9
    """``pi review``: a finding at or above ``--fail-on``."""
    HANGUP = 129
    """SIGHUP: the terminal went away."""
    INTERRUPTED = 130
    """Ctrl+C (SIGINT)."""
    TERMINATED = 143
    """SIGTERM."""


def error(message: str) -> None:
    """Print a user-facing error on stderr (cleaned: errors quote settings, sessions and names
    a repository or a model chose)."""
    from pi_cli.shell import say

    say(f"pi: {message}", err=True)


Kind = Literal["flag", "value", "list", "csv"]


@dataclass(frozen=True)
class Option:
    """One command-line option.

    Attributes:
        dest: where the value goes: a :class:`LaunchArgs` field, or ``shell.<field>`` for
            a :class:`ShellOptions` field.
        flags: its spellings, long first (``("--model", "-m")``).
        help: the ``--help`` text.
        kind: ``flag`` (no value), ``value``, ``list`` (repeatable) or ``csv`` (comma list).
        choices: allowed values, if limited.
        flag_value: what a ``flag`` stores when given (``False`` for ``--no-session``).
    """

    dest: str
    flags: tuple[str, ...]
    help: str
    kind: Kind = "value"
    choices: tuple[str, ...] = ()
    flag_value: bool = True
    metavar: str = ""


THINKING_CHOICES = ("off", "minimal", "low", "medium", "high", "xhigh")
PERMISSION_MODES = (
    "default",
    "acceptEdits",
    "auto",
    "plan",
    "dontAsk",
    "bypassPermissions",
    "yolo",
)
"""pi_cli.shell.permissions.modes.MODE_CHOICES (repeated here: this module stays a leaf)."""
OPTIONS: tuple[Option, ...] = (
    Option(
        "print_mode",
        ("--print", "-p"),
        "One-shot: print the final answer (reads stdin when no prompt).",
        "flag",
    ),
    Option(
        "mode",
        ("--mode",),
        "Output mode: text, json (events as JSON lines), rpc, acp (Agent Client Protocol).",
        choices=("text", "json", "rpc", "acp"),
    ),
    Option(
        "shell.model",
        ("--model", "-m"),
        "Model as provider/model, e.g. anthropic/claude-sonnet-4-5.",
    ),
    Option(
        "shell.provider",
        ("--provider",),
        "Provider of --model (pi's form: --provider anthropic --model claude-sonnet-4-5).",
    ),
    Option("shell.api_base", ("--api-base",), "Base URL of an OpenAI-/Anthropic-compatible API."),
    Option(
        "shell.api_key",
        ("--api-key",),
        "API key (visible in `ps`: prefer the provider's env var or --api-key-file).",
    ),
    Option(
        "shell.api_key_file",
        ("--api-key-file",),
        "Read the API key from this file (also PI_API_KEY_FILE).",
        metavar="PATH",
    ),
    Option("shell.thinking", ("--thinking",), "Reasoning level.", choices=THINKING_CHOICES),
    Option(
        "shell.tools",
        ("--tools",),
        "Comma-separated tools: read,bash,bash_output,bash_kill,edit,write,grep,find,ls,web_fetch,"
        "todo_write,task,exit_plan_mode.",
        "csv",
    ),
    Option("shell.no_tools", ("--no-tools",), "Disable all tools.", "flag"),
    Option("shell.system_prompt", ("--system-prompt",), "Replace the default system prompt."),
    Option(
        "shell.append_system_prompt", ("--append-system-prompt",), "Append to the system prompt."
    ),
    Option(
        "shell.persist_session",
        ("--no-session",),
        "Do not save this session.",
        "flag",
        flag_value=False,
    ),
    Option(
        "shell.continue_session",
        ("--continue", "-c"),
        "Continue the latest session of this directory.",
        "flag",
    ),
    Option("shell.session", ("--session",), "Resume a session by file path or id."),
    Option(
        "resume",
        ("--resume", "-r"),
        "Pick a session to resume (search, rename, delete) when the interactive UI opens.",
        "flag",
    ),
    Option(
        "export",
        ("--export",),
        "Export a session (file path or id) as one HTML file and exit; the prompt word is the "
        "output file (default pi-session-<name>.html).",
        metavar="SESSION",
    ),
    Option(
        "replay",
        ("--replay",),
        "Replay a session file's recorded tool calls in a scratch copy of the workspace and "
        "compare their results (exit 8 on a difference).",
        metavar="SESSION",
    ),
    Option(
        "replay_live",
        ("--replay-live",),
        "With --replay: send the recorded prompts to the configured model instead.",
        "flag",
    ),
    Option("shell.skill_paths", ("--skill",), "Load a skill directory (repeatable).", "list"),
    Option(
        "shell.plugin_dirs",
        ("--plugin-dir",),
        "Load a Claude Code plugin folder for this session (repeatable).",
        "list",
    ),
    Option(
        "shell.permission_mode",
        ("--permission-mode",),
        "What runs without asking: auto (default), default, acceptEdits, plan, dontAsk, "
        "bypassPermissions (yolo).",
        choices=PERMISSION_MODES,
    ),
    Option(
        "shell.skip_permissions",
        ("--dangerously-skip-permissions",),
        "Same as --permission-mode bypassPermissions: nothing is checked or asked.",
        "flag",
    ),
    Option(
        "shell.allowed_tools",
        ("--allowed-tools", "--allowedTools"),
        "Allow rules, Claude Code syntax: 'Bash(npm test:*)', Read, 'Edit(src/**)' (repeatable).",
        "list",
    ),
    Option(
        "shell.disallowed_tools",
        ("--disallowed-tools", "--disallowedTools"),
        "Deny rules, same syntax (repeatable).",
        "list",
    ),
    Option(
        "shell.add_dirs",
        ("--add-dir",),
        "Another directory the agent may read and edit (repeatable).",
        "list",
    ),
    Option(
        "shell.trust",
        ("--trust",),
        "Trust this folder for this run: its hooks and settings apply (`pi trust` remembers).",
        "flag",
    ),
    Option(
        "images",
        ("--image", "-i"),
        "Attach an image to the prompt (repeatable; PNG, JPEG, GIF, WebP).",
        "list",
        metavar="PATH",
    ),
    Option(
        "shell.keep_background",
        ("--keep-bashes",),
        "Keep background shells (bash background: true) running after pi exits.",
        "flag",
    ),
    Option(
        "shell.max_turns",
        ("--max-turns",),
        "Stop a run after this many model turns (exit 5 in one-shot; also maxTurns).",
        metavar="N",
    ),
    Option(
        "shell.max_cost",
        ("--max-cost",),
        "Stop a run once it (sub-agents included) cost this many US dollars (exit 5; maxCost).",
        metavar="USD",
    ),
    Option(
        "shell.output_schema",
        ("--output-schema",),
        "One-shot/JSON mode: the answer must be JSON valid against this JSON Schema file "
        "(printed on stdout; exit 6 when it never is).",
        metavar="PATH",
    ),
    Option(
        "shell.goal",
        ("--goal",),
        "Keep working until this condition holds (judged, or by --goal-check; exit 5 when a "
        "budget or goal.maxRounds ends it first).",
        metavar="CONDITION",
    ),
    Option("shell.goal_check", ("--goal-check",), "The command deciding --goal (exit 0 = met)."),
    Option("theme", ("--theme",), "TUI theme (dark, light or a user theme)."),
    Option(
        "plain",
        ("--plain",),
        "Line-mode interactive REPL instead of the full-screen TUI.",
        "flag",
    ),
    Option(
        "json_partials",
        ("--json-partials",),
        "--mode json: message_update carries pi's whole partial message (coalesced, ~30/s; "
        "output grows with the square of the answer). Default: the delta only.",
        "flag",
    ),
    Option(
        "attach",
        ("--attach",),
        "With --mode acp: the editor's sessions live in the pi server (pi serve, started on "
        "demand): runs go on when the editor closes.",
        "flag",
    ),
    Option(
        "detach",
        ("--detach",),
        "Start the run in the pi server and return at once (pi attach follows it, pi ps lists it).",
        "flag",
    ),
    Option(
        "list_models",
        ("--list-models",),
        "List known models (the prompt words filter them).",
        "flag",
    ),
)
HELP_FLAGS = ("--help", "-h")
VERSION_FLAGS = ("--version", "-v")


@dataclass
class LaunchArgs:
    """Everything the command line asked for: the shell's options and the front end's."""

    shell: ShellOptions = field(default_factory=ShellOptions)
    prompt: str = ""
    print_mode: bool = False
    mode: str = "text"
    theme: str | None = None
    plain: bool = False
    json_partials: bool = False
    list_models: bool = False
    images: list[str] = field(default_factory=list)
    resume: bool = False
    export: str | None = None
    replay: str | None = None
    replay_live: bool = False
    detach: bool = False
    attach: bool = False

    @property
    def cwd(self) -> Path:
        """The working directory."""
        return self.shell.cwd


def apply(args: LaunchArgs, option: Option, value: Any) -> None:
    """Store ``value`` where ``option`` says (``csv`` values are split here)."""
    if option.kind == "csv" and isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    target: Any = args
    name = option.dest
    if name.startswith("shell."):
        target, name = args.shell, name.removeprefix("shell.")
    if option.kind == "list":
        getattr(target, name).extend(value if isinstance(value, list) else [value])
    else:
        setattr(target, name, value)


def parse_fast(argv: list[str], cwd: Path | None = None) -> LaunchArgs | None:
    """Parse ``argv`` with the option table; ``None`` when typer must answer instead.

    Typer handles ``--help``, ``--version`` mixed with other words, unknown options and bad
    values (its messages); everything valid is parsed here without importing it.
    """
    args = LaunchArgs(shell=ShellOptions(cwd=cwd or Path.cwd()))
    by_flag = {flag: option for option in OPTIONS for flag in option.flags}
    words: list[str] = []
    index = 0
    while index < len(argv):
        word = argv[index]
        index += 1
        if word == "--":
            words.extend(argv[index:])
            break
        if not word.startswith("-") or word == "-":
            words.append(word)
            continue
        flag, eq, inline = word.partition("=")
        option = by_flag.get(flag)
        if option is None:
            return None  # --help, -v, an unknown or bundled option: typer's message
        if option.kind == "flag":
            if eq:
                return None
            apply(args, option, option.flag_value)
            continue
        if eq:
            value = inline
        elif index < len(argv):
            value = argv[index]
            index += 1
        else:
            return None
        if option.choices and value not in option.choices:
            return None
        apply(args, option, value)
    args.prompt = " ".join(words)
    return args
