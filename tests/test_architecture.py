"""Layering rules: agent_core stays independent; heavy UI/LLM libraries stay off start-up paths.

The static rules (who may import whom) are import-linter contracts run by ``make lint``; this
file checks what they cannot: what is loaded at run time, import cycles, what tools may import
at all, and module size.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agent_core", "tools", "pi_cli")
MAX_MODULE_LINES = 400
FORBIDDEN_FOR_CORE = {"pi_cli", "tools", "textual", "typer", "rich", "litellm"}
# Beyond the standard library and agent_core, the only package the tools may import.
TOOLS_MAY_IMPORT = {"agent_core", "msgspec"}
# web_fetch's two modules, and only they, import one library more each (lazily: see below).
TOOLS_MODULE_MAY_IMPORT = {
    "tools.web._http": {"httpx"},
    "tools.web._markdown": {"trafilatura"},
    "tools.web._search_backends": {"httpx"},
}


def _loaded_top_modules(code: str) -> set[str]:
    probe = (
        f"import sys\n{code}\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_agent_core_imports_no_shell_tools_ui_or_litellm() -> None:
    loaded = _loaded_top_modules("import agent_core")
    assert loaded & FORBIDDEN_FOR_CORE == set()


def test_providers_load_litellm_only_when_a_litellm_request_is_made() -> None:
    # The one import of litellm is importlib.import_module inside litellm_stream, invisible to
    # the import contracts: check at run time that merely using the providers does not load it.
    loaded = _loaded_top_modules(
        "import agent_core.providers as p\n"
        "p.make_stream_fn(p.resolve_model('gemini/gemini-2.5-flash', env={}))"
    )
    assert "litellm" not in loaded


def test_pi_cli_package_import_is_light() -> None:
    loaded = _loaded_top_modules("import pi_cli")
    assert loaded & {"textual", "litellm"} == set()


# ---------------------------------------------------------------------------- import graph


@cache
def _graph() -> grimp.ImportGraph:
    # grimp sees every import statement: module level, inside functions, under TYPE_CHECKING.
    return grimp.build_graph(*PACKAGES, include_external_packages=True, cache_dir=None)


def strongly_connected(edges: dict[str, list[str]]) -> list[list[str]]:
    """Components of more than one node in a directed graph (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)

    for root in sorted(edges):
        if root in index:
            continue
        visit(root)
        work = [(root, iter(edges[root]))]
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    visit(child)
                    work.append((child, iter(edges.get(child, []))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def _cycles() -> list[list[str]]:
    graph = _graph()
    internal = [m for m in graph.modules if m.split(".")[0] in PACKAGES]
    edges = {
        m: sorted(
            n for n in graph.find_modules_directly_imported_by(m) if n.split(".")[0] in PACKAGES
        )
        for m in internal
    }
    return strongly_connected(edges)


def _describe(cycles: Iterable[list[str]]) -> str:
    graph = _graph()
    lines = []
    for members in cycles:
        first, *rest = members
        # One concrete loop through the component makes the report actionable.
        target = rest[0]
        there = graph.find_shortest_chain(first, target) or (first, target)
        back = graph.find_shortest_chain(target, first) or (target, first)
        loop = " -> ".join([*there, *back[1:]])
        lines.append(f"{len(members)} modules: {', '.join(members)}\n    e.g. {loop}")
    return "\n".join(lines)


def test_the_cycle_finder() -> None:
    edges = {
        "a": ["b"],
        "b": ["c", "d"],
        "c": ["a"],  # a -> b -> c -> a
        "d": ["e"],
        "e": ["d", "e"],  # d <-> e; e imports itself (not a cycle between modules)
        "f": ["a", "g"],  # f only reaches into cycles; g is imported but not a key
        "h": ["h"],
    }
    assert strongly_connected(edges) == [["a", "b", "c"], ["d", "e"]]
    assert strongly_connected({"x": ["y"], "y": []}) == []
    chain = {f"m{i}": [f"m{i + 1}"] for i in range(5000)}  # deep: no recursion limit
    chain["m5000"] = ["m0"]
    assert strongly_connected(chain) == [sorted(chain)]


@pytest.mark.parametrize("package", ["agent_core", "tools", "pi_cli"])
def test_no_import_cycles(package: str) -> None:
    cycles = [c for c in _cycles() if any(m.split(".")[0] == package for m in c)]
    assert not cycles, f"import cycles in {package}:\n{_describe(cycles)}"


def test_tools_import_only_agent_core_msgspec_and_the_standard_library() -> None:
    graph = _graph()
    outside = set()
    for module in graph.find_descendants("tools") | {"tools"}:
        allowed = TOOLS_MAY_IMPORT | TOOLS_MODULE_MAY_IMPORT.get(module, set())
        for imported in graph.find_modules_directly_imported_by(module):
            top = imported.split(".")[0]
            if top != "tools" and top not in allowed and top not in sys.stdlib_module_names:
                outside.add(f"{module} -> {imported}")
    assert not outside, "tools import more than agent_core, msgspec and the stdlib:\n" + "\n".join(
        sorted(outside)
    )


def test_building_every_tool_loads_neither_httpx_nor_trafilatura() -> None:
    # Their imports sit inside the functions that fetch: --version and a one-shot run that
    # never fetches a page pay nothing for them.
    loaded = _loaded_top_modules(
        "import tools, tempfile\ntools.create_tools(list(tools.TOOL_FACTORIES), tempfile.gettempdir())"
    )
    assert loaded & {"httpx", "trafilatura", "lxml", "jsonschema"} == set()


# ---------------------------------------------------------------------------- module size


def _oversized(package: str) -> list[str]:
    rows = []
    for path in sorted((ROOT / package).rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            rows.append(f"{path.relative_to(ROOT)}: {lines} lines")
    return rows


@pytest.mark.parametrize("package", ["agent_core", "tools", "pi_cli"])
def test_no_module_over_400_lines(package: str) -> None:
    assert not _oversized(package), f"split these (max {MAX_MODULE_LINES} lines):\n" + "\n".join(
        _oversized(package)
    )


# ---------------------------------------------------------------------------- MCP and ACP stay lazy

MCP_ACP_MODULES = {"mcp", "mcp_types", "acp", "jsonschema", "httpx2"}  # (anyio: httpx loads it)
# web_fetch's HTML conversion is loaded by a fetch only (issue 20: no cost to --version/one-shot).
WEB_FETCH_MODULES = {"trafilatura", "lxml", "justext", "htmldate", "courlan"}


def _cli_modules(argv: list[str], home: Path, cwd: Path, *, full: bool = False) -> set[str]:
    """The top-level packages (``full``: every module) a ``pi`` run with ``argv`` loaded."""
    name = "m" if full else "m.split('.')[0]"
    probe = (  # main(argv) directly: no re-exec (that would hide the modules loaded)
        "import sys\nfrom pi_cli.cli import main\n"
        f"main({argv!r})\n"
        f"print('LOADED', ' '.join(sorted({{{name} for m in sys.modules}})), file=sys.stderr)\n"
    )
    env = {
        "PI_HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "PI_NO_LOCAL_PROBE": "1",
        "PATH": "/usr/bin:/bin",
    }
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=cwd, env=env, timeout=60
    )
    line = next(x for x in out.stderr.splitlines() if x.startswith("LOADED"))
    return set(line.split()[1:])


def test_mcp_and_acp_are_not_loaded_without_servers(tmp_path: Path) -> None:
    from tests.fakes.provider_server import FakeProviderServer
    from tests.fakes.script import seed_script

    (tmp_path / "package.json").write_text('{"name": "hello"}\n')
    assert not _cli_modules(["--version"], tmp_path, tmp_path) & MCP_ACP_MODULES
    with FakeProviderServer() as server:
        server.add(*seed_script())
        argv = ["--model", "openai/fake", "--api-base", server.openai_base_url, "--api-key", "sk-x"]
        loaded = _cli_modules([*argv, "-p", "explain this project"], tmp_path, tmp_path)
        assert len(server.requests) == 4  # the seed scenario really ran
    assert not loaded & MCP_ACP_MODULES, loaded & MCP_ACP_MODULES
    assert not loaded & WEB_FETCH_MODULES, loaded & WEB_FETCH_MODULES


# This wave's features stay off the one-shot path unless configured (issue 25): a one-shot that
# uses none of them loads none of their modules (nor anything under them).
WAVE_FEATURES = (
    "pi_cli.shell.lsp",
    "pi_cli.server",
    "pi_cli.shell.extensions",
    "pi_cli.shell.plugins",
)


def test_the_one_shot_loads_no_lsp_server_extensions_or_plugins(tmp_path: Path) -> None:
    from tests.fakes.provider_server import FakeProviderServer
    from tests.fakes.script import seed_script

    (tmp_path / "package.json").write_text('{"name": "hello"}\n')
    with FakeProviderServer() as server:
        server.add(*seed_script())
        argv = ["--model", "openai/fake", "--api-base", server.openai_base_url, "--api-key", "sk-x"]
        loaded = _cli_modules([*argv, "-p", "explain this project"], tmp_path, tmp_path, full=True)
        assert len(server.requests) == 4  # the seed scenario really ran
    assert "pi_cli.shell.coding_agent" in loaded  # the probe sees the shell's own modules
    features = sorted(m for m in loaded for f in WAVE_FEATURES if m == f or m.startswith(f + "."))
    assert not features, f"on the one-shot path: {features}"
    # pydantic only where a user file or a client's request is validated: not for the events,
    # messages, settings and tool arguments every run makes (issue 25)
    assert not {m for m in loaded if m.split(".")[0] in ("pydantic", "pydantic_core")}
