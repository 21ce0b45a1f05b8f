"""Context compaction: summarise older messages with the model, keep recent ones verbatim.

Triggers: after a run, when the context exceeds ``window - reserve_tokens`` (``window`` is the
model's, or the user's smaller ``compaction.contextBudget``), or when the run ended with a
context-overflow error; then the request is retried once. ``/compact [instructions]`` does it by
hand. A ``compaction`` entry (summary, firstKeptEntryId, tokensBefore) goes into the session
file, whose full history stays; the agent's messages are rebuilt from the session.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from agent_core import (
    AbortSignal,
    AssistantMessage,
    Message,
)
from pi_cli.shell.commands import CommandResult, ShellAPI, SlashCommand
from pi_cli.shell.compaction._request import request_summary
from pi_cli.shell.compaction.parts import (
    SUMMARY_FORMAT,
    SUMMARY_SYSTEM,
    CompactionError,
    CompactionResult,
    build_summary_request,
    file_operations,
    find_cut_point,
    last_user_index,
    serialize_conversation,
)
from pi_cli.shell.context import ShellContext
from pi_cli.shell.events import CompactionEnd, CompactionReason, CompactionStart
from pi_cli.shell.models.usage import context_tokens, message_tokens
from pi_cli.shell.session.store import entry_message

__all__ = [
    "SUMMARY_FORMAT",
    "SUMMARY_SYSTEM",
    "CompactionError",
    "CompactionResult",
    "Compactor",
    "build_summary_request",
    "compaction_commands",
    "file_operations",
    "find_cut_point",
    "is_context_overflow",
    "serialize_conversation",
]
_OVERFLOW_PATTERNS = (
    "context_length_exceeded",
    "maximum context length",
    "prompt is too long",
    "context window",
    "too many tokens",
    "exceeds the context",
)


def is_context_overflow(message: AssistantMessage) -> bool:
    """Whether a failed response means the context was too long for the model."""
    if message.stop_reason != "error":
        return False
    # The provider layer knows each vendor's wording; imported here, not at start-up.
    from agent_core.providers import is_context_overflow as provider_check

    if provider_check(message):
        return True
    text = message.error_message or ""
    return text.startswith("Context overflow") or any(p in text.lower() for p in _OVERFLOW_PATTERNS)


# ---------------------------------------------------------------------------- the compactor


class Compactor:
    """Compaction for one shell."""

    def __init__(self, shell: ShellContext) -> None:
        self.shell = shell
        self.is_compacting = False
        # The live compaction's signal: CodingAgent.abort() reaches the summary request through it.
        self.signal: AbortSignal | None = None
        # PreCompact hooks (trigger "manual" or "auto", custom instructions), set by the shell.
        self.before_compact: Callable[[str, str | None], Awaitable[None]] | None = None

    def abort(self) -> None:
        """Abort the live compaction, if any (it then ends with ``CompactionEnd(aborted=True)``)."""
        if self.signal is not None:
            self.signal.abort()

    @property
    def threshold(self) -> int:
        """Context tokens above which a finished run triggers compaction."""
        window = self.shell.context_window
        reserve = self.shell.settings.compaction.reserve_tokens
        return max(window - reserve, window // 2)  # a reserve near the window must not loop

    def should_compact(self) -> bool:
        """Whether the current context is over the threshold."""
        if not self.shell.settings.compaction.enabled:
            return False
        return context_tokens(self.shell.agent.state.messages) > self.threshold

    def _context_entries(self) -> tuple[list[tuple[str, Message]], str | None, dict[str, Any]]:
        """The messages of the current context with their entry ids, the previous summary and details."""
        session = self.shell.session
        refs = session.path_to()
        index = next(
            (i for i in range(len(refs) - 1, -1, -1) if refs[i].type == "compaction"), None
        )
        start, previous = 0, None
        details: dict[str, Any] = {}
        if index is not None:
            entry = next(iter(session.iter_entries([refs[index]])), None) or {}
            previous = str(entry.get("summary", "")) or None
            raw_details = entry.get("details")
            details = raw_details if isinstance(raw_details, dict) else {}
            first = entry.get("firstKeptEntryId")
            start = next((i for i, ref in enumerate(refs[:index]) if ref.id == first), index)
        items: list[tuple[str, Message]] = []
        for data in session.iter_entries([r for r in refs[start:] if r.type == "message"]):
            try:
                message = entry_message(data)
            except Exception:  # noqa: BLE001 - build_context skips such entries too
                continue
            if message is not None:
                items.append((str(data["id"]), message))
        return items, previous, details

    async def _summarise(self, prompt: str, signal: AbortSignal) -> str:
        reserve = self.shell.settings.compaction.reserve_tokens
        agent = self.shell.agent
        max_tokens = max(int(reserve * 0.8), 1024)
        return await request_summary(agent.stream_fn, agent.model, prompt, signal, max_tokens)

    async def compact(
        self,
        reason: CompactionReason = "manual",
        instructions: str | None = None,
        will_retry: bool = False,
    ) -> CompactionResult:
        """Summarise older messages now. Raises :class:`CompactionError` (after the end event)."""
        if self.is_compacting:
            raise CompactionError("compaction is already running")
        shell = self.shell
        if self.before_compact is not None:
            await self.before_compact("manual" if reason == "manual" else "auto", instructions)
        tokens_before = context_tokens(shell.agent.state.messages)
        # Flag first: the shell reports its "compacting" state with the start event.
        self.is_compacting = True
        signal = self.signal = AbortSignal()
        end = CompactionEnd(reason=reason, tokens_before=tokens_before)
        shell.emit(CompactionStart(reason=reason))
        try:
            result = await self._compact(reason, instructions, tokens_before, signal)
        except Exception as exc:  # noqa: BLE001 - a failed summary ends the compaction with its error
            error = str(exc) if isinstance(exc, CompactionError) else f"{type(exc).__name__}: {exc}"
            if signal.aborted:
                error = "Compaction aborted"
            end.aborted, end.error_message = signal.aborted, error
            raise CompactionError(error) from None
        else:
            end.summary, end.tokens_after, end.will_retry = (
                result.summary,
                result.tokens_after,
                will_retry,
            )
            end.first_kept_entry_id = result.first_kept_entry_id
            return result
        finally:
            self.is_compacting = False
            self.signal = None
            shell.emit(end)

    async def _compact(
        self,
        reason: CompactionReason,
        instructions: str | None,
        tokens_before: int,
        signal: AbortSignal,
    ) -> CompactionResult:
        shell = self.shell
        refs = shell.session.path_to()
        if reason == "manual" and refs and refs[-1].type == "compaction":
            raise CompactionError("Already compacted")
        items, previous, details = self._context_entries()
        messages = [m for _, m in items]
        # With a budget smaller than keepRecentTokens everything would be "recent": keep at most
        # half of the threshold verbatim so compaction can still free room.
        keep = min(shell.settings.compaction.keep_recent_tokens, self.threshold // 2)
        cut = find_cut_point(messages, keep)
        if cut == 0 and reason != "threshold":
            cut = last_user_index(messages)  # overflow or by hand: keep only the latest exchange
        if cut == 0 and reason == "manual":
            cut = len(messages)  # asked for with one exchange only: summarise all of it (as pi)
        if cut == 0:
            raise CompactionError("Nothing to compact (session too small)")
        older = messages[:cut]
        summary = await self._summarise(
            build_summary_request(older, previous, instructions), signal
        )
        read, modified = file_operations(older, shell.tools)
        read |= set(details.get("readFiles", []))
        modified |= set(details.get("modifiedFiles", []))
        read -= modified
        if read:
            summary += "\n\n<read-files>\n" + "\n".join(sorted(read)) + "\n</read-files>"
        if modified:
            summary += (
                "\n\n<modified-files>\n" + "\n".join(sorted(modified)) + "\n</modified-files>"
            )
        first_kept = items[cut][0] if cut < len(items) else None
        entry_id = shell.session.append(
            "compaction",
            summary=summary,
            firstKeptEntryId=first_kept,
            tokensBefore=tokens_before,
            details={"readFiles": sorted(read), "modifiedFiles": sorted(modified)},
        )
        shell.agent.replace_messages(shell.session.build_context())
        # Estimated: the kept messages' provider usage still describes the old, longer context.
        tokens_after = sum(message_tokens(m) for m in shell.agent.state.messages)
        return CompactionResult(summary, first_kept, tokens_before, tokens_after, entry_id)

    async def after_run(self) -> None:
        """After a run: compact on overflow (then retry once) or above the threshold."""
        shell = self.shell
        messages = shell.agent.state.messages
        last = messages[-1] if messages else None
        if not shell.settings.compaction.enabled:
            return
        if isinstance(last, AssistantMessage) and is_context_overflow(last):
            await self._recover_from_overflow()
        elif self.should_compact():
            try:
                await self.compact("threshold")
            except CompactionError as exc:
                if str(exc) != "Compaction aborted":  # the user asked for it: no warning
                    shell.notify(f"Automatic compaction failed: {exc}", "warning")

    async def _recover_from_overflow(self) -> None:
        shell = self.shell
        session = shell.session
        # The failed response: the newest message on the path (a snapshot may follow it).
        ref = next((r for r in reversed(session.path_to()) if r.type == "message"), None)
        error_entry = session.leaf_id
        if ref is not None:
            session.set_leaf(ref.parent_id)  # the failed response stays in the file, off the path
            shell.agent.replace_messages(session.build_context())
        try:
            await self.compact("overflow", will_retry=True)
        except CompactionError as exc:
            if ref is not None:
                session.set_leaf(error_entry)
                shell.agent.replace_messages(session.build_context())
            shell.notify(f"Context overflow and compaction failed: {exc}", "error")
            return
        if shell.run_aborted:  # aborted while compacting: no retry
            return
        await shell.agent.continue_()  # the single retry
        last = shell.agent.state.messages[-1] if shell.agent.state.messages else None
        if isinstance(last, AssistantMessage) and is_context_overflow(last):
            shell.notify(
                "The context still overflows after compaction; not retrying again.", "error"
            )


async def _compact_command(shell: ShellAPI, args: str) -> CommandResult:
    try:
        result = await shell.compact(args.strip() or None)
    except CompactionError as exc:
        return CommandResult(output=f"Compaction failed: {exc}", error=True)
    return CommandResult(
        output=f"Compacted: {result.tokens_before} → ~{result.tokens_after} tokens."
    )


def compaction_commands() -> list[SlashCommand]:
    """``/compact``."""
    return [
        SlashCommand(
            "compact",
            "Summarise older messages to free context",
            _compact_command,
            usage="[instructions]",
        )
    ]
