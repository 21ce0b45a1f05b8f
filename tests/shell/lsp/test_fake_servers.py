"""The language-server part against a fake server: diagnostics new vs already there, fixes,
the navigation tool joining at a turn boundary, and servers that crash, hang, flood, talk
garbage, are missing, or leave a daemon behind."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pi_cli.shell.events import DiagnosticsReported, LspStatusChanged, Notice
from tests.agent_core.scripted_stream import Recorder, ScriptedStream, reply, text, tool_call
from tests.shell.lsp.conftest import fake, lsp_shell, results


def _edit(call_id: str, old: str, new: str, path: str = "a.fk") -> object:
    return tool_call(call_id, "edit", {"path": path, "edits": [{"old_text": old, "new_text": new}]})


async def test_new_errors_are_reported_known_ones_are_not_and_fixes_clear_them(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.fk").write_text("x = 1\ny = MEH old\n")
    stream = ScriptedStream(
        reply(tool_call("r1", "read", {"path": "a.fk"})),
        reply(text("read it")),
        reply(_edit("e1", "x = 1", "x = BAD oops")),
        reply(_edit("e2", "x = BAD oops", "x = 2")),
        reply(
            tool_call(
                "d1", "lsp", {"operation": "definition", "path": "a.fk", "line": 2, "symbol": "y"}
            )
        ),
        reply(text("done")),
    )
    shell = lsp_shell(tmp_path, stream, {"servers": {"fake": fake()}})
    recorder = Recorder()
    shell.subscribe(recorder)
    try:
        await shell.submit("read")
        manager = shell.lsp.started
        assert manager is not None
        await manager.idle()  # the file's first diagnostics: the known warning
        assert sum(manager.known[tmp_path / "a.fk"].values()) == 1
        await shell.submit("edit")
    finally:
        await shell.aclose()
    found = results(recorder)
    broke = found["e1"].result.text
    assert "Language server (fake) on a.fk: 1 new error after this change:" in broke
    assert "a.fk:1:5: error: bad thing oops [F1]" in broke
    assert "x = BAD oops" in broke  # the source line
    assert "1 problem already there before not listed" in broke
    assert "meh" not in broke
    details = found["e1"].result.details
    assert details["diff"] and details["diagnostics"]["files"][0]["newErrors"] == 1
    fixed = found["e2"].result.text
    assert "no new problems; 1 problem reported before is gone" in fixed
    assert "bad thing" not in fixed
    assert found["d1"].result.text == "1 definition:\na.fk:1:1: x = 2"
    reports = [e for e in recorder.events if isinstance(e, DiagnosticsReported)]
    assert [r.tool_call_id for r in reports] == ["e1", "e2"]
    # The lsp tool joined at the first turn boundary after the server was ready, not before.
    names = [[t.name for t in context.tools] for context in stream.contexts]
    assert "lsp" not in names[0] and "lsp" in names[2]
    states = [e for e in recorder.events if isinstance(e, LspStatusChanged)]
    assert states[-1].servers[0].state == "stopped" or states[-1].servers[0].state == "ready"


async def test_a_new_file_and_a_command_that_changes_an_open_file(tmp_path: Path) -> None:
    (tmp_path / "b.fk").write_text("fine\n")
    stream = ScriptedStream(
        reply(tool_call("w1", "write", {"path": "new.fk", "content": "MEH one\nBAD two\n"})),
        reply(tool_call("r1", "read", {"path": "b.fk"})),
        reply(text("ok")),
        reply(tool_call("b1", "bash", {"command": "echo 'BAD three' >> b.fk"})),
        reply(tool_call("b2", "bash", {"command": "echo unrelated > notes.txt"})),
        reply(text("done")),
    )
    shell = lsp_shell(tmp_path, stream, {"servers": {"fake": fake()}})
    recorder = Recorder()
    shell.subscribe(recorder)
    try:
        await shell.submit("write")
        await shell.lsp.started.idle()  # type: ignore[union-attr]
        await shell.submit("bash")
    finally:
        await shell.aclose()
    found = results(recorder)
    written = found["w1"].result.text
    assert "1 new error and 1 new warning after this change" in written
    assert (
        "new.fk:2:1: error: bad thing two" in written
        and "new.fk:1:1: warning: meh thing one" in written
    )
    assert "b.fk:2:1: error: bad thing three" in found["b1"].result.text
    assert "Language server" not in found["b2"].result.text


async def test_a_crashing_server_is_restarted_then_given_up(tmp_path: Path) -> None:
    (tmp_path / "a.fk").write_text("one\n")
    edits = [_edit(f"e{i}", f"{'one' if i == 0 else i - 1}", f"{i}") for i in range(5)]
    stream = ScriptedStream(*[reply(e) for e in edits], reply(text("done")))
    shell = lsp_shell(tmp_path, stream, {"servers": {"fake": fake("crash")}})
    recorder = Recorder()
    shell.subscribe(recorder)
    try:
        await shell.submit("edit")
        server = shell.lsp.started.servers["fake"]  # type: ignore[union-attr]
        assert server.state == "failed" and "exited with code 3" in (server.error or "")
        assert server.restarts == 3
        status = await shell.commands.lookup("/lsp")[0].handler(shell, "")  # type: ignore[index]
    finally:
        await shell.aclose()
    assert all(not r.is_error for r in results(recorder).values())
    assert (tmp_path / "a.fk").read_text() == "4\n"
    assert "fake: failed" in (status.output or "") and "exited with code 3" in (status.output or "")
    warnings = [e.text for e in recorder.events if isinstance(e, Notice) and e.level == "warning"]
    assert any("Language server fake failed: exited with code 3" in w for w in warnings)


async def test_a_server_hanging_at_initialize_fails_and_is_ended(tmp_path: Path) -> None:
    (tmp_path / "a.fk").write_text("one\n")
    stream = ScriptedStream(reply(_edit("e1", "one", "BAD two")), reply(text("done")))
    lsp = {"servers": {"fake": fake("hang")}, "startupTimeoutS": 0.5, "diagnosticsWaitMs": 200}
    shell = lsp_shell(tmp_path, stream, lsp)
    recorder = Recorder()
    shell.subscribe(recorder)
    try:
        await shell.submit("edit")
        server = shell.lsp.started.servers["fake"]  # type: ignore[union-attr]
        task = server.ensure()
        assert task is not None
        await task
        assert server.state == "failed"
        assert "no answer to initialize within 0.5s" in (server.error or "")
        assert server.process is not None and await server.process.wait_gone(10)
    finally:
        await shell.aclose()
    edit = results(recorder)["e1"].result.text
    assert "still starting" in edit  # the edit did not wait for it past diagnosticsWaitMs
    assert (tmp_path / "a.fk").read_text() == "BAD two\n"


async def test_a_flood_of_diagnostics_is_capped_and_pi_goes_on(tmp_path: Path) -> None:
    (tmp_path / "a.fk").write_text("one\n")
    stream = ScriptedStream(
        reply(_edit("e1", "one", "two")),
        reply(tool_call("r1", "read", {"path": "a.fk"})),
        reply(text("done")),
    )
    shell = lsp_shell(tmp_path, stream, {"servers": {"fake": fake("flood")}, "maxDiagnostics": 5})
    recorder = Recorder()
    shell.subscribe(recorder)
    try:
        await shell.submit("edit")
    finally:
        await shell.aclose()
    found = results(recorder)
    edit = found["e1"].result.text
    assert edit.count("error: flood") == 5
    assert "… and 195 more problems (capped: lsp.maxDiagnostics)" in edit
    assert found["r1"].result.text == "two"


async def test_garbage_and_missing_servers_fail_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "a.fk").write_text("one\n")
    (tmp_path / "b.gk").write_text("one\n")
    stream = ScriptedStream(
        reply(_edit("e1", "one", "two"), _edit("e2", "one", "two", "b.gk")),
        reply(text("done")),
    )
    servers = {
        "fake": fake("garbage"),
        "gone": {"command": "/nonexistent/server", "extensionToLanguage": {".gk": "g"}},
    }
    shell = lsp_shell(tmp_path, stream, {"servers": servers, "diagnosticsWaitMs": 5000})
    try:
        await shell.submit("edit")
        servers_now = shell.lsp.started.servers  # type: ignore[union-attr]
        status = await shell.commands.lookup("/lsp")[0].handler(shell, "")  # type: ignore[index]
    finally:
        await shell.aclose()
    assert "broke the protocol: not an LSP header: 'hello, I am not a language server'" in (
        servers_now["fake"].error or ""
    )
    assert servers_now["gone"].error == "command not found: /nonexistent/server"
    assert "gone: failed" in (status.output or "")


async def test_no_server_for_the_files_means_nothing_changes(tmp_path: Path) -> None:
    (tmp_path / "data.json").write_text('{"a": 1}\n')
    (tmp_path / "notes.md").write_text("# notes\n")
    stream = ScriptedStream(
        reply(tool_call("r1", "read", {"path": "data.json"})),
        reply(_edit("e1", "# notes", "# more notes", "notes.md")),
        reply(tool_call("b1", "bash", {"command": "echo hi >> notes.md"})),
        reply(text("done")),
    )
    shell = lsp_shell(tmp_path, stream)
    recorder = Recorder()
    shell.subscribe(recorder)
    try:
        await shell.submit("go")
    finally:
        await shell.aclose()
    assert shell.lsp.started is None  # no manager built, no server looked for
    assert not [e for e in recorder.events if isinstance(e, DiagnosticsReported | LspStatusChanged)]
    assert all("lsp" not in [t.name for t in c.tools] for c in stream.contexts)


async def test_a_server_and_the_daemon_it_started_are_gone_after_pi(tmp_path: Path) -> None:
    (tmp_path / "a.fk").write_text("one\n")
    tag = f"{300 + os.getpid() % 1000}.{os.getpid()}"  # this test's own sleeper
    stream = ScriptedStream(reply(_edit("e1", "one", "BAD two")), reply(text("done")))
    server_entry = fake("spawn", env={"FAKE_LSP_SLEEP": tag})
    shell = lsp_shell(tmp_path, stream, {"servers": {"fake": server_entry}})
    try:
        await shell.submit("edit")
        server = shell.lsp.started.servers["fake"]  # type: ignore[union-attr]
        assert server.state == "ready"
        assert _sleepers(tag)  # the setsid daemon runs
    finally:
        await shell.aclose()
    assert not _sleepers(tag)


def _sleepers(tag: str) -> list[int]:
    """Live processes running ``sleep TAG``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if argv[:2] == [b"sleep", tag.encode()] and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


