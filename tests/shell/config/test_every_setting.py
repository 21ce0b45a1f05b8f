"""Every documented setting takes effect: one probe per key, the list generated from the models.

Each probe writes the key into ``$PI_HOME/settings.json`` (the real loading path), builds a
shell, and looks where the value is used: the component that consumes it (the agent, the
stream function's arguments, the sandbox, the tool, the budget...), not ``shell.settings``.
A key added to the settings records without a probe here fails
:func:`test_every_key_has_a_probe`; ``bashTimeoutS`` (which did nothing) is also run for real.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

import msgspec
import pytest

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.shell.review.test_review_cli import (  # noqa: F401 - probes named in RUN_FOR_REAL
    test_large_diffs_are_reviewed_in_parallel_parts as review_parts_run,
)
from tests.shell.review.test_review_cli import (  # noqa: F401 - a probe named in RUN_FOR_REAL
    test_the_review_model_and_focus as review_model_run,
)
from tests.shell.review.test_runner import (  # noqa: F401 - a probe named in RUN_FOR_REAL
    test_parts_run_in_parallel_up_to_the_setting as review_parallel_run,
)

Probe = Callable[[CodingAgent], Any]


def leaf_keys(model: type[msgspec.Struct] = Settings, prefix: str = "") -> list[str]:
    """Every leaf key of the settings, dotted and camelCase, as users write them (a section
    that may be left out, ``statusLine``, is one key)."""
    keys: list[str] = []
    for field in msgspec.structs.fields(model):
        kind = field.type
        while get_origin(kind) is Annotated:
            kind = get_args(kind)[0]
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
            keys.extend(leaf_keys(kind, f"{prefix}{field.encode_name}."))
        else:
            keys.append(prefix + field.encode_name)
    return keys


def nested(key: str, value: Any) -> dict[str, Any]:
    data: Any = value
    for part in reversed(key.split(".")):
        data = {part: data}
    return data


CAPTURED: dict[str, Any] = {}


def _stream_kwargs(shell: CodingAgent) -> dict[str, Any]:
    return CAPTURED["make_stream_fn"]


def _tool(shell: CodingAgent, name: str) -> Any:
    return next(t for t in shell.tools if t.name == name)


def _tui_app(shell: CodingAgent) -> Any:
    from pi_cli.tui.app import PiApp

    return PiApp(shell)


# key -> (value written, probe, what the probe must see)
PROBES: dict[str, tuple[Any, Probe, Any]] = {
    "model": ("openai/gpt-4.1-mini", lambda s: s.model_id, "openai/gpt-4.1-mini"),
    "thinking": ("high", lambda s: s.agent.thinking, "high"),
    "tools": (["read", "ls"], lambda s: [t.name for t in s.tools], ["read", "ls"]),
    "transport": ("litellm", lambda s: CAPTURED["resolve_model"]["transport"], "litellm"),
    "openaiApi": ("responses", lambda s: s.resolved_model.api, "openai-responses"),
    "apiBase": (
        "http://127.0.0.1:9/v1",
        lambda s: s.resolved_model.base_url,
        "http://127.0.0.1:9/v1",
    ),
    "theme": ("light", lambda s: _in_app(s, lambda app: app.theme), "light"),
    "ui": ("plain", lambda s: CAPTURED["launch_ui"], "plain"),
    "steeringMode": ("all", lambda s: s.queue.steering_mode, "all"),
    "followUpMode": ("all", lambda s: s.queue.follow_up_mode, "all"),
    "toolExecution": ("sequential", lambda s: s.agent.tool_execution, "sequential"),
    "compaction.enabled": (False, lambda s: _over_threshold(s), False),
    "compaction.reserveTokens": (1234, lambda s: s.context_window - s.compactor.threshold, 1234),
    "compaction.keepRecentTokens": (777, lambda s: _compaction_keep(s), 777),
    "compaction.contextBudget": (5000, lambda s: s.context_window, 5000),
    "retry.enabled": (False, lambda s: CAPTURED["make_stream_fn"]["retry"].max_retries, 0),
    "retry.maxRetries": (7, lambda s: CAPTURED["make_stream_fn"]["retry"].max_retries, 7),
    "retry.baseDelayMs": (250, lambda s: CAPTURED["make_stream_fn"]["retry"].base_delay_s, 0.25),
    "timeouts.firstByteS": (11.0, lambda s: _stream_kwargs(s)["first_byte_timeout_s"], 11.0),
    "timeouts.idleS": (22.0, lambda s: _stream_kwargs(s)["idle_timeout_s"], 22.0),
    "checkpoints.enabled": (False, lambda s: s.checkpoints.off is not None, True),
    "checkpoints.maxFileBytes": (1001, lambda s: s.checkpoints.limits.max_file_bytes, 1001),
    "checkpoints.maxSnapshotBytes": (
        2002,
        lambda s: s.checkpoints.limits.max_snapshot_bytes,
        2002,
    ),
    "checkpoints.maxFiles": (33, lambda s: s.checkpoints.limits.max_files, 33),
    "checkpoints.waitMs": (44, lambda s: _checkpoint_wait(s), True),
    "checkpoints.keepDays": (5.0, lambda s: _prune_args(s)[0], 5.0),
    "checkpoints.maxRepoMb": (66, lambda s: _prune_args(s)[1], 66),
    "hooks": (
        {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]},
        lambda s: s.hooks.active,
        True,
    ),
    "skills": (["SKILLS_DIR"], lambda s: [k.name for k in s.sources.skills], ["probe-skill"]),
    "enabledPlugins": (
        {"probe@market": True},  # not installed: the plugin part reads it and says so
        lambda s: [p.split(" is ")[0] for p in s.plugins.problems],
        ["Plugin probe@market"],
    ),
    "localProbePorts": ({"ollama": 1234}, lambda s: CAPTURED["probe_ports"], {"ollama": 1234}),
    "bashTimeoutS": (7.5, lambda s: _tool(s, "bash").default_timeout, 7.5),
    "permissions.defaultMode": ("plan", lambda s: s.permissions.mode, "plan"),
    "permissions.allow": (
        ["Bash(make:*)"],
        lambda s: s.gate.engine.evaluate("bash", {"command": "make x"}).behavior,
        "allow",
    ),
    "permissions.ask": (
        ["Read(./a.txt)"],
        lambda s: s.gate.engine.evaluate("read", {"path": "a.txt"}).behavior,
        "ask",
    ),
    "permissions.deny": (
        ["Read(./a.txt)"],
        lambda s: s.gate.engine.check_deny("read", {"path": "a.txt"}) is not None,
        True,
    ),
    "permissions.additionalDirectories": (
        ["EXTRA_DIR"],
        lambda s: [p.name for p in s.permissions.extra_dirs],
        ["extra"],
    ),
    "permissions.approvalTimeoutS": (3.0, lambda s: s.gate.broker.timeout_s, 3.0),
    "permissions.disableBypassPermissionsMode": ("disable", lambda s: _bypass_refused(s), True),
    "toolEnv.inheritSecrets": (
        True,
        lambda s: s.safety.tools_env().get("OPENAI_API_KEY"),
        "sk-probe",
    ),
    "notifications": ("bell", lambda s: _in_app(s, lambda app: app.attention.mode), "bell"),
    "statusLine": (
        {"type": "command", "command": "echo hi", "padding": 1},
        lambda s: _in_app(s, lambda app: app.status_line.config.command),
        "echo hi",
    ),
    "bashSpillCapMb": (2, lambda s: s.sandbox.output_cap, 2 * 1024 * 1024),
    "sandbox.mode": ("required", lambda s: s.sandbox.mode, "required"),
    "sandbox.network": (True, lambda s: s.sandbox.network, True),
    "sandbox.writable": (
        ["WRITABLE_DIR"],
        lambda s: [p.name for p in s.sandbox.writable],
        ["writable"],
    ),
    "mcp.startupTimeoutS": (1.5, lambda s: s.mcp.settings.startup_timeout_s, 1.5),
    "mcp.connectTimeoutS": (2.5, lambda s: s.mcp.settings.connect_timeout_s, 2.5),
    "mcp.toolTimeoutS": (3.5, lambda s: s.mcp.settings.tool_timeout_s, 3.5),
    "mcpServers": (
        {"probe": {"command": "PYTHON", "args": ["-c", "pass"]}},
        lambda s: sorted(s.mcp.servers),
        ["probe"],
    ),
    "extensions": (["EXT_FILE"], lambda s: [e.name for e in s.extensions.runtime], ["probe_ext"]),
    "disabledExtensions": (["probe_ext"], lambda s: s.extensions, None),
    "packages": (
        ["pypi:probe-pkg", {"source": "pypi:probe-two==1.0"}],
        lambda s: [n.text for n in s.startup_notices if "declared" in n.text],
        [
            "Packages declared in your settings are not installed: pypi:probe-pkg, "
            "pypi:probe-two==1.0. Install them: pi install"
        ],
    ),
    "extensionTimeoutS": (2.5, lambda s: s.extensions.runtime.timeout_s, 2.5),
    "webFetch.allowPrivateHosts": (
        ["127.0.0.1:8080"],
        lambda s: _tool(s, "web_fetch").refusal({"url": "http://127.0.0.1:8080/"}),
        None,
    ),
    "webFetch.maxBytes": (4096, lambda s: _tool(s, "web_fetch").config.max_bytes, 4096),
    "webFetch.timeoutS": (9.0, lambda s: _tool(s, "web_fetch").config.timeout_s, 9.0),
    "network.proxy": (
        "http://127.0.0.1:3128",
        lambda s: _tool(s, "web_fetch").config.network.proxy,
        "http://127.0.0.1:3128",
    ),
    "network.noProxy": (
        ["corp.example"],
        lambda s: list(_tool(s, "web_fetch").config.network.no_proxy),
        ["corp.example"],
    ),
    "network.caFile": (
        "CA_FILE",
        lambda s: Path(_tool(s, "web_fetch").config.network.ca_file).name,
        "ca.pem",
    ),
    "maxTurns": (9, lambda s: s.agent_tools.budget.max_turns, 9),
    "maxCost": (1.5, lambda s: s.agent_tools.budget.max_cost, 1.5),
    "outputSchemaRetries": (4, lambda s: _schema_retries(s), 4),
    "goal.maxRounds": (3, lambda s: s.goals.max_rounds, 3),
    "monitor.intervalS": (0.5, lambda s: _tool(s, "monitor").limits.interval_s, 0.5),
    "monitor.maxLines": (7, lambda s: _tool(s, "monitor").limits.max_lines, 7),
    "monitor.maxLineBytes": (99, lambda s: _tool(s, "monitor").limits.max_line_bytes, 99),
    "goal.checkTimeoutS": (42.0, lambda s: s.goals.check_timeout, 42.0),
    "goal.judgeModel": (
        "openai/gpt-4.1-mini",
        lambda s: s.goals.judge_stream()[1],
        "openai/gpt-4.1-mini",
    ),
    "webSearch.backend": (
        "searxng",
        lambda s: _tool(s, "web_search").config.backend.kind,
        "searxng",
    ),
    "webSearch.url": (
        "http://127.0.0.1:9/search",
        lambda s: _tool(s, "web_search").config.backend.url,
        "http://127.0.0.1:9/search",
    ),
    "webSearch.maxResults": (3, lambda s: _tool(s, "web_search").config.max_results, 3),
    "telemetry.enabled": (True, lambda s: s.telemetry is not None, True),
    "telemetry.endpoint": (
        "http://127.0.0.1:9/otel",
        lambda s: CAPTURED["otlp"][0]["endpoint"],
        "http://127.0.0.1:9/otel/v1/traces",
    ),
    "telemetry.headers": (
        {"x-probe": "1"},
        lambda s: CAPTURED["otlp"][0]["headers"],
        {"x-probe": "1"},
    ),
    "telemetry.logPrompts": (True, lambda s: s.telemetry.log_prompts, True),
    "telemetry.serviceName": (
        "probe-svc",
        lambda s: s.telemetry.tracer_provider.resource.attributes["service.name"],
        "probe-svc",
    ),
    "telemetry.metricsIntervalS": (7, lambda s: CAPTURED["metrics_interval"], 7000),
    "lsp.enabled": (False, lambda s: s.lsp.may_serve(s.cwd / "a.py"), False),
    "lsp.startOnRead": (True, lambda s: s.lsp.start_on_read, True),
    "lsp.servers": (
        {"probe": {"command": "probe-lsp", "extensionToLanguage": {".pr": "probe"}}},
        lambda s: s.lsp.open().table.everything()[0][0],
        "probe",
    ),
    **{  # what the servers' manager (the consumer) reads
        f"lsp.{key}": (value, lambda s, a=attr: getattr(s.lsp.open().manager.settings, a), value)
        for key, attr, value in (
            ("diagnostics", "diagnostics", False),
            ("diagnosticsWaitMs", "diagnostics_wait_ms", 77),
            ("maxDiagnostics", "max_diagnostics", 3),
            ("navigation", "navigation", False),
            ("rename", "rename", True),
            ("startupTimeoutS", "startup_timeout_s", 4.0),
            ("requestTimeoutS", "request_timeout_s", 5.0),
        )
    },
    "server.approvalTimeoutS": (120.0, lambda s: _hosted_approval_timeout(s), 120.0),
    "server.idleExitS": (42.0, lambda s: _server_idle_exit(s), 42.0),
    "server.notify": ("off", lambda s: _server_notifies(s), False),
    "server.clientLagMib": (2.0, lambda s: _server_lag_limit(s), 2 * 1024 * 1024),
}

EXTRA: dict[str, dict[str, Any]] = {
    "webSearch.url": {"webSearch": {"backend": "searxng"}},
    "webSearch.maxResults": {"webSearch": {"backend": "searxng", "url": "http://127.0.0.1:9/s"}},
    "webSearch.backend": {"webSearch": {"url": "http://127.0.0.1:9/s"}},
    **{
        f"telemetry.{key}": {"telemetry": {"enabled": True, "endpoint": "http://127.0.0.1:9/o"}}
        for key in ("headers", "logPrompts", "serviceName", "metricsIntervalS")
    },
    "telemetry.endpoint": {"telemetry": {"enabled": True}},
    "disabledExtensions": {"extensions": ["EXT_FILE"]},
    "extensionTimeoutS": {"extensions": ["EXT_FILE"]},
    "telemetry.enabled": {"telemetry": {"endpoint": "http://127.0.0.1:9/o"}},
}
"""Other settings a probe needs beside its key (the tool or the exporter exists only then)."""


def _bypass_refused(shell: CodingAgent) -> bool:
    from pi_cli.shell.permissions.modes import ModeError

    try:
        shell.permissions.set_mode("yolo")
    except ModeError as exc:
        return "disableBypassPermissionsMode" in str(exc)
    return False


RUN_FOR_REAL = {
    "subagents.maxTurns": "test_subagents_max_turns_stops_a_child",
    "review.model": "review_model_run",
    "review.chunkLines": "review_parts_run",
    "review.parallel": "review_parallel_run",
}
"""Keys whose probe is a whole run (a test of its own, below)."""


def test_every_key_has_a_probe() -> None:
    keys = set(PROBES) | set(RUN_FOR_REAL)
    assert keys == set(leaf_keys()), "a settings key without a probe (or a stale probe)"
    assert all(name in globals() for name in RUN_FOR_REAL.values())
    assert not set(PROBES) & set(RUN_FOR_REAL)


@pytest.fixture
def capture(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """Records what consumers are called with (where no attribute keeps the value)."""
    from agent_core import providers
    from pi_cli.shell.models import local

    CAPTURED.clear()
    real_stream, real_resolve = providers.make_stream_fn, providers.resolve_model

    def make_stream_fn(model: Any, **kwargs: Any) -> Any:
        CAPTURED["make_stream_fn"] = kwargs
        return real_stream(model, **kwargs)

    def resolve_model(spec: str, **kwargs: Any) -> Any:
        CAPTURED["resolve_model"] = kwargs
        return real_resolve(spec, **kwargs)

    def detect_local_model(ports: Any, env: Any) -> Any:
        CAPTURED["probe_ports"] = ports
        return local.LocalModel(local.DEFAULT_SERVERS[0], "probe")

    monkeypatch.setattr(providers, "make_stream_fn", make_stream_fn)
    monkeypatch.setattr(providers, "resolve_model", resolve_model)
    monkeypatch.setattr(local, "detect_local_model", detect_local_model)
    monkeypatch.setattr(local, "announce", lambda found: None)
    _spy_telemetry(monkeypatch)
    yield CAPTURED


def _spy_telemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_cli.shell.telemetry import otel

    real_span, real_reader = otel.OTLPSpanExporter, otel.PeriodicExportingMetricReader

    def span_exporter(**kwargs: Any) -> Any:
        CAPTURED.setdefault("otlp", []).append(kwargs)
        return real_span(**kwargs)

    def reader(exporter: Any, **kwargs: Any) -> Any:
        CAPTURED["metrics_interval"] = kwargs.get("export_interval_millis")
        return real_reader(exporter, **kwargs)

    monkeypatch.setattr(otel, "OTLPSpanExporter", span_exporter)
    monkeypatch.setattr(otel, "PeriodicExportingMetricReader", reader)


async def _in_app(shell: CodingAgent, read: Callable[[Any], Any]) -> Any:
    from pi_cli.tui.app import PiApp

    app = PiApp(shell)
    async with app.run_test():
        return read(app)


def _over_threshold(shell: CodingAgent) -> bool:
    from agent_core import UserMessage

    shell.agent.state.messages = [UserMessage(content="word " * 200_000)]
    return shell.compactor.should_compact()


async def _compaction_keep(shell: CodingAgent) -> int:
    import pi_cli.shell.compaction as compaction

    seen: list[int] = []
    real = compaction.find_cut_point

    def spy(messages: Any, keep: int) -> int:
        seen.append(keep)
        return real(messages, keep)

    for prompt in ("one", "two", "three"):
        await shell.submit(prompt)
        await shell.wait_idle()
    compaction.find_cut_point = spy  # type: ignore[assignment]
    try:
        await shell.compactor.compact("manual")
    finally:
        compaction.find_cut_point = real  # type: ignore[assignment]
    return seen[0]


async def _checkpoint_wait(shell: CodingAgent) -> bool:
    """A snapshot slower than ``waitMs``: the call goes on without it after that long."""
    import threading

    import pi_cli.shell.checkpoints.manager as manager

    release = threading.Event()
    real = manager.take_snapshot

    def slow(*args: Any, **kwargs: Any) -> Any:
        release.wait(30)
        return real(*args, **kwargs)

    notices: list[str] = []
    shell.events.subscribe(lambda e: notices.append(getattr(e, "text", "")))
    manager.take_snapshot = slow  # type: ignore[assignment]
    try:
        await shell.checkpoints.before_change("write", {"path": "x.txt", "content": ""})
    finally:
        release.set()
        manager.take_snapshot = real  # type: ignore[assignment]
    return any("longer than 0.044 s (checkpoints.waitMs" in n for n in notices)


def _prune_args(shell: CodingAgent) -> tuple[float, int]:
    import pi_cli.shell.checkpoints.prune as prune

    seen: list[tuple[float, int]] = []
    real = prune.prune
    prune.prune = lambda git, days, mb: seen.append((days, mb)) or real(git, days, mb)  # type: ignore[assignment]
    try:
        (shell.checkpoints.git.root / "pruned").unlink(missing_ok=True)
        shell.checkpoints._warm(shell.session.session_id)
    finally:
        prune.prune = real  # type: ignore[assignment]
    return seen[0]


async def _hosted_approval_timeout(shell: CodingAgent) -> float | None:
    """The shell hosted by a ``pi serve`` hub: its approval broker waits this long."""
    from pi_cli.server.hub import SessionHub
    from pi_cli.server.registry import Registry
    from pi_cli.server.wire import OpenSession

    registry = Registry(shell.cwd / "sessions.json")
    hub = SessionHub(shell.settings, registry, build=lambda options: shell)
    await hub.open(OpenSession(cwd=str(shell.cwd)))
    return shell.gate.broker.timeout_s


def _server_idle_exit(shell: CodingAgent) -> float | None:
    from pi_cli.server.serve import ServeOptions, idle_exit_after

    return idle_exit_after(ServeOptions(socket=None, on_demand=True), shell.settings)


async def _server_notifies(shell: CodingAgent) -> bool:
    """Whether a waiting approval starts ``notify-send`` (a desktop and the program exist)."""
    from pi_cli.server import notify
    from pi_cli.shell import PermissionRequested

    started: list[str] = []

    async def run(program: str, title: str, body: str) -> None:
        started.append(title)

    saved = notify.desktop_available, notify.shutil.which, notify._run
    notify.desktop_available = lambda: True  # type: ignore[assignment]
    notify.shutil.which = lambda name: "/usr/bin/notify-send"  # type: ignore[assignment]
    notify._run = run  # type: ignore[assignment]
    try:
        request = PermissionRequested(
            id="r1", tool_call_id="c1", tool_name="bash", title="rm -rf x"
        )
        notify.notify_waiting(shell.settings, "0123456789ab", request)
        await asyncio.sleep(0)
    finally:
        notify.desktop_available, notify.shutil.which, notify._run = saved  # type: ignore[assignment]
    return bool(started)


def _server_lag_limit(shell: CodingAgent) -> int:
    from pi_cli.server.app import lag_limit

    return lag_limit(shell.settings)


def _schema_retries(shell: CodingAgent) -> int:
    return shell.agent_tools.output.retries if shell.agent_tools.output else -1


@pytest.mark.parametrize("key", sorted(PROBES))
async def test_the_setting_takes_effect(
    key: str,
    tmp_path: Path,
    pi_home: Path,
    capture: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    value, probe, expected = PROBES[key]
    data = _materialise(_deep_merge(EXTRA.get(key, {}), nested(key, value)), tmp_path)
    (pi_home / "settings.json").write_text(json.dumps(data))
    if key != "localProbePorts":  # without a key or a model pi looks for a local server
        monkeypatch.setenv("OPENAI_API_KEY", "sk-probe")
    work = tmp_path / "project"
    work.mkdir()
    if key == "ui":
        from types import SimpleNamespace

        from pi_cli.launch import _settings_ui

        CAPTURED["launch_ui"] = _settings_ui(SimpleNamespace(cwd=work))  # type: ignore[arg-type]
    options: dict[str, Any] = {}
    if key not in _NEEDS_MODEL:
        options["stream_fn"] = ScriptedStream(*[reply(text(f"answer {i}")) for i in range(8)])
    if key == "outputSchemaRetries":
        (tmp_path / "schema.json").write_text('{"type": "object"}')
        options["output_schema"] = str(tmp_path / "schema.json")
    shell = CodingAgent(ShellOptions(cwd=work, **options))
    try:
        observed = probe(shell)
        if inspect.isawaitable(observed):
            observed = await observed
        assert observed == expected
    finally:
        await shell.aclose()


_NEEDS_MODEL = frozenset(
    {"model", "transport", "openaiApi", "apiBase", "retry.enabled", "retry.maxRetries"}
    | {"retry.baseDelayMs", "timeouts.firstByteS", "timeouts.idleS", "localProbePorts"}
    | {"maxCost"}
)


def _deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _materialise(value: Any, tmp_path: Path) -> Any:
    """Placeholders that name real files and directories of this test."""
    import sys

    text = json.dumps(value)
    if "SKILLS_DIR" in text:
        skill = tmp_path / "skills" / "probe-skill"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            "---\nname: probe-skill\ndescription: A probe.\n---\nBody.\n"
        )
        text = text.replace("SKILLS_DIR", str(tmp_path / "skills"))
    for marker, name in (("EXTRA_DIR", "extra"), ("WRITABLE_DIR", "writable")):
        if marker in text:
            (tmp_path / name).mkdir()
            text = text.replace(marker, str(tmp_path / name))
    if "EXT_FILE" in text:
        (tmp_path / "probe_ext.py").write_text("def register(pi):\n    pass\n")
        text = text.replace("EXT_FILE", str(tmp_path / "probe_ext.py"))
    if "CA_FILE" in text:
        (tmp_path / "ca.pem").write_text("")
        text = text.replace("CA_FILE", str(tmp_path / "ca.pem"))
    return json.loads(text.replace('"PYTHON"', json.dumps(sys.executable)))


async def test_bash_timeout_s_times_out_a_call_that_names_no_timeout(
    tmp_path: Path, pi_home: Path
) -> None:
    """bashTimeoutS did nothing before (even in the user's own settings): now a call without a
    ``timeout`` argument stops after it."""
    (pi_home / "settings.json").write_text(json.dumps({"bashTimeoutS": 0.5}))
    work = tmp_path / "project"
    work.mkdir()
    stream = ScriptedStream(
        reply(tool_call("b1", "bash", {"command": "sleep 30; echo never"})), reply(text("done"))
    )
    shell = CodingAgent(ShellOptions(cwd=work, stream_fn=stream, tools=["bash"]))
    await shell.submit("wait")
    await shell.wait_idle()
    result = stream.contexts[1].messages[-1]
    assert "timed out" in str(result).lower() and "never" not in str(result)
    assert "default 0.5" in _tool(shell, "bash").description
    await shell.aclose()


async def test_subagents_max_turns_stops_a_child(tmp_path: Path, pi_home: Path) -> None:
    """A sub-agent that keeps calling tools stops after ``subagents.maxTurns`` model calls."""
    from tests.fakes.provider_server import FakeProviderServer
    from tests.fakes.script import ToolCallSpec, Turn
    from tests.shell.agent_tools.conftest import make_shell

    (pi_home / "settings.json").write_text(json.dumps({"subagents": {"maxTurns": 2}}))
    work = tmp_path / "project"
    work.mkdir()
    args = {
        "description": "look",
        "prompt": "CHILD: list forever",
        "subagent_type": "general-purpose",
    }
    with FakeProviderServer() as server:
        server.add(Turn(tool_calls=[ToolCallSpec("task", args, id="t1")]), Turn(text="done"))
        server.routes["CHILD"] = [
            Turn(tool_calls=[ToolCallSpec("ls", {}, id=f"c{i}")]) for i in range(6)
        ]
        shell = make_shell(work, server, tools=["ls", "task"])
        await shell.submit("delegate")
        await shell.wait_idle()
        child = [b for b in server.requests if "CHILD" in json.dumps(b["messages"][:2])]
        assert len(child) == 2
        await shell.aclose()
