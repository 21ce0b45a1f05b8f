"""web_fetch through the shell: the model's call, the permission model by domain, the allow-list.

The pages come from the loopback web server, which the user settings allow by its exact
address (``webFetch.allowPrivateHosts``): the default still refuses every other loopback port.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_cli.shell.events import PermissionRequested
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.fakes.web_server import WebServer
from tests.shell.agent_tools.conftest import RunPi, fake_args, make_shell, tool_texts


@pytest.fixture
def web(pi_home: Path) -> Iterator[WebServer]:
    with WebServer() as server:
        settings = {"webFetch": {"allowPrivateHosts": [server.address]}}
        (pi_home / "settings.json").write_text(json.dumps(settings))
        yield server


def fetch(call_id: str, url: str, **extra: Any) -> ToolCallSpec:
    return ToolCallSpec("web_fetch", {"url": url, **extra}, id=call_id)


async def test_a_url_the_user_typed_is_fetched_without_asking(
    project: Path, server: FakeProviderServer, web: WebServer
) -> None:
    url = web.url("/page/v8-blog")
    server.add(Turn(tool_calls=[fetch("f1", url)]), Turn(text="It is about standalone Wasm."))
    shell = make_shell(project, server)
    asked: list[Any] = []
    shell.subscribe(lambda e: asked.append(e) if isinstance(e, PermissionRequested) else None)
    await shell.submit(f"Summarise {url} for me.")
    await shell.wait_idle()
    assert asked == []
    (result,) = tool_texts(server.requests[1])
    assert result.startswith(f"URL: {url}\n(converted from HTML to Markdown)")
    assert "standalone Wasm" in result
    await shell.aclose()


async def test_another_domain_asks_and_an_answer_remembers_it(
    project: Path, server: FakeProviderServer, web: WebServer
) -> None:
    first, second = web.url("/text"), web.url("/json")
    server.add(
        Turn(tool_calls=[fetch("f1", first)]),
        Turn(tool_calls=[fetch("f2", second)]),
        Turn(text="done"),
    )
    shell = make_shell(project, server, approvals="interactive")
    asked: list[PermissionRequested] = []

    def answer(event: Any) -> None:
        if isinstance(event, PermissionRequested):
            asked.append(event)
            shell.answer(event.id, "allow_session")

    shell.subscribe(answer)
    await shell.submit("check the local service")
    await shell.wait_idle()
    assert len(asked) == 1  # the second fetch of that host needed no question
    assert asked[0].reason == "it fetches from 127.0.0.1, a domain no rule allows"
    assert asked[0].rules["user"] == ["WebFetch(domain:127.0.0.1)"]
    assert asked[0].title == first
    texts = tool_texts(server.requests[2])
    assert "line one" in texts[0] and '"name": "pi"' in texts[1]
    await shell.aclose()


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"allowed_tools": ["WebFetch(domain:127.0.0.1)"]}, "line one"),
        ({"allowed_tools": ["WebFetch"]}, "line one"),
        ({"allowed_tools": ["WebFetch(domain:*.0.0.1)"]}, "denied: this call needs"),  # no IP
        ({"allowed_tools": ["WebFetch(domain:localhost)"]}, "denied: this call needs"),
        ({"disallowed_tools": ["WebFetch(domain:0.0.1)"]}, "denied: this call needs"),
        ({"disallowed_tools": ["WebFetch(domain:127.0.0.1)"]}, "denied by the permission rule"),
        ({"permission_mode": "dontAsk"}, "dontAsk mode denies"),
        ({"permission_mode": "plan", "allowed_tools": ["WebFetch(domain:127.0.0.1)"]}, "line one"),
        ({}, "denied: this call needs the user's approval"),
    ],
)
async def test_rules_and_modes(
    project: Path,
    server: FakeProviderServer,
    web: WebServer,
    options: dict[str, Any],
    expected: str,
) -> None:
    server.add(Turn(tool_calls=[fetch("f1", web.url("/text"))]), Turn(text="ok"))
    shell = make_shell(project, server, **options)  # approvals "none": one-shot's
    await shell.submit("look it up")
    await shell.wait_idle()
    assert expected in tool_texts(server.requests[1])[0]
    await shell.aclose()


async def test_a_deny_rule_covers_subdomains(project: Path, server: FakeProviderServer) -> None:
    server.add(Turn(tool_calls=[fetch("f1", "https://docs.example.com/x")]), Turn(text="ok"))
    shell = make_shell(
        project,
        server,
        allowed_tools=["WebFetch(domain:docs.example.com)"],
        disallowed_tools=["WebFetch(domain:example.com)"],
    )
    await shell.submit("go")
    await shell.wait_idle()
    assert (
        "denied by the permission rule WebFetch(domain:example.com)"
        in tool_texts(server.requests[1])[0]
    )
    await shell.aclose()


async def test_the_default_allow_list_refuses_the_server_even_when_typed(
    project: Path, server: FakeProviderServer, pi_home: Path
) -> None:
    with WebServer() as web:  # no settings: loopback is refused
        url = web.url("/text")
        server.add(Turn(tool_calls=[fetch("f1", url)]), Turn(text="ok"))
        shell = make_shell(project, server)
        await shell.submit(f"read {url}")
        await shell.wait_idle()
        (text,) = tool_texts(server.requests[1])
        assert "refused to fetch from 127.0.0.1: it is a loopback address" in text
        assert web.requests == []
        await shell.aclose()


def test_bad_rules_and_allow_list_entries_are_reported(
    project: Path, server: FakeProviderServer, pi_home: Path
) -> None:
    (pi_home / "settings.json").write_text(
        json.dumps({"webFetch": {"allowPrivateHosts": ["not a host!", "10.0.0.0/8"]}})
    )
    shell = make_shell(project, server, allowed_tools=["WebFetch(example.com)"])
    warnings = [n.text for n in shell.startup_notices if n.level == "warning"]
    assert any("webFetch.allowPrivateHosts" in w and "not a host!" in w for w in warnings)
    assert any("expected domain:<host>" in w for w in warnings)
    tool = next(t for t in shell.tools if t.name == "web_fetch")
    assert len(tool.policy.entries) == 1  # type: ignore[attr-defined]


def test_one_shot_denies_an_unasked_domain_with_exit_code_7(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    server.add(Turn(tool_calls=[fetch("f1", "https://docs.python.org/3/")]), Turn(text="could not"))
    result = run_pi(*fake_args(server), "what is new in python")
    assert result.returncode == 7, result.stderr
    assert "pi: denied web_fetch https://docs.python.org/3/" not in result.stdout
    assert "✗ web_fetch: denied" in result.stderr
    assert result.stdout == "could not\n"


REFUSED_URLS = [
    "http://127.0.0.1/",
    "http://127.1:8080/admin",
    "http://0x7f.1/",
    "http://2130706433/",
    "http://017700000001/",
    "http://0/",
    "http://0.0.0.0:9000/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fe80::1%25eth0]/",
    "http://10.0.0.1/",
    "http://192.168.1.1/",
    "http://172.16.0.1/",
    "http://100.64.0.1/",
    "http://localhost:3000/",
    "http://LOCALHOST./",
    "http://api.localhost/",
    "file:///etc/passwd",
    "gopher://example.com/",
    "ftp://example.com/file",
    "javascript:alert(1)",
    "https://user:secret@example.com/",
    "http:///nohost",
]


async def test_a_url_the_guard_refuses_is_refused_before_any_question(
    project: Path, server: FakeProviderServer
) -> None:
    """As a hostile model would try it: every spelling of a local, private or metadata address
    and every bad scheme is refused with the guard's reason, and the user is never asked."""
    calls = [fetch(f"f{i}", url) for i, url in enumerate(REFUSED_URLS)]
    server.add(Turn(tool_calls=calls), Turn(text="none worked"))
    shell = make_shell(project, server, approvals="interactive", permission_mode="default")
    asked: list[PermissionRequested] = []
    shell.subscribe(lambda e: asked.append(e) if isinstance(e, PermissionRequested) else None)
    await shell.submit("fetch them all")
    await shell.wait_idle()
    assert asked == []
    texts = tool_texts(server.requests[1])
    assert len(texts) == len(REFUSED_URLS)
    for url, text in zip(REFUSED_URLS, texts, strict=True):
        assert text.startswith(("refused to fetch", "only http and https", "the URL names no")) or (
            "credentials" in text
        ), (url, text)
    await shell.aclose()


async def test_the_approval_shows_the_request_not_its_json(
    project: Path, server: FakeProviderServer
) -> None:
    url = "https://docs.example.com/guide?q=a b\x1b]52;c;aGk=\x07\u202e"
    server.add(Turn(tool_calls=[fetch("f1", url, offset=200)]), Turn(text="ok"))
    shell = make_shell(project, server, approvals="interactive", permission_mode="default")
    asked: list[PermissionRequested] = []

    def answer(event: Any) -> None:
        if isinstance(event, PermissionRequested):
            asked.append(event)
            shell.answer(event.id, "deny")

    shell.subscribe(answer)
    await shell.submit("read the guide")
    await shell.wait_idle()
    (request,) = asked
    lines = request.preview.splitlines()
    # What a terminal would act on (ESC, BEL, a bidi override, spaces) shows percent-encoded.
    assert lines[0] == "GET https://docs.example.com/guide?q=a%20b%1B]52;c;aGk=%07%E2%80%AE"
    assert lines[1:] == ["host: docs.example.com", "(the converted page from line 200)"]
    assert "{" not in request.preview
    await shell.aclose()
