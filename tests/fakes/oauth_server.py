"""A fake OAuth authorization server on loopback: PKCE code grant, rotating refresh tokens,
the device-code grant, and GitHub's Copilot token exchange.

``server.consent(challenge)`` plays the user approving in the browser (a code for that
challenge); refresh tokens are single-use (a reused one is "revoked": ``invalid_grant``);
``refresh_delay_s`` slows refreshes to widen race windows; ``pending`` device polls answer
``authorization_pending`` (one ``slow_down`` first when ``slow_down`` is set).
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _body(self) -> dict[str, str]:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        if self.headers.get("Content-Type", "").startswith("application/json"):
            return {k: str(v) for k, v in json.loads(raw or "{}").items()}
        return dict(urllib.parse.parse_qsl(raw))

    def _json(self, status: int, data: Any) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        fake = self.server.fake
        body = self._body()
        fake.requests.append((self.path, body))
        if self.path.startswith("/models/") and self.path.endswith("/policy"):
            name = urllib.parse.unquote(self.path.split("/")[2])
            fake.policies.append((name, body.get("state", ""), dict(self.headers)))
            self._json(403 if name in fake.refused_models else 200, {})
            return
        if self.path == "/device/code":
            self._json(200, fake.device_start())
            return
        status, data = fake.token(body)
        self._json(status, data)

    def do_GET(self) -> None:
        fake = self.server.fake
        token = self.headers.get("Authorization", "").removeprefix("Bearer ")
        fake.requests.append((self.path, {"token": token}))
        fake.exchange_headers.append(dict(self.headers))
        if token in fake.github_tokens:
            n = next(fake.counter)
            copilot = f"tid={n};exp=1;sku=free;proxy-ep={fake.proxy_ep};8kp=1:copilot-{n}"
            self._json(200, {"token": copilot, "expires_at": int(time.time()) + fake.expires_in})
        else:
            self._json(401, {"message": "Bad credentials"})


class FakeAuthServer:
    """``with FakeAuthServer() as auth: auth.url``."""

    def __init__(self, *, expires_in: int = 3600, refresh_delay_s: float = 0.0) -> None:
        self.expires_in = expires_in
        self.refresh_delay_s = refresh_delay_s
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.codes: dict[str, str] = {}  # code -> challenge
        self.refresh_tokens: set[str] = set()
        self.github_tokens: set[str] = set()
        self.exchange_headers: list[dict[str, str]] = []
        self.proxy_ep = "proxy.individual.githubcopilot.com"
        self.account_id = "acct-fake-1"
        self.policies: list[tuple[str, str, dict[str, str]]] = []
        self.refused_models: set[str] = set()
        self.refreshes = 0
        self.pending = 2
        self.slow_down = False
        self.counter = itertools.count(1)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.fake = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeAuthServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def consent(self, challenge: str) -> str:
        code = f"code-{next(self.counter)}"
        self.codes[code] = challenge
        return code

    def issue(self) -> dict[str, Any]:
        n = next(self.counter)
        refresh = f"rt-{n}"
        self.refresh_tokens.add(refresh)
        # JWT-shaped, as OpenAI's are: the Codex transport reads the ChatGPT account from it.
        claims = {"https://api.openai.com/auth": {"chatgpt_account_id": self.account_id}}
        payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
        access = f"at-{n}.{payload}.sig"
        return {"access_token": access, "refresh_token": refresh, "expires_in": self.expires_in}

    def device_start(self) -> dict[str, Any]:
        return {
            "device_code": "dev-1",
            "user_code": "ABCD-1234",
            "verification_uri": f"{self.url}/device",
            "interval": 0,
            "expires_in": 60,
        }

    def token(self, body: dict[str, str]) -> tuple[int, dict[str, Any]]:
        grant = body.get("grant_type")
        if grant == "authorization_code":
            challenge = self.codes.pop(body.get("code", ""), None)
            verifier = body.get("code_verifier", "")
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(
                b"="
            )
            if challenge is None or digest.decode() != challenge:
                return 400, {"error": "invalid_grant", "error_description": "bad code or verifier"}
            return 200, self.issue()
        if grant == "refresh_token":
            time.sleep(self.refresh_delay_s)
            with self._lock:
                token = body.get("refresh_token", "")
                if token not in self.refresh_tokens:
                    return 400, {
                        "error": "invalid_grant",
                        "error_description": "Refresh token revoked",
                    }
                self.refresh_tokens.discard(token)  # rotation: each refresh token works once
                self.refreshes += 1
                return 200, self.issue()
        if grant == "urn:ietf:params:oauth:grant-type:device_code":
            if self.slow_down:
                self.slow_down = False
                return 400, {"error": "slow_down", "interval": 0}
            if self.pending > 0:
                self.pending -= 1
                return 400, {"error": "authorization_pending"}
            github = f"gho-{next(self.counter)}"
            self.github_tokens.add(github)
            return 200, {"access_token": github, "token_type": "bearer", "scope": "read:user"}
        return 400, {"error": "unsupported_grant_type"}
