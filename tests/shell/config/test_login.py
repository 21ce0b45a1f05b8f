"""pi login / logout against a local fake authorization server: the browser flow (callback and
pasted code), the device flow, refresh before expiry, revoked tokens, two processes refreshing
at once, the file's permissions, and a Claude subscription reaching the Anthropic transport."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import replace
from pathlib import Path

import pytest

from pi_cli.shell.config.auth import AuthError, AuthStore, Credentials
from pi_cli.shell.config.oauth import PROVIDERS, device_login, pkce_login, refresher
from tests.fakes.oauth_server import FakeAuthServer

ROOT = Path(__file__).resolve().parents[3]


def local(name: str, auth: FakeAuthServer) -> object:
    provider = PROVIDERS[name]
    return replace(
        provider,
        token_url=f"{auth.url}/token",
        authorize_url=f"{auth.url}/authorize",
        device_url=f"{auth.url}/device/code",
        exchange_url=f"{auth.url}/copilot" if provider.exchange_url else "",
        models_url=auth.url if provider.exchange_url else "",
        callback_port=0,
    )


def browser(auth: FakeAuthServer, *, paste_instead: list[str] | None = None) -> object:
    """Plays the user: consents for the URL's challenge and follows the redirect (or keeps it
    to paste back)."""

    def open_url(url: str) -> None:
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
        code = auth.consent(query["code_challenge"])
        target = f"{query['redirect_uri']}?code={code}&state={query['state']}"
        if paste_instead is not None:
            paste_instead.append(f"{code}#{query['state']}")
            return
        target = target.replace("localhost", "127.0.0.1")
        urllib.request.urlopen(target, timeout=10).read()

    return open_url


def test_browser_login_with_callback_then_refresh(tmp_path: Path) -> None:
    with FakeAuthServer(expires_in=60) as auth:  # inside the 5-minute margin: always stale
        provider = local("openai-codex", auth)
        said: list[str] = []
        creds = pkce_login(provider, said.append, open_browser=browser(auth), timeout_s=10)  # type: ignore[arg-type]
        store = AuthStore(tmp_path / "home")
        store.save("openai-codex", creds)
        assert creds.access.startswith("at-") and "code_challenge_method=S256" in said[0]
        assert creds.extra == {"accountId": "acct-fake-1"}  # stored as the TypeScript pi does
        renewed = store.access_token("openai-codex", refresher(provider))  # type: ignore[arg-type]
        assert renewed.access != creds.access and auth.refreshes == 1
        assert store.get("openai-codex").refresh == renewed.refresh  # type: ignore[union-attr]
    mode = stat.S_IMODE(os.stat(store.path).st_mode)
    assert mode == 0o600 and stat.S_IMODE(os.stat(store.home).st_mode) == 0o700


def test_pasted_code_anthropic_json_token_endpoint(tmp_path: Path) -> None:
    with FakeAuthServer() as auth:
        provider = local("anthropic", auth)
        pasted: list[str] = []

        def paste() -> str | None:
            deadline = time.monotonic() + 5
            while not pasted and time.monotonic() < deadline:
                time.sleep(0.01)
            return pasted[0] if pasted else None

        creds = pkce_login(
            provider,  # type: ignore[arg-type]
            lambda _: None,
            open_browser=browser(auth, paste_instead=pasted),
            paste=paste,
            timeout_s=10,
        )
        path, body = auth.requests[-1]
    assert creds.access.startswith("at-")
    assert path == "/token" and body["grant_type"] == "authorization_code" and "state" in body


def test_a_forged_state_is_refused(tmp_path: Path) -> None:
    with FakeAuthServer() as auth:
        provider = local("anthropic", auth)
        with pytest.raises(AuthError, match="state mismatch"):
            pkce_login(
                provider,  # type: ignore[arg-type]
                lambda _: None,
                paste=lambda: "somecode#not-the-state",
                timeout_s=5,
            )


def test_device_flow_for_copilot_with_pending_and_slow_down(tmp_path: Path) -> None:
    with FakeAuthServer() as auth:
        auth.slow_down = True
        auth.refused_models.add("grok-code-fast-1")
        provider = local("github-copilot", auth)
        said: list[str] = []
        creds = device_login(provider, said.append, sleep=lambda _: None)  # type: ignore[arg-type]
        assert "ABCD-1234" in said[0]
        assert "proxy-ep=proxy.individual.githubcopilot.com" in creds.access
        assert creds.refresh.startswith("gho-")
        # As the editors do at sign-in: every catalogue model's policy accepted (one refused
        # by the organization is only counted).
        enabled = [name for name, state, _ in auth.policies if state == "enabled"]
        assert "claude-sonnet-4.5" in enabled and "gpt-4.1" in enabled
        _, _, policy_headers = auth.policies[0]
        assert policy_headers["Authorization"] == f"Bearer {creds.access}"
        assert policy_headers["openai-intent"] == "chat-policy"
        assert policy_headers["Copilot-Integration-Id"] == "vscode-chat"
        assert "Enabled 22 of 23 Copilot models." in said
        (exchange,) = auth.exchange_headers
        assert exchange["Authorization"] == f"Bearer {creds.refresh}"
        assert exchange["Copilot-Integration-Id"] == "vscode-chat"
        assert exchange["Editor-Version"] == "vscode/1.107.0"
        store = AuthStore(tmp_path / "home")
        store.save("github-copilot", replace(creds, expires=0))
        again = store.access_token("github-copilot", refresher(provider))  # type: ignore[arg-type]
        assert ":copilot-" in again.access and again.access != creds.access
        auth.github_tokens.clear()  # the user revoked pi on GitHub
        store.save("github-copilot", replace(again, expires=0))
        with pytest.raises(AuthError, match="revoked"):
            store.access_token("github-copilot", refresher(provider))  # type: ignore[arg-type]


def test_revoked_refresh_token_says_sign_in_again(tmp_path: Path) -> None:
    with FakeAuthServer() as auth:
        provider = local("anthropic", auth)
        store = AuthStore(tmp_path / "home")
        store.save("anthropic", Credentials("at-old", "rt-never-issued", 0))
        with pytest.raises(AuthError, match="pi login anthropic"):
            store.access_token("anthropic", refresher(provider))  # type: ignore[arg-type]
        assert store.get("anthropic").access == "at-old"  # type: ignore[union-attr]  # kept


def test_fresh_token_is_used_without_a_request(tmp_path: Path) -> None:
    store = AuthStore(tmp_path / "home")
    later = int(time.time() * 1000) + 3_600_000
    store.save("anthropic", Credentials("at-1", "rt-1", later))

    def never(_: Credentials) -> Credentials:
        raise AssertionError("refreshed a fresh token")

    assert store.access_token("anthropic", never).access == "at-1"


RACER = """
import sys, json
from dataclasses import replace
from pathlib import Path
from pi_cli.shell.config.auth import AuthStore
from pi_cli.shell.config.oauth import PROVIDERS, refresher
url, home, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
provider = replace(PROVIDERS["anthropic"], token_url=url + "/token")
while not go.exists():
    pass
