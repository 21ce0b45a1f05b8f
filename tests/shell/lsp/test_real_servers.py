"""Real language servers nobody on this project wrote (pyright and typescript-language-server
from npm, clangd from Debian; installed by .ci/run): a scripted model introduces a type error
with ``edit`` and the result names it, fixing it clears it, and definitions, references and
hover work across the files of a small project. One server per language for the module."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio

from pi_cli.shell.coding_agent import CodingAgent
from tests.agent_core.scripted_stream import Recorder, ScriptedStream, reply, text, tool_call
from tests.shell.lsp.conftest import lsp_shell, real_server, results

pytestmark = pytest.mark.asyncio(loop_scope="module")

PYTHON = {
    "shapes.py": "def area(width: int, height: int) -> int:\n    return width * height\n",
    "main.py": "from shapes import area\n\n\ndef total() -> int:\n    return area(2, 3) + area(4, 5)\n",
}
TYPESCRIPT = {
    "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}\n',
    "src/shapes.ts": "export function area(width: number, height: number): number {\n"
    "  return width * height;\n}\n",
    "src/main.ts": 'import { area } from "./shapes";\n\nexport const total: number = area(2, 3);\n',
}
C = {
    "compile_flags.txt": "-xc\n-std=c11\n",
    "shapes.h": "int area(int width, int height);\n",
    "shapes.c": '#include "shapes.h"\n\nint area(int width, int height) { return width * height; }\n',
    "main.c": '#include "shapes.h"\n\nint total(void) { return area(2, 3); }\n',
}


@dataclass
class Project:
    """A shell over a fixture project with its server started and the file read."""

    shell: CodingAgent
    stream: ScriptedStream
    recorder: Recorder
    root: Path

    async def run(self, *calls: object) -> dict[str, str]:
        """One model turn making ``calls``, then a final answer; the results' texts."""
        self.stream.responses += [reply(*calls), reply(text("ok"))]
        await self.shell.submit("go")
        return {k: v.result.text for k, v in results(self.recorder).items()}


async def _project(
    tmp_path_factory: pytest.TempPathFactory, files: dict[str, str], bin_dir: str, first: str
) -> AsyncIterator[Project]:
    root = tmp_path_factory.mktemp("project")
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content)
    saved = {k: os.environ.get(k) for k in ("PATH", "PI_HOME", "HOME")}
    os.environ["PATH"] = f"{bin_dir}:{os.environ['PATH']}"
    os.environ["PI_HOME"] = str(tmp_path_factory.mktemp("pi_home"))
    os.environ["HOME"] = str(tmp_path_factory.mktemp("home"))
    stream = ScriptedStream(
        reply(tool_call("read-first", "read", {"path": first})), reply(text("ok"))
    )
    lsp = {"diagnosticsWaitMs": 15000, "startupTimeoutS": 120, "rename": True}
    shell = lsp_shell(root, stream, lsp)
    recorder = Recorder()
    shell.subscribe(recorder)
    try:
        await shell.submit("read")
        assert shell.lsp.started is not None
        await shell.lsp.started.idle()  # started, the file open, its first diagnostics known
        yield Project(shell, stream, recorder, root)
    finally:
        await shell.aclose()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _edit(call_id: str, path: str, old: str, new: str) -> object:
    return tool_call(call_id, "edit", {"path": path, "edits": [{"old_text": old, "new_text": new}]})


def _rename(call_id: str, path: str, line: int, symbol: str, new_name: str) -> object:
    args = {"path": path, "line": line, "symbol": symbol, "new_name": new_name}
    return tool_call(call_id, "lsp_rename", args)


def _nav(call_id: str, operation: str, path: str, line: int, symbol: str) -> object:
    args = {"operation": operation, "path": path, "line": line, "symbol": symbol}
    return tool_call(call_id, "lsp", args)


# ---------------------------------------------------------------------------- python (pyright)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def python(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Project]:
    async for project in _project(
        tmp_path_factory, PYTHON, real_server("pyright-langserver"), "main.py"
    ):
        yield project


