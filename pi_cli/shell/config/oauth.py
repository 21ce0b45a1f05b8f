"""``pi login``'s OAuth flows: browser sign-in with PKCE (a loopback callback, or the code pasted
back) and the device-code flow, then refreshing the tokens they give.

The providers are those the TypeScript pi signs in to, with the same public client ids and
endpoints (``docs/login.md`` says what each provider's terms allow). Requests use httpx through
the ``network`` settings' proxy and trust.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import secrets
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pi_cli.shell.config._oauth_http import OAuthProvider, Say, client_for
from pi_cli.shell.config.auth import AuthError, Credentials

if TYPE_CHECKING:
    from agent_core.net import NetworkConfig


def _b64(text: str) -> str:
    return base64.b64decode(text).decode()


PROVIDERS: dict[str, OAuthProvider] = {
    "anthropic": OAuthProvider(
        "anthropic",
        "Anthropic (Claude Pro/Max)",
        "pkce",
        _b64("OWQxYzI1MGEtZTYxYi00NGQ5LTg4ZWQtNTk0NGQxOTYyZjVl"),
        "https://platform.claude.com/v1/oauth/token",
        authorize_url="https://claude.ai/oauth/authorize",
        scope="org:create_api_key user:profile user:inference",
        callback_port=53692,
        json_body=True,
        extra_params={"code": "true"},
    ),
    "openai-codex": OAuthProvider(
        "openai-codex",
        "OpenAI (ChatGPT Plus/Pro, Codex)",
        "pkce",
        "app_EMoamEEZ73f0CkXaXp7hrann",
        "https://auth.openai.com/oauth/token",
        authorize_url="https://auth.openai.com/oauth/authorize",
        scope="openid profile email offline_access",
        callback_port=1455,
        callback_path="/auth/callback",
        extra_params={
            "id_token_add_organizations": "true",
            "codex_cli_simplified_flow": "true",
            "originator": "pi",
        },
    ),
    "github-copilot": OAuthProvider(
        "github-copilot",
        "GitHub Copilot",
        "device",
        _b64("SXYxLmI1MDdhMDhjODdlY2ZlOTg="),
        "https://github.com/login/oauth/access_token",
        device_url="https://github.com/login/device/code",
        scope="read:user",
        exchange_url="https://api.github.com/copilot_internal/v2/token",
    ),
}


OAUTH_PROVIDERS = PROVIDERS
"""The same table, under the name the shell's front door gives it."""


def _post(provider: OAuthProvider, url: str, body: dict[str, str], network: Any) -> dict[str, Any]:
    import httpx

    headers = {"Accept": "application/json"}
    try:
        with client_for(network) as client:
            if provider.json_body:
                response = client.post(url, json=body, headers=headers)
            else:
                response = client.post(url, data=body, headers=headers)
    except httpx.HTTPError as exc:
        raise AuthError(f"{provider.title}: {url} could not be reached ({exc})") from None
    try:
        data = response.json()
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    if response.status_code >= 400 and not data.get("error"):
        raise AuthError(f"{provider.title}: {url} answered HTTP {response.status_code}")
    return data


def _credentials(
    provider: OAuthProvider, data: dict[str, Any], old_refresh: str = ""
) -> Credentials:
    if data.get("error"):
        what = data.get("error_description") or data["error"]
        if data["error"] in ("invalid_grant", "invalid_token", "unauthorized_client"):
            raise AuthError(
                f"{provider.title} refused the sign-in ({what}): it was revoked or has expired; "
                f"run pi login {provider.name}"
            )
        raise AuthError(f"{provider.title}: {what}")
    access = data.get("access_token")
    if not isinstance(access, str) or not access:
        raise AuthError(f"{provider.title} answered without an access token")
    refresh = data.get("refresh_token") or old_refresh
    expires_in = data.get("expires_in")
    lifetime = int(expires_in) if isinstance(expires_in, int | float) else 3600
    return Credentials(access, str(refresh), int(time.time() * 1000) + lifetime * 1000)


# ---------------------------------------------------------------------------- PKCE


