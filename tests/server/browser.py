"""Headless Chromium (Debian's ``chromium``) driven over the Chrome DevTools Protocol.

The browser runs with ``--remote-debugging-port=0``; its port is read from
``DevToolsActivePort`` in the profile, and one page target is driven over its WebSocket (the
``websockets`` library's sync client): navigate, evaluate JavaScript, wait for a condition,
take a screenshot, and collect what the console and CSP said.
"""

from __future__ import annotations

import base64
import itertools
import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
]


class BrowserError(AssertionError):
    """The page did not do what the test waited for (with what the console said)."""


class Browser:
    """One headless Chromium with one page."""

    def __init__(self, profile: Path, width: int = 390, height: int = 844) -> None:
        assert CHROMIUM is not None
        profile.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                CHROMIUM,
                *FLAGS,
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._ids = itertools.count(1)
        self.console: list[str] = []
        self.events: list[dict[str, Any]] = []
        port = self._port(profile / "DevToolsActivePort")
        targets = json.loads(
            urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=10).read()
        )
        page = next(t for t in targets if t.get("type") == "page")
        self.ws = connect(page["webSocketDebuggerUrl"], max_size=None).__enter__()
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=True,
        )

    def _port(self, path: Path) -> int:
        end = time.monotonic() + 30
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise BrowserError("chromium exited at start")
            try:
                return int(path.read_text().splitlines()[0])
            except (OSError, ValueError, IndexError):
                time.sleep(0.05)
        raise BrowserError("chromium did not open its debugging port")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """One CDP command; its result (events meanwhile are kept)."""
        request_id = next(self._ids)
        self.ws.send(json.dumps({"id": request_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=60))
            if message.get("id") == request_id:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))
            self._event(message)

    def _event(self, message: dict[str, Any]) -> None:
        self.events.append(message)
        method = message.get("method")
        params = message.get("params", {})
        if method == "Runtime.consoleAPICalled":
            self.console.append(
                " ".join(
                    str(a.get("value", a.get("description", ""))) for a in params.get("args", [])
                )
            )
        elif method == "Runtime.exceptionThrown":
            self.console.append(
                "exception: " + json.dumps(params.get("exceptionDetails", {}))[:500]
            )
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            self.console.append(f"{entry.get('level')}: {entry.get('text')}")

    def goto(self, url: str) -> None:
        """Open ``url`` and wait for the page to load."""
        self.call("Page.navigate", url=url)
        self.wait(
            "document.readyState === 'complete' && location.href !== 'about:blank'", "the page"
        )

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression (promises awaited)."""
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def wait(self, expression: str, what: str, timeout: float = 30) -> Any:
        """Until ``expression`` is truthy; its value."""
        probe = f"(() => {{ const v = ({expression}); return v instanceof Node ? true : v; }})()"
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            value = self.eval(probe)
            if value:
                return value
            time.sleep(0.05)
        raise BrowserError(f"timed out waiting for {what}; console: {self.console[-20:]}")

    def screenshot(self, path: Path) -> None:
        """A PNG of the page."""
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        """End the browser."""
        try:
            self.ws.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
