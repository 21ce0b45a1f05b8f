"""Start-up with 0 and with 20 Python extensions installed (issue 27: <= 10 ms added for 20).

Twenty realistic extensions (each: a tool with a pydantic model, a command with argument
completion, a ``before_tool_call`` handler, a footer segment) sit in ``$PI_HOME/extensions``.
Measured, interleaved so each case sees the same load, medians of RUNS:

- a one-shot answer (``pi -p``, one text turn from the fake server): wall, CPU, and the time
  from spawn to the first request at the server; with no extension, with 20 from the cache
  (every start after the first: nothing imported until a tool, command, key or event needs it),
  and with 20 cold (cache removed first: the start after installing or changing them);
- a new process importing the shell and building one (CPU), 0 against 20 cached: the start-up
  cost of extensions, imports included, without the one-shot's model call and exit;
- in a warm process, the shell's construction (``CodingAgent(...)``) with 0 and 20 cached,
  interleaved, each shell closed and the garbage collected before the next build;
- what loading all 20 costs when their code is first needed (a tool call, say);
- ``python -X importtime`` of a one-shot with none installed: modules of the extension package.
"""

from __future__ import annotations

import asyncio
import compileall
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._util import bench_env, fake_pi_argv
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn

RUNS = int(os.environ.get("PI_BENCH_RUNS", "11"))
IN_PROCESS_RUNS = 60
COUNT = 20
TARGET_MS = 10.0

EXTENSION = """
from pydantic import BaseModel, Field

from pi_cli.shell.extensions import Block, ExtensionAPI, ExtensionContext, ToolCallEvent

WORDS = ["alpha", "beta", "gamma", "delta"]


class Args{n}(BaseModel):
    path: str = Field(description="A file to look at")
    depth: int = Field(default=1, ge=1, le=5, description="How deep")


def register(pi: ExtensionAPI) -> None:
    @pi.tool(description="Inspect a file, the way tool {n} does", parameters=Args{n}, read_only=True)
    async def inspect_{n}(args: Args{n}, ctx: ExtensionContext) -> str:
        return f"{{args.path}} at depth {{args.depth}}"

    @pi.command(description="Command {n}", complete=lambda typed: [w for w in WORDS if w.startswith(typed)])
    def cmd_{n}(args: str, ctx: ExtensionContext) -> str:
        return f"ran {n} with {{args}}"

    @pi.on("before_tool_call")
    def guard(event: ToolCallEvent) -> Block | None:
        if str(event.args.get("path", "")).endswith(".secret{n}"):
            return Block("protected")
        return None

    pi.ui.set_footer("n", "ext{n}")
"""


def install(home: Path) -> None:
    folder = home / "extensions"
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(COUNT):
        (folder / f"ext{n:02d}.py").write_text(textwrap.dedent(EXTENSION.format(n=n)).lstrip())