def pkce_pair() -> tuple[str, str]:
    """(verifier, S256 challenge)."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


class _CallbackServer(http.server.ThreadingHTTPServer):
    """The loopback server the browser is sent back to (one sign-in)."""

    path: str
    state: str
    result: dict[str, str] | None
    done: threading.Event


class _Callback(http.server.BaseHTTPRequestHandler):
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        parts = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(parts.query))
        ok = parts.path == self.server.path and query.get("state") == self.server.state
        ok = ok and bool(query.get("code"))
        body = b"Signed in: return to your terminal." if ok else b"Sign-in failed or not for pi."
        self.send_response(200 if ok else 400)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if ok or query.get("error"):
            self.server.result = query
            self.server.done.set()


def pkce_login(
    provider: OAuthProvider,
    say: Say,
    *,
    open_browser: Callable[[str], Any] | None = None,
    paste: Callable[[], str | None] | None = None,
    timeout_s: float = 300.0,
    network: NetworkConfig | None = None,
) -> Credentials:
    """Browser sign-in: the loopback callback catches the code (or it is pasted back)."""
    verifier, challenge = pkce_pair()
    state = secrets.token_urlsafe(24)
    server = _CallbackServer(("127.0.0.1", provider.callback_port), _Callback)
    port = server.server_address[1]
    provider = replace(provider, callback_port=port)
    server.path, server.state, server.result, server.done = (
        provider.callback_path,
        state,
        None,
        threading.Event(),
    )
    params = {
        "response_type": "code",
        "client_id": provider.client_id,
        "redirect_uri": provider.redirect_uri,
        "scope": provider.scope,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": state,
        **provider.extra_params,
    }
    url = f"{provider.authorize_url}?{urllib.parse.urlencode(params)}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        say(f"Sign in to {provider.title} in your browser:\n  {url}")
        if open_browser is not None:
            open_browser(url)
        result = _wait_for_code(server, paste, timeout_s)
    finally:
        server.shutdown()
        server.server_close()
    if result.get("error"):
        raise AuthError(f"{provider.title}: {result.get('error_description') or result['error']}")
    if result.get("state") != state:
        raise AuthError(f"{provider.title}: the answer is not for this sign-in (state mismatch)")
    body = {
        "grant_type": "authorization_code",
        "client_id": provider.client_id,
        "code": result["code"],
        "redirect_uri": provider.redirect_uri,
        "code_verifier": verifier,
    }
    if provider.json_body:
        body["state"] = state
    credentials = _credentials(provider, _post(provider, provider.token_url, body, network))
    if provider.name == "openai-codex":  # stored as the TypeScript pi does
        from pi_cli.shell.config.subscription import codex_account_id

        credentials.extra["accountId"] = codex_account_id(credentials)
    return credentials


def _wait_for_code(
    server: Any, paste: Callable[[], str | None] | None, timeout_s: float
) -> dict[str, str]:
    if paste is not None:  # the browser may be on another machine: the code can come back typed

        def read_paste() -> None:
            text = paste()
            if text and not server.done.is_set():
                server.result = parse_pasted(text, server.state)
                server.done.set()

        threading.Thread(target=read_paste, daemon=True).start()
    if not server.done.wait(timeout_s):
        raise AuthError("no sign-in arrived in time: run pi login again")
    return dict(server.result or {})


def parse_pasted(text: str, state: str) -> dict[str, str]:
    """A pasted redirect URL, ``code#state`` or a bare code."""
    text = text.strip()
    if "://" in text:
        return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(text).query))
    if "#" in text:
        code, _, given = text.partition("#")
        return {"code": code, "state": given}
    return {"code": text, "state": state}


# ---------------------------------------------------------------------------- device code


def device_login(
    provider: OAuthProvider,
    say: Say,
    *,
    sleep: Callable[[float], None] = time.sleep,
    network: NetworkConfig | None = None,
) -> Credentials:
    """Device-code sign-in: show a code, poll until the user has entered it."""
    start = _post(
        provider,
        provider.device_url,
        {"client_id": provider.client_id, "scope": provider.scope},
        network,
    )
    code, device = start.get("user_code"), start.get("device_code")
    if not isinstance(code, str) or not isinstance(device, str):
        raise AuthError(f"{provider.title} did not start a device sign-in")
    say(f"Open {start.get('verification_uri')} and enter the code {code}")
    interval = float(start.get("interval") or 5)
    deadline = time.monotonic() + float(start.get("expires_in") or 900)
    body = {
        "client_id": provider.client_id,
        "device_code": device,
        "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
    }
    while time.monotonic() < deadline:
        sleep(interval)
        data = _post(provider, provider.token_url, body, network)
        error = data.get("error")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            interval = float(data.get("interval") or interval + 5)
            continue
        if error in ("expired_token", "access_denied"):
            raise AuthError(
                f"{provider.title}: the sign-in was {'denied' if error == 'access_denied' else 'not completed in time'}"
            )
        github = _credentials(provider, data)
        if not provider.exchange_url:
            return github
        from pi_cli.shell.config._copilot import enable_copilot_models, exchange_copilot

        copilot = exchange_copilot(provider, github.access, network)
        enable_copilot_models(provider, copilot, say, network)
        return copilot
    raise AuthError(f"{provider.title}: the code was not entered in time: run pi login again")


def refresher(provider: OAuthProvider, network: Any = None) -> Callable[[Credentials], Credentials]:
    """How ``provider``'s credentials are renewed (for :meth:`AuthStore.access_token`)."""

    def renew(old: Credentials) -> Credentials:
        if provider.exchange_url:
            from pi_cli.shell.config._copilot import exchange_copilot

            return exchange_copilot(provider, old.refresh, network)
        body = {
            "grant_type": "refresh_token",
            "client_id": provider.client_id,
            "refresh_token": old.refresh,
        }
        renewed = _credentials(
            provider, _post(provider, provider.token_url, body, network), old.refresh
        )
        renewed.extra = dict(old.extra)
        return renewed

    return renew
