"""What the shell hands the tools that need more than a working directory.

Everything is optional: without the shell's services a tool still works on its own (the todo
list is kept in the tool) or says it cannot (no sub-agents, no plan approval).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tools.ask_user import UserAsker
from tools.exit_plan_mode import PlanApprover
from tools.task import AgentProfileInfo, TaskRunner
from tools.todo import TodoChanged
from tools.web.fetch import WebFetchConfig


@dataclass
class ToolServices:
    """Callbacks and configuration for ``todo_write``, ``task``, ``exit_plan_mode`` and ``web_fetch``.

    Attributes:
        todo_changed: told every new todo list (the shell shows and stores it).
        task_runner: runs a sub-agent for the ``task`` tool.
        agent_profiles: the agents ``task`` offers (``general-purpose`` is always there).
        plan_approver: asks the user to approve a plan (``exit_plan_mode``).
        web_fetch: how ``web_fetch`` fetches (its allow-list, limits, resolver).
        web_search: ``web_search``'s backend (none: not configured) and domain veto.
        user_asker: puts ``ask_user``'s questions to the user (none: nobody can answer).
    """

    todo_changed: TodoChanged | None = None
    task_runner: TaskRunner | None = None
    agent_profiles: Sequence[AgentProfileInfo] = ()
    plan_approver: PlanApprover | None = None
    web_fetch: WebFetchConfig = field(default_factory=WebFetchConfig)
    web_search: Any = None  # tools.web.search.WebSearchConfig (None: not configured)
    user_asker: UserAsker | None = None
