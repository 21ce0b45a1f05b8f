"""``ask_user``'s questions put to the user through the shell's dialog broker.

Each question is one ``select`` dialog (its options with their descriptions, ``multiple`` for
``multiSelect``, always an answer of the user's own), asked in order, so every front end that
answers dialogs answers these: the TUI's dialog, the plain REPL's prompt, RPC's
``extension_ui_request`` select, ACP's permission request (one choice, no own answer: see
``docs/agent-tools.md``). Where nobody can answer (one-shot, JSON mode) the broker says so at
once. Esc on a question ends the questions (declined); a front end's timeout ends them too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_core import AbortSignal

if TYPE_CHECKING:
    from pi_cli.shell.dialogs import DialogBroker
    from tools.ask_user import AskOutcome, AskQuestion


class UserAsker:
    """The ask_user tool's asker over one shell's dialog broker."""

    def __init__(self, broker: DialogBroker) -> None:
        self.broker = broker

    async def __call__(self, questions: Sequence[AskQuestion], cancel: AbortSignal) -> AskOutcome:
        """Ask each question in turn; stop at the first one without an answer."""
        from tools.ask_user import AskOutcome, QuestionAnswer

        broker = self.broker
        if not broker.can_ask:
            broker_mode = "one-shot and JSON mode cannot ask"
            return AskOutcome(unanswered="no_user", detail=broker_mode)
        answers: list[QuestionAnswer] = []
        for number, question in enumerate(questions, 1):
            if cancel.aborted:
                return AskOutcome(answers, "aborted")
            count = f"question {number} of {len(questions)}" if len(questions) > 1 else None
            answer = await broker.select(
                f"{question.header.strip()}: {question.question.strip()}",
                [(o.label.strip(), o.description) for o in question.options],
                message=count,
                multiple=question.multi_select,
                allow_other=True,
                source="tool ask_user",
            )
            if answer.cancelled:
                if answer.by == "timeout":
                    return AskOutcome(answers, "timeout")
                if answer.by == "no_user":
                    return AskOutcome(answers, "no_user", "nobody answered")
                return AskOutcome(answers, "aborted" if answer.by == "aborted" else "declined")
            other = answer.other.strip() if answer.other and answer.other.strip() else None
            answers.append(QuestionAnswer(question.question.strip(), answer.values, other))
        return AskOutcome(answers)
