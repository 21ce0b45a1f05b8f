"""Regression tests for the shell-level review findings (abort, saving, guards, credentials...)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent_core import MessageEnd
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.shell.compaction import CompactionError
from pi_cli.shell.config.settings import CompactionSettings, Settings, SettingsError, load_settings
from pi_cli.shell.prompt._context_files import read_prompt_override
from pi_cli.shell.prompt._skills import discover_skills
from pi_cli.shell.session.store import SessionError, SessionStore
from pi_cli.shell.wire.jsonl import dumps_line
from tests.agent_core.scripted_stream import reply, text
from tests.shell.helpers import make_shell, notices, usage


async def test_failed_session_write_keeps_events_and_warns_once(
    project: Path, pi_home: Path
) -> None:
    (pi_home / "sessions").write_text("a file, not a directory")
    shell, _, recorder = make_shell(project, reply(text("one")), reply(text("two")))
    await shell.submit("first")
    await shell.submit("second")
    assert len(recorder.of_type("message_end")) == 4  # no event lost
    errors = notices(recorder, "error")
    assert (
        len(errors) == 1
        and "Cannot save session to" in errors[0]
        and "continuing unsaved" in errors[0]
    )
    assert [m.role for m in shell.session.build_context()] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]


def test_dumps_line_survives_lone_surrogates() -> None:
    line = dumps_line({"text": "a\ud800b é"})
    assert line.endswith(b"\n") and b"\xc3\xa9" in line
    assert json.loads(line)["text"].startswith("a")


async def test_session_append_with_lone_surrogate(project: Path) -> None:
    shell, _, _ = make_shell(project, reply(text("ok")))
    await shell.submit("bad \ud800 char")
    assert shell.session.path is not None and shell.session.path.is_file()
    assert SessionStore.open(shell.session.path).write_error is None


async def test_abort_during_input_hook_prevents_the_run(project: Path) -> None:
    shell, stream, recorder = make_shell(project, reply(text("should not run")))
    entered = asyncio.Event()

    async def slow_hook(value: str) -> str:
        entered.set()
        await asyncio.sleep(0.2)
        return value

    shell.input_transforms.append(slow_hook)
    task = asyncio.ensure_future(shell.submit("hello"))
    await entered.wait()
    assert shell.busy  # Esc / Ctrl+C front ends check this
    shell.abort()
    await task
    assert stream.calls == 0 and recorder.of_type("agent_start") == []
    assert not shell.busy


def _compaction_settings() -> Settings:
    return Settings(
        compaction=CompactionSettings(
            context_budget=5000, reserve_tokens=1000, keep_recent_tokens=60
        )
    )


async def test_abort_reaches_post_run_compaction(project: Path) -> None:
    shell, _, recorder = make_shell(
        project,
        reply(text("first answer")),
        reply(text("second"), usage=usage(4500)),
        reply(hang=True),
        settings=_compaction_settings(),
    )
    await shell.submit("one")
    task = asyncio.ensure_future(shell.submit("two"))
    while not recorder.of_type("compaction_start"):
        await asyncio.sleep(0.01)
    shell.abort()
    await asyncio.wait_for(task, 5)
    end = recorder.of_type("compaction_end")[-1]
    assert end.aborted and end.error_message == "Compaction aborted"
    assert not [n for n in notices(recorder, "warning") if "compaction failed" in n]


async def test_manual_compaction_abort(project: Path) -> None:
    shell, _, recorder = make_shell(project, reply(text("a")), reply(text("b")), reply(hang=True))
    await shell.submit("one")
    await shell.submit("two")
    task = asyncio.create_task(shell.compact())
    while not recorder.of_type("compaction_start"):
        await asyncio.sleep(0.01)
    assert shell.busy
    shell.abort()
    with pytest.raises(CompactionError, match="aborted"):
        await asyncio.wait_for(task, 5)
    assert recorder.of_type("compaction_end")[-1].aborted


async def test_budget_below_keep_recent_still_compacts(project: Path) -> None:
    settings = Settings(
        compaction=CompactionSettings(
            context_budget=5000, reserve_tokens=1000, keep_recent_tokens=20000
        )
    )
    shell, _, recorder = make_shell(
        project,
        reply(text("x" * 4000)),
        reply(text("y" * 4000), usage=usage(4500)),
        reply(text("## Goal\nsum")),
        settings=settings,
    )
    await shell.submit("one")
    await shell.submit("two")
    ends = recorder.of_type("compaction_end")
    assert ends and ends[-1].error_message is None, ends


def _credential_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str | None, str | None]]:
    from agent_core import providers

    calls: list[tuple[str, str | None, str | None]] = []
    real = providers.resolve_model

    def spy(spec: str, **kwargs: Any) -> Any:
        calls.append((spec, kwargs.get("api_key"), kwargs.get("api_base")))
        return real(spec, **kwargs)

    monkeypatch.setattr(providers, "resolve_model", spy)
    return calls


def test_cli_key_is_not_sent_to_another_provider(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _credential_calls(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    shell = CodingAgent(
        ShellOptions(
            cwd=project,
            model="openai/gpt-4o-mini",
            api_key="sk-openai-cli",
            api_base="http://127.0.0.1:9/v1",
            no_tools=True,
        )
    )
    shell.set_model("anthropic/claude-sonnet-4-5")
    shell.set_model("openai/gpt-4o")
    assert calls[0] == ("openai/gpt-4o-mini", "sk-openai-cli", "http://127.0.0.1:9/v1")
    assert calls[1] == ("anthropic/claude-sonnet-4-5", None, None)
    assert calls[2] == ("openai/gpt-4o", "sk-openai-cli", "http://127.0.0.1:9/v1")


async def test_restored_model_change_does_not_get_the_cli_key(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    settings = Settings(model="openai/gpt-4o-mini")
    first = CodingAgent(
        ShellOptions(cwd=project, api_key="sk-openai-cli", settings=settings, no_tools=True)
    )
    first.set_model("anthropic/claude-sonnet-4-5")
    calls = _credential_calls(monkeypatch)
    CodingAgent(
        ShellOptions(
            cwd=project,
            api_key="sk-openai-cli",
            settings=settings,
            continue_session=True,
            no_tools=True,
        )
    )
    assert calls == [
        ("openai/gpt-4o-mini", "sk-openai-cli", None),
        ("anthropic/claude-sonnet-4-5", None, None),
    ]


async def test_no_session_with_continue_does_not_append(project: Path) -> None:
    first, _, _ = make_shell(project, reply(text("one")))
    await first.submit("first")
    assert first.session.path is not None
    before = first.session.path.read_bytes()
    second, _, _ = make_shell(project, reply(text("two")), persist=False, continue_session=True)
    await second.submit("second")
    assert first.session.path.read_bytes() == before
    assert [m.role for m in second.session.build_context()] == ["user", "assistant"] * 2


def test_skill_symlink_loop_terminates(project: Path) -> None:
    skills = project / ".pi" / "skills"
    (skills / "a").mkdir(parents=True)
    (skills / "a" / "loop").symlink_to(skills)
    found, _ = discover_skills(project)
    assert found == []


def test_non_utf8_settings_is_a_settings_error(project: Path, pi_home: Path) -> None:
    (pi_home / "settings.json").write_bytes(b'{"model": "\xff"}')
    with pytest.raises(SettingsError, match="settings.json"):
        load_settings(project)


def test_unreadable_prompt_override_is_a_warning(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".pi").mkdir()
    (project / ".pi" / "SYSTEM.md").write_text("custom")

    def denied(self: Path, *args: Any, **kwargs: Any) -> str:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_text", denied)
    warnings: list[str] = []
    assert read_prompt_override(project, "SYSTEM.md", warnings.append) is None
    assert warnings == [
        f"Cannot read {project / '.pi' / 'SYSTEM.md'}: Permission denied; ignoring it."
    ]


async def test_corrupt_entry_warnings_are_shown_on_resume(project: Path) -> None:
    first, _, _ = make_shell(project, reply(text("one")))
    await first.submit("first")
    assert first.session.path is not None
    lines = first.session.path.read_text().splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if '"content":[' in line)  # the answer
    lines[last] = lines[last].replace('"content":[', '"content":[[', 1)
    first.session.path.write_text("".join(lines))
    second, _, _ = make_shell(project, persist=False, continue_session=True)
    shown = [n.text for n in second.startup_notices]
    assert any("corrupt" in t or "invalid" in t for t in shown), shown


async def test_commands_refused_while_running(project: Path) -> None:
    shell, _, _ = make_shell(project, reply(hang=True))
    task = asyncio.ensure_future(shell.submit("go"))
    while not shell.agent.state.is_streaming:
        await asyncio.sleep(0.01)
    refused = await shell.submit("/new")
    assert refused is not None and refused.error and "running" in (refused.output or "")
    allowed = await shell.submit("/session")
    assert allowed is not None and not allowed.error
    with pytest.raises(SessionError, match="running"):
        shell.new_session()
    with pytest.raises(SessionError, match="running"):
        shell.switch_session("whatever")
    with pytest.raises(CompactionError, match="running"):
        await shell.compact()
    shell.abort()
    await task
    assert not shell.busy


async def test_fork_of_fresh_session_is_a_session_error(project: Path) -> None:
    shell, _, _ = make_shell(project)
    with pytest.raises(SessionError, match="Nothing to fork"):
        shell.fork()


async def test_fork_runs_session_start_hooks(project: Path) -> None:
    shell, _, _ = make_shell(project, reply(text("one")))
    await shell.submit("first")
    started: list[bool] = []
    shell.hooks.session_start = lambda: started.append(True)  # type: ignore[method-assign]
    shell.fork()
    assert started == [True]


async def test_aclose_closes_current_and_replaced_stream_fns(project: Path) -> None:
    shell, stream, _ = make_shell(project)
    closed: list[str] = []

    class Closable:
        def __init__(self, name: str) -> None:
            self.name = name

        async def aclose(self) -> None:
            closed.append(self.name)

    shell.agent.stream_fn = Closable("old")  # type: ignore[assignment]
    shell.options.stream_fn = Closable("new")  # type: ignore[assignment]
    shell.set_model("test/other")
    await shell.aclose()
    assert sorted(closed) == ["new", "old"]


def test_message_end_is_emitted_even_if_append_raises(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shell, _, recorder = make_shell(project)

    def boom(message: Any) -> str:
        raise RuntimeError("boom")

    monkeypatch.setattr(shell.session, "append_message", boom)
    from agent_core import user_message

    shell._on_agent_event(MessageEnd(message=user_message("x")))
    assert recorder.of_type("message_end")
