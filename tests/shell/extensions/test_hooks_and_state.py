"""What extensions can change: input, requests (rewrite, route), responses, context, results;
and their state in the session (it survives ``pi -c`` and follows ``/tree``)."""

from __future__ import annotations

from pathlib import Path

from agent_core import AssistantMessage, UserMessage
from pi_cli.shell import Notice
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.shell.extensions.helpers import results, shell_with, texts, write_extension

SHAPER = """
    from pi_cli.shell.extensions import Answer, Handled, Patch, Rewrite

    def register(pi):
        @pi.on("input")
        def shout(event):
            if event.text == "ping":
                return Handled("pong")
            return event.text.replace("please", "PLEASE")

        @pi.on("before_provider_request")
        def rewrite(event, ctx):
            event.system_prompt += "\\nAlways answer in haiku."
            last = event.messages[-1] if event.messages else None
            if last is not None and last.role == "user" and "route" in str(last.content):
                return {"model": "other/model-b"}

        @pi.on("after_provider_response")
        def tag(event):
            if event.message.text:
                copy = event.message.model_copy(deep=True)
                copy.content[0].text += " [checked]"
                return copy

        @pi.on("context")
        def trim(event):
            return [m for m in event.messages if "SECRET" not in str(m.content)]

        @pi.on("before_tool_call")
        def calls(event):
            if event.tool_name == "read" and event.args.get("path") == "cached.txt":
                return Answer("from the extension's cache")
            if event.tool_name == "write":
                return Rewrite({**event.args, "path": "rewritten.txt"})

        @pi.on("after_tool_call")
        def note(event):
            if event.tool_name == "write":
                return Patch(content=event.text + " (noted)")
"""


async def test_input_request_response_context_and_tool_hooks(project: Path, pi_home: Path) -> None:
    write_extension(pi_home / "extensions", "shaper", SHAPER)
    stream = ScriptedStream(
        reply(tool_call("c1", "read", {"path": "cached.txt"})),
        reply(tool_call("c2", "write", {"path": "wanted.txt", "content": "x"})),
        reply(text("Done")),
        reply(text("Routed")),
    )
    notices: list[Notice] = []
    shell = shell_with(project, stream, notices=notices)
    assert (await shell.submit("ping")) is not None  # handled: no model call
    assert "pong" in texts(notices)
    assert stream.calls == 0
    await shell.submit("please do it SECRET")
    assert results(shell) == [
        "from the extension's cache",
        "Created rewritten.txt (1 bytes written) (noted)",
    ]
    assert (project / "rewritten.txt").exists() and not (project / "wanted.txt").exists()
    assert stream.contexts[0].system_prompt.endswith("Always answer in haiku.")
    users = [m for m in stream.contexts[0].messages if isinstance(m, UserMessage)]
    assert users == []  # the context handler removed the SECRET message from the request...
    assert any("PLEASE do it" in str(m.content) for m in shell.messages)  # ...not the history
    answers = [m for m in shell.messages if isinstance(m, AssistantMessage)]
    assert answers[-1].text == "Done [checked]"
    await shell.submit("now route it")
    assert stream.options[-1].model == "other/model-b"  # sent to the model the handler chose
    assert [m for m in shell.messages if isinstance(m, AssistantMessage)][
        -1
    ].text == "Routed [checked]"
    assert "disabled" not in texts(notices)


STATE = """
    def register(pi):
        @pi.command(description="Count")
        def count(args, ctx):
            seen = ctx.entries("counter")
            n = (seen[-1]["n"] if seen else 0) + 1
            ctx.append_entry("counter", {"n": n})
            return f"count {n}"

        @pi.on("session_start")
        def start(event, ctx):
            pi.ui.set_status("counter", f"{len(ctx.entries('counter'))} counted ({event.reason})")
"""


async def test_state_is_kept_in_the_session_survives_continue_and_follows_the_tree(
    project: Path, pi_home: Path
) -> None:
    write_extension(pi_home / "extensions", "counter", STATE)
    stream = ScriptedStream(reply(text("one")), reply(text("two")))
    shell = shell_with(project, stream, persist_session=True)
    await shell.submit("first")
    assert shell.dialogs.ui_state()[0].text == "0 counted (startup)"
    assert (await shell.submit("/count")).output == "count 1"
    await shell.submit("second")
    assert (await shell.submit("/count")).output == "count 2"
    lines = shell.session.path.read_text().splitlines()
    assert (
        sum('"type":"custom"' in line and '"customType":"counter"' in line for line in lines) == 2
    )
    await shell.aclose()

    again = shell_with(
        project, ScriptedStream(reply(text("three"))), persist_session=True, continue_session=True
    )
    await again.submit("third")  # the first input waits for session_start
    assert again.dialogs.ui_state()[0].text == "2 counted (startup)"
    assert (await again.submit("/count")).output == "count 3"
    first_user = next(
        e.id for e in again.tree_entries() if e.role == "user" and "first" in e.preview
    )
    again.navigate_to(first_user)  # back before both counts: a branch without them
    await again.submit("third, again")
    import asyncio

    for _ in range(100):  # session_start (tree) runs as the session changed
        if again.dialogs.ui_state()[0].text == "0 counted (tree)":
            break
        await asyncio.sleep(0.02)
    assert again.dialogs.ui_state()[0].text == "0 counted (tree)"
    assert (await again.submit("/count")).output == "count 1"
    await again.aclose()
