"""The plain REPL's language-server problems under an edit's diff: capped, counted, inert."""

from __future__ import annotations

from pi_cli.modes.plain.tool_render import result_text


def _problem(line: int, message: str, severity: str = "error") -> dict[str, object]:
    return {
        "path": "a.py",
        "line": line,
        "column": 1,
        "severity": severity,
        "message": message,
        "code": "E1",
        "context": f"x{line} = 1",
    }


def test_the_first_problems_are_listed_under_the_diff_and_the_rest_counted() -> None:
    listed = [_problem(n, f"bad {n}\nsecond line") for n in range(1, 6)]
    details = {
        "diff": "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
        "diagnostics": {"files": [{"path": "a.py", "server": "py", "new": listed, "newCount": 9}]},
    }
    lines = result_text("edit", "ok", False, details).plain.splitlines()
    assert lines[5:] == [
        "  a.py:1:1: error: bad 1 [E1]",
        "      x1 = 1",
        "  a.py:2:1: error: bad 2 [E1]",
        "      x2 = 1",
        "  a.py:3:1: error: bad 3 [E1]",
        "      x3 = 1",
        "  … 6 more",  # nine new, three listed (the result holds five: capped by the shell)
    ]


def test_a_hostile_or_malformed_report_prints_inert_text_or_nothing() -> None:
    diff = "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    hostile = _problem(1, "\x1b]52;c;ZXZpbA==\x07evil\x1b[31m", "warning")
    hostile["context"] = "\x1b[2J" + "y" * 5000
    for report in (None, "junk", {"files": "junk"}, {"files": [None, {"new": "junk"}]}):
        assert result_text("edit", "ok", False, {"diff": diff, "diagnostics": report}).plain == (
            result_text("edit", "ok", False, {"diff": diff}).plain
        )
    shown = result_text(
        "edit",
        "ok",
        False,
        {"diff": diff, "diagnostics": {"files": [{"path": "a.py", "new": [hostile]}]}},
    ).plain
    assert "\x1b" not in shown and "\x07" not in shown
    assert "a.py:1:1: warning: evil [E1]" in shown
    assert max(len(line) for line in shown.splitlines()) < 400  # a huge source line is cut
