"""What an approval could remember: the rules behind "allow for this session" and "always"."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal, NamedTuple

from pi_cli.shell.permissions._bash_parse import SimpleCommand

_SUBCOMMAND = re.compile(r"[a-z][a-z0-9_-]*")
_WITH_SUBCOMMANDS = frozenset(
    "git npm pnpm yarn npx bun deno cargo go docker podman kubectl helm pip pip3 uv poetry "
    "make just gh terraform dotnet mvn gradle brew apt apt-get systemctl rustup conda".split()
)
"""Commands whose second word names what they do (``npm test``, ``git push``)."""
_RESERVED = frozenset(
    "if then else elif fi for while until do done case esac select function time coproc".split()
) | {"{", "}", "!", "[[", "]]"}


class Suggestion(NamedTuple):
    """One rule an answer could add.

    Attributes:
        tool: the rule's tool name (``Bash``, ``Edit``, ``Read`` or the tool's own name).
        kind: ``command`` (a command prefix), ``path`` (an absolute path or ``dir/**``),
            ``tool`` (the bare tool), ``domain`` (a web_fetch host).
        value: the prefix or path.
    """

    tool: str
    kind: Literal["command", "path", "tool", "domain"]
    value: str = ""

    def rule_text(self, root: Path | None = None) -> str:
        """The rule in Claude Code syntax; paths inside ``root`` are written ``/relative``."""
        if self.kind == "command":
            return f"{self.tool}({self.value}:*)"
        if self.kind == "domain":
            return f"{self.tool}(domain:{self.value})"
        if self.kind == "tool":
            return self.tool
        if root is not None:
            try:
                relative = Path(self.value.removesuffix("/**")).relative_to(root)
            except ValueError:
                pass
            else:
                tail = "/**" if self.value.endswith("/**") else ""
                text = str(relative)
                return f"{self.tool}(/{'' if text == '.' else text}{tail})".replace(
                    "(//**)", "(/**)"
                )
        return f"{self.tool}(/{self.value})"


def bash_suggestions(commands: list[SimpleCommand]) -> list[Suggestion]:
    """``Bash(prefix:*)`` for each distinct simple command (command plus its subcommand)."""
    out: list[Suggestion] = []
    for command in commands:
        words = [w.text for w in command.words]
        if not words or not command.static or words[0] in _RESERVED:
            return []  # a variable, a loop, a group: only "allow once" makes sense
        prefix = words[0]
        if len(words) > 1 and words[0] in _WITH_SUBCOMMANDS and _SUBCOMMAND.fullmatch(words[1]):
            prefix += " " + words[1]
        suggestion = Suggestion("Bash", "command", prefix)
        if suggestion not in out:
            out.append(suggestion)
    return out
