"""The typer application behind ``pi --help`` and every command line the fast parser declines.

Built from :data:`pi_cli.args.OPTIONS`, so typer and the fast path always agree on the flags.
"""

from __future__ import annotations

import inspect
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from pi_cli import __version__
from pi_cli.args import OPTIONS, VERSION_FLAGS, ExitCode, LaunchArgs, Option, apply
from pi_cli.shell import ShellOptions

app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)


def _param_name(option: Option) -> str:
    return option.dest.removeprefix("shell.")


def _annotation(option: Option) -> tuple[Any, Any]:
    """(annotation, default) of the typer parameter for ``option``."""
    info = typer.Option(*option.flags, help=option.help)
    if option.kind == "flag":
        return Annotated[bool, info], False
    if option.kind == "list":
        return Annotated[list[str] | None, info], None
    if option.choices:
        choices = Enum(  # type: ignore[misc]  # a str enum typer shows as the choices
            f"{_param_name(option).title()}Choice", {c: c for c in option.choices}, type=str
        )
        return Annotated[choices | None, info], None
    return Annotated[str | None, info], None


def _run(**values: Any) -> None:
    """pi — a terminal coding agent. `pi "prompt"` runs once; `pi` opens the interactive UI."""
    if values.pop("version"):
        print(f"pi {__version__}")
        raise typer.Exit(ExitCode.OK)
    args = LaunchArgs(
        shell=ShellOptions(cwd=Path.cwd()), prompt=" ".join(values.pop("prompt") or [])
    )
    for option in OPTIONS:
        value = values[_param_name(option)]
        if option.kind == "flag":
            if value:
                apply(args, option, option.flag_value)
        elif value is not None:
            apply(args, option, value.value if isinstance(value, Enum) else value)
    from pi_cli.launch import launch

    raise typer.Exit(launch(args))


def _signature() -> tuple[inspect.Signature, dict[str, Any]]:
    prompt_help = "Prompt to run once (one-shot). Omit for the interactive UI."
    annotations: dict[str, Any] = {
        "prompt": Annotated[list[str] | None, typer.Argument(help=prompt_help)]
    }
    defaults: dict[str, Any] = {"prompt": None}
    for option in OPTIONS:
        annotations[_param_name(option)], defaults[_param_name(option)] = _annotation(option)
    annotations["version"] = Annotated[
        bool, typer.Option(*VERSION_FLAGS, help="Print the version.")
    ]
    defaults["version"] = False
    kind = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter(name, kind, default=defaults[name], annotation=annotation)
        for name, annotation in annotations.items()
    ]
    return inspect.Signature(params), annotations


_run.__signature__, _run.__annotations__ = _signature()  # type: ignore[attr-defined]
app.command(context_settings={"help_option_names": ["-h", "--help"]})(_run)
