"""Models reached with ``pi login``'s tokens: ``openai-codex/…`` (ChatGPT's Codex backend over
the Responses transport) and ``github-copilot/…`` (the Copilot API, its token exchanged for
the GitHub one), against a local fake provider and a local fake authorization server: the
exact headers, the token exchange, a refresh mid-session (before expiry, on the next request),
one refresh for concurrent requests, and a revoked sign-in saying what to do."""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pi_cli.shell.config import auth as auth_module
from pi_cli.shell.config import oauth
from pi_cli.shell.config.auth import AuthStore, Credentials
from pi_cli.shell.config.subscription import SubscriptionAuth, copilot_base_url
from tests.fakes import FakeProviderServer, ToolCallSpec, Turn
from tests.fakes.oauth_server import FakeAuthServer

HOUR_MS = 3_600_000


class Clock:
    """``auth.time`` with a settable offset: a long session without waiting for it."""

    def __init__(self) -> None:
        self.offset_s = 0.0

    def time(self) -> float:
        return time.time() + self.offset_s


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(auth_module, "time", fake)
    return fake


@pytest.fixture
def fake_auth(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAuthServer]:
    with FakeAuthServer(expires_in=48 * 3600) as server:
        for name, provider in oauth.PROVIDERS.items():
            monkeypatch.setitem(
                oauth.PROVIDERS,
                name,
                replace(
                    provider,
                    token_url=f"{server.url}/token",
                    exchange_url=f"{server.url}/copilot" if provider.exchange_url else "",
                ),
            )
        yield server


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("PI_HOME", str(home))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return home


def codex_token(n: int, account: str = "acct-fake-1") -> str:
    claims = {"https://api.openai.com/auth": {"chatgpt_account_id": account}}
    payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"at-{n}.{payload}.sig"


async def run_turns(
    home: Path, model: str, api_base: str, prompts: list[str], between: Any = None
) -> Any:
    from pi_cli.shell.coding_agent import CodingAgent, ShellOptions

    project = home.parent / "project"
    project.mkdir(exist_ok=True)
    (project / "notes.txt").write_text("hello\n")
    shell = CodingAgent(ShellOptions(cwd=project, model=model, api_base=api_base))
    try:
        for index, prompt in enumerate(prompts):
            if index and between is not None:
                between()
            await shell.submit(prompt)
            await shell.wait_idle()
    finally:
        await shell.aclose()
    return shell


async def test_codex_sends_chatgpt_headers_and_renews_its_token_mid_session(
    home: Path, fake_auth: FakeAuthServer, clock: Clock
) -> None:
    fake_auth.refresh_tokens.add("rt-stored")
    later = int(time.time() * 1000) + HOUR_MS
    AuthStore(home).save("openai-codex", Credentials(codex_token(0), "rt-stored", later))
    with FakeProviderServer([Turn(text="one"), Turn(text="two")]) as server:

        def two_hours_later() -> None:
            clock.offset_s = 2 * 3600  # the stored token has expired meanwhile

        shell = await run_turns(
            home, "openai-codex/gpt-5.1", server.openai_base_url, ["a", "b"], two_hours_later
        )
        first, second = server.request_headers
        bodies, paths = server.requests, server.request_paths
    assert paths == ["/v1/responses", "/v1/responses"]
    assert first["Authorization"] == f"Bearer {codex_token(0)}"
    assert first["chatgpt-account-id"] == "acct-fake-1"
    assert first["originator"] == "pi" and first["OpenAI-Beta"] == "responses=experimental"
    assert first["User-Agent"].startswith("pi (")
    assert "x-api-key" not in first and "api-key" not in first
    # The second request carries the token renewed just before it, and it was stored.
    renewed = AuthStore(home).get("openai-codex")
    assert renewed is not None and renewed.access.startswith("at-")
    assert second["Authorization"] == f"Bearer {renewed.access}"
    assert renewed.access != codex_token(0) and fake_auth.refreshes == 1
    assert renewed.extra.get("accountId") is None or renewed.extra["accountId"] == "acct-fake-1"
    body = bodies[0]
    assert body["model"] == "gpt-5.1" and body["store"] is False and body["stream"] is True
    assert body["include"] == ["reasoning.encrypted_content"] and "max_output_tokens" not in body
    assert isinstance(body.get("instructions"), str) and body["instructions"]
    assert [m.text for m in shell.agent.state.messages if m.role == "assistant"] == ["one", "two"]


