"""The shell's side of the agent tools: todo list, plan approval, sub-agents, budgets, schema,
the user's answers to ``ask_user``.

Built by the CodingAgent before its tools (their :class:`~tools.services.ToolServices` come from
here) and :meth:`AgentTools.attach`-ed once the agent, the session and the permission gate
exist. The tools stay in ``tools/`` and know nothing of the shell: they get callables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from agent_core import MessageStart, UserMessage
from pi_cli.shell.agent_tools._background import AgentError, BackgroundAgents, BackgroundChild
from pi_cli.shell.agent_tools._budget import BudgetGuard, parse_limits
from pi_cli.shell.agent_tools._plan_approval import PlanApproval
from pi_cli.shell.agent_tools._subagents import SubagentRunner
from pi_cli.shell.agent_tools._todos import TodoState
from pi_cli.shell.agent_tools.profiles import AgentProfile, load_profiles
from pi_cli.shell.context import ShellContext
from pi_cli.shell.events import SessionChanged

__all__ = [
    "AgentError",
    "AgentTools",
    "BackgroundAgents",
    "BackgroundChild",
    "agent_status_line",
    "agent_thread_text",
]


def agent_status_line(info: BackgroundAgentInfo) -> str:
    """One background agent's line, as ``/agents`` lists it."""
    from pi_cli.shell.agent_tools._agents_command import status_line

    return status_line(info)


def agent_thread_text(info: BackgroundAgentInfo, messages: list[Message]) -> str:
    """One background agent's whole thread as text, as ``/agents show`` prints it."""
    from pi_cli.shell.agent_tools._agents_command import thread_text

    return thread_text(info, messages)


if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_core import Message
    from agent_core.providers import ResolvedModel
    from pi_cli.shell.agent_tools._background import _Deliver
    from pi_cli.shell.agent_tools.structured_output import OutputSchema
    from pi_cli.shell.commands import SlashCommandRegistry
    from pi_cli.shell.dialogs import DialogBroker
    from pi_cli.shell.events import ShellEvent
    from pi_cli.shell.events.agent_tools import BackgroundAgentInfo
    from pi_cli.shell.models.setup import ModelResolver
    from pi_cli.shell.options import ShellOptions
    from pi_cli.shell.permissions import PermissionControl
    from tools.services import ToolServices


class AgentToolsShell(ShellContext, Protocol):
    """What the agent tools use of the shell: its parts' view and the model in use."""

    @property
    def options(self) -> ShellOptions: ...
    @property
    def permissions(self) -> PermissionControl: ...
    @property
    def model_id(self) -> str: ...
    @property
    def resolved_model(self) -> ResolvedModel | None: ...
    @property
    def thinking(self) -> str: ...
    @property
    def dialogs(self) -> DialogBroker: ...
    @property
    def policy(self) -> _Deliver: ...
    @property
    def sandbox(self) -> Any: ...
    @property
    def safety(self) -> Any: ...
    @property
    def commands(self) -> SlashCommandRegistry: ...
    def subscribe(self, listener: Callable[[ShellEvent], None]) -> Callable[[], None]: ...


