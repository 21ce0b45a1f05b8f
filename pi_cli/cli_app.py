"""The typer application behind ``pi`` (imported only when arguments need parsing)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from pi_cli import __version__

EXIT_OK = 0


class Mode(StrEnum):
    """Output modes."""

    text = "text"
    json = "json"
    rpc = "rpc"


class Thinking(StrEnum):
    """Reasoning levels."""

    off = "off"
    minimal = "minimal"
    low = "low"
    medium = "medium"
    high = "high"
    xhigh = "xhigh"


app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)


@app.command(context_settings={"help_option_names": ["-h", "--help"]})
def run(
    prompt: Annotated[
        list[str] | None,
        typer.Argument(help="Prompt to run once (one-shot). Omit for the interactive UI."),
    ] = None,
    print_mode: Annotated[
        bool,
        typer.Option(
            "-p", "--print", help="One-shot: print the final answer (reads stdin when no prompt)."
        ),
    ] = False,
    mode: Annotated[
        Mode, typer.Option("--mode", help="Output mode: text, json (events as JSON lines), rpc.")
    ] = Mode.text,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", "-m", help="Model as provider/model, e.g. anthropic/claude-sonnet-4-5."
        ),
    ] = None,
    api_base: Annotated[
        str | None,
        typer.Option("--api-base", help="Base URL of an OpenAI-/Anthropic-compatible API."),
    ] = None,
    api_key: Annotated[
        str | None,
        typer.Option("--api-key", help="API key (else taken from the provider's env var)."),
    ] = None,
    thinking: Annotated[
        Thinking | None, typer.Option("--thinking", help="Reasoning level.")
    ] = None,
    tools: Annotated[
        str | None,
        typer.Option("--tools", help="Comma-separated tools: read,bash,edit,write,grep,find,ls."),
    ] = None,
    no_tools: Annotated[bool, typer.Option("--no-tools", help="Disable all tools.")] = False,
    system_prompt: Annotated[
        str | None, typer.Option("--system-prompt", help="Replace the default system prompt.")
    ] = None,
    append_system_prompt: Annotated[
        str | None, typer.Option("--append-system-prompt", help="Append to the system prompt.")
    ] = None,
    no_session: Annotated[
        bool, typer.Option("--no-session", help="Do not save this session.")
    ] = False,
    continue_: Annotated[
        bool,
        typer.Option("-c", "--continue", help="Continue the latest session of this directory."),
    ] = False,
    session: Annotated[
        str | None, typer.Option("--session", help="Resume a session by file path or id.")
    ] = None,
    skill: Annotated[
        list[str] | None, typer.Option("--skill", help="Load a skill directory (repeatable).")
    ] = None,
    theme: Annotated[
        str | None, typer.Option("--theme", help="TUI theme (dark, light or a user theme).")
    ] = None,
    plain: Annotated[
        bool,
        typer.Option("--plain", help="Line-mode interactive REPL instead of the full-screen TUI."),
    ] = False,
    list_models: Annotated[
        bool,
        typer.Option("--list-models", help="List known models (the prompt words filter them)."),
    ] = False,
    version: Annotated[bool, typer.Option("--version", "-v", help="Print the version.")] = False,
) -> None:
    """pi — a terminal coding agent. `pi "prompt"` runs once; `pi` opens the interactive UI."""
    if version:
        print(f"pi {__version__}")
        raise typer.Exit(EXIT_OK)
    from pi_cli.launch import LaunchArgs, launch

    args = LaunchArgs(
        prompt=" ".join(prompt or []),
        print_mode=print_mode,
        mode=mode.value,
        model=model,
        api_base=api_base,
        api_key=api_key,
        thinking=thinking.value if thinking else None,
        tools=[t.strip() for t in tools.split(",") if t.strip()] if tools is not None else None,
        no_tools=no_tools,
        system_prompt=system_prompt,
        append_system_prompt=append_system_prompt,
        no_session=no_session,
        continue_session=continue_,
        session=session,
        skills=list(skill or []),
        theme=theme,
        plain=plain,
        list_models=list_models,
        cwd=Path.cwd(),
    )
    raise typer.Exit(launch(args))