async def test_copilot_exchanges_the_github_token_and_marks_agent_follow_ups(
    home: Path, fake_auth: FakeAuthServer, clock: Clock
) -> None:
    fake_auth.github_tokens.add("gho-stored")
    copilot = "tid=1;exp=1;sku=free;proxy-ep=proxy.individual.githubcopilot.com;8kp=1:c-0"
    later = int(time.time() * 1000) + HOUR_MS
    AuthStore(home).save("github-copilot", Credentials(copilot, "gho-stored", later))
    turns = [
        Turn(tool_calls=[ToolCallSpec("read", {"path": "notes.txt"})]),
        Turn(text="read it"),
        Turn(text="again"),
    ]
    with FakeProviderServer(turns) as server:

        def an_hour_later() -> None:
            clock.offset_s = 3600  # the Copilot token (30 minutes) has expired

        await run_turns(
            home, "github-copilot/gpt-4.1", server.openai_base_url, ["a", "b"], an_hour_later
        )
        headers, paths = server.request_headers, server.request_paths
    assert paths == ["/v1/chat/completions"] * 3
    expected = {
        "Authorization": f"Bearer {copilot}",
        "User-Agent": "GitHubCopilotChat/0.35.0",
        "Editor-Version": "vscode/1.107.0",
        "Editor-Plugin-Version": "copilot-chat/0.35.0",
        "Copilot-Integration-Id": "vscode-chat",
        "Openai-Intent": "conversation-edits",
        "X-Initiator": "user",
    }
    assert {k: headers[0].get(k) for k in expected} == expected
    assert headers[1]["X-Initiator"] == "agent"  # the follow-up after a tool result
    assert headers[1]["Authorization"] == f"Bearer {copilot}"
    assert "Copilot-Vision-Request" not in headers[0]
    # An hour on: the GitHub token bought a new Copilot token (Bearer, the editor's identity).
    exchanged = headers[2]["Authorization"].removeprefix("Bearer ")
    assert exchanged != copilot and ":copilot-" in exchanged
    (exchange,) = fake_auth.exchange_headers
    assert exchange["Authorization"] == "Bearer gho-stored"
    assert exchange["Copilot-Integration-Id"] == "vscode-chat"
    assert exchange["Editor-Version"] == "vscode/1.107.0"


@pytest.mark.parametrize(
    ("name", "path"),
    [("claude-sonnet-4.5", "/v1/messages"), ("gpt-5.1", "/v1/responses")],
)
async def test_copilot_models_speak_their_own_api(
    home: Path, fake_auth: FakeAuthServer, name: str, path: str
) -> None:
    fake_auth.github_tokens.add("gho-stored")
    later = int(time.time() * 1000) + HOUR_MS
    AuthStore(home).save("github-copilot", Credentials("tid=1;8kp=1:c", "gho-stored", later))
    with FakeProviderServer([Turn(text="hi")]) as server:
        base = server.anthropic_base_url if path == "/v1/messages" else server.openai_base_url
        await run_turns(home, f"github-copilot/{name}", base, ["a"])
        (headers,), paths = server.request_headers, server.request_paths
    assert paths == [path]
    assert headers["Authorization"] == "Bearer tid=1;8kp=1:c"
    assert "x-api-key" not in headers and headers["Copilot-Integration-Id"] == "vscode-chat"


async def test_a_sign_in_revoked_mid_session_says_run_pi_login(
    home: Path, fake_auth: FakeAuthServer, clock: Clock
) -> None:
    later = int(time.time() * 1000) + HOUR_MS  # its refresh token was never issued: revoked
    AuthStore(home).save("openai-codex", Credentials(codex_token(0), "rt-revoked", later))
    with FakeProviderServer([Turn(text="one"), Turn(text="never sent")]) as server:

        def two_hours_later() -> None:
            clock.offset_s = 2 * 3600

        shell = await run_turns(
            home, "openai-codex/gpt-5.1", server.openai_base_url, ["a", "b"], two_hours_later
        )
        assert len(server.requests) == 1  # the second request never left
    last = shell.agent.state.messages[-1]
    assert last.stop_reason == "error"
    assert "run pi login openai-codex" in (last.error_message or "")
    assert "rt-revoked" not in (last.error_message or "")


def test_not_signed_in_is_said_at_start(home: Path) -> None:
    from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
    from pi_cli.shell.models.setup import ConfigError

    with pytest.raises(ConfigError, match="run pi login github-copilot"):
        CodingAgent(ShellOptions(cwd=home.parent, model="github-copilot/gpt-4.1"))