async def test_python_type_error_is_named_then_cleared(python: Project) -> None:
    assert python.shell.lsp.started.servers["python"].state == "ready"  # type: ignore[union-attr]
    found = await python.run(_edit("py-bad", "main.py", "area(2, 3)", 'area("2", 3)'))
    bad = found["py-bad"]
    assert "Language server (python) on main.py: 1 new error after this change:" in bad
    assert "main.py:5:17: error: Argument of type" in bad and '"width"' in bad
    assert 'return area("2", 3) + area(4, 5)' in bad
    found = await python.run(_edit("py-fix", "main.py", 'area("2", 3)', "area(2, 3)"))
    assert "no new problems; 1 problem reported before is gone" in found["py-fix"]
    assert "Argument of type" not in found["py-fix"]


async def test_python_navigation(python: Project) -> None:
    found = await python.run(
        _nav("py-def", "definition", "main.py", 5, "area"),
        _nav("py-refs", "references", "shapes.py", 1, "area"),
        _nav("py-hover", "hover", "main.py", 5, "area"),
        tool_call("py-syms", "lsp", {"operation": "document_symbols", "path": "shapes.py"}),
        tool_call("py-ws", "lsp", {"operation": "workspace_symbols", "query": "total"}),
    )
    assert (
        found["py-def"] == "1 definition:\nshapes.py:1:5: def area(width: int, height: int) -> int:"
    )
    refs = found["py-refs"]
    assert refs.startswith("4 references:")
    assert "main.py:1:20: from shapes import area" in refs and "main.py:5:12:" in refs
    assert "shapes.py:1:5:" in refs
    assert found["py-hover"] == "(function) def area(\n    width: int,\n    height: int\n) -> int"
    assert "shapes.py:1:5 function area" in found["py-syms"]
    assert found["py-ws"] == "1 symbol:\nmain.py:4:5 function total"


async def test_python_call_hierarchy(python: Project) -> None:
    found = await python.run(
        _nav("py-in", "incoming_calls", "shapes.py", 1, "area"),
        _nav("py-out", "outgoing_calls", "main.py", 4, "total"),
    )
    assert found["py-in"] == (
        "1 caller:\nfunction total at main.py:4:5: def total() -> int:\n    calls it at main.py:5:12, main.py:5:25"
    )
    assert found["py-out"] == (
        "1 callee:\nfunction area at shapes.py:1:5: def area(width: int, height: int) -> int:\n"
        "    called at main.py:5:12, main.py:5:25"
    )


async def test_python_rename_across_files_is_checkpointed(python: Project) -> None:
    before = {name: (python.root / name).read_text() for name in PYTHON}
    found = await python.run(_rename("py-ren", "shapes.py", 1, "area", "surface"))
    assert found["py-ren"] == (
        "Renamed area to surface: 4 changes in 2 files:\n  main.py (3)\n  shapes.py (1)"
    )
    assert (python.root / "shapes.py").read_text().startswith("def surface(width: int")
    assert (python.root / "main.py").read_text() == (
        "from shapes import surface\n\n\ndef total() -> int:\n"
        "    return surface(2, 3) + surface(4, 5)\n"
    )
    # Like an edit: the turn's snapshot was taken before it ran, so /rewind brings both back.
    points = await python.shell.checkpoints.points()
    assert {f.path for f in points[-1].files} == {"main.py", "shapes.py"}
    await python.shell.checkpoints.rewind(points[-1].entry_id, conversation=False)
    assert {name: (python.root / name).read_text() for name in PYTHON} == before


async def test_python_rename_is_an_edit_to_the_permission_engine(python: Project) -> None:
    before = {name: (python.root / name).read_text() for name in PYTHON}
    python.shell.permissions.set_mode("plan")
    try:
        planned = await python.run(_rename("py-plan", "shapes.py", 1, "area", "surface"))
        python.shell.permissions.set_mode("default")  # nobody to ask here (one-shot)
        asked = await python.run(_rename("py-ask", "shapes.py", 1, "area", "surface"))
    finally:
        python.shell.permissions.set_mode("auto")
    assert "plan mode is read-only" in planned["py-plan"]
    assert "needs the user's approval" in asked["py-ask"]
    assert {name: (python.root / name).read_text() for name in PYTHON} == before


