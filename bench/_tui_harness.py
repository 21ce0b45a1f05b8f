"""A TUI in a private tmux server against the fake provider: pi's, or the TypeScript pi's.

Shared by the TUI benchmarks (``bench_tui_tmux.py``, ``bench_tui_turns.py``): start an agent in
a 120×40 pane, type a prompt, poll the screen, read the CPU and memory of the agent's process
from ``/proc``. pi-ts is the npm package ``.ci/run`` installs for the compatibility tests
(:data:`PI_TS`); where it is missing the benchmarks say so and measure pi alone.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PI = ROOT / ".venv" / "bin" / "pi"
TICKS = os.sysconf("SC_CLK_TCK")
PI_TS = (
    Path(os.environ.get("PI_TEST_NPM_CACHE") or Path.home() / ".cache" / "pi-test" / "npm")
    / "node_modules"
    / "@mariozechner"
    / "pi-coding-agent"
)
# ``../shared/fixtures`` beside the checkout (a worktree may sit one level deeper).
FIXTURE = next(
    (
        found
        for parent in ROOT.parents
        if (
            found := parent / "shared" / "fixtures" / "perf" / "long-answer-20000-words.md"
        ).is_file()
    ),
    None,
)


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` and its threads so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def tree_cpu_seconds(pid: int) -> float:
    """CPU of ``pid`` and every live descendant (pi's sandbox helper, node's workers)."""
    total = 0.0
    for child in [pid, *_descendants(pid)]:
        try:
            total += cpu_seconds(child)
        except (OSError, IndexError, ValueError):
            pass  # ended meanwhile
    return total


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return found
    for child in map(int, children):
        found += [child, *_descendants(child)]
    return found


def rss_mib(pid: int, field: str = "VmRSS") -> float:
    """``VmRSS`` (or ``VmHWM``) of ``pid`` in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def pi_ts_available() -> bool:
    """The TypeScript pi can run here (node and its npm package)."""
    return shutil.which("node") is not None and (PI_TS / "dist" / "cli.js").is_file()


def word_chunks(text: str, words: int = 3) -> list[str]:
    """``text`` in pieces of ``words`` whitespace-delimited words, whitespace kept."""
    tokens = re.findall(r"\s*\S+\s*", text) or [text]
    return ["".join(tokens[i : i + words]) for i in range(0, len(tokens), words)]


def openai_sse(pieces: list[str]) -> list[str]:
    """A Chat Completions stream of ``pieces`` as raw SSE events (one write each)."""
    base = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": "fake-model"}

    def event(delta: dict[str, object], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return "data: " + json.dumps({**base, "choices": [choice]}) + "\n\n"

    events = [event({"role": "assistant", "content": ""})]
    events += [event({"content": piece}) for piece in pieces]
    events.append(event({}, "stop"))
    usage = {"prompt_tokens": 100, "completion_tokens": 30000, "total_tokens": 30100}
    events.append("data: " + json.dumps({**base, "choices": [], "usage": usage}) + "\n\n")
    events.append("data: [DONE]\n\n")
    return events


class Pane:
    """An agent's TUI in a private tmux server (``close`` kills the server)."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.socket = f"pi-bench-{uuid.uuid4().hex[:8]}"
        self.cwd, self.env = cwd, env

    def tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True
        ).stdout

    def start(self, argv: list[str], ready: Callable[[str], bool], timeout: float = 30) -> int:
        """Run ``argv`` in the pane; its pid once ``ready(screen)`` holds."""
        env = " ".join(f"{k}={_quote(v)}" for k, v in self.env.items())
        command = f"cd {_quote(str(self.cwd))} && exec env -u COLUMNS -u LINES {env} " + " ".join(
            _quote(a) for a in argv
        )
        self.tmux(
            "-f", "/dev/null", "new-session", "-d", "-s", "b", "-x", "120", "-y", "40", command
        )
        self.wait(ready, timeout)
        return int(self.tmux("display", "-p", "-t", "b", "#{pane_pid}").strip())

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "b")

    def wait(self, check: Callable[[str], bool], timeout: float, every: float = 0.005) -> float:
        """Poll the screen every ``every`` s until ``check(screen)``; the time it held."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if check(self.screen()):
                return time.time()
            time.sleep(every)
        raise RuntimeError(f"not on screen in {timeout} s:\n{self.screen()}")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "b", *keys)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def _quote(value: str) -> str:
    import shlex

    return shlex.quote(value)


def pi_tui(pane_cwd: Path, home: Path, port: int) -> tuple[list[str], dict[str, str], str]:
    """(argv, env, ready text) for pi's TUI against the fake server on ``port``."""
    argv = [
        str(PI),
        "--model",
        "openai/fake-model",
        "--api-base",
        f"http://127.0.0.1:{port}/v1",
        "--api-key",
        "bench-key",
        "--no-session",
    ]
    env = {"PI_HOME": str(home), "PI_NO_LOCAL_PROBE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return argv, env, "ctx "


def pi_ts_tui(home: Path, port: int) -> tuple[list[str], dict[str, str], str]:
    """(argv, env, ready text) for the TypeScript pi's TUI against the fake server."""
    agent_dir = home / "pi-ts-agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    models = {
        "providers": {
            "fake": {
                "baseUrl": f"http://127.0.0.1:{port}/v1",
                "api": "openai-completions",
                "apiKey": "bench-key",
                "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                "models": [{"id": "fake-model"}],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(models))
    (agent_dir / "settings.json").write_text(json.dumps({"quietStartup": True}))
    argv = ["node", str(PI_TS / "dist" / "cli.js"), "--provider", "fake", "--model", "fake-model"]
    argv += ["--no-session"]
    env = {
        "PI_CODING_AGENT_DIR": str(agent_dir),
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
        "HOME": str(home),
    }
    return argv, env, "fake-model"
