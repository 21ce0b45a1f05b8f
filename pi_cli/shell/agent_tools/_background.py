"""Background sub-agents: ``task`` with ``background: true``.

The call returns the child's id (``a1``, ``a2``...) at once and the parent's run goes on. The
child runs as an asyncio task of the shell, with its own abort signal: Esc on the parent's run
does not stop it (``/agents`` does, or quitting pi). When it ends, its report (or the news that
it failed or was stopped) is **delivered** to the parent through the shell's input policy: a
steer taken at the next turn boundary while a run is live (never mid-turn), a held input while
the shell finishes an input, a run of its own when the shell is idle (as Claude Code wakes the
model). After an Esc, a report already queued stays queued and joins the next run.

Each child is a ``background_agent`` entry of the session when it starts and when it ends (with
its transcript), so ``/agents`` after ``pi -c`` shows what it did; a child whose last entry says
``running`` when the session is opened again was cut off by pi quitting or being killed: it is
shown ``interrupted``. Quitting pi aborts every running child and records it so.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import logging
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from agent_core import AbortSignal, Message, ToolError
from agent_core.messages import message_from_wire, to_wire
from pi_cli.shell.events.agent_tools import BackgroundAgentChanged, BackgroundAgentInfo

if TYPE_CHECKING:
    from pi_cli.shell.agent_tools._subagents import ChildRun, SubagentRunner
    from pi_cli.shell.events import ShellEvent
    from pi_cli.shell.session.store import SessionStore
    from tools.task import TaskOutcome, TaskRequest

ENTRY = "background_agent"
MAX_RUNNING = 16
"""At most this many background children run at once (each holds a model stream)."""
log = logging.getLogger("pi_cli")
_ID = re.compile(r"a(\d+)")


class _Deliver(Protocol):
    def deliver(self, text: str, origin: str) -> None: ...


class BackgroundShell(Protocol):
    """What background children use of the shell."""

    @property
    def session(self) -> SessionStore: ...
    @property
    def policy(self) -> _Deliver: ...
    def emit(self, event: ShellEvent) -> None: ...


class AgentError(Exception):
    """No such background agent, or it cannot do that now (the message says why)."""


@dataclass
class BackgroundChild:
    """One background sub-agent, running or ended (restored from the session or not)."""

    info: BackgroundAgentInfo
    prompt: str
    store: SessionStore | None = None  # the session it was started in (its entries go there)
    built: ChildRun | None = None
    task: asyncio.Task[None] | None = None
    signal: AbortSignal = field(default_factory=AbortSignal)
    answer: str = ""
    stored: list[dict[str, Any]] = field(default_factory=list)  # a restored transcript

    @property
    def running(self) -> bool:
        """It is running now (in this process)."""
        return self.info.status == "running" and self.task is not None

    def transcript(self) -> list[Message]:
        """Its conversation: the prompt, its answers and tool calls (live, or as recorded)."""
        if self.built is not None:
            return list(self.built.agent.state.messages)
        messages: list[Message] = []
        for raw in self.stored:
            try:
                messages.append(message_from_wire(raw))
            except Exception:  # noqa: BLE001 - a damaged message costs that message only
                continue
        return messages


class BackgroundAgents:
    """The shell's background children (see the module docstring)."""

    def __init__(self, shell: BackgroundShell, runner: SubagentRunner) -> None:
        self.shell = shell
        self.runner = runner
        self.children: dict[str, BackgroundChild] = {}
        self._closing = False
        runner.background = self

    # ------------------------------------------------------------------ starting

    def spawn(self, request: TaskRequest) -> str:
        """Start ``request`` in the background; its id (ToolError when it cannot start)."""
        if self._closing:
            raise ToolError("pi is quitting: no background agent can start now.")
        running = sum(1 for child in self.children.values() if child.running)
        if running >= MAX_RUNNING:
            raise ToolError(
                f"{running} background agents are running already (at most {MAX_RUNNING}); "
                "wait for their reports or run this one in the foreground."
            )
        built = self.runner.build(request, None)
        child_id = self._next_id()
        info = BackgroundAgentInfo(
            id=child_id,
            task_id=request.tool_call_id,
            agent=request.agent,
            description=request.description,
            model=built.model_id,
            started_at=_now(),
        )
        child = BackgroundChild(info, request.prompt, self.shell.session, built)
        built.watch.changed.append(lambda: self._progress(child))
        self.children[child_id] = child
        self._record(child)
        self._changed(child)
        child.task = asyncio.get_running_loop().create_task(self._run(child, request))
        return child_id

    def _next_id(self) -> str:
        numbers = [int(m.group(1)) for key in self.children if (m := _ID.fullmatch(key))]
        return f"a{max(numbers, default=0) + 1}"

    async def _run(self, child: BackgroundChild, request: TaskRequest) -> None:
        assert child.built is not None
        outcome: TaskOutcome | None = None
        try:
            label = f"background agent {child.info.id} ({child.info.agent})"
            outcome = await self.runner.run(request, child.built, child.signal, label)
        except Exception as exc:
            log.exception("background agent %s failed", child.info.id)
            child.info.error = f"{type(exc).__name__}: {exc}"
        self._ended(child, outcome)

    def _ended(self, child: BackgroundChild, outcome: TaskOutcome | None) -> None:
        info = child.info
        if outcome is not None:
            child.answer = outcome.answer
            info.turns, info.usage, info.error = outcome.turns, dict(outcome.usage), outcome.error
        if self._closing:
            info.status = "interrupted"
        elif child.signal.aborted:
            info.status = "aborted"
        else:
            info.status = "failed" if info.error else "done"
        info.ended_at = _now()
        child.task = None
        self._record(child, final=True)
        if not self._closing and child.store is self.shell.session:
            info.delivered = True
            self.shell.policy.deliver(_report(child), f"agent:{info.id}")
        self._changed(child)

    # ------------------------------------------------------------------ the user's view

    def infos(self) -> list[BackgroundAgentInfo]:
        """Every child this session knows, oldest first."""
        return [child.info.model_copy() for child in self.children.values()]

    def get(self, child_id: str) -> BackgroundChild:
        """One child by id (AgentError if unknown)."""
        child = self.children.get(child_id.strip())
        if child is None:
            known = ", ".join(self.children) or "none"
            raise AgentError(f"No background agent {child_id.strip()!r} (known: {known}).")
        return child

    def send(self, child_id: str, text: str) -> None:
        """Send a running child a message it reads at its next turn boundary."""
        child = self.get(child_id)
        if not text.strip():
            raise AgentError("Nothing to send.")
        if not child.running or child.built is None:
            raise AgentError(f"Background agent {child.info.id} is {child.info.status}.")
        child.built.agent.steer(text)

    def abort(self, child_id: str) -> BackgroundChild:
        """Stop a running child (its parent is told it was stopped)."""
        child = self.get(child_id)
        if not child.running:
            raise AgentError(f"Background agent {child.info.id} is {child.info.status}.")
        child.signal.abort()
        return child

    def stop_all(self) -> list[str]:
        """pi is stopping (quitting, one-shot's Ctrl+C or SIGTERM): stop every running child,
        record it as interrupted and deliver nothing more, nor start any child; their ids."""
        self._closing = True
        running = [child for child in self.children.values() if child.running]
        for child in running:
            child.signal.abort()
        return [child.info.id for child in running]

    async def wait_running(self) -> bool:
        """Wait until no child runs; whether any did (one-shot: their reports start runs, so
        wait for the shell to be idle again and ask again)."""
        tasks = [child.task for child in self.children.values() if child.task is not None]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        return bool(tasks)

    async def aclose(self) -> None:
        """pi quits: abort every running child and record it as interrupted."""
        self.stop_all()
        await self.wait_running()

    # ------------------------------------------------------------------ the session

    def restore(self) -> None:
        """Children recorded on the session's current path (after a resume or a switch);
        running ones of this process stay listed."""
        live = {key: child for key, child in self.children.items() if child.running}
        found: dict[str, BackgroundChild] = {}
        session = self.shell.session
        refs = [ref for ref in session.path_to() if ref.type == ENTRY]
        for entry in session.iter_entries(refs):
            child = _from_entry(entry)
            if child is not None and child.info.id not in live:
                found[child.info.id] = child
        self.children = {**found, **live}

    def _record(self, child: BackgroundChild, final: bool = False) -> None:
        store = child.store
        if store is None:
            return
        fields: dict[str, Any] = {"agent": child.info.model_dump(mode="json", by_alias=True)}
        if final:
            fields["answer"] = child.answer
            fields["messages"] = [to_wire(message) for message in child.transcript()]
        else:
            fields["prompt"] = child.prompt
        try:
            store.append(ENTRY, **fields)
        except Exception:
            log.exception("cannot record background agent %s", child.info.id)

    def _progress(self, child: BackgroundChild) -> None:
        assert child.built is not None
        watch = child.built.watch
        child.info.turns, child.info.usage = watch.turns, dict(watch.usage)
        child.info.last_tool = watch.last_tool
        self._changed(child)

    def _changed(self, child: BackgroundChild) -> None:
        self.shell.emit(BackgroundAgentChanged(agent=child.info.model_copy()))