def one_shot(home: Path, project: Path, cold: bool) -> tuple[float, float, float]:
    """(wall, cpu, first request) seconds of one ``pi -p`` answering one text turn."""
    if cold:
        shutil.rmtree(home / "cache", ignore_errors=True)
    with FakeProviderServer([Turn(text="hello")]) as server:
        argv = fake_pi_argv(server.openai_base_url, "--no-session", "-p", "hi")
        start = time.time()
        process = subprocess.Popen(
            argv,
            cwd=project,
            env=bench_env(home),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.time() - start
        assert os.waitstatus_to_exitcode(status) == 0, "pi failed"
        first = server.request_times[0] - start
    return wall, usage.ru_utime + usage.ru_stime, first


def _build(home: Path, project: Path) -> tuple[float, Any]:
    """Seconds to build one shell with ``home`` as PI_HOME (garbage collected first), and it."""
    os.environ["PI_HOME"] = str(home)
    from pi_cli.shell import CodingAgent, ShellOptions
    from tests.agent_core.scripted_stream import ScriptedStream

    for name in [m for m in sys.modules if m.startswith("pi_extension_")]:
        del sys.modules[name]
    gc.collect()
    start = time.perf_counter()
    shell = CodingAgent(
        ShellOptions(cwd=project, stream_fn=ScriptedStream(), persist_session=False, tools=["read"])
    )
    return time.perf_counter() - start, shell


def in_process(empty: Path, full: Path, project: Path) -> tuple[float, float, float]:
    """Median seconds to build a shell with none and with 20 cached (interleaved, each shell
    closed before the next: no build pays for its predecessors' garbage), and to load every
    extension of one afterwards."""
    for home in (full, empty):  # the cache is written; every module imported
        asyncio.run(_build(home, project)[1].aclose())
    none: list[float] = []
    cached: list[float] = []
    for _ in range(IN_PROCESS_RUNS):
        for home, times in ((empty, none), (full, cached)):
            seconds, shell = _build(home, project)
            times.append(seconds)
            asyncio.run(shell.aclose())
    _, shell = _build(full, project)
    extensions = shell.extensions
    assert extensions is not None

    async def load_all() -> float:
        start = time.perf_counter()
        for ext in extensions.runtime:
            await extensions.runtime.ensure(ext)
        return time.perf_counter() - start

    load = asyncio.run(load_all())
    asyncio.run(shell.aclose())
    return statistics.median(none), statistics.median(cached), load


FRESH = """
import sys
from pathlib import Path
from pi_cli.shell import CodingAgent, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream
CodingAgent(ShellOptions(cwd=Path(sys.argv[1]), stream_fn=ScriptedStream(), persist_session=False))
"""


def fresh_process(home: Path, project: Path) -> float:
    """CPU seconds of a new Python process that imports the shell and builds one (no model
    call, no server: the start-up alone, far steadier than a whole one-shot)."""
    process = subprocess.Popen(
        [sys.executable, "-c", FRESH, str(project)], cwd=project, env=bench_env(home),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    _, status, usage = os.wait4(process.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the shell failed to build"
    return usage.ru_utime + usage.ru_stime


def importtime(home: Path, project: Path) -> list[str]:
    """Modules of the extension package a one-shot imports with no extension installed."""
    with FakeProviderServer([Turn(text="hello")]) as server:
        argv = [
            sys.executable,
            "-X",
            "importtime",
            *fake_pi_argv(server.openai_base_url, "--no-session", "-p", "hi")[1:],
        ]
        done = subprocess.run(
            argv, cwd=project, env=bench_env(home), capture_output=True, text=True, timeout=120
        )
    names = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line]
    return [n for n in names if n.startswith("pi_cli.shell.extensions")]


def ms(value: float) -> str:
    return f"{value * 1000:7.1f} ms"


def main() -> None:
    # Byte code first: with PYTHONDONTWRITEBYTECODE a module changed since its .pyc was written
    # is compiled at every start, which a user's pi never pays.
    for package in ("pi_cli", "agent_core", "tools", "tests"):
        compileall.compile_dir(Path(__file__).resolve().parents[1] / package, quiet=1)
    root = Path(tempfile.mkdtemp(prefix="pi-bench-ext-"))
    try:
        empty, full, project = root / "empty", root / "full", root / "project"
        for folder in (empty, full, project):
            folder.mkdir()
        install(full)
        one_shot(full, project, cold=True)  # warm the OS caches and write the extension cache
        one_shot(empty, project, cold=False)
        cases: dict[str, list[tuple[float, float, float]]] = {
            "0": [],
            "20 cached": [],
            "20 cold": [],
        }
        for _ in range(RUNS):
            cases["0"].append(one_shot(empty, project, cold=False))
            cases["20 cached"].append(one_shot(full, project, cold=False))
            cases["20 cold"].append(one_shot(full, project, cold=True))
        print(f"one-shot `pi -p` (one text turn), medians of {RUNS}, interleaved:")
        base = [statistics.median(x[i] for x in cases["0"]) for i in range(3)]
        for name, runs in cases.items():
            wall, cpu, first = (statistics.median(x[i] for x in runs) for i in range(3))
            added = (
                f"  (+{(first - base[2]) * 1000:.1f} ms to the first request)"
                if name != "0"
                else ""
            )
            print(f"  {name:<10} wall {ms(wall)}  cpu {ms(cpu)}  first request {ms(first)}{added}")
        fresh: dict[str, list[float]] = {"0": [], "20 cached": []}
        for _ in range(RUNS * 2):
            fresh["0"].append(fresh_process(empty, project))
            fresh["20 cached"].append(fresh_process(full, project))
        pairs = zip(fresh["0"], fresh["20 cached"], strict=True)
        fresh_added = statistics.median(b - a for a, b in pairs) * 1000
        print(
            f"a new process importing the shell and building one, CPU, medians of {RUNS * 2}: "
            f"0 {ms(statistics.median(fresh['0']))}, 20 cached "
            f"{ms(statistics.median(fresh['20 cached']))}; added (median of pairs) {fresh_added:.1f} "
            f"ms (target <= {TARGET_MS:g} ms: {'met' if fresh_added <= TARGET_MS else 'NOT met'})"
        )
        shell0, shell20, load = in_process(empty, full, project)
        warm_added = (shell20 - shell0) * 1000
        verdict = "met" if warm_added <= TARGET_MS else "NOT met"
        print(
            f"shell construction in a warm process, medians of {IN_PROCESS_RUNS}, interleaved: "
            f"0 extensions {ms(shell0)}, 20 cached {ms(shell20)}"
        )
        print(
            f"  added by 20 extensions: {warm_added:.1f} ms (target <= {TARGET_MS:g} ms: {verdict})"
        )
        print(f"loading all 20 when their code is first needed: {ms(load)}")
        modules = importtime(empty, project)
        print(
            f"one-shot with none installed imports {len(modules)} modules of pi_cli.shell.extensions {modules or ''}"
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
