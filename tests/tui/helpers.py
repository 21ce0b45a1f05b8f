"""Shared helpers for the TUI tests: deterministic apps, test tools and waiting."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agent_core import AbortSignal, StreamFn, ToolBase, ToolResult
from agent_core.tool import OnToolUpdate
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.tui.app import PiApp, TuiOptions

SIZE = (100, 34)


def make_project(root: Path) -> Path:
    """The seed project: a tiny Node.js package."""
    (root / "package.json").write_text('{"name": "hello", "main": "hello.mjs"}\n')
    (root / "hello.mjs").write_text('console.log("Hello, world!");\n')
    return root


def make_shell(
    cwd: Path, stream: StreamFn | None = None, *, tools: list[Any] | None = None, **options: Any
) -> CodingAgent:
    """A shell without session files; ``tools`` replaces the real tools when given."""
    return CodingAgent(
        ShellOptions(
            cwd=cwd, stream_fn=stream, persist_session=False, tool_objects=tools, **options
        )
    )


def make_app(shell: CodingAgent, **options: Any) -> PiApp:
    """An app with fixed labels, a frozen clock and no blinking cursor (stable pictures)."""
    defaults: dict[str, Any] = dict(
        clock=lambda: 0.0,
        cwd_label="~/project",
        session_label="test-session",
        extended_keys=False,
        persist_theme=False,
        cursor_blink=False,
    )
    defaults.update(options)
    return PiApp(shell, TuiOptions(**defaults))


async def wait_until(pilot: Any, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the app run until ``predicate()`` holds (fails the test after ``timeout``)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.01)


async def type_text(pilot: Any, text: str) -> None:
    """Type text into the focused editor."""
    await pilot.press(*["space" if ch == " " else ch for ch in text])


# ---------------------------------------------------------------------------- test tools


class CommandArgs(BaseModel):
    """Like the real bash tool."""

    command: str


class PathArgs(BaseModel):
    """Like the real read tool."""

    path: str


def real_title(name: str, args: Any) -> str:
    """The title the real tool of that name gives (test doubles look like the real thing)."""
    import tools

    if name not in tools.TOOL_FACTORIES:
        return ""
    return tools.TOOL_FACTORIES[name](".").title(args)


class GateTool(ToolBase):
    """A bash-like tool that streams one line, then waits until ``release`` is set or aborted."""

    description = "Run a command (test double)."
    parameters = CommandArgs

    def __init__(self, name: str = "bash", output: str = "working…") -> None:
        self.name = name
        self.output = output
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.aborted = False

    def title(self, args: Any) -> str:
        """Like the real tool of this name."""
        return real_title(self.name, args)

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Stream ``output``, wait for release (or abort)."""
        if on_update is not None:
            on_update(ToolResult.of_text(self.output))
        self.started.set()
        release = asyncio.ensure_future(self.release.wait())
        aborted = asyncio.ensure_future(cancel.wait())
        await asyncio.wait({release, aborted}, return_when=asyncio.FIRST_COMPLETED)
        release.cancel()
        aborted.cancel()
        if cancel.aborted:
            self.aborted = True
            return ToolResult.of_text(self.output + "\nCommand aborted.")
        return ToolResult.of_text(self.output + "\ndone")


class StaticTool(ToolBase):
    """Answers from a dict keyed by the single argument's value (deterministic seed tools)."""

    description = "Static answers (test double)."

    def __init__(
        self,
        name: str,
        parameters: type[BaseModel],
        answers: dict[str, str],
        details: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.parameters = parameters
        self.answers = answers
        self.details = details

    def title(self, args: Any) -> str:
        """Like the real tool of this name."""
        return real_title(self.name, args)

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Return the canned answer."""
        from agent_core import ToolError

        (value,) = args.model_dump().values()
        if value not in self.answers:
            raise ToolError(f"no such entry: {value}")
        return ToolResult.of_text(self.answers[value], details=self.details)


LS_OUTPUT = "total 8\n-rw-r--r-- 1 u u 41 package.json\n-rw-r--r-- 1 u u 30 hello.mjs"


def seed_tools() -> list[Any]:
    """Deterministic ``bash`` and ``read`` for the seed scenario."""
    return [
        StaticTool("bash", CommandArgs, {"ls -la": LS_OUTPUT}),
        StaticTool(
            "read",
            PathArgs,
            {
                "package.json": '{"name": "hello", "main": "hello.mjs"}',
                "hello.mjs": 'console.log("Hello, world!");',
            },
        ),
    ]


# ---------------------------------------------------------------------------- the transcript


def blocks_of(app: PiApp, kind: type[Any]) -> list[Any]:
    """Every block of the transcript's document of type ``kind``, top to bottom."""
    return [block for block in app.transcript.view.blocks() if isinstance(block, kind)]


def notices(app: PiApp) -> list[str]:
    """The text of every notice line in the transcript."""
    from pi_cli.tui.document.entries import NoticeBlock

    return [block.plain_text() for block in blocks_of(app, NoticeBlock)]


def screen_line(app: PiApp, needle: str) -> str:
    """The first row of the screen holding ``needle`` (fails when there is none)."""
    from tests.tui.screen_text import screen_text

    for line in screen_text(app).splitlines():
        if needle in line:
            return line
    raise AssertionError(f"{needle!r} is not on screen")


async def click_block(pilot: Any, block: Any, row: int = 0, column: int = 4) -> None:
    """Scroll ``block`` into view and click its row ``row`` (its title for a panel)."""
    view = pilot.app.transcript.view
    view.scroll_to_block(block)
    await pilot.pause()
    region = view.region_of(block)
    assert region is not None, "the block is folded away"
    await pilot.click(view, offset=(column, region[0] + row))
    await pilot.pause()
