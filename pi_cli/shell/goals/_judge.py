"""The judging request: a short model call that reads the conversation and says whether a goal
holds (met), does not yet (not met), or cannot without the user (blocked), with one reason.

No tools, thinking off, a small answer: the judge only reads what the conversation shows (as
Claude Code's ``/goal`` evaluator does). An answer that is not the asked-for JSON is read as
leniently as it can be; one that cannot be read at all counts as not met, and says so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from agent_core import (
    AbortSignal,
    AssistantMessage,
    LlmContext,
    Message,
    StreamFn,
    StreamOptions,
    user_message,
)
from pi_cli.shell.compaction.parts import serialize_conversation

JUDGE_SYSTEM = (
    "You judge whether a goal holds. You read the conversation of an AI coding assistant "
    "working towards it; you cannot run anything, so judge only from what the conversation "
    "shows: command outputs, files read, results. The assistant's own claims are not evidence "
    "unless the conversation shows them. Answer with one JSON object and nothing else:\n"
    '{"verdict": "met" | "not_met" | "blocked", "reason": "<one short sentence>"}\n'
    '"met": the conversation shows the goal holds now. "not_met": it does not hold yet, or '
    'nothing shows it does; the reason says what is missing. "blocked": the goal cannot be '
    "reached without the user (a decision, a permission, information only they have, or it "
    "is impossible); the reason says why."
)
TRANSCRIPT_CHARS = 40_000
"""How much of the conversation's end the judge reads."""
MAX_ANSWER_TOKENS = 400
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


@dataclass(frozen=True)
class Verdict:
    """What the judge (or the check command) decided."""

    met: bool
    reason: str
    blocked: bool = False


class JudgeError(Exception):
    """The judging request failed (the provider, an abort); the message says why."""


def judge_prompt(condition: str, messages: list[Message]) -> str:
    """The user message of the judging request: the goal, then the conversation's end."""
    transcript = serialize_conversation(messages)
    if len(transcript) > TRANSCRIPT_CHARS:
        transcript = "[… earlier conversation left out]\n\n" + transcript[-TRANSCRIPT_CHARS:]
    return (
        f"Goal:\n{condition}\n\nConversation (latest last):\n\n{transcript or '(empty)'}\n\n"
        "Does the goal hold? Answer with the JSON object only."
    )


def parse_verdict(text: str) -> Verdict:
    """The judge's answer as a verdict (lenient: a JSON object anywhere, else a leading word)."""
    found = _OBJECT.search(text)
    if found is not None:
        try:
            data = json.loads(found.group(0))
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("verdict"), str):
            verdict = data["verdict"].strip().lower().replace(" ", "_").replace("-", "_")
            reason = " ".join(str(data.get("reason") or "").split())[:500] or "(no reason given)"
            if verdict in ("met", "not_met", "blocked"):
                return Verdict(verdict == "met", reason, blocked=verdict == "blocked")
    words = " ".join(text.split())
    head = words.lower()[:20]
    if head.startswith(("not met", "not_met", "no")):
        return Verdict(False, words[:500])
    if head.startswith(("met", "yes")):
        return Verdict(True, words[:500])
    if head.startswith("blocked"):
        return Verdict(False, words[:500], blocked=True)
    return Verdict(False, f"the judge's answer could not be read: {words[:200]!r}")


async def judge(
    stream_fn: StreamFn,
    model: str,
    condition: str,
    messages: list[Message],
    signal: AbortSignal,
) -> tuple[Verdict, float]:
    """(the verdict, what the request cost in US dollars); raises :class:`JudgeError`."""
    context = LlmContext(
        system_prompt=JUDGE_SYSTEM,
        messages=[user_message(judge_prompt(condition, messages))],
        tools=[],
    )
    options = StreamOptions(
        model=model, cancel=signal, thinking="off", max_tokens=MAX_ANSWER_TOKENS
    )
    final: AssistantMessage | None = None
    async for item in stream_fn(context, options):
        if isinstance(item, AssistantMessage):
            final = item
            break
    if signal.aborted:
        raise JudgeError("aborted")
    if final is None:
        raise JudgeError("the judging request ended without an answer")
    if final.stop_reason in ("error", "aborted"):
        raise JudgeError(final.error_message or f"the judging request ended: {final.stop_reason}")
    return parse_verdict(final.text), final.usage.cost.total
