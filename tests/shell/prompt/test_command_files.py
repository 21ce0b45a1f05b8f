"""Claude Code command files run fully: ``!`cmd` `` output reaches the model, ``allowed-tools``
grants rules for that command's run only, ``@file``, ``$ARGUMENTS``/``$1``, ``model``.

Anthropic's own ``commit-push-pr.md`` (read from ../shared/fixtures, © Anthropic) is run against
a real git repository: its ``!`git status` `` lines reach the model as real output and the
``git commit`` its ``allowed-tools`` allows runs, where without them it is denied.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pi_cli.shell.config.settings import Settings
from pi_cli.shell.prompt.command_files import file_refs, substitute
from tests.agent_core.scripted_stream import reply, text, tool_call
from tests.shared_fixtures import shared
from tests.shell.helpers import make_shell, notices

FIXTURE = shared("i25/claude-code/commit-push-pr.md")
needs_fixture = pytest.mark.skipif(
    not FIXTURE.is_file(), reason="../shared/fixtures/i25 is not beside this checkout"
)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def repo(root: Path) -> Path:
    shutil.rmtree(root / ".git", ignore_errors=True)
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "work")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "T")
    (root / "app.py").write_text("print('v1')\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    (root / "app.py").write_text("print('v2: the changed line')\n")
    return root


def install_command(root: Path, name: str, body: str) -> None:
    folder = root / ".claude" / "commands"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(body)
    git(root, "add", ".claude")  # committed: not in git status or the diff the model sees
    git(root, "commit", "-q", "-m", f"add /{name}", "--", ".claude")


def commit_calls() -> list:
    return [
        reply(tool_call("c2", "bash", {"command": "git add app.py && git commit -m 'Change app'"})),
        reply(text("done")),
    ]


def tool_results(shell) -> dict[str, tuple[str, bool]]:
    out = {}
    for message in shell.messages:
        if message.role == "toolResult":
            body = "".join(getattr(b, "text", "") for b in message.content)
            out[message.tool_call_id] = (body, message.is_error)
    return out


@needs_fixture
async def test_commit_push_pr_sees_the_real_diff_and_may_commit(project: Path) -> None:
    root = repo(project)
    install_command(root, "commit-push-pr", FIXTURE.read_text())
    shell, stream, _ = make_shell(
        root, *commit_calls(), tools=["bash", "read"], permission_mode="default"
    )
    await shell.submit("/commit-push-pr")
    await shell.wait_idle()
    prompt = stream.user_texts(0)[-1]
    assert "!`git status`" not in prompt and "!`git diff HEAD`" not in prompt
    assert "On branch work" in prompt  # git status, really run
    assert "+print('v2: the changed line')" in prompt  # git diff HEAD
    assert "- Current branch: work" in prompt  # git branch --show-current
    results = tool_results(shell)
    assert results["c2"][1] is False, results["c2"][0]
    assert git(root, "log", "-1", "--format=%s").strip() == "Change app"
    # The grant ended with the run: the same commit from the model now is denied.
    assert shell.permissions.engine.rules.granted == []


async def test_without_allowed_tools_git_commit_is_denied(project: Path) -> None:
    root = repo(project)
    install_command(root, "commit", "Commit the change.\n\nStatus: !`git status --short`\n")
    shell, stream, _ = make_shell(
        root, *commit_calls(), tools=["bash", "read"], permission_mode="default"
    )
    await shell.submit("/commit")
    await shell.wait_idle()
    assert "M app.py" in stream.user_texts(0)[-1]  # read-only: runs without a grant
    body, is_error = tool_results(shell)["c2"]
    assert is_error and "denied" in body, body
    assert git(root, "log", "-1", "--format=%s").strip() == "add /commit"


async def test_a_refused_command_is_named_in_the_prompt_and_never_run(project: Path) -> None:
    root = repo(project)
    install_command(
        root,
        "risky",
        "---\nallowed-tools: Bash(git status:*)\n---\nBefore: !`touch pwned`\nAfter: done\n",
    )
    shell, stream, _ = make_shell(
        root, reply(text("ok")), tools=["bash", "read"], permission_mode="default"
    )
    await shell.submit("/risky")
    await shell.wait_idle()
    prompt = stream.user_texts(0)[-1]
    assert "Before: [not run: denied" in prompt and "After: done" in prompt
    assert not (root / "pwned").exists()


async def test_a_deny_rule_beats_allowed_tools(project: Path) -> None:
    root = repo(project)
    install_command(root, "c", "---\nallowed-tools: Bash\n---\nX !`git add app.py` Y\n")
    settings = Settings.model_validate({"permissions": {"deny": ["Bash(git add:*)"]}})
    shell, stream, _ = make_shell(root, reply(text("ok")), tools=["bash"], settings=settings)
    await shell.submit("/c")
    await shell.wait_idle()
    assert "[not run: denied by the permission rule Bash(git add:*)" in stream.user_texts(0)[-1]
    assert git(root, "diff", "--cached", "--name-only") == ""


async def test_arguments_are_quoted_inside_commands_and_never_run(project: Path) -> None:
    root = repo(project)
    install_command(
        root,
        "show",
        "---\nallowed-tools: Bash(echo:*)\nargument-hint: <word> [more]\n---\n"
        "First $1, all $ARGUMENTS. Echo: !`echo $1`\n",
    )
    shell, stream, _ = make_shell(root, reply(text("ok")), tools=["bash"])
    assert shell.commands.get("show").usage == "<word> [more]"
    await shell.submit("/show '; touch pwned' !`touch pwned2`")
    await shell.wait_idle()
    prompt = stream.user_texts(0)[-1]
    assert "Echo: ; touch pwned" in prompt  # one quoted word, echoed
    assert "First ; touch pwned, all ; touch pwned !`touch pwned2`." in prompt
    assert not (root / "pwned").exists() and not (root / "pwned2").exists()


async def test_unnamed_arguments_are_appended_as_claude_code_does(project: Path) -> None:
    root = repo(project)
    install_command(root, "audit", "Review the code.")
    shell, stream, _ = make_shell(root, reply(text("ok")))
    await shell.submit("/audit focus on errors")
    await shell.wait_idle()
    assert stream.user_texts(0)[-1] == "Review the code.\n\nARGUMENTS: focus on errors"


async def test_file_references_are_read_through_the_checks(project: Path, fake_home: Path) -> None:
    root = repo(project)
    (fake_home / "secret.txt").write_text("TOP SECRET\n")
    install_command(
        root, "explain", "Explain @app.py and @~/secret.txt, mail me@example.com, see @nowhere.\n"
    )
    shell, stream, _ = make_shell(root, reply(text("ok")), tools=["read", "ls"])
    await shell.submit("/explain")
    await shell.wait_idle()
    prompt = stream.user_texts(0)[-1]
    assert '<file path="app.py">' in prompt and "v2: the changed line" in prompt
    # Outside the workspace: a read that needs approval nobody can give here.
    assert '<file path="~/secret.txt">\n[not read: denied' in prompt
    assert "TOP SECRET" not in prompt
    assert "me@example.com" in prompt and '<file path="nowhere' not in prompt


async def test_model_front_matter_runs_that_turn_on_another_model(project: Path) -> None:
    root = repo(project)
    install_command(root, "ask", "---\nmodel: openai/gpt-5-mini\n---\nHello\n")
    shell, stream, recorder = make_shell(root, reply(text("ok")), model="openai/gpt-5")
    before = shell.model_id
    models: list[str] = []
    stream.on_call = lambda _n, _ctx: models.append(shell.model_id)
    await shell.submit("/ask")
    await shell.wait_idle()
    assert models == ["openai/gpt-5-mini"] and shell.model_id == before


async def test_bad_allowed_tools_are_reported_and_the_rest_granted(project: Path) -> None:
    root = repo(project)
    install_command(root, "c", "---\nallowed-tools: [Bash(git add:*), 'Bad Name(x)']\n---\nGo\n")
    shell, _, recorder = make_shell(root, reply(text("ok")), tools=["bash"])
    await shell.submit("/c")
    await shell.wait_idle()
    assert any("allowed-tools of /c" in n and "Name(x)" in n for n in notices(recorder))


async def test_many_commands_are_capped(project: Path) -> None:
    root = repo(project)
    install_command(root, "many", "".join(f"!`echo {i}`\n" for i in range(30)))
    shell, stream, _ = make_shell(root, reply(text("ok")), tools=["bash"])
    await shell.submit("/many")
    await shell.wait_idle()
    prompt = stream.user_texts(0)[-1]
    assert prompt.count("[not run: /many runs at most 20 commands") == 10


def test_substitution_and_references() -> None:
    assert substitute("a $1 b $2 c $ARGUMENTS", ["x y", "$1"]) == "a x y b $1 c x y $1"
    assert substitute("${@:2}", ["a", "b", "c"]) == "b c"
    assert file_refs("see @src/a.py, @./b.md. user@host @@x `@code`") == ["src/a.py", "./b.md"]
