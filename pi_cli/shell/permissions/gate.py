"""The permission gate: the agent's ``before_tool_call`` and ``after_tool_call``.

Order per call: deny rules -> PreToolUse hooks (Python ``tool_call``, then commands; a rewrite
is checked against the deny rules again) -> the tool's own ``refusal`` (a call it would refuse
whatever the answer, e.g. web_fetch of a loopback address, is refused before anyone is asked)
-> mode and allow/ask rules -> PermissionRequest hooks
-> the front end's question (:mod:`.approvals`). A denied call becomes a tool result the model
reads. After a call: Python ``tool_result`` and PostToolUse hooks, then the keys pi holds are
masked in the result (so the model, the session and every front end never see them).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core import AbortSignal, TextContent
from agent_core.tool import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallResult,
    ToolCallContext,
)
from pi_cli.shell.context import acting_agent
from pi_cli.shell.events import ApprovalChoice, PermissionRequested, PermissionResolved
from pi_cli.shell.hooks.lifecycle import notify as notify_hooks
from pi_cli.shell.permissions.approvals import ApprovalBroker, Outcome
from pi_cli.shell.permissions.engine import Decision, HookDecision, PermissionEngine
from pi_cli.shell.permissions.rules import parse_rule
from pi_cli.shell.text.redaction import REDACTOR, redact_value

if TYPE_CHECKING:
    from pi_cli.shell.context import Level
    from pi_cli.shell.hooks import HookManager
    from tools.safe_files import CheckedPaths

log = logging.getLogger("pi_cli")
SaveRule = Callable[[str, list[str]], str | None]
"""(scope, rule texts) -> a warning, or None when saved."""
Refusal = Callable[[str, dict[str, Any]], str | None]
"""(tool, arguments) -> why the tool would refuse the call whatever the answer (``refusal``)."""
OwnPreview = Callable[[str, dict[str, Any]], str | None]
"""(tool, arguments) -> what the tool itself says the call will do (a rename's diff over every
file it changes), or None for the usual preview."""
NO_SANDBOX = (
    "auto mode has no sandbox here (install bubblewrap), so bash commands that are not "
    "read-only need approval, as in acceptEdits mode."
)
NO_SANDBOX_ONESHOT = (
    "auto mode has no sandbox here (install bubblewrap), so bash commands that are not "
    "read-only need approval, which one-shot and JSON mode cannot ask: they are denied. Allow "
    "them with a rule (--allowed-tools 'Bash(npm test:*)') or choose --permission-mode."
)


class ToolGate:
    """Permission checks and hooks around every tool call of one shell.

    ``denied_for_approval`` counts calls denied because they needed an approval nobody could
    give (exit code 7).
    """

    def __init__(
        self,
        engine: PermissionEngine,
        broker: ApprovalBroker,
        hooks: HookManager | None,
        describe: Callable[[str, Any], str],
        cwd: Path,
        notify: Callable[[str, Level], None],
        warn_once: Callable[[str, Level], None],
        save_rule: SaveRule,
        emit: Callable[[Any], None],
        *,
        checked_paths_of: Callable[[str], CheckedPaths | None] = lambda name: None,
        refusal_of: Refusal = lambda name, args: None,
        own_preview: OwnPreview | None = None,
    ) -> None:
        self.engine = engine
        self.broker = broker
        self.hooks = hooks
        self.describe = describe
        self.cwd = cwd
        self.notify = notify
        self.warn_once = warn_once
        self.save_rule = save_rule
        self.emit = emit
        self.checked_paths_of = checked_paths_of
        """A tool's record of the paths decided on (its file effects use exactly those)."""
        self.refusal_of = refusal_of
        self.own_preview = own_preview
        self.denied_for_approval = 0
        self._context: dict[str, str] = {}

    # ------------------------------------------------------------------ before

    async def before_tool_call(
        self, ctx: ToolCallContext, signal: AbortSignal
    ) -> BeforeToolCallResult | None:
        """Decide one call (see the module doc for the order)."""
        call = ctx.tool_call
        name, args = call.name, dict(call.arguments)
        denied = self.engine.check_deny(name, args)
        if denied is not None:
            return _block(denied.reason)
        staged = await self._pre_tool_use(name, call.id, args)
        if isinstance(staged, BeforeToolCallResult):
            return staged
        args, rewritten, hook_decision = staged
        refused = self.refusal_of(name, args)
        if refused:  # the tool would refuse it anyway: never ask the user about it first
            return _block(refused)
        decision = self.engine.evaluate(name, args, hook_decision)
        if decision.behavior == "deny":
            return _block(f"denied: {decision.reason}")
        if decision.arguments is not None:
            args, rewritten = decision.arguments, True
        paths = decision.paths
        if decision.behavior == "ask":
            verdict = await self._ask(call.id, name, args, decision)
            if isinstance(verdict, str):
                return _block(verdict)
            if verdict is not None:
                args, rewritten = verdict, True
                paths = self.engine.evaluate(name, args).paths  # the paths the hook gave
        self._record(call.id, name, paths)
        return BeforeToolCallResult(arguments=args) if rewritten else None

    def _record(self, call_id: str, name: str, paths: dict[str, Path] | None) -> None:
        """The tool will touch exactly the paths decided on, not resolve them again."""
        checked = self.checked_paths_of(name) if paths is not None else None
        if checked is not None and paths is not None:
            checked.record(call_id, paths)

    async def _pre_tool_use(
        self, name: str, call_id: str, args: dict[str, Any]
    ) -> BeforeToolCallResult | tuple[dict[str, Any], bool, HookDecision]:
        """PreToolUse hooks: a block or an extension's answer (the tool does not run), or
        (arguments, whether rewritten, the hooks' decision)."""
        if self.hooks is None or not self.hooks.active:
            return args, False, None
        stage = await self.hooks.pre_tool_use(name, call_id, args)
        if stage.answer is not None:  # an extension answered: nothing runs, nothing to ask
            return BeforeToolCallResult(result=stage.answer[0], is_error=stage.answer[1])
        if stage.block:
            return _block(stage.reason)
        if stage.context:
            self._context[call_id] = stage.context
        if not stage.rewritten:
            return args, False, stage.decision
        denied = self.engine.check_deny(name, stage.args)
        if denied is not None:
            return _block(denied.reason)
        return stage.args, True, stage.decision

    async def _ask(
        self, call_id: str, name: str, args: dict[str, Any], decision: Decision
    ) -> str | dict[str, Any] | None:
        """The answer to an ask: a denial reason, rewritten arguments, or None (run as is)."""
        from pi_cli.shell.permissions._preview import preview  # only when asking (difflib)

        rules = {
            "project": [s.rule_text(self.cwd) for s in decision.suggestions],
            "user": [s.rule_text() for s in decision.suggestions],
        }
        agent = acting_agent.get()  # a sub-agent's call: the question names it
        title = self.describe(name, args)
        request = PermissionRequested(
            id=self.broker.new_id(),
            agent=agent,
            question=f"{agent} asks: allow {name}: {title}?" if agent else None,
            tool_call_id=call_id,
            tool_name=name,
            args=args,
            title=title,
            reason=decision.reason,
            preview=self._own_preview(name, args) or preview(name, args, self.cwd),
            options=_options(bool(decision.suggestions)),
            rules=rules if decision.suggestions else {},
        )
        if self.hooks is not None and self.hooks.active:
            outcome = await self.hooks.permission_request(name, call_id, args, rules["user"])
            if outcome is not None:
                allowed = outcome.decision == "allow" and not outcome.block
                self.emit(
                    PermissionResolved(
                        id=request.id,
                        allowed=allowed,
                        by="hook",
                        message=outcome.message,
                        tool_name=name,
                        title=request.title,
                    )  # fmt: skip
                )
                if not allowed:
                    return f"denied by a PermissionRequest hook: {outcome.message or 'no reason'}"
                return outcome.updated_input
        if decision.no_sandbox:
            text = NO_SANDBOX if self.broker.asking != "none" else NO_SANDBOX_ONESHOT
            self.warn_once(text, "warning")
        if self.broker.asking != "none" and self.hooks is not None:
            notify_hooks(self.hooks, f"pi needs your permission to use {name}")
        result = await self.broker.ask(request)
        return self._answered(result, request, decision)

    def _own_preview(self, name: str, args: dict[str, Any]) -> str | None:
        if self.own_preview is None:
            return None
        try:
            return self.own_preview(name, args)
        except Exception:  # a broken preview must never stop the question
            log.exception("the preview of %s failed", name)
            return None

    def _answered(
        self, result: Outcome, request: PermissionRequested, decision: Decision
    ) -> str | None:
        answer = result.answer
        if result.by == "non_interactive":
            self.denied_for_approval += 1
            return (
                f"denied: this call needs the user's approval ({decision.reason}), and pi runs "
                "non-interactively (one-shot or JSON mode), so nobody could approve it. Do not "
                "retry it; the user can allow it with a rule or another permission mode."
            )
        if result.by == "timeout":
            return f"denied: no answer to the approval request within {self.broker.timeout_s:g}s"
        if answer is None:
            return "denied: the approval was cancelled"
        if answer.choice == "deny":
            return "denied by the user" + (f": {answer.message}" if answer.message else "")
        self._remember(answer.choice, answer.scope, request)
        return None

    def _remember(self, choice: ApprovalChoice, scope: str, request: PermissionRequested) -> None:
        if choice == "allow_session":
            texts = request.rules.get("user", [])
            self.engine.allow_for_session([parse_rule(t, "this session", self.cwd) for t in texts])
        elif choice == "allow_always":
            texts = request.rules.get(scope, [])
            warning = self.save_rule(scope, texts)
            if warning:
                self.notify(warning, "warning")

    # ------------------------------------------------------------------ after

    async def after_tool_call(
        self, ctx: AfterToolCallContext, signal: AbortSignal
    ) -> AfterToolCallResult | None:
        """Hooks, additional context from PreToolUse hooks, then redaction of the keys."""
        override = None
        result, is_error = ctx.result, ctx.is_error
        if self.hooks is not None and self.hooks.active:
            override = await self.hooks.after_tool_call(ctx, signal)
            if override is not None:
                result, is_error = override.apply(result, is_error)
        extra = self._context.pop(ctx.tool_call.id, "")
        blocks = list(result.content)
        if extra:
            blocks.append(TextContent(text=f"[PreToolUse hook] {extra}"))
        if not REDACTOR.active and not extra:
            return override
        masked = [
            TextContent(text=REDACTOR(b.text)) if isinstance(b, TextContent) else b for b in blocks
        ]
        details = redact_value(result.details)
        changed = extra or details != result.details or masked != blocks
        if not changed:
            return override
        return AfterToolCallResult(content=masked, details=details, is_error=is_error)


def _block(reason: str) -> BeforeToolCallResult:
    return BeforeToolCallResult(block=True, reason=reason)


def _options(rememberable: bool) -> list[ApprovalChoice]:
    if rememberable:
        return ["allow_once", "allow_session", "allow_always", "deny"]
    return ["allow_once", "deny"]
