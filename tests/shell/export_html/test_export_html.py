"""``/export``: one self-contained HTML page, checked by parsing it, for a hostile session."""

from __future__ import annotations

import base64
import hashlib
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from pi_cli.shell.export_html import export_session, render_session
from pi_cli.shell.session.store import SessionStore
from tests.agent_core.scripted_stream import reply, text
from tests.shell.helpers import make_shell

PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6300010000050001"
        "0d0a2db40000000049454e44ae426082"
    )
).decode()
HOSTILE = "</script><script>alert('x')</script><img src=x onerror=alert(1)>"
BIG_OUTPUT = "\n".join(f"line {i} " + "x" * 40 for i in range(100_000))


class Page(HTMLParser):
    """Every tag with its attributes, the text, and the style and CSP."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.style = ""
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.style += data
        else:
            self.text.append(data)


def _write(path: Path, entries: list[dict[str, Any]]) -> None:
    header = {"type": "session", "version": 1, "id": "hostile", "timestamp": "t", "cwd": "/w"}
    lines = [header]
    parent = None
    for index, entry in enumerate(entries):
        entry_id = f"{index:08x}"
        lines.append(
            {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "t", **entry}
        )
        parent = entry_id
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")


def hostile_session(tmp_path: Path) -> SessionStore:
    path = tmp_path / "hostile.jsonl"
    user = {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": f"Please {HOSTILE} and [click](javascript:alert(1)) "
                "![track](https://evil.example/pixel.png) <a href='javascript:x'>raw</a> \ud800 \x07",
            },
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "image", "data": PNG, "mimeType": "image/svg+xml"},
            {"type": "image", "data": "not base64 at all!", "mimeType": "image/png"},
        ],
        "timestamp": 1,
    }
    calls = [
        {
            "type": "toolCall",
            "id": "c1",
            "name": "bash",
            "arguments": {"command": f"echo '{HOSTILE}'"},
        },
        {
            "type": "toolCall",
            "id": "c2",
            "name": "edit",
            "arguments": {"path": "a.py", "edits": []},
        },
    ]
    assistant = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "secret reasoning </details><script>x</script>"},
            {
                "type": "text",
                "text": "I will run **two** tools. `code` and\n\n```html\n</pre><script>1</script>\n```",
            },
            *calls,
        ],
        "api": "a",
        "provider": "p",
        "model": "model-<b>x</b>",
        "stopReason": "toolUse",
        "timestamp": 2,
    }
    results = [
        {
            "role": "toolResult",
            "toolCallId": "c1",
            "toolName": "bash",
            "isError": False,
            "content": [{"type": "text", "text": BIG_OUTPUT}],
            "timestamp": 3,
        },
        {
            "role": "toolResult",
            "toolCallId": "c2",
            "toolName": "edit",
            "isError": False,
            "content": [{"type": "text", "text": "Edited a.py"}],
            "details": {
                "diff": "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-old <script>\n+new </pre>",
                "path": "a.py",
                "first_changed_line": 1,
            },
            "timestamp": 4,
        },
    ]
    final = {
        "role": "assistant",
        "content": [{"type": "text", "text": "All done: see [docs](https://example.com/docs)."}],
        "api": "a",
        "provider": "p",
        "model": "m",
        "stopReason": "stop",
        "timestamp": 5,
    }
    _write(path, [{"message": m} for m in (user, assistant, *results, final)])
    return SessionStore.open(path)


def test_a_hostile_session_exports_without_script_or_external_resource(tmp_path: Path) -> None:
    store = hostile_session(tmp_path)
    out = export_session(store, tmp_path / "out" / "page.html")
    raw = out.read_text(encoding="utf-8")
    assert len(raw) < 400_000  # the 5 MB tool output is cut
    page = Page()
    page.feed(raw)
    tags = [tag for tag, _ in page.tags]
    assert "script" not in tags and not {"iframe", "object", "embed", "link", "base", "form"} & set(
        tags
    )
    for tag, attrs in page.tags:
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            if name in ("src", "href") and value:
                assert not value.strip().lower().startswith(("javascript:", "vbscript:", "file:"))
            if name == "src":
                assert value and value.startswith("data:image/png;base64,"), value
    assert sum(1 for tag, _ in page.tags if tag == "img") == 1  # only the valid PNG
    assert "url(" not in page.style and "@import" not in page.style

    (meta,) = [
        a for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"
    ]
    policy = meta["content"] or ""
    digest = base64.b64encode(hashlib.sha256(page.style.encode()).digest()).decode()
    assert "default-src 'none'" in policy and f"style-src 'sha256-{digest}'" in policy
    assert "img-src data:" in policy and "script-src" not in policy
    assert raw.index("Content-Security-Policy") < raw.index("<style>")

    shown = "".join(page.text)
    for expected in (
        HOSTILE,
        "[click](javascript:alert(1))",
        "secret reasoning </details><script>x</script>",
        "I will run two tools.",
        "</pre><script>1</script>",
        "echo '" + HOSTILE,
        "line 0 ",
        "more lines not shown",
        "+new </pre>",
        "All done: see docs.",
        "model-<b>x</b>",
        "[an image of an unsupported type]",
        "[an image that is not valid base64]",
        "[image not loaded: track] https://evil.example/pixel.png",
    ):
        assert expected in shown, expected
    assert "line 99999" not in shown
    details = [a for t, a in page.tags if t == "details"]
    assert any("open" not in a for a in details)  # thinking collapsed
    hrefs = [a.get("href") for t, a in page.tags if t == "a"]
    assert hrefs == ["https://example.com/docs"]


def test_theme_colours_and_unknown_theme(tmp_path: Path, pi_home: Path) -> None:
    store = hostile_session(tmp_path)
    light = render_session(store, "light")
    assert "--background: #" in light and light != render_session(store, "dark")
    (pi_home / "themes").mkdir()
    (pi_home / "themes" / "evil.toml").write_text(
        '[palette]\nbackground = "red; } body { background: url(https://x)"\nprimary = "#123456"\n'
    )
    evil = render_session(store, "evil")
    assert "url(https://x)" not in evil and "--primary: #123456;" in evil
    assert render_session(store, "no-such-theme")  # falls back to the dark colours


async def test_slash_export_of_a_live_session(tmp_path: Path, pi_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    shell, _, _ = make_shell(project, reply(text("an *answer*")))
    empty = await shell.submit("/export")
    assert empty.error and "Nothing to export" in empty.output
    await shell.submit("a question")
    result = await shell.submit("/export my.html")
    assert not result.error and result.output == f"Exported the session to {project / 'my.html'}"
    page = (project / "my.html").read_text()
    assert "a question" in page and "<em>answer</em>" in page
    default = await shell.submit("/export")
    # Outside the project (not in its git status), with a short name.
    expected = pi_home / "exports" / f"project-{shell.session.session_id[:8]}.html"
    assert default.output == f"Exported the session to {expected}" and expected.is_file()
    assert [p.name for p in project.iterdir() if p.suffix == ".html"] == ["my.html"]
    bad = await shell.submit(f"/export {project / 'my.html' / 'inside'}")
    assert bad.error and "Cannot write" in bad.output