class AgentTools:
    """Todo list, plan approval, sub-agent runner, budgets and structured output of one shell.

    Raises:
        ConfigError: a bad ``--max-turns``/``--max-cost``, ``--max-cost`` with a model whose
            price is unknown, or an unreadable or invalid ``--output-schema``.
    """

    def __init__(self, shell: AgentToolsShell, models: ModelResolver, trusted: bool) -> None:
        self.shell = shell
        options, settings = shell.options, shell.settings
        self.budget = BudgetGuard(*parse_limits(options, settings), shell.emit)
        self.budget.check_model(shell.model_id, shell.resolved_model)
        models.check = self.budget.check_model  # /model, sub-agents' models
        self.output: OutputSchema | None = None
        if options.output_schema:
            from pi_cli.shell.agent_tools.structured_output import OutputSchema, load_schema

            schema = load_schema(options.output_schema, shell.cwd)
            self.output = OutputSchema(schema, settings.output_schema_retries, shell.emit)
        self.profiles: list[AgentProfile]
        self.profiles, problems = load_profiles(shell.cwd, trusted)
        for problem in problems:
            shell.notify(problem, "warning")
        self.todos = TodoState(shell.emit, lambda: shell.session)
        self.plans = PlanApproval(shell)
        self.runner = SubagentRunner(shell, models, self.profiles, self.budget)
        self.background = BackgroundAgents(shell, self.runner)  # task(background: true)
        self.web_search: Any = None  # tools.web.search.WebSearchConfig, made with the services

    @property
    def running_agents(self) -> int:
        """Background sub-agents running now (footers count them)."""
        return sum(1 for child in self.background.children.values() if child.running)

    def system_prompt_parts(self) -> list[str]:
        """Sections the system prompt needs for these tools (``--output-schema``'s format)."""
        if self.output is None:
            return []
        from pi_cli.shell.agent_tools.structured_output import schema_prompt

        return [schema_prompt(self.output.schema)]

    def services(self) -> ToolServices:
        """What todo_write, task, exit_plan_mode, ask_user and web_fetch get from the shell."""
        from pi_cli.shell.agent_tools._ask_user import UserAsker
        from tools.services import ToolServices
        from tools.task import AgentProfileInfo

        return ToolServices(
            todo_changed=self.todos.changed,
            task_runner=self.runner,
            agent_profiles=[AgentProfileInfo(p.name, p.description) for p in self.profiles],
            plan_approver=self.plans,
            web_fetch=self._web_fetch_config(),
            web_search=self._web_search(),
            user_asker=UserAsker(self.shell.dialogs),
        )

    def _web_search(self) -> Any:
        if self.web_search is None and self.shell.settings.web_search.backend is not None:
            from pi_cli.shell.agent_tools.web_search import web_search_config

            self.web_search = web_search_config(self.shell)
        return self.web_search

    def _web_fetch_config(self) -> Any:
        from tools import parse_web_fetch_entry as parse_entry
        from tools.web.fetch import WebFetchConfig

        settings = self.shell.settings.web_fetch
        allowed = []
        for entry in settings.allow_private_hosts:
            try:
                parse_entry(entry)
            except ValueError as exc:
                self.shell.notify(f"webFetch.allowPrivateHosts: {exc}; ignoring it", "warning")
                continue
            allowed.append(entry)
        return WebFetchConfig(
            allowed,
            settings.max_bytes,
            settings.timeout_s,
            network=self.shell.settings.network.config_for(
                self.shell.notify, "web_fetch's TLS checks"
            ),
        )

    def attach(self) -> None:
        """The agent, session and gate exist: follow the run, restore the session's todos."""
        agent = self.shell.agent
        if self.budget.active:
            agent.should_stop = self.budget.should_stop
        agent.subscribe(self._on_agent_event)
        self.shell.subscribe(self._on_shell_event)
        self.todos.restore()
        self.background.restore()
        from pi_cli.shell.agent_tools._agents_command import agents_command

        self.shell.commands.register(agents_command(self.background))
        if self.web_search is not None:  # configured: the engine asks about its host
            from pi_cli.shell.agent_tools.web_search import attach_web_search

            attach_web_search(self.shell, self.web_search)

    def add_profiles(self, profiles: list[AgentProfile]) -> bool:
        """More profiles (a plugin's agents), named as they come; whether any was new (then a
        ``task`` tool made before lists too few: make it again from :meth:`services`)."""
        known = {p.name for p in self.profiles}
        fresh = [p for p in profiles if p.name not in known]
        self.profiles.extend(fresh)
        self.runner.profiles.update({p.name: p for p in fresh})
        return bool(fresh)

    def remove_profiles(self, names: set[str]) -> None:
        """Take profiles out again (a plugin refused after its check)."""
        self.profiles[:] = [p for p in self.profiles if p.name not in names]
        for name in names:
            self.runner.profiles.pop(name, None)

    def start_run(self) -> None:
        """An input starts the model: budgets count from here."""
        self.budget.start_run()

    def stopped(self) -> bool:
        """A budget stopped this run (nothing more may start)."""
        return self.budget.exceeded is not None

    async def after_run(self, hooks: Any) -> None:
        """After the model's run: Stop hooks, then ``--output-schema`` (each may ask the model
        again, while neither an abort nor a budget says stop)."""
        from pi_cli.shell.hooks.lifecycle import keep_going

        shell = self.shell
        await keep_going(hooks, shell.agent, lambda: shell.run_aborted or self.stopped())
        if self.output is not None:
            await self.output.enforce(
                shell.agent, lambda: not shell.run_aborted and not self.budget.should_stop()
            )

    def _on_agent_event(self, event: Any) -> None:
        if isinstance(event, MessageStart) and isinstance(event.message, UserMessage):
            self.shell.permissions.engine.typed_hosts.note(event.message.text)
        self.budget.on_agent_event(event)

    def _on_shell_event(self, event: ShellEvent) -> None:
        if isinstance(event, SessionChanged):
            self.todos.restore()
            self.background.restore()

    async def aclose(self) -> None:
        """pi quits: background children are stopped and recorded as interrupted."""
        await self.background.aclose()
