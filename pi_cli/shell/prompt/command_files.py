"""Claude Code command files, fully: a prompt template with its front matter obeyed.

A command file is markdown whose body becomes the prompt (see :mod:`._templates` for where they
are found; plugins add theirs as ``/plugin:name``). Beyond the argument placeholders
(``$ARGUMENTS``, ``$1``…, pi's ``$@`` and ``${@:N}``):

- ``!`cmd` `` runs ``cmd`` before the prompt is sent and puts its output in its place. Each
  command is a bash call checked like the model's (deny rules, hooks, the mode, the user's
  approval where someone can give it; refused: the reason stands in its place), sandboxed and
  capped like the bash tool's. Arguments inside it are shell-quoted, so ``/cmd '; rm -rf ~'``
  passes one word; an argument's own text is never run or expanded.
- ``@path`` in the body (not in the arguments) reads that file (or lists that folder) through
  the same checks, and appends it to the prompt.
- ``allowed-tools`` (``Bash(git add:*), Read`` or a list) allows those calls for this
  command's run only: its ``!`` commands and every call of the run it starts; removed when the
  run ends. Deny and ask rules still win.
- ``model`` runs this command's turn on another model (Claude Code's ``sonnet``/``opus``/
  ``haiku`` aliases, or a model spec), and switches back after.
- ``description`` and ``argument-hint`` are what the command list and completion show;
  ``disable-model-invocation`` keeps it out of what the model may start by itself.

Arguments that the body never names are appended as ``ARGUMENTS: …``, as Claude Code does.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    asynccontextmanager,
    nullcontext,
)
from dataclasses import dataclass, field
from pathlib import Path

from agent_core import AbortSignal
from pi_cli.shell.commands import CommandResult, ShellAPI, split_args
from pi_cli.shell.prompt.frontmatter import Document, text_field

MAX_PREEXEC = 20
"""``!`cmd` `` commands run per command file (more are left as text, with a note)."""
MAX_FILE_REFS = 20
"""``@path`` files read per command file."""
_PREEXEC = re.compile(r"!`([^`\n]+)`")
_FILE_REF = re.compile(r"(?<![\w@/`])@((?:\.{0,2}/|~/)?[\w.\-][\w.\-/]*)")
_PLACEHOLDER = re.compile(r"\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS\b|\$@|\$(\d+)")


@dataclass
class CommandSpec:
    """What a command file's front matter asks for (beyond its body)."""

    allowed_tools: list[str] = field(default_factory=list)
    model: str | None = None
    disable_model_invocation: bool = False
    claude: bool = False
    """A Claude Code file (``.claude/commands``, a plugin): unnamed arguments are appended."""


def spec_of(doc: Document, claude: bool) -> CommandSpec:
    """The front matter fields of a command file (unknown or ill-typed ones are ignored)."""
    raw = doc.fields.get("allowed-tools")
    if isinstance(raw, list):
        allowed = [str(item) for item in raw if isinstance(item, str | int | float)]
    else:
        text = text_field(doc.fields, "allowed-tools")
        allowed = [text] if text and text.strip() else []
    model = (text_field(doc.fields, "model") or "").strip() or None
    return CommandSpec(
        allowed_tools=allowed,
        model=model,
        disable_model_invocation=doc.fields.get("disable-model-invocation") is True,
        claude=claude,
    )


def substitute(text: str, args: list[str], quote: Callable[[str], str] = str) -> str:
    """Replace the placeholders of ``text`` with ``args`` (each passed through ``quote``).

    One pass, so an argument containing ``$1`` is never expanded again.
    """

    def replace(match: re.Match[str]) -> str:
        whole = match.group(0)
        if whole.startswith("${"):
            start = max(int(match.group(1)), 1) - 1
            length = match.group(2)
            chosen = args[start:] if length is None else args[start : start + int(length)]
            return " ".join(map(quote, chosen))
        if whole in ("$@", "$ARGUMENTS"):
            return " ".join(map(quote, args))
        index = int(match.group(3)) - 1
        return quote(args[index]) if 0 <= index < len(args) else ""

    return _PLACEHOLDER.sub(replace, text)


@dataclass
class _Piece:
    text: str
    command: bool = False


def _pieces(body: str) -> list[_Piece]:
    """The body split into text and ``!`cmd` `` commands, before any argument is put in."""
    pieces: list[_Piece] = []
    last = 0
    for match in _PREEXEC.finditer(body):
        pieces.append(_Piece(body[last : match.start()]))
        pieces.append(_Piece(match.group(1), command=True))
        last = match.end()
    pieces.append(_Piece(body[last:]))
    return pieces


def file_refs(body: str) -> list[str]:
    """The ``@path`` references of ``body`` (each once, in order; trailing punctuation cut)."""
    found: list[str] = []
    for match in _FILE_REF.finditer(body):
        ref = match.group(1).rstrip(".,:;!?")
        if ref and ref not in found:
            found.append(ref)
    return found