# ------------------------------------------------------------------- typescript-language-server


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def typescript(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Project]:
    bin_dir = real_server("typescript-language-server")
    async for project in _project(tmp_path_factory, TYPESCRIPT, bin_dir, "src/main.ts"):
        yield project


async def test_typescript_type_error_is_named_then_cleared(typescript: Project) -> None:
    found = await typescript.run(_edit("ts-bad", "src/main.ts", "area(2, 3)", 'area("2", 3)'))
    bad = found["ts-bad"]
    assert "src/main.ts:3:35: error: Argument of type 'string' is not assignable" in bad
    assert "[2345]" in bad
    found = await typescript.run(_edit("ts-fix", "src/main.ts", 'area("2", 3)', "area(2, 3)"))
    assert "1 problem reported before is gone" in found["ts-fix"]


async def test_typescript_navigation(typescript: Project) -> None:
    found = await typescript.run(
        _nav("ts-def", "definition", "src/main.ts", 3, "area"),
        _nav("ts-refs", "references", "src/shapes.ts", 1, "area"),
    )
    assert found["ts-def"].startswith("1 definition:\nsrc/shapes.ts:1:17: export function area(")
    refs = found["ts-refs"]
    assert "src/main.ts:1:10: import { area }" in refs and "src/main.ts:3:30:" in refs


# ---------------------------------------------------------------------------- C (clangd)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def clang(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Project]:
    async for project in _project(tmp_path_factory, C, real_server("clangd"), "main.c"):
        yield project


async def test_c_error_is_named_then_cleared(clang: Project) -> None:
    found = await clang.run(_edit("c-bad", "main.c", "area(2, 3)", "area(2, 3, 4)"))
    bad = found["c-bad"]
    assert "main.c:3:" in bad and "error: Too many arguments to function call" in bad
    found = await clang.run(_edit("c-fix", "main.c", "area(2, 3, 4)", "area(2, 3)"))
    assert "1 problem reported before is gone" in found["c-fix"]


async def test_c_navigation(clang: Project) -> None:
    found = await clang.run(
        _nav("c-def", "definition", "main.c", 3, "area"),
        _nav("c-refs", "references", "main.c", 3, "area"),
    )
    assert re.search(r"^1 definition:\nshapes\.[ch]:[13]:5: ", found["c-def"]), found["c-def"]
    assert "main.c:3:26:" in found["c-refs"]


async def test_c_call_hierarchy(clang: Project) -> None:
    found = await clang.run(
        _nav("c-in", "incoming_calls", "shapes.c", 3, "area"),
        _nav("c-out", "outgoing_calls", "main.c", 3, "total"),
    )
    assert found["c-in"] == (
        "1 caller:\nfunction total at main.c:3:5: int total(void) { return area(2, 3); }\n"
        "    calls it at main.c:3:26"
    )
    # clangd 14 (Debian 12) announces the call hierarchy but answers only incoming calls.
    assert found["c-out"] == "the c language server does not offer callHierarchy/outgoingCalls"


async def test_c_a_command_that_changes_files_gets_their_diagnostics(clang: Project) -> None:
    # main.c is open in clangd (read first); shapes.c is not: the checkpoints saw it change.
    found = await clang.run(
        tool_call(
            "c-sh",
            "bash",
            {
                "command": "sed -i 's/area(2, 3)/area(2, 3, 4)/' main.c && "
                "sed -i 's/return width \\* height;/return width * height + depth;/' shapes.c"
            },
        ),
    )
    changed = found["c-sh"]
    assert "Language server (c) on main.c: 1 new error after this change:" in changed
    assert "main.c:3:37: error: Too many arguments to function call" in changed
    assert (
        "Language server (c) on shapes.c: 1 new error (the file's problems: none known before)"
        in changed
    )
    assert "shapes.c:3:59: error: Use of undeclared identifier 'depth'" in changed
    found = await clang.run(
        tool_call(
            "c-fix",
            "bash",
            {"command": "sed -i 's/area(2, 3, 4)/area(2, 3)/; s/ + depth//' main.c shapes.c"},
        ),
    )
    fixed = found["c-fix"]
    assert "Language server (c) on main.c: no new problems; 1 problem reported before is gone" in (
        fixed
    )
    assert "on shapes.c: no new problems; 1 problem reported before is gone" in fixed
