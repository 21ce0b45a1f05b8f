"""The ``pi`` command line's option table (:data:`OPTIONS`): one row per flag.

A leaf module (no typer, no pydantic), read by :mod:`pi_cli.args` (the fast parser and
``LaunchArgs``) and :mod:`pi_cli.cli_app` (typer's ``--help`` and messages). A flag is one row
here plus, for a shell option, one :class:`~pi_cli.shell.options.ShellOptions` field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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
