"""The ``ask_user`` tool: the model asks the user one or more structured questions.

Claude Code's AskUserQuestion shape: 1-4 questions, each with a short ``header``, 2-6 options
(a label and a description), ``multiSelect`` where several may be chosen; the user may always
answer in their own words instead ("other"). The tool knows no front end: the shell passes an
``ask`` callable that puts each question to whoever is attached (TUI, plain REPL, RPC, ACP) and
says at once when nobody is (one-shot, JSON mode): the model then hears "no user available".
"""

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from agent_core import AbortSignal, ToolArguments, ToolBase, ToolError, ToolResult, first_line
from agent_core.tool import OnToolUpdate

MAX_QUESTIONS = 4
MAX_OPTIONS = 6
MAX_HEADER = 30


class AskOption(ToolArguments):
    """One choice of a question."""

    label: Annotated[
        str,
        Meta(
            min_length=1, max_length=200, description="The choice as the user sees it (1-5 words)"
        ),
    ]
    description: Annotated[
        str, Meta(max_length=1000, description="What choosing it means, its trade-offs")
    ] = ""


class AskQuestion(ToolArguments):
    """One question for the user."""

    question: Annotated[
        str,
        Meta(min_length=1, max_length=2000, description="The complete question, ending with '?'"),
    ]
    header: Annotated[
        str,
        Meta(
            min_length=1,
            max_length=MAX_HEADER,
            description="A very short label for the question (at most 12 characters: 'Auth method')",
        ),
    ]
    options: Annotated[
        list[AskOption],
        Meta(
            min_length=2,
            max_length=MAX_OPTIONS,
            description="2-4 distinct choices; do not add an 'Other' choice: the user can always "
            "answer in their own words",
        ),
    ]
    multi_select: Annotated[
        bool, Meta(description="true lets the user choose several options (not mutually exclusive)")
    ] = msgspec.field(name="multiSelect", default=False)

    def __post_init__(self) -> None:
        labels = [option.label.strip() for option in self.options]
        if len(set(labels)) != len(labels) or not all(labels):
            raise ValueError("a question's option labels must be distinct and not blank")


class AskUserArgs(ToolArguments):
    """Arguments of the ask_user tool."""

    questions: Annotated[
        list[AskQuestion],
        Meta(min_length=1, max_length=MAX_QUESTIONS, description="1-4 questions, asked in order"),
    ]

    def __post_init__(self) -> None:
        texts = [q.question.strip() for q in self.questions]
        if len(set(texts)) != len(texts):
            raise ValueError("the questions must be distinct")


Unanswered = Literal["no_user", "declined", "timeout", "aborted"]


@dataclass(frozen=True)
class QuestionAnswer:
    """The user's answer to one question: options chosen and/or their own words."""

    question: str
    chosen: tuple[str, ...] = ()
    other: str | None = None

    def text(self) -> str:
        """The answer in one string (``"A, B"``; the user's own words last)."""
        parts = [*self.chosen, *([self.other] if self.other else [])]
        return ", ".join(parts)


@dataclass(frozen=True)
class AskOutcome:
    """What came of the questions: the answers given, and why the rest was not answered."""

    answers: list[QuestionAnswer] = field(default_factory=list)
    unanswered: Unanswered | None = None
    detail: str = ""
    """More on ``unanswered`` (a timeout's length, who could not ask)."""


UserAsker = Callable[[Sequence[AskQuestion], AbortSignal], Awaitable[AskOutcome]]
"""``(questions, cancel)`` -> the outcome (the shell asks through its dialogs)."""


class AskUserTool(ToolBase):
    """Ask the user structured questions and return their answers."""

    name = "ask_user"
    summary = "Ask the user structured multiple-choice questions"
    guideline = (
        "Use ask_user when you need the user's decision (a preference, an ambiguous "
        "requirement, a choice between approaches) rather than guessing; not for things you "
        "can find out yourself."
    )
    description = (
        "Ask the user 1-4 questions while you work, each with 2-4 options, to gather "
        "preferences, clarify ambiguous instructions or let them choose between approaches. "
        "The user can always answer in their own words instead of an option; set multiSelect "
        "when several options may be chosen together. If you recommend an option, put it first "
        "and add '(Recommended)' to its label. When nobody is at the keyboard (one-shot runs) "
        "the tool says no user is available: then decide yourself and say what you assumed."
    )
    parameters = AskUserArgs

    def __init__(self, ask: UserAsker | None = None) -> None:
        self.ask = ask

    def title(self, args: Mapping[str, Any]) -> str:
        """The first question (and how many more)."""
        questions = args.get("questions") if isinstance(args, Mapping) else None
        if not isinstance(questions, list) or not questions:
            return ""
        first = questions[0].get("question") if isinstance(questions[0], Mapping) else None
        more = f"  (+{len(questions) - 1})" if len(questions) > 1 else ""
        return first_line(first, 110) + more if isinstance(first, str) else ""

    async def execute(
        self,
        tool_call_id: str,
        args: AskUserArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Ask, and tell the model the answers (or why there are none)."""
        if cancel.aborted:
            raise ToolError("Aborted")
        if self.ask is None:
            outcome = AskOutcome(unanswered="no_user", detail="nothing here can ask the user")
        else:
            outcome = await self.ask(args.questions, cancel)
        details = {
            "answers": {a.question: a.text() for a in outcome.answers},
            "unanswered": outcome.unanswered,
        }
        return ToolResult.of_text(outcome_text(outcome), details=details)


def outcome_text(outcome: AskOutcome) -> str:
    """What the model is told."""
    lines = []
    if outcome.answers:
        pairs = ", ".join(f'"{a.question}"="{a.text()}"' for a in outcome.answers)
        lines.append(f"The user answered: {pairs}.")
    why = outcome.unanswered
    if why == "no_user":
        detail = f" ({outcome.detail})" if outcome.detail else ""
        lines.append(
            f"No user is available to answer{detail}. Decide yourself, on your best judgement, "
            "and say in your answer what you assumed."
        )
    elif why == "declined":
        lines.append(
            "The user dismissed the question without answering. Do not ask it again; go on "
            "with what you know, or stop and say what you need from them."
        )
    elif why == "timeout":
        detail = f" ({outcome.detail})" if outcome.detail else ""
        lines.append(
            f"The user did not answer in time{detail}. Go on with your best judgement and say "
            "what you assumed."
        )
    elif why == "aborted":
        lines.append("The question was aborted.")
    if not lines:
        lines.append("The user answered nothing.")
    elif why is None:
        lines.append("Go on with these answers in mind.")
    return " ".join(lines)


def create_ask_user_tool(cwd: str | Path, ask: UserAsker | None = None) -> AskUserTool:
    """An ask_user tool (``cwd`` unused)."""
    return AskUserTool(ask)