def _from_entry(entry: dict[str, Any]) -> BackgroundChild | None:
    try:
        info = BackgroundAgentInfo.model_validate(entry.get("agent"))
    except Exception:  # noqa: BLE001 - a damaged entry costs that entry only
        return None
    if info.status == "running":  # its process is gone: pi quit or was killed meanwhile
        info.status = "interrupted"
    raw = entry.get("messages")
    stored = [m for m in raw if isinstance(m, dict)] if isinstance(raw, list) else []
    answer = entry.get("answer")
    prompt = entry.get("prompt")
    return BackgroundChild(
        info,
        prompt if isinstance(prompt, str) else "",
        answer=answer if isinstance(answer, str) else "",
        stored=stored,
    )


def _report(child: BackgroundChild) -> str:
    """What the parent reads when a child ends."""
    info = child.info
    usage = info.usage
    turns = f"{info.turns} turn{'s' if info.turns != 1 else ''}"
    head = f"background agent {info.id} ({info.agent}: {info.description})"
    spent = f"{turns} · ${usage.get('cost', 0.0):.4f}"
    answer = child.answer.strip()
    if info.status == "done":
        return f"[{head} finished · {spent}]\n\n{answer or '(it ended without a final answer)'}"
    last = f"\n\nIts last message:\n{answer}" if answer else ""
    if info.status == "aborted":
        return f"[{head} was stopped by the user after {turns}; it did not finish]{last}"
    return f"[{head} failed after {spent}: {info.error}]{last}"


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