def test_concurrent_requests_refresh_once(
    home: Path, fake_auth: FakeAuthServer, clock: Clock
) -> None:
    fake_auth.refresh_tokens.add("rt-stored")
    fake_auth.refresh_delay_s = 0.3  # widens the window in which both requests ask
    AuthStore(home).save("openai-codex", Credentials(codex_token(0), "rt-stored", 0))
    auth = SubscriptionAuth(
        "openai-codex", oauth.refresher(oauth.PROVIDERS["openai-codex"]), store=AuthStore(home)
    )
    assert not auth.ready()
    barrier = threading.Barrier(4)
    seen: list[str] = []

    def request() -> None:
        barrier.wait()
        seen.append(dict(auth.headers([]))["Authorization"])

    threads = [threading.Thread(target=request) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert fake_auth.refreshes == 1 and len(set(seen)) == 1 and auth.ready()
    assert seen[0].removeprefix("Bearer ") in auth.secrets()


def test_copilot_base_url_comes_from_the_token() -> None:
    token = "tid=x;exp=1;proxy-ep=proxy.business.githubcopilot.com;8kp=1:abc"
    assert copilot_base_url(token) == "https://api.business.githubcopilot.com"
    assert copilot_base_url("tid=x;8kp=1") == "https://api.individual.githubcopilot.com"
    hostile = "proxy-ep=evil.example/@x;"
    assert copilot_base_url(hostile) == "https://api.individual.githubcopilot.com"


async def test_a_token_refused_before_it_expired_is_renewed_and_the_request_tried_again(
    home: Path, fake_auth: FakeAuthServer
) -> None:
    fake_auth.refresh_tokens.add("rt-stored")
    later = int(time.time() * 1000) + HOUR_MS  # fresh by the clock, yet revoked server-side
    AuthStore(home).save("openai-codex", Credentials(codex_token(0), "rt-stored", later))
    turns = [Turn(status=401, error_message="token revoked"), Turn(text="after renewal")]
    with FakeProviderServer(turns) as server:
        shell = await run_turns(home, "openai-codex/gpt-5.1", server.openai_base_url, ["a"])
        first, second = server.request_headers
    assert first["Authorization"] == f"Bearer {codex_token(0)}"
    renewed = AuthStore(home).get("openai-codex")
    assert renewed is not None and second["Authorization"] == f"Bearer {renewed.access}"
    assert fake_auth.refreshes == 1
    assert shell.agent.state.messages[-1].text == "after renewal"


async def test_a_renewed_token_refused_too_is_not_renewed_again(
    home: Path, fake_auth: FakeAuthServer
) -> None:
    fake_auth.refresh_tokens.add("rt-stored")
    later = int(time.time() * 1000) + HOUR_MS
    AuthStore(home).save("openai-codex", Credentials(codex_token(0), "rt-stored", later))
    turns = [Turn(status=401, error_message="no plan") for _ in range(4)]
    with FakeProviderServer(turns) as server:
        shell = await run_turns(home, "openai-codex/gpt-5.1", server.openai_base_url, ["a"])
        assert len(server.requests) == 2  # the first token, then the renewed one: no loop
    assert fake_auth.refreshes == 1
    last = shell.agent.state.messages[-1]
    assert last.stop_reason == "error" and "HTTP 401" in (last.error_message or "")
    assert "check your sign-in (pi login openai-codex)" in (last.error_message or "")


def test_the_model_picker_offers_what_the_signed_in_subscriptions_serve(home: Path) -> None:
    from pi_cli.shell.models.choices import model_rows

    later = int(time.time() * 1000) + HOUR_MS
    AuthStore(home).save("github-copilot", Credentials("tid=1", "gho", later))
    AuthStore(home).save("anthropic", Credentials("sk-ant-oat01-x", "rt", later))
    catalogue = [
        __import__("agent_core.providers", fromlist=["resolve_model"]).resolve_model(
            spec, api_key="k", env={}
        )
        for spec in ("anthropic/claude-sonnet-4-5", "openai/gpt-4.1")
    ]
    rows = model_rows("", env={}, catalogue=catalogue, local=[])
    notes = {row.spec: (row.note, row.configured) for row in rows}
    assert notes["github-copilot/claude-sonnet-4.5"] == ("pi login github-copilot", True)
    assert notes["github-copilot/gpt-5.1-codex"] == ("pi login github-copilot", True)
    assert notes["anthropic/claude-sonnet-4-5"] == ("pi login anthropic", True)
    assert notes["openai/gpt-4.1"][1] is False  # no key, no sign-in
    assert not any(spec.startswith("openai-codex/") for spec in notes)  # not signed in


async def test_a_spent_chatgpt_plan_is_said_once_not_retried(home: Path) -> None:
    later = int(time.time() * 1000) + HOUR_MS
    AuthStore(home).save("openai-codex", Credentials(codex_token(0), "rt", later))
    resets = int(time.time()) + 47 * 60 + 20
    limit = {  # the shape ChatGPT's Codex backend answers (pi-ts parses the same fields)
        "error": {
            "type": "usage_limit_reached",
            "message": "The usage limit has been reached",
            "plan_type": "PLUS",
            "resets_at": resets,
        }
    }
    turns = [Turn(json_body=limit, status=429), Turn(text="never")]
    with FakeProviderServer(turns) as server:
        shell = await run_turns(home, "openai-codex/gpt-5.1", server.openai_base_url, ["a"])
        assert len(server.requests) == 1  # a spent plan is not retried
    message = shell.agent.state.messages[-1].error_message or ""
    assert "You have hit your ChatGPT usage limit (plus plan). Try again in ~4" in message
    assert re.search(r"Try again in ~4[678] min\.", message)  # 47 min when asked