async def test_a_slow_snapshot_after_a_command_does_not_hold_the_turn(tmp_path: Path) -> None:
    (tmp_path / "b.fk").write_text("fine\n")
    stream = ScriptedStream(
        reply(tool_call("r1", "read", {"path": "b.fk"})),
        reply(text("ok")),
        reply(tool_call("b1", "bash", {"command": "echo 'BAD three' >> b.fk"})),
        reply(text("done")),
    )
    lsp = {"servers": {"fake": fake()}, "diagnosticsWaitMs": 3000}
    shell = lsp_shell(tmp_path, stream, lsp)
    recorder = Recorder()
    shell.subscribe(recorder)
    never = asyncio.Event()

    async def stuck() -> list[str]:  # a workspace whose snapshot never ends
        await never.wait()
        return []

    try:
        await shell.submit("read")
        await shell.lsp.started.idle()  # type: ignore[union-attr]
        shell.checkpoints.changes_since_last = stuck  # type: ignore[method-assign]
        await shell.submit("bash")
    finally:
        await shell.aclose()
    assert "b.fk:2:1: error: bad thing three" in results(recorder)["b1"].result.text


async def test_a_plugins_language_server_serves_its_files(tmp_path: Path) -> None:
    """A Claude Code plugin (``--plugin-dir``) whose ``.lsp.json`` names a server under
    ``${CLAUDE_PLUGIN_ROOT}``: it serves the plugin's extension; its bad entry is a notice."""
    import json
    import sys

    from tests.shell.lsp.conftest import FAKE

    plugin = tmp_path / "plugins" / "fake-lsp"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "fake-lsp"}))
    servers = {
        "fakels": {  # the server from the checkout: /tmp is private inside the sandbox
            "command": sys.executable,
            "args": [FAKE, "ok", "--root=${CLAUDE_PLUGIN_ROOT}"],
            "extensionToLanguage": {".fk": "fake"},
        },
        "broken": "not an object",
    }
    (plugin / ".lsp.json").write_text(json.dumps(servers))
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.fk").write_text("x = 1\n")
    stream = ScriptedStream(reply(_edit("e1", "x = 1", "x = BAD oops")), reply(text("done")))
    shell = lsp_shell(work, stream, plugin_dirs=[str(plugin)])
    recorder = Recorder()
    shell.subscribe(recorder)
    try:
        assert shell.lsp.part is None  # nothing built before a call concerns a server
        await shell.submit("edit")
        status = shell.lsp.open().status()
    finally:
        await shell.aclose()
    broke = results(recorder)["e1"].result.text
    assert "Language server (fakels) on a.fk: 1 new error" in broke
    assert "a.fk:1:5: error: bad thing oops [F1]" in broke
    assert "fakels" in status and "plugin fake-lsp" in status
    assert f"--root={plugin.resolve()}" in status or f"--root={plugin}" in status
    warnings = [e.text for e in recorder.events if isinstance(e, Notice) and e.level == "warning"]
    assert [w for w in warnings if "'broken'" in w] == [
        "LSP server 'broken' in plugin fake-lsp: not an object"
    ]


