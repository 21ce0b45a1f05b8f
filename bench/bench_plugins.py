"""Start-up with 0 and with 20 Claude Code plugins installed and enabled (issue 27: at most
10 ms added for 20), and with 20 packages installed.

The plugins are wshobson/agents' debugging-toolkit (1 command, 2 agents) and before-you-build (a
skill), from ../shared/fixtures/i25, copied ten times each under new names into a marketplace
served from a local git repository, installed with ``pi plugin install`` (pinned, hashed) and
enabled in the user's settings. The packages are badlogic/pi-skills' package (a skill) twenty
times under new names. Measured, interleaved to share the machine's load:

- building the shell in process (``CodingAgent(...)``: settings, plugins verified and
  registered, prompt sources), median of 15;
- the one-shot seed scenario end to end against the fake provider, median of 7;

wall time and CPU time (the machine may be loaded: CPU is the steadier figure).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._util import bench_env, fake_pi_argv, median
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import SEED_FINAL_TEXT, seed_script
from tests.shared_fixtures import shared

FIXTURES = shared("i25")
COUNT = 20
BUILDS = 21
ONE_SHOTS = 7


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=b@example.com", "-c", "user.name=B", *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


def _writable(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def make_market(root: Path) -> Path:
    """A marketplace of COUNT real plugins under new names, as a git repository."""
    market = root / "market"
    entries = []
    for index in range(COUNT):
        kind = "debugging-toolkit" if index % 2 == 0 else "before-you-build"
        name = f"p{index:02d}-{kind}"
        dest = market / "plugins" / name
        shutil.copytree(FIXTURES / "wshobson-agents" / "plugins" / kind, dest)
        _writable(dest)
        manifest = dest / ".claude-plugin" / "plugin.json"
        data = json.loads(manifest.read_text()) if manifest.is_file() else {}
        manifest.parent.mkdir(exist_ok=True)
        manifest.write_text(json.dumps({**data, "name": name}))
        entries.append({"name": name, "source": f"./plugins/{name}", "description": kind})
    (market / ".claude-plugin").mkdir(parents=True)
    catalog = {"name": "bench-market", "owner": {"name": "bench"}, "plugins": entries}
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps(catalog))
    _git(market, "init", "-q", "-b", "main")
    _git(market, "add", "-A")
    _git(market, "commit", "-q", "-m", "market")
    return market


def install_plugins(home: Path, market: Path, cwd: Path) -> None:
    os.environ["PI_HOME"] = str(home)
    from pi_cli.shell.plugins.commands import plugin_words

    plugin_words(["marketplace", "add", str(market)], cwd)
    for index in range(COUNT):
        kind = "debugging-toolkit" if index % 2 == 0 else "before-you-build"
        plugin_words(["install", f"p{index:02d}-{kind}@bench-market"], cwd)


def install_packages(home: Path, cwd: Path) -> None:
    os.environ["PI_HOME"] = str(home)
    from pi_cli.shell.packages.commands import package_words

    for index in range(COUNT):
        pkg = cwd.parent / f"pkg{index:02d}"
        shutil.copytree(FIXTURES / "pi-skills", pkg)
        _writable(pkg)
        data = json.loads((pkg / "package.json").read_text())
        (pkg / "package.json").write_text(json.dumps({**data, "name": f"skills-{index:02d}"}))
        skill = pkg / "skills" / "vscode"
        skill.rename(pkg / "skills" / f"vscode{index:02d}")
        text = (pkg / "skills" / f"vscode{index:02d}" / "SKILL.md").read_text()
        (pkg / "skills" / f"vscode{index:02d}" / "SKILL.md").write_text(
            text.replace("name: vscode", f"name: vscode{index:02d}", 1)
        )
        package_words("install", [str(pkg)], cwd)


async def build_once(home: Path, cwd: Path) -> tuple[float, float]:
    os.environ["PI_HOME"] = str(home)
    from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
    from tests.agent_core.scripted_stream import ScriptedStream

    began, cpu = time.perf_counter(), time.process_time()
    shell = CodingAgent(ShellOptions(cwd=cwd, stream_fn=ScriptedStream(), persist_session=False))
    built, cpu = time.perf_counter() - began, time.process_time() - cpu
    loaded = len(shell.plugins.loaded) if shell.plugins is not None else 0
    await shell.aclose()
    assert loaded in (0, COUNT), loaded
    if shell.plugins is not None and shell.plugins.checks is not None:
        shell.plugins.checks.wait()  # not counted: it runs beside the start-up
    return built, cpu


def one_shot(home: Path, cwd: Path) -> tuple[float, float]:
    """(wall, CPU of pi's process) of the seed scenario."""
    with FakeProviderServer(seed_script()) as server:
        argv = fake_pi_argv(server.openai_base_url, "--no-session", "explain this project")
        began = time.perf_counter()
        child = subprocess.Popen(
            argv, cwd=cwd, env=bench_env(home), stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert child.stdout is not None
        out = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - began
    code = os.waitstatus_to_exitcode(status)
    assert code == 0 and out.decode().strip() == SEED_FINAL_TEXT, (code, out[-300:])
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    if not FIXTURES.is_dir():
        print(f"skipped: {FIXTURES} is not available")
        return
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        cwd = root / "project"
        cwd.mkdir()
        (cwd / "README.md").write_text("# demo\n")
        homes = {"nothing": root / "h0", "20 plugins": root / "hp", "20 packages": root / "hk"}
        homes["nothing"].mkdir()
        install_plugins(homes["20 plugins"], make_market(root), cwd)
        install_packages(homes["20 packages"], cwd)
        builds: dict[str, list[float]] = {label: [] for label in homes}
        cpus: dict[str, list[float]] = {label: [] for label in homes}
        for _ in range(BUILDS):
            for label, home in homes.items():
                wall, cpu = asyncio.run(build_once(home, cwd))
                builds[label].append(wall)
                cpus[label].append(cpu)
        shots: dict[str, list[float]] = {label: [] for label in homes}
        shot_cpus: dict[str, list[float]] = {label: [] for label in homes}
        for _ in range(ONE_SHOTS):
            for label, home in homes.items():
                wall, cpu = one_shot(home, cwd)
                shots[label].append(wall)
                shot_cpus[label].append(cpu)
    base_build = median(builds["nothing"]) * 1000
    base_cpu = median(cpus["nothing"]) * 1000
    base_shot = median(shots["nothing"]) * 1000
    base_shot_cpu = median(shot_cpus["nothing"]) * 1000
    for label in homes:
        b, c = median(builds[label]) * 1000, median(cpus[label]) * 1000
        o, oc = median(shots[label]) * 1000, median(shot_cpus[label]) * 1000
        print(
            f"{label:<12} shell build {b:6.1f} ms (+{b - base_build:5.1f}), CPU {c:5.1f} ms "
            f"(+{c - base_cpu:5.1f}) (medians of {BUILDS}); one-shot seed {o:7.1f} ms "
            f"(+{o - base_shot:5.1f}), CPU {oc:6.1f} ms (+{oc - base_shot_cpu:5.1f}) "
            f"(medians of {ONE_SHOTS})"
        )
    print("target: at most 10 ms added for 20 plugins")


if __name__ == "__main__":
    main()
