"""The web client in a real headless Chromium (a phone-sized window), against a real ``pi serve``:
the seed scenario with an approval, streamed live; hostile text stays text; the CSP holds."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import SEED_FINAL_TEXT, Turn, seed_script
from tests.server.browser import CHROMIUM, Browser
from tests.server.harness import ServerProcess

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)"),
    pytest.mark.timeout(180),
]
HOSTILE = '<img src=x onerror="window.pwned=1"> **bold** [link](javascript:window.pwned=2)'


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    chromium = Browser(tmp_path / "profile")
    yield chromium
    chromium.close()


def _seed_project(project: Path) -> None:
    (project / "package.json").write_text('{"name": "hello", "main": "hello.mjs"}\n')
    (project / "hello.mjs").write_text('console.log("Hello, world!");\n')


NOTIFICATIONS_SEEN = """
window.notificationsSeen = [];
Object.defineProperty(document, "hidden", { get: () => true });
const RealNotification = window.Notification;
window.Notification = class extends RealNotification {
  constructor(title, options) {
    super(title, options);
    window.notificationsSeen.push([title, (options || {}).body]);
  }
};
"""


def test_the_seed_scenario_with_an_approval_in_the_browser(
    serve: Callable[..., ServerProcess],
    pi_home: Path,
    project: Path,
    provider: FakeProviderServer,
    browser: Browser,
    tmp_path: Path,
) -> None:
    _seed_project(project)
    # The user's settings: bash always asks (so the seed's ls needs the person in the browser),
    # and a provider for the fake model the form names.
    (pi_home / "settings.json").write_text(json.dumps({"permissions": {"ask": ["Bash"]}}))
    fake = {"baseUrl": provider.openai_base_url, "apiKey": "x", "models": [{"id": "fake-model"}]}
    (pi_home / "models.json").write_text(json.dumps({"providers": {"fake": fake}}))
    slow = " ".join(f"slowly{i}" for i in range(400))
    provider.add(
        *seed_script(), Turn(text=HOSTILE), Turn(text=slow, chunk_size=6, chunk_delay_s=0.05)
    )
    server = serve()
    # The user allowed notifications and looks at another tab: an approval notifies (each
    # Notification the page makes is recorded; the permission is the browser's own).
    browser.call(
        "Browser.grantPermissions", permissions=["notifications"], origin=server.url.rstrip("/")
    )
    browser.call("Page.addScriptToEvaluateOnNewDocument", source=NOTIFICATIONS_SEEN)

    browser.goto(f"{server.url}/?token={server.token}")
    assert browser.eval("location.pathname + location.search") == "/"  # the token left the address
    browser.wait("document.querySelector('#sessions p')", "the empty list")
    browser.eval(
        f"""(() => {{
        document.getElementById('new-cwd').value = {json.dumps(str(project))};
        document.getElementById('new-model').value = 'fake/fake-model';
        document.getElementById('new-prompt').value = 'List files in the current directory, then tell me what this project is.';
        document.querySelector('#new-session button[type=submit]').click();
        return true; }})()"""
    )
    title = browser.wait(
        "document.querySelector('.approval h3') && document.querySelector('.approval h3').textContent",
        "the approval card",
    )
    assert title == "Allow bash: $ ls -la?"
    assert browser.eval("Notification.permission") == "granted"
    assert browser.eval("window.notificationsSeen") == [["pi: approval needed", "bash: $ ls -la"]]
    assert browser.eval("document.getElementById('state').textContent") == "running"
    browser.screenshot(tmp_path / "approval.png")
    browser.eval("document.querySelector('.approval button[data-choice=allow_once]').click(), true")
    browser.wait(
        f"document.getElementById('transcript').innerText.includes({json.dumps(SEED_FINAL_TEXT)})",
        "the final answer",
    )
    browser.wait("document.getElementById('state').textContent === 'idle'", "the run's end")
    tools = browser.eval(
        "[...document.querySelectorAll('details.tool summary')].map(s => s.textContent)"
    )
    assert tools == ["bash $ ls -la", "read package.json", "read hello.mjs"]
    outputs = browser.eval(
        "[...document.querySelectorAll('details.tool pre')].map(p => p.textContent)"
    )
    assert "package.json" in outputs[0] and '"name": "hello"' in outputs[1]
    assert browser.eval("document.querySelectorAll('.approval').length") == 0
    text = browser.eval("document.getElementById('transcript').innerText")
    assert "List files in the current directory" in text and "allowed" in text
    browser.screenshot(tmp_path / "done.png")

    # Hostile text from the model is shown as text: no element, no script, no javascript: link.
    browser.eval("""(() => { const i = document.getElementById('input');
        i.value = 'now say something odd'; document.getElementById('send').click(); return true; })()""")
    browser.wait(
        "document.getElementById('transcript').innerText.includes('onerror=')", "the hostile answer"
    )
    assert browser.eval("window.pwned === undefined") is True
    assert browser.eval("document.querySelectorAll('#transcript img').length") == 0
    assert browser.eval("[...document.querySelectorAll('#transcript a')].length") == 0
    assert browser.eval(
        "[...document.querySelectorAll('#transcript strong')].map(b => b.textContent)"
    ) == ["bold"]

    # While a run streams: a follow-up waits in the queue; Abort stops the run and hands the
    # queue back into the input.
    browser.eval("""(() => { const i = document.getElementById('input');
        i.value = 'talk slowly'; document.getElementById('send').click(); return true; })()""")
    browser.wait("document.getElementById('transcript').innerText.includes('slowly3')", "streaming")
    browser.eval("""(() => { const i = document.getElementById('input');
        i.value = 'and then this'; document.getElementById('follow-up').click(); return true; })()""")
    queued = browser.wait(
        "document.querySelector('#queue .queued .text') && document.querySelector('#queue .queued').innerText",
        "the queued follow-up",
    )
    assert "and then this" in queued and "follow-up" in queued
    browser.eval("document.getElementById('abort').click(), true")
    browser.wait("document.getElementById('state').textContent === 'idle'", "the abort")
    browser.wait(
        "document.getElementById('input').value === 'and then this'", "the queue handed back"
    )
    assert browser.eval("document.querySelectorAll('#queue .queued').length") == 0
    assert "slowly399" not in browser.eval("document.getElementById('transcript').innerText")

    # The session list shows it, with its cost and state; nothing violated the CSP.
    browser.eval("document.getElementById('back').click(), true")
    browser.wait("document.querySelector('.session .badge.idle')", "the session in the list")
    assert not [
        line for line in browser.console if "Content Security Policy" in line or "exception" in line
    ]
    # A phone-sized window: the composer fits, nothing scrolls sideways.
    assert browser.eval("document.documentElement.scrollWidth <= window.innerWidth") is True


def test_the_page_is_served_with_a_strict_policy_and_only_its_own_files(
    server: ServerProcess,
) -> None:
    with httpx.Client(base_url=server.url, timeout=20) as client:
        assert client.get("/").status_code == 401
        assert client.get("/static/app.js").status_code == 401
        first = client.get(f"/?token={server.token}", follow_redirects=False)
        assert first.status_code == 303 and first.headers["location"] == "/"
        cookie = first.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
        page = client.get("/")
        assert page.status_code == 200
        policy = page.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src 'self'" in policy
        assert "frame-ancestors 'none'" in policy and "unsafe" not in policy
        assert "<script" in page.text and "http" not in page.text.replace("http-equiv", "")
        for name in ("app.js", "markdown.js", "app.css", "icon.svg"):
            assert client.get(f"/static/{name}").status_code == 200
        for name in ("../web.py", "..%2Fweb.py", "index.html", "app.js.map", "%2e%2e%2fapp.py"):
            assert client.get(f"/static/{name}").status_code == 404, name
        # The cookie works for the API, but not from another origin.
        assert client.get("/api/sessions").status_code == 200
        assert (
            client.get("/api/sessions", headers={"Origin": "http://evil.example"}).status_code
            == 403
        )
