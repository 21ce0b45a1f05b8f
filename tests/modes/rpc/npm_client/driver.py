"""A Python handle on pi's own ``RpcClient`` (npm ``@mariozechner/pi-coding-agent``), which in
turn drives ``pi --mode rpc`` of this project through ``pi_shim.cjs``."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from queue import Empty, Queue
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]
TIMEOUT = 30.0


class PiRpcClient:
    """Each method call is one call of pi's ``RpcClient`` (same name, same arguments)."""

    def __init__(self, package_dir: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            ["node", str(HERE / "bridge.mjs"), str(package_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
        self.events: list[dict[str, Any]] = []
        self._results: dict[int, Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._ids = 0
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            message = json.loads(line)
            if "event" in message:
                with self._lock:
                    self.events.append(message["event"])
            else:
                self._queue(message["id"]).put(message)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)

    def _queue(self, call_id: int) -> Queue[dict[str, Any]]:
        with self._lock:
            return self._results.setdefault(call_id, Queue())

    def send(self, call: str, *args: Any) -> int:
        """Start a call without waiting; :meth:`result` collects it."""
        with self._lock:
            self._ids += 1
            call_id = self._ids
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"id": call_id, "call": call, "args": args}) + "\n")
        self.process.stdin.flush()
        return call_id

    def result(self, call_id: int, timeout: float = TIMEOUT) -> dict[str, Any]:
        try:
            return self._queue(call_id).get(timeout=timeout)
        except Empty:
            raise AssertionError(
                f"call {call_id} timed out; stderr: {''.join(self.stderr)[-3000:]}"
            ) from None

    def call(self, call: str, *args: Any, timeout: float = TIMEOUT) -> Any:
        """Call ``RpcClient.<call>(*args)``; its value, or AssertionError with its error."""
        outcome = self.result(self.send(call, *args), timeout)
        if not outcome["ok"]:
            raise RpcCallError(outcome["error"])
        return outcome["value"]

    def wait_event(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT, start: int = 0
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                found = next((e for e in self.events[start:] if predicate(e)), None)
            if found is not None:
                return found
            time.sleep(0.01)
        raise AssertionError(f"no such event; seen {[e.get('type') for e in self.events]}")

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.call("stop", timeout=10)
            except (AssertionError, RpcCallError, OSError):
                pass
            self.process.kill()
        self.process.wait(timeout=10)


class RpcCallError(Exception):
    """The RpcClient call rejected (its message is the error pi's client raised)."""


def start_options(project: Path, env: dict[str, str], *args: str) -> dict[str, Any]:
    """``RpcClientOptions`` that start this project's pi through the shim."""
    return {
        "cliPath": str(HERE / "pi_shim.cjs"),
        "cwd": str(project),
        "env": {**env, "PI_SHIM_PYTHON": sys.executable},
        "provider": "fake",
        "model": "fake-model",
        "args": list(args),
    }


def fake_provider_env(tmp_path: Path, pi_home: Path, base_url: str) -> dict[str, str]:
    """The environment of a pi whose ``fake`` provider (``fake-model``) is the fake server at
    ``base_url``: its models.json written into ``pi_home``, no real keys, a fresh HOME."""
    import json
    import os

    models = {
        "providers": {
            "fake": {
                "baseUrl": base_url,
                "api": "openai-completions",
                "apiKey": "test-key",
                "models": [{"id": "fake-model", "contextWindow": 100000}],
            }
        }
    }
    (pi_home / "models.json").write_text(json.dumps(models))
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        {
            "PI_HOME": str(pi_home),
            "HOME": str(home),
            "PYTHONPATH": str(REPO),
            "PI_NO_LOCAL_PROBE": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
    )
    return env