def _signal_of(shell: ShellAPI) -> AbortSignal | None:
    """The signal Esc aborts while this command is handled (the CodingAgent's input policy)."""
    signal = getattr(getattr(shell, "policy", None), "signal", None)
    return signal if isinstance(signal, AbortSignal) else None


async def _run_commands(shell: ShellAPI, pieces: list[_Piece], name: str) -> list[str]:
    out: list[str] = []
    ran = 0
    signal = _signal_of(shell)
    for piece in pieces:
        if not piece.command:
            out.append(piece.text)
            continue
        if ran >= MAX_PREEXEC or (signal is not None and signal.aborted):
            out.append(f"[not run: /{name} runs at most {MAX_PREEXEC} commands: {piece.text}]")
            continue
        ran += 1
        text, is_error = await shell.permissions.run_call(
            shell.tools, "bash", {"command": piece.text}, signal
        )
        if is_error and _refused(text):
            text = f"[not run: {text}]"
        out.append(text.rstrip("\n"))
    return out


def _refused(text: str) -> bool:
    return text.startswith(("denied", "Tool call blocked", "blocked")) or "permission rule" in text


async def _read_refs(shell: ShellAPI, refs: list[str], cwd: Path) -> list[str]:
    blocks: list[str] = []
    signal = _signal_of(shell)
    for ref in refs[:MAX_FILE_REFS]:
        path = Path(ref).expanduser()
        target = path if path.is_absolute() else cwd / path
        try:
            is_dir, exists = target.is_dir(), target.exists()
        except OSError:
            continue
        if not exists:
            continue  # not a file reference (a handle, a decorator): left as written
        tool, args = ("ls", {"path": ref}) if is_dir else ("read", {"path": ref})
        text, is_error = await shell.permissions.run_call(shell.tools, tool, args, signal)
        if is_error:
            text = f"[not read: {text}]"
        blocks.append(f'<file path="{ref}">\n{text.rstrip()}\n</file>')
    return blocks


def _names_arguments(body: str) -> bool:
    return _PLACEHOLDER.search(body) is not None


async def expand_command(
    shell: ShellAPI, name: str, body: str, spec: CommandSpec, args_text: str
) -> CommandResult:
    """The prompt of ``/name args_text`` and the scope its run holds (grants, model)."""
    args = split_args(args_text)
    pieces = [
        _Piece(substitute(p.text, args, shlex.quote if p.command else str), p.command)
        for p in _pieces(body)
    ]
    refs = file_refs("".join(p.text for p in _pieces(body) if not p.command))
    source = f"allowed-tools of /{name}"
    grant, problems = _grant(shell, spec.allowed_tools, source)
    for problem in problems:
        shell.notify(problem, "warning")
    with grant:
        parts = await _run_commands(shell, pieces, name)
        files = await _read_refs(shell, refs, shell.cwd) if refs else []
    prompt = "".join(parts)
    if spec.claude and args_text.strip() and not _names_arguments(body):
        prompt = f"{prompt.rstrip()}\n\nARGUMENTS: {args_text.strip()}"
    if files:
        prompt = prompt.rstrip() + "\n\n" + "\n\n".join(files)
    return CommandResult(prompt=prompt, run_scope=_scope(shell, spec, source))


def _grant(
    shell: ShellAPI, allowed: Sequence[str], source: str
) -> tuple[AbstractContextManager[None], list[str]]:
    if not allowed:
        return nullcontext(), []
    return shell.permissions.grant(allowed, source)


def _scope(
    shell: ShellAPI, spec: CommandSpec, source: str
) -> Callable[[], AbstractAsyncContextManager[None]] | None:
    """The context the command's run holds: its granted rules and its model."""
    if not spec.allowed_tools and spec.model is None:
        return None

    @asynccontextmanager
    async def scope() -> AsyncIterator[None]:
        grant, _ = _grant(shell, spec.allowed_tools, source)
        previous = _switch_model(shell, spec.model) if spec.model else None
        try:
            with grant:
                yield
        finally:
            if previous is not None:
                _restore_model(shell, previous)

    return scope


def _switch_model(shell: ShellAPI, wanted: str) -> str | None:
    """Use ``wanted`` for this run; the model to go back to (None: unchanged)."""
    from pi_cli.shell.models.aliases import is_alias, resolve_alias

    current = shell.model_id
    spec = wanted
    if is_alias(wanted):
        provider = current.split("/", 1)[0] if "/" in current else ""
        spec, note = resolve_alias(wanted, provider, current)
        if note:
            shell.notify(note.replace("the sub-agent", "this command"), "info")
    if spec == current:
        return None
    try:
        shell.set_model(spec, record=False)
    except Exception as exc:  # noqa: BLE001 - ConfigError and kin: the command runs on the current model
        shell.notify(f"model {wanted!r} of this command cannot be used ({exc}); using {current}")
        return None
    return current


def _restore_model(shell: ShellAPI, previous: str) -> None:
    try:
        shell.set_model(previous, record=False)
    except Exception as exc:  # noqa: BLE001 - the user is told; the session goes on
        shell.notify(f"could not switch back to {previous}: {exc}", "warning")
