"""Markdown answers: link URLs shown, tables aligned and sized by content, long code lines
wrapped; a skill call reads as ``/skill:name args``."""

from __future__ import annotations

from pathlib import Path

from textual.content import Content

from pi_cli.tui.document.entries import SkillBlock
from pi_cli.tui.document.markdown_text import column_widths, pi_parser, table_content
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.tui.helpers import SIZE, blocks_of, make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text

LONG_CODE = "# a very long line that exceeds the terminal width " + "and keeps going " * 12 + "END"
ANSWER = f"""A blockquote with a [link](https://example.com/docs) and <https://auto.example>.

| Tool | Startup (s) | Notes |
|:-----|------------:|:-----:|
| pi | 0.49 | fast |
| pi-ts | 12.12 | slow |

```bash
{LONG_CODE}
```
"""


def test_links_keep_their_url_and_autolinks_are_not_doubled() -> None:
    tokens = pi_parser().parse("[docs](https://x.example/a) <https://y.example> [#](#top)")
    inline = [t for t in tokens if t.type == "inline"][0]
    shown = "".join(c.content for c in inline.children or [] if c.type == "text")
    assert "docs" in shown and " (https://x.example/a)" in shown
    assert shown.count("https://y.example") == 1 and "(#top)" not in shown


def test_tables_align_and_fit() -> None:
    headers = [Content("Tool"), Content("Startup (s)"), Content("Notes")]
    rows = [[Content("pi"), Content("0.49"), Content("fast")]]
    lines = table_content(headers, rows, ["left", "right", "center"], 60).plain.split("\n")
    assert lines[0].startswith("┌") and lines[-1].startswith("└")
    assert "│ pi   │        0.49 │ fast  │" in lines
    assert len({len(line) for line in lines}) == 1  # every line as wide as the others
    assert column_widths([5, 40, 10], 30) == [5, 15, 10]  # the widest column shrinks first
    assert column_widths([2, 2], 1) == [2, 2]  # never below the minimum
    narrow = table_content(
        headers, [[Content("pi"), Content("0.49"), Content("w " * 40)]], ["left"] * 3, 30
    )
    assert max(len(line) for line in narrow.plain.split("\n")) <= 30


async def test_an_answer_with_a_link_a_table_and_long_code_is_all_readable(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text(ANSWER)))
    app = make_app(make_shell(tmp_path, stream, tools=[]))
    async with app.run_test(size=(90, 40)) as pilot:
        await type_text(pilot, "show me")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled)
        await pilot.pause()
        screen = screen_text(app)
        assert "link (https://example.com/docs)" in screen
        assert "│ pi-ts │       12.12 │ slow  │" in screen  # right-aligned number column
        flat = " ".join(screen.replace("▎", " ").split())
        assert "keeps going END" in flat  # the over-wide code line wrapped, nothing cut


async def test_a_skill_call_shows_its_short_form_live(tmp_path: Path) -> None:
    skill_dir = tmp_path / ".pi" / "skills" / "greeter"
    skill_dir.mkdir(parents=True)
    (skill_dir / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: Greets people.\n---\n# Greeter skill\nAlways wave.\n"
    )
    stream = ScriptedStream(reply(text("Hi Bob!")))
    app = make_app(make_shell(tmp_path, stream, tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/skill:greeter say hi to Bob")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled and stream.calls == 1)
        await pilot.pause()
        assert "<skill name=" in stream.user_texts(0)[0]  # the model got the whole skill
        (view,) = blocks_of(app, SkillBlock)
        assert view.text == "/skill:greeter say hi to Bob"
        screen = screen_text(app)
        assert "› /skill:greeter say hi to Bob" in screen and "Always wave." not in screen


async def test_a_diff_fence_is_coloured_like_an_edit(tmp_path: Path) -> None:
    from tests.tui.screen_text import colour_of

    answer = (
        "The change:\n\n```diff\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n```\n"
    )
    app = make_app(make_shell(tmp_path, ScriptedStream(reply(text(answer))), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "show it")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "+x = 2" in screen_text(app))
        await pilot.pause()
        added, removed = colour_of(app, "+x = 2", "+"), colour_of(app, "-x = 1", "-")
        context = colour_of(app, "@@ -1 +1 @@", "@")
        assert added is not None and removed is not None
        assert len({added, removed, context}) == 3  # green, red and neither
        variables = app.get_css_variables()
        assert added.lower() == variables["diff-add"].lower()[:7]
        assert removed.lower() == variables["diff-remove"].lower()[:7]
