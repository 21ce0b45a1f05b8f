"""Python extensions in a shell: tools, commands, handlers, UI, state; loaded from the cache
lazily; hostile ones reported and disabled. Real shells over a scripted model."""

from __future__ import annotations

import sys
from pathlib import Path

from agent_core import ToolResultMessage
from pi_cli.shell import Notice
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.shell.extensions.helpers import results, shell_with, texts, write_extension

GREETER = """
    from pydantic import BaseModel, Field
    from pi_cli.shell.extensions import Block, ExtensionAPI

    class Greet(BaseModel):
        name: str = Field(description="Name to greet")

    def register(pi: ExtensionAPI) -> None:
        @pi.tool(description="A simple greeting tool", parameters=Greet, read_only=True)
        async def hello(args: Greet, ctx) -> dict:
            return {"content": [{"type": "text", "text": f"Hello, {args.name}!"}], "details": {"greeted": args.name}}

        @pi.command(description="Say hi", complete=lambda typed: [w for w in ("world", "there") if w.startswith(typed)])
        async def hi(args: str, ctx) -> str:
            return f"hi {args}"

        @pi.on("tool_call")
        def guard(event):
            if event.tool_name == "write" and event.input.get("path") == "secret.txt":
                return Block("secret.txt is off limits")

        pi.ui.set_footer("mood", "happy")
"""


async def test_a_tool_a_command_a_handler_and_a_footer_segment(
    project: Path, pi_home: Path
) -> None:
    write_extension(pi_home / "extensions", "greeter", GREETER)
    stream = ScriptedStream(
        reply(tool_call("c1", "hello", {"name": "Ada"})),
        reply(tool_call("c2", "write", {"path": "secret.txt", "content": "x"})),
        reply(tool_call("c3", "hello", {"nom": "Ada"})),
        reply(text("done")),
    )
    shell = shell_with(project, stream)
    assert "hello" in [t.name for t in shell.tools] and "hello" in [
        t.name for t in shell.agent.tools
    ]
    assert [(p.slot, p.key, p.text) for p in shell.dialogs.ui_state()] == [
        ("footer", "greeter.mood", "happy")
    ]
    await shell.submit("go")
    assert results(shell)[:2] == ["Hello, Ada!", "secret.txt is off limits"]
    assert "Invalid arguments for tool hello" in results(shell)[2]
    first = next(m for m in shell.messages if isinstance(m, ToolResultMessage))
    assert first.details == {"greeted": "Ada"}
    assert not (project / "secret.txt").exists()
    tool_names = [t.name for t in stream.contexts[0].tools]
    assert "hello" in tool_names
    schema = next(t for t in stream.contexts[0].tools if t.name == "hello").parameters
    assert schema["properties"]["name"]["description"] == "Name to greet"
    assert (await shell.submit("/hi there")).output == "hi there"
    assert shell.commands.complete_argument("hi", "th") == [("there", "")]
    assert shell.commands.get("hi").source == "extension"
    await shell.aclose()


async def test_the_next_start_takes_registrations_from_the_cache_and_imports_on_first_use(
    project: Path, pi_home: Path
) -> None:
    path = write_extension(pi_home / "extensions", "greeter", GREETER)
    shell_with(project)  # the first start loads it and caches what it registered
    for name in [m for m in sys.modules if m.startswith("pi_extension_greeter_")]:
        del sys.modules[name]
    stream = ScriptedStream(reply(tool_call("c1", "hello", {"name": "Bo"})), reply(text("ok")))
    shell = shell_with(project, stream)
    ext = shell.extensions.runtime.items["greeter"]
    assert ext.state == "cached" and not [
        m for m in sys.modules if m.startswith("pi_extension_greeter_")
    ]
    assert [p.text for p in shell.dialogs.ui_state()] == ["happy"]  # from the cache
    assert shell.commands.get("hi") is not None
    await shell.submit("go")
    assert ext.state == "live" and results(shell) == ["Hello, Bo!"]
    assert stream.contexts[0].tools[-1].parameters["properties"]["name"]["type"] == "string"
    path.write_text(path.read_text().replace("Hello,", "Howdy,"))  # changed: loaded again
    stream = ScriptedStream(reply(tool_call("c1", "hello", {"name": "Cy"})), reply(text("ok")))
    shell = shell_with(project, stream)
    assert shell.extensions.runtime.items["greeter"].state == "live"
    await shell.submit("go")
    assert results(shell) == ["Howdy, Cy!"]


async def test_an_extension_that_raises_anywhere_is_named_disabled_and_the_run_goes_on(
    project: Path, pi_home: Path
) -> None:
    folder = pi_home / "extensions"
    write_extension(folder, "broken_import", "import no_such_module_here\n")
    write_extension(
        folder, "broken_register", "def register(pi):\n    raise RuntimeError('nope')\n"
    )
    write_extension(folder, "no_register", "x = 1\n")
    write_extension(
        folder,
        "bad_handler",
        """
        def register(pi):
            @pi.on("before_tool_call")
            def check(event, ctx):
                raise ValueError("boom")

            @pi.on("turn_end")
            def after(event):
                raise KeyError("late")
        """,
    )
    notices: list[Notice] = []
    stream = ScriptedStream(
        reply(tool_call("c1", "write", {"path": "a.txt", "content": "1"})),
        reply(tool_call("c2", "write", {"path": "b.txt", "content": "2"})),
        reply(text("done")),
    )
    shell = shell_with(project, stream, notices=notices)
    shown = texts(notices)
    assert "Extension broken_import failed to load: ModuleNotFoundError" in shown
    assert "Extension broken_register failed to load: RuntimeError: nope" in shown
    assert "Extension no_register failed to load: ExtensionError" in shown
    assert "defines no register(pi) function" in shown
    await shell.submit("go")
    assert results(shell)[0].startswith("Blocked: extension bad_handler failed")  # fail safe
    assert results(shell)[1] == "Created b.txt (1 bytes written)"  # disabled: no longer asked
    assert (
        "Extension bad_handler before_tool_call raised ValueError: boom; it is disabled"
        in texts(notices)
    )
    assert shell.extensions.runtime.items["bad_handler"].state == "disabled"
    assert stream.contexts[-1].messages[-1].role == "toolResult"  # the run finished
    await shell.aclose()