print(AuthStore(Path(home)).access_token("anthropic", refresher(provider)).access)
"""


def test_two_processes_refreshing_at_once_spend_the_token_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with FakeAuthServer(refresh_delay_s=0.3) as auth:
        first = auth.issue()
        AuthStore(home).save(
            "anthropic", Credentials(first["access_token"], first["refresh_token"], 0)
        )
        go = tmp_path / "go"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        racers = [
            subprocess.Popen(
                [sys.executable, "-c", RACER, auth.url, str(home), str(go)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                cwd=ROOT,
            )
            for _ in range(2)
        ]
        go.touch()
        outputs = [r.communicate(timeout=60) for r in racers]
        assert all(r.returncode == 0 for r in racers), outputs
        tokens = {out.strip() for out, _ in outputs}
        assert auth.refreshes == 1  # the second waited, re-read the file, found a fresh token
        assert len(tokens) == 1
    assert json.loads((home / "auth.json").read_text())["anthropic"]["access"] in tokens


def test_logout_and_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    AuthStore(home).save("anthropic", Credentials("a", "r", 0))
    env = {**os.environ, "PI_HOME": str(home), "PYTHONPATH": str(ROOT), "PI_NO_REEXEC": "1"}
    run = [sys.executable, "-m", "pi_cli.cli"]
    listed = subprocess.run(
        [*run, "login", "--list"], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert "anthropic" in listed.stdout and "signed in" in listed.stdout
    out = subprocess.run(
        [*run, "logout", "anthropic"], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert out.returncode == 0 and "Signed out of anthropic" in out.stdout
    assert AuthStore(home).providers() == []


async def test_a_claude_subscription_reaches_the_anthropic_transport(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
    from tests.fakes import FakeProviderServer, Turn

    home = tmp_path / "home"
    monkeypatch.setenv("PI_HOME", str(home))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    later = int(time.time() * 1000) + 3_600_000
    AuthStore(home).save("anthropic", Credentials("sk-ant-oat01-SUBSCRIPTION", "rt", later))
    project = tmp_path / "p"
    project.mkdir()
    with FakeProviderServer([Turn(text="hello from claude")]) as server:
        models = home / "models.json"
        models.write_text(json.dumps({"providers": {}}))
        monkeypatch.setattr(
            "agent_core.providers.models.NATIVE",
            {**__import__("agent_core.providers.models", fromlist=["NATIVE"]).NATIVE},
        )
        from agent_core.providers import models as m

        m.NATIVE["anthropic"] = replace(m.NATIVE["anthropic"], base_url=server.anthropic_base_url)
        shell = CodingAgent(ShellOptions(cwd=project, model="anthropic/claude-sonnet-4-5"))
        await shell.submit("hi")
        await shell.wait_idle()
        await shell.aclose()
        headers = server.request_headers[0]
    assert headers.get("Authorization") == "Bearer sk-ant-oat01-SUBSCRIPTION"
    assert headers.get("anthropic-beta") == "oauth-2025-04-20" and "x-api-key" not in headers
    assert shell.agent.state.messages[-1].text == "hello from claude"
