"""Python hooks and command hooks: blocking, patching, fail-safe errors, timeouts, examples."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from agent_core import ToolResultMessage
from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import reply, text, tool_call
from tests.shell.helpers import make_shell, notices

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "hooks"


def tool_results(stream: object, call: int) -> list[ToolResultMessage]:
    return [m for m in stream.contexts[call].messages if isinstance(m, ToolResultMessage)]  # type: ignore[attr-defined]


def write_hook(directory: Path, name: str, source: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(source)


async def test_python_hook_blocks_rewrites_and_patches(project: Path, pi_home: Path) -> None:
    write_hook(
        pi_home / "hooks",
        "a_gate.py",
        (
            "def tool_call(event):\n"
            "    if 'forbidden' in event.args['command']:\n"
            "        return {'block': True, 'reason': 'no forbidden things'}\n"
            "    if event.args['command'] == 'echo original':\n"
            "        return {'arguments': {'command': 'echo rewritten'}}\n"
        ),
    )
    write_hook(
        project / ".pi" / "hooks",
        "b_patch.py",
        (
            "async def tool_result(event):\n"
            "    if 'rewritten' in event.content:\n"
            "        return {'content': event.content.strip() + ' [patched]', 'details': {'patched': True}}\n"
            "seen = []\n"
            "def turn_end(event):\n"
            "    seen.append('turn_end')\n"
            "def agent_end(event):\n"
            "    seen.append('agent_end')\n"
            "def session_start(event):\n"
            "    seen.append('session_start:' + event.session_id)\n"
        ),
    )
    shell, stream, _ = make_shell(
        project,
        reply(
            tool_call("c1", "bash", {"command": "echo forbidden"}),
            tool_call("c2", "bash", {"command": "echo original"}),
        ),
        reply(text("done")),
        tools=["bash"],
        trust=True,  # project hooks run only in a trusted folder
    )
    await shell.submit("go")
    blocked, patched = tool_results(stream, 1)
    assert blocked.is_error and blocked.text == "no forbidden things"
    assert patched.text == "rewritten [patched]" and patched.details == {"patched": True}
    module = next(h.module for h in shell.hooks.python_hooks if h.path.name == "b_patch.py")
    assert module.seen == [
        f"session_start:{shell.session.session_id}",
        "turn_end",
        "turn_end",
        "agent_end",
    ]


async def test_raising_hook_blocks_and_session_continues(project: Path) -> None:
    write_hook(
        project / ".pi" / "hooks",
        "broken.py",
        "def tool_call(event):\n    raise RuntimeError('gate is broken')\n",
    )
    marker = project / "ran.txt"
    shell, stream, recorder = make_shell(
        project,
        reply(tool_call("c1", "bash", {"command": f"touch {marker}"})),
        reply(text("the call was blocked")),
        reply(text("still here")),
        tools=["bash"],
        trust=True,
    )
    await shell.submit("touch it")
    (result,) = tool_results(stream, 1)
    assert result.is_error and "gate is broken" in result.text
    assert not marker.exists()
    assert any("broken.py" in n and "gate is broken" in n for n in notices(recorder, "error"))
    await shell.submit("next")
    assert shell.agent.state.messages[-1].text == "still here"


async def test_input_hook_transforms_and_handles(project: Path) -> None:
    write_hook(
        project / ".pi" / "hooks",
        "inp.py",
        (
            "def input(event):\n"
            "    if event.text == 'secret':\n"
            "        return {'handled': True, 'output': 'handled locally'}\n"
            "    return event.text.upper()\n"
        ),
    )
    shell, stream, recorder = make_shell(project, reply(text("ok")), trust=True)
    await shell.submit("secret")
    assert stream.calls == 0 and "handled locally" in notices(recorder)
    await shell.submit("hello")
    assert stream.user_texts(0) == ["HELLO"]


def settings_with(hooks: dict) -> Settings:
    return Settings.model_validate({"hooks": hooks})


async def test_command_hook_exit_2_blocks_with_stderr_for_the_model(project: Path) -> None:
    script = project / "gate.sh"
    script.write_text(
        "#!/bin/sh\ncat > \"$PI_PROJECT_DIR/event.json\"\necho 'denied: not allowed here' >&2\nexit 2\n"
    )
    script.chmod(0o755)
    settings = settings_with({"PreToolUse": [{"matcher": "bash", "command": str(script)}]})
    shell, stream, _ = make_shell(
        project,
        reply(tool_call("c1", "bash", {"command": "echo hi"})),
        reply(text("ok")),
        settings=settings,
        tools=["bash", "read"],
    )
    await shell.submit("run")
    (result,) = tool_results(stream, 1)
    assert result.is_error and result.text == "denied: not allowed here"
    event = json.loads((project / "event.json").read_text())
    # Claude Code's tool names (issue 12): real Claude Code hook scripts check "Bash".
    assert event["hook_event_name"] == "PreToolUse" and event["tool_name"] == "Bash"
    assert event["tool_input"] == {"command": "echo hi"} and event["cwd"] == str(project.resolve())


async def test_command_hooks_match_patch_and_post_process(project: Path) -> None:
    settings = settings_with(
        {
            "PreToolUse": [
                {"matcher": "Read", "hooks": [{"type": "command", "command": "exit 2"}]},
                {
                    "matcher": "bash",
                    "command": 'echo \'{"updatedInput": {"command": "echo patched"}}\'',
                },
            ],
            "PostToolUse": [
                {"matcher": "bash", "command": "echo 'output checked: looks bad' >&2; exit 2"}
            ],
        }
    )
    shell, stream, _ = make_shell(
        project,
        reply(tool_call("c1", "bash", {"command": "echo original"})),
        reply(text("ok")),
        settings=settings,
        tools=["bash", "read"],
    )
    await shell.submit("run")
    (result,) = tool_results(stream, 1)
    assert result.text.startswith("patched")
    assert "[PostToolUse hook] output checked: looks bad" in result.text and result.is_error


async def test_command_hook_timeout_blocks_and_is_reported(project: Path) -> None:
    settings = settings_with(
        {"PreToolUse": [{"matcher": "", "command": "sleep 10", "timeout": 0.3}]}
    )
    shell, stream, recorder = make_shell(
        project,
        reply(tool_call("c1", "bash", {"command": "echo hi"})),
        reply(text("ok")),
        settings=settings,
        tools=["bash"],
    )
    await shell.submit("run")
    (result,) = tool_results(stream, 1)
    assert result.is_error and "timed out after 0.3s" in result.text
    assert any("timed out" in n for n in notices(recorder, "warning"))


async def test_user_prompt_submit_hook_blocks_or_adds_context(project: Path) -> None:
    settings = settings_with(
        {
            "UserPromptSubmit": [
                {
                    "command": "python3 -c \"import json,sys; p=json.load(sys.stdin)['prompt']; "
                    "sys.exit(2) if 'password' in p else print('Context: branch main')\""
                },
            ]
        }
    )
    shell, stream, recorder = make_shell(project, reply(text("ok")), settings=settings)
    await shell.submit("my password is hunter2")
    assert stream.calls == 0 and any("Prompt blocked" in n for n in notices(recorder, "warning"))
    await shell.submit("hello")
    assert stream.user_texts(0) == ["hello\n\nContext: branch main"]


async def test_example_python_permission_gate(project: Path) -> None:
    hooks = project / ".pi" / "hooks"
    hooks.mkdir(parents=True)
    shutil.copy(EXAMPLES / "permission_gate.py", hooks / "permission_gate.py")
    victim = project.parent / "victim"
    victim.mkdir()
    inside = project / "build"
    inside.mkdir()
    shell, stream, _ = make_shell(
        project,
        reply(
            tool_call("c1", "bash", {"command": f"rm -rf {victim}"}),
            tool_call("c2", "bash", {"command": "rm -rf build"}),
        ),
        reply(text("ok")),
        tools=["bash"],
        trust=True,
        permission_mode="bypassPermissions",  # the hook, not the permission mode, decides here
    )
    await shell.submit("clean up")
    outside, ok = tool_results(stream, 1)
    assert outside.is_error and "Blocked by permission gate" in outside.text and victim.exists()
    assert not ok.is_error and not inside.exists()


async def test_example_command_permission_gate(project: Path) -> None:
    settings = settings_with(
        {"PreToolUse": [{"matcher": "bash", "command": str(EXAMPLES / "permission_gate.sh")}]}
    )
    shell, stream, _ = make_shell(
        project,
        reply(tool_call("c1", "bash", {"command": "rm -rf ../.."})),
        reply(text("ok")),
        settings=settings,
        tools=["bash"],
    )
    await shell.submit("clean")
    (result,) = tool_results(stream, 1)
    assert (
        result.is_error and "Blocked by permission gate" in result.text and "../.." in result.text
    )
