"""The permission engine: rules and mode -> allow, ask or deny for one tool call (policy only;
asking is :mod:`.approvals`, the order with hooks :mod:`.gate`). In every mode but
``bypassPermissions``: deny rules win, then ask rules; a call with ``sandbox: false`` asks; edits
of protected paths ask; allow rules allow; then the mode decides (reads inside the workspace run;
edits inside it run in ``acceptEdits``/``auto``; bash commands proven read-only run, others ask,
or run in ``auto`` when the sandbox contains them; ``plan`` denies edits and non-read-only bash;
``dontAsk`` turns every ask into a deny)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from agent_core import FileEffect
from pi_cli.shell.permissions import _web as web_rules
from pi_cli.shell.permissions._bash_parse import ParseError, SimpleCommand, parse
from pi_cli.shell.permissions._readonly import Context, classify, classify_commands
from pi_cli.shell.permissions._suggest import Suggestion, bash_suggestions
from pi_cli.shell.permissions._web import AGENT_TOOLS, WEB_TOOL, TypedHosts, host_of, rule_hits
from pi_cli.shell.permissions.modes import DEFAULT_MODE, Mode
from pi_cli.shell.permissions.rules import (
    EDIT_TOOLS,
    READ_TOOLS,
    Behavior,
    Rule,
    command_matches,
    path_regex,
)
from pi_cli.shell.permissions.workspace import Workspace, is_protected, real
from tools import resolve_path

HookDecision = Literal["allow", "ask"] | None
_SPLIT = str.maketrans({ch: "\n" for ch in ";&|()`$<>"})


class RuleSet:
    """Rules by behaviour; ``session`` holds "allow for this session" answers, ``granted`` the
    allow rules of a run in progress (a command file's ``allowed-tools``, for its run only).

    (Plain classes in this package: dataclasses cost start-up time on the one-shot path.)
    """

    def __init__(self) -> None:
        self.allow: list[Rule] = []
        self.ask: list[Rule] = []
        self.deny: list[Rule] = []
        self.session: list[Rule] = []
        self.granted: list[Rule] = []

    def of(self, behavior: Behavior) -> list[Rule]:
        """The rules of one behaviour (allow includes the session's)."""
        if behavior == "allow":
            return [*self.allow, *self.session, *self.granted]
        return self.ask if behavior == "ask" else self.deny


class Decision:
    """What the engine says about one call.

    Attributes:
        behavior: allow, ask or deny.
        reason: why, in words the user and the model read.
        arguments: rewritten arguments to run instead (pi's git overrides), if any.
        suggestions: what "allow for this session" / "always" allow (empty: once or deny).
        no_sandbox: ``auto`` asks only because no sandbox is available.
    """

    def __init__(
        self,
        behavior: Behavior,
        reason: str,
        arguments: dict[str, Any] | None = None,
        suggestions: list[Suggestion] | None = None,
        no_sandbox: bool = False,
    ) -> None:
        self.behavior: Behavior = behavior
        self.reason = reason
        self.arguments = arguments
        self.suggestions: list[Suggestion] = suggestions or []
        self.no_sandbox = no_sandbox
        self.paths: dict[str, Path] | None = None  # absolute -> real path decided on (or None)


class _Call:
    def __init__(
        self, tool: str, args: Mapping[str, Any], paths: list[tuple[str, Path, str]]
    ) -> None:
        self.tool = tool
        self.args = args
        self.paths = paths
        self.commands: list[SimpleCommand] | None = None
        self.raw = ""


class PermissionEngine:
    """Decides calls for one shell.

    Args:
        workspace: the working directory and extra directories.
        rules: allow/ask/deny rules from settings and the command line.
        mode: the starting mode.
        sandbox_active: whether bash commands run inside the sandbox now.
        effects_of: the files a call reads or writes (the tool's ``file_effects``).
        builtin: names of pi's own tools (others: by rules and declared file effects only).
        search_path: ``PATH`` of the tools' environment.
        git_filters: whether a repository configures git filter programs.
        read_only: whether a tool declares itself read-only (an MCP server's ``readOnlyHint``).
    """

    def __init__(
        self,
        workspace: Workspace,
        rules: RuleSet,
        mode: Mode = DEFAULT_MODE,
        *,
        sandbox_active: Callable[[], bool] = lambda: False,
        effects_of: Callable[[str, Mapping[str, Any]], Sequence[FileEffect]] = lambda n, a: [],
        builtin: frozenset[str] = frozenset(
            {"read", "bash", "edit", "write", "grep", "find", "ls", WEB_TOOL, *AGENT_TOOLS}
        ),
        search_path: str | None = None,
        git_filters: Callable[[Path], bool] = lambda _: False,
        home: str | None = None,
        read_only: Callable[[str], bool] = lambda _: False,
    ) -> None:
        self.workspace = workspace
        self.rules = rules
        self.mode: Mode = mode
        self.start_mode: Mode = mode
        self.sandbox_active = sandbox_active
        self.effects_of = effects_of
        self.builtin = builtin
        self.search_url: str | None = None  # where web_search sends queries (set by the shell)
        self.read_only = read_only
        self.home = home or os.path.expanduser("~")
        self.bypass_disabled_by: str | None = None  # a settings file's disableBypassPermissionsMode
        self.typed_hosts = TypedHosts()  # hosts of URLs the user typed: web_fetch may go there
        self.context = Context(
            workspace,
            home=self.home,
            search_path=search_path,
            git_filters=git_filters,
            path_blocked=self._read_guarded,
        )

    # ------------------------------------------------------------------ public

    def check_deny(self, tool: str, args: Mapping[str, Any]) -> Decision | None:
        """Step one: a deny rule matching the call (``None`` when none does)."""
        if self.mode == "bypassPermissions" and not self.rules.deny:
            return None
        call = self._analyse(tool, args)
        rule = self._matching("deny", call)
        if rule is None:
            return None
        return Decision("deny", f"denied by the permission rule {rule.describe()}")

    def evaluate(self, tool: str, args: Mapping[str, Any], hook: HookDecision = None) -> Decision:
        """Ask rules, protections, allow rules and the mode (deny rules: :meth:`check_deny`)."""
        if self.mode == "bypassPermissions":
            return Decision("allow", "bypassPermissions mode")
        call = self._analyse(tool, args)
        decision = self._evaluate(call, hook)
        if decision.behavior == "allow" and hook == "ask":
            decision = Decision("ask", "a PreToolUse hook asks", suggestions=decision.suggestions)
        if decision.behavior == "ask" and self.mode == "dontAsk":
            return Decision("deny", f"dontAsk mode denies what no rule allows ({decision.reason})")
        decision.paths = {absolute: resolved for absolute, resolved, _ in call.paths}
        return decision

    def allow_for_session(self, rules: Sequence[Rule]) -> None:
        """Remember "allow for this session" answers."""
        self.rules.session.extend(rules)

    # ------------------------------------------------------------------ steps

    def _evaluate(self, call: _Call, hook: HookDecision) -> Decision:
        ask_rule = self._matching("ask", call)
        if ask_rule is not None:
            return Decision("ask", f"the permission rule {ask_rule.describe()} asks")
        if call.args.get("sandbox") is False:
            return Decision("ask", "it asks to run outside the sandbox")
        protected = next((r for _, r, a in call.paths if a == "write" and is_protected(r)), None)
        if self.mode == "plan" and _writes(call):
            return Decision("deny", "plan mode is read-only: no edits or writes")
        if protected is not None:
            return Decision("ask", f"{protected} is a protected path (edits there always ask)")
        if hook == "allow":
            return Decision("allow", "a PreToolUse hook allowed it")
        if call.tool in self.builtin and (call.tool == WEB_TOOL or call.tool in AGENT_TOOLS):
            return self._agent_tool(call)
        if (
            call.tool in self.builtin and call.tool == web_rules.SEARCH_TOOL
        ):  # by the backend's domain
            behavior, reason, offers = web_rules.search_verdict(self.rules, self.search_url)
            return Decision(behavior, reason, suggestions=offers)
        allowed = self._allowed(call)
        if allowed is not None and not (self.mode == "plan" and call.tool == "bash"):
            return Decision("allow", f"allowed by the permission rule {allowed.describe()}")
        return self._by_mode(call)

    def _by_mode(self, call: _Call) -> Decision:
        outside = [(raw, r, a) for raw, r, a in call.paths if not self.workspace.contains(r)]
        builtin = call.tool in self.builtin
        if builtin and call.tool == "bash":
            return self._bash(call)
        if outside:
            _, resolved, access = outside[0]
            verb = "writes" if access == "write" else "reads"
            kind = "Edit" if access == "write" else "Read"
            target = resolved if access == "write" else resolved.parent
            value = str(target) if access == "write" else f"{target}/**"
            return Decision(
                "ask",
                f"it {verb} {resolved}, outside the workspace",
                suggestions=[Suggestion(kind, "path", value)],
            )
        if (builtin and call.tool in READ_TOOLS) or (call.paths and not _writes(call)):
            return Decision("allow", "it reads inside the workspace")
        if (builtin and call.tool in EDIT_TOOLS) or _writes(call):
            if self.mode in ("acceptEdits", "auto"):
                return Decision("allow", f"{self.mode} mode: edits inside the workspace run")
            path = next(str(r) for _, r, a in call.paths if a == "write")
            return Decision(
                "ask",
                "edits need approval in this mode",
                suggestions=[Suggestion("Edit", "path", path)],
            )
        if not builtin and not call.paths and self._declared_read_only(call.tool):
            return Decision("allow", f"{call.tool} is marked read-only by its server")
        if call.tool.startswith("mcp__") or self.mode in ("default", "plan", "dontAsk"):
            return Decision(
                "ask",
                f"{call.tool} is not known to be safe",
                suggestions=[Suggestion(call.tool, "tool")],
            )
        return Decision("allow", f"{self.mode} mode")

    def _agent_tool(self, call: _Call) -> Decision:
        """web_fetch by domain (see :mod:`.web`); the agent tools change no file: they run."""
        if call.tool != WEB_TOOL:
            return Decision("allow", f"{call.tool} changes no file")
        rules = [r for r in self.rules.of("allow") if r.covers_tool(WEB_TOOL)]
        rule = next((r for r in rules if rule_hits(r.specifier, call.args, subdomains=False)), None)
        if rule is not None:
            return Decision("allow", f"allowed by the permission rule {rule.describe()}")
        if self.typed_hosts.allows(call.args):
            return Decision("allow", "the user gave this URL's host in a prompt")
        host = host_of(call.args.get("url"))
        if host is None:
            return Decision("ask", "it fetches a URL without a host pi can check")
        return Decision(
            "ask",
            f"it fetches from {host}, a domain no rule allows",
            suggestions=[Suggestion("WebFetch", "domain", host)],
        )

    def proves_read_only(self, command: str) -> bool:
        """Whether the classifier proves the bash ``command`` read-only (as a call is judged)."""
        return classify(command, self.context).read_only

    def result_denied(self, host: str) -> bool:
        """A web_search result on ``host`` is hidden (:func:`.web.denied_host`)."""
        return web_rules.denied_host(self.rules, host)

    def _bash(self, call: _Call) -> Decision:
        if call.commands is None:
            verdict_reason = "the command cannot be analysed"
            read_only, rewritten = False, None
        else:
            verdict = classify_commands(call.commands, call.raw, self.context)
            read_only, rewritten, verdict_reason = (
                verdict.read_only,
                verdict.command,
                verdict.reason,
            )
        if read_only:
            arguments = {**call.args, "command": rewritten} if rewritten else None
            return Decision("allow", "a read-only command", arguments)
        if self.mode == "plan":
            return Decision("deny", f"plan mode runs only read-only commands ({verdict_reason})")
        suggestions = bash_suggestions(call.commands) if call.commands else []
        if self.mode == "auto":
            if self.sandbox_active():
                return Decision("allow", "auto mode: it runs inside the sandbox")
            return Decision(
                "ask", f"not read-only: {verdict_reason}", suggestions=suggestions, no_sandbox=True
            )
        return Decision("ask", f"not read-only: {verdict_reason}", suggestions=suggestions)

    # ------------------------------------------------------------------ rules

    def _analyse(self, tool: str, args: Mapping[str, Any]) -> _Call:
        paths: list[tuple[str, Path, str]] = []
        try:
            effects = self.effects_of(tool, args)
        except Exception:  # noqa: BLE001 - a tool's broken file_effects must not allow anything
            effects = []
        for effect in effects:
            # Exactly as the tools resolve it (a leading "@", "~", Unicode variants...).
            absolute = os.path.normpath(resolve_path(self.workspace.cwd, effect.path))
            paths.append((absolute, real(absolute), effect.access))
        call = _Call("bash" if tool == "monitor" else tool, args, paths)  # a monitor's: as bash
        if call.tool == "bash":
            raw = args.get("command")
            call.raw = raw if isinstance(raw, str) else ""
            try:
                call.commands = parse(call.raw, self.home)
            except ParseError:
                call.commands = None
        return call

    def _matching(self, behavior: Behavior, call: _Call) -> Rule | None:
        for rule in self.rules.of(behavior):
            if rule.covers_tool(call.tool) and self._rule_hits(rule, call):
                return rule
        return None

    def _rule_hits(self, rule: Rule, call: _Call) -> bool:
        """Whether a deny/ask rule touches the call (any part, any spelling of a path)."""
        if rule.specifier is None:
            return True
        if call.tool == WEB_TOOL:  # deny and ask rules: the domain and its subdomains
            return rule_hits(rule.specifier, call.args, subdomains=True)
        if call.tool == "bash":
            texts = [" ".join(call.raw.split())]
            if call.commands is not None:
                texts += [command.text for command in call.commands]
            else:  # unparsed: also every piece between shell punctuation
                texts += [" ".join(p.split()) for p in call.raw.translate(_SPLIT).splitlines()]
            return any(command_matches(rule.specifier, text) for text in texts if text)
        regex = self._regex(rule)
        return any(regex.fullmatch(raw) or regex.fullmatch(str(r)) for raw, r, _ in call.paths)

    def _allowed(self, call: _Call) -> Rule | None:
        """An allow rule covering the whole call (each simple command of a bash line)."""
        rules = [r for r in self.rules.of("allow") if r.covers_tool(call.tool)]
        bare = next((r for r in rules if r.specifier is None), None)
        if bare is not None or not rules:
            return bare
        if call.tool != "bash":
            if not call.paths:
                return None
            hits = [
                next((r for r in rules if self._regex(r).fullmatch(str(resolved))), None)
                for _, resolved, _ in call.paths
            ]
            return hits[0] if all(hits) else None
        if call.commands is None:
            return None
        has_cd = any(c.words and c.words[0].text == "cd" for c in call.commands)
        first: Rule | None = None
        for command in call.commands:
            if any(r.touches_file and r.target.text != "/dev/null" for r in command.redirects):
                return None
            rule = next(
                (r for r in rules if command_matches(r.specifier or "", command.text)), None
            )
            if rule is not None:
                first = first or rule
                continue
            name = command.words[0].text if command.words else ""
            alone = SimpleCommand(command.words, command.redirects)
            if has_cd or name == "git":
                return None
            if not classify_commands([alone], command.text, self.context).read_only:
                return None
        return first

    def _declared_read_only(self, tool: str) -> bool:
        try:
            return bool(self.read_only(tool))
        except Exception:  # noqa: BLE001 - a broken declaration allows nothing
            return False

    def _read_guarded(self, path: Path) -> bool:
        """Whether a Read deny/ask rule covers ``path`` (then a command reading it asks)."""
        for rule in (*self.rules.deny, *self.rules.ask):
            if rule.tool == "read" and rule.specifier is not None:
                if self._regex(rule).fullmatch(str(path)):
                    return True
        return False

    def _regex(self, rule: Rule) -> re.Pattern[str]:
        return _compiled(rule.specifier or "**", rule.base, self.workspace.cwd, self.home)


@lru_cache(maxsize=512)
def _compiled(specifier: str, base: Path, cwd: Path, home: str) -> re.Pattern[str]:
    return path_regex(specifier, base, cwd, home)


def _writes(call: _Call) -> bool:
    return any(access == "write" for _, _, access in call.paths) or (
        call.tool in EDIT_TOOLS and not call.paths
    )