async def test_a_plugin_taken_out_stops_its_server_and_one_put_back_serves_again(
    tmp_path: Path,
) -> None:
    """Between turns (as ``/reload`` does) a plugin leaves: its server is stopped and its files
    get no diagnostics; it comes back: its server starts again at the next edit."""
    import json
    import sys

    from tests.shell.lsp.conftest import FAKE

    plugin = tmp_path / "plugins" / "fake-lsp"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "fake-lsp"}))
    entry = {"command": sys.executable, "args": [FAKE, "ok"], "extensionToLanguage": {".fk": "f"}}
    (plugin / ".lsp.json").write_text(json.dumps({"fakels": entry}))
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.fk").write_text("x = 1\n")
    stream = ScriptedStream(
        reply(_edit("e1", "x = 1", "x = BAD one")),
        reply(text("one")),
        reply(_edit("e2", "x = BAD one", "x = BAD two")),
        reply(text("two")),
        reply(_edit("e3", "x = BAD two", "x = BAD three")),
        reply(text("three")),
    )
    shell = lsp_shell(work, stream, plugin_dirs=[str(plugin)])
    recorder = Recorder()
    shell.subscribe(recorder)
    try:
        await shell.submit("one")
        manager = shell.lsp.started
        assert manager is not None and "fakels" in manager.servers
        first = manager.servers["fakels"]
        assert shell.plugins is not None
        loaded, shell.plugins.loaded = shell.plugins.loaded, []
        await shell.submit("two")
        await manager.idle()
        assert "fakels" not in manager.servers and first.state == "stopped"
        assert "fakels" not in shell.lsp.open().status()
        shell.plugins.loaded = loaded
        await shell.submit("three")
        assert manager.servers["fakels"] is not first
    finally:
        await shell.aclose()
    found = results(recorder)
    assert "bad thing one" in found["e1"].result.text
    assert found["e2"].result.text == "Successfully applied 1 edit to a.fk."
    assert "bad thing three" in found["e3"].result.text
