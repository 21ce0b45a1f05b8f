"""The hand-written LSP pieces on hostile input: framing, positions, trust gating of ``lsp``
settings, server tables, and the one-shot path that must not import the client."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from pi_cli.shell.code_intelligence import KNOWN_EXTENSIONS
from pi_cli.shell.config.layers import Layer, gate
from pi_cli.shell.lsp.catalog import BY_EXTENSION
from pi_cli.shell.lsp.config import ServerTable, parse_entry
from pi_cli.shell.lsp.framing import MAX_MESSAGE, FramingError, encode, read_message
from pi_cli.shell.lsp.positions import from_column, to_column

REPO = Path(__file__).resolve().parents[3]


async def _read(data: bytes) -> object:
    reader = asyncio.StreamReader(limit=8192)
    reader.feed_data(data)
    reader.feed_eof()
    return await read_message(reader)


async def test_framing_round_trip_and_clean_end() -> None:
    message = {"jsonrpc": "2.0", "method": "x", "params": {"text": "é ✓ 𝄞"}}
    assert await _read(encode(message)) == message
    assert await _read(b"") is None
    assert await _read(b"\r\n" + encode(message)) == message  # a stray blank line


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"Content-Length: 10\r\n\r\n{}", "inside a message body"),
        (b"Content-Length: nope\r\n\r\n", "bad Content-Length"),
        (b"hello there\r\n\r\n", "not an LSP header"),
        (b"Content-Length: 2\r\n\r\n[]", "not a JSON object"),
        (b"Content-Length: 3\r\n\r\n{x}", "not JSON"),
        (b"Content-Length: 2\r\n\r\n\xff\xfe", "not JSON"),
        (b"Content-Length: %d\r\n\r\n" % (MAX_MESSAGE + 1), "over"),
        (b"Content-Length: -1\r\n\r\n", "over"),
        (b"Content-Le", "inside a message header"),
        (b"X" * 20000 + b"\r\n", "longer than"),
    ],
)
async def test_framing_refuses_what_is_not_lsp(data: bytes, said: str) -> None:
    with pytest.raises(FramingError, match=said):
        await _read(data)


def test_columns_in_utf16_and_utf8() -> None:
    line = "s = '𝄞é' + x"
    index = line.index("x")
    assert to_column(line, from_column(line, index, "utf-16"), "utf-16") == index
    assert from_column(line, index, "utf-16") == index + 1  # the clef is two UTF-16 units
    assert from_column(line, index, "utf-8") == index + 4  # 4 bytes + 2 bytes - 2 chars
    assert to_column(line, 10_000, "utf-8") == len(line)


def test_the_cheap_extension_check_knows_every_catalog_extension() -> None:
    assert set(BY_EXTENSION) == KNOWN_EXTENSIONS


def test_an_untrusted_project_may_only_turn_lsp_off() -> None:
    data = {
        "lsp": {
            "enabled": False,
            "diagnosticsWaitMs": 100,
            "servers": {"python": {"disabled": True}, "evil": {"command": "./run-me"}},
            "startupTimeoutS": 1,
        }
    }
    layer = Layer(Path("/p/.pi/settings.json"), "project", "pi", data)
    kept, ignored = gate(layer, trusted=False)
    assert kept.data["lsp"] == {
        "enabled": False,
        "diagnosticsWaitMs": 100,
        "servers": {"python": {"disabled": True}},
    }
    assert ignored == [
        "lsp.servers.evil.command ./run-me in .pi/settings.json",
        "lsp.startupTimeoutS 1 in .pi/settings.json",
    ]
    louder = {"lsp": {"diagnosticsWaitMs": 60_000, "rename": True, "startOnRead": True}}
    kept, ignored = gate(Layer(Path("/p/.pi/settings.json"), "project", "pi", louder), False)
    assert kept.data == {} and len(ignored) == 3  # a longer wait, rename, servers started on reads
    assert gate(layer, trusted=True)[0].data == data


def test_entries_are_checked_and_plugins_substituted(tmp_path: Path) -> None:
    spec, _, problem = parse_entry("x", {"command": "x", "args": [1]}, "settings")
    assert spec is None and problem is not None and "args" in problem
    _, _, problem = parse_entry("x", {"command": "x"}, "settings")
    assert problem is not None and "extensionToLanguage or filePatterns" in problem
    _, _, problem = parse_entry("x", {"command": "x", "transport": "socket"}, "s")
    assert problem is not None and "only stdio" in problem
    table = ServerTable({}, tmp_path, True, "")
    problems = table.add_plugin(
        "demo",
        tmp_path / "plugin",
        {
            "go": {
                "command": "${CLAUDE_PLUGIN_ROOT}/bin/gopls",
                "args": ["serve"],
                "extensionToLanguage": {".go": "go"},
            },
            "bad": "not an object",
        },
    )
    assert problems == ["LSP server 'bad' in plugin demo: not an object"]
    found = table.spec_for(tmp_path / "main.go")
    assert found is not None and found[0].command == f"{tmp_path}/plugin/bin/gopls"
    assert found[0].source == "plugin demo" and found[1] == "go"
    assert table.spec_for(tmp_path.parent / "elsewhere.go") is None  # outside the workspace


@pytest.mark.parametrize(
    "name", ["evil\x1b]52;c;ZXZpbA==\x07", "", "-x", ".hidden", "a b", "../x", "a/b", "é", "a" * 65]
)
def test_a_server_name_outside_the_allowlist_is_refused(name: str) -> None:
    entry = {"command": "x", "extensionToLanguage": {".x": "x"}}
    spec, _, problem = parse_entry(name, entry, "plugin evil")
    assert spec is None and problem is not None and "a name is letters, digits" in problem
    assert "\x1b" not in problem and "\x07" not in problem  # the name is quoted (repr)


def test_ordinary_server_names_are_taken() -> None:
    entry = {"command": "x", "extensionToLanguage": {".x": "x"}}
    for name in ("pyright", "my-lang_2.0+x", "C", "a" * 64):
        spec, _, problem = parse_entry(name, entry, "settings")
        assert problem is None and spec is not None and spec.name == name


def test_project_servers_only_in_a_trusted_folder(tmp_path: Path) -> None:
    bin_dir = tmp_path / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    server = bin_dir / "typescript-language-server"
    server.write_text("#!/bin/sh\n")
    server.chmod(0o755)
    untrusted = ServerTable({}, tmp_path, False, "/nonexistent")
    assert untrusted.spec_for(tmp_path / "a.ts") is None
    why = untrusted.why_none(tmp_path / "a.ts") or ""
    assert "only in a trusted folder" in why and "npm install -g typescript-language-server" in why
    trusted = ServerTable({}, tmp_path, True, "/nonexistent")
    found = trusted.spec_for(tmp_path / "a.ts")
    assert found is not None and found[0].command == str(server)
    assert found[0].source == "found in node_modules/.bin (trusted project)"
    off = ServerTable({"typescript": {"disabled": True}}, tmp_path, True, "/nonexistent")
    assert off.spec_for(tmp_path / "a.ts") is None


def test_the_seed_one_shot_imports_no_language_server_client(tmp_path: Path) -> None:
    """Build a shell and run the read hook on JSON and .mjs files as a one-shot would (a read
    starts no server there), then an edit of a Markdown file: nothing of the part loads."""
    probe = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from pi_cli.shell.coding_agent import CodingAgent, ShellOptions\n"
        "from agent_core import AssistantMessage, ToolCall, ToolResult\n"
        "from agent_core.tool import AfterToolCallContext\n"
        "async def main():\n"
        "    async def stream(c, o):\n"
        "        yield AssistantMessage()\n"
        f"    shell = CodingAgent(ShellOptions(cwd=Path({str(tmp_path)!r}), stream_fn=stream,"
        " persist_session=False))\n"
        "    for name in ('package.json', 'hello.mjs'):\n"
        "        call = ToolCall(id='c', name='read', arguments={'path': name})\n"
        "        ctx = AfterToolCallContext(AssistantMessage(), call, None,"
        " ToolResult.of_text('x'), False, [])\n"
        "        await shell.agent.after_tool_call(ctx, None)\n"
        "    call = ToolCall(id='e', name='edit', arguments={'path': 'notes.md', 'edits': []})\n"
        "    ctx = AfterToolCallContext(AssistantMessage(), call, None, ToolResult.of_text('x'),"
        " False, [])\n"
        "    await shell.agent.after_tool_call(ctx, None)\n"
        "    assert shell.lsp.started is None\n"
        "    await shell.aclose()\n"
        "    print(sorted(m for m in sys.modules if m.startswith('pi_cli.shell.lsp')))\n"
        "asyncio.run(main())\n"
    )
    (tmp_path / "package.json").write_text("{}\n")
    (tmp_path / "hello.mjs").write_text("console.log(1)\n")
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert result.stdout.strip() == "[]", result.stderr[-2000:]
