"""Check the documentation's internal links and anchors, and that every page is in the site's nav.

Reads README.md and every ``docs/**/*.md`` with markdown-it (the parser MyST builds on) and
fails, naming file and line, when:

- a relative link points to a file that does not exist, or outside the repository;
- a ``#anchor`` names no heading of the target page (anchors are GitHub's and MyST's slugs:
  lower case, spaces to hyphens, punctuation dropped, ``-1``, ``-2`` for repeats);
- README.md links to a file outside ``docs/`` (the README is also the site's home page,
  included by ``docs/index.md``, where only links into ``docs/`` resolve), or a page under
  ``docs/`` links to a Markdown file outside it;
- a page under ``docs/`` is in no ``{toctree}`` of ``docs/index.md`` (explicitly or by a glob),
  or a toctree names a page that does not exist;
- an inline code span names a file or folder of the repository that is not there
  (`` `pi_cli/shell/config/` ``, `` `tests/fakes/` ``: spans starting with one of
  :data:`CODE_ROOTS` and made only of path characters), so a renamed module shows up here.

Links with a scheme (``https:``, ``mailto:``) are not fetched: the check is offline and fast.
Part of ``make lint``: ``python scripts/check_docs.py [ROOT]``.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.token import Token

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_SLUG_DROP = re.compile(r"[^\w\u4e00-\u9fff\- ]")
CODE_ROOTS = ("agent_core", "pi_cli", "tools", "tests", "bench", "examples", "themes", ".ci")
_CODE_PATH = re.compile(r"(?:" + "|".join(re.escape(r) for r in CODE_ROOTS) + r")/[\w./-]*")
_HTML_ID = re.compile(r"""\b(?:id|name)\s*=\s*["']([^"']+)["']""")


def github_slug(title: str) -> str:
    """A heading's anchor as GitHub and MyST (``myst_parser.slugs.github_slugify``) make it."""
    return _SLUG_DROP.sub("", title.lower().replace(" ", "-"))


@dataclass
class Link:
    """A link as written, where it was written."""

    target: str
    line: int


@dataclass
class Page:
    """What one Markdown file offers (anchors) and asks for (links, toctree entries)."""

    path: Path
    anchors: set[str] = field(default_factory=set)
    links: list[Link] = field(default_factory=list)
    toctree: list[Link] = field(default_factory=list)
    code_paths: list[Link] = field(default_factory=list)


def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def _heading_title(inline: Token) -> str:
    # As MyST: the text and inline code of the heading, formatting dropped.
    return "".join(
        child.content for child in inline.children or [] if child.type in ("text", "code_inline")
    )


def _walk(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


def parse(path: Path, md: MarkdownIt | None = None) -> Page:
    """Read ``path``: its heading anchors, links (with line numbers) and toctree entries."""
    md = md or _parser()
    page = Page(path)
    tokens = md.parse(path.read_text(encoding="utf-8"))
    line = 0
    for index, token in enumerate(tokens):
        if token.map:
            line = token.map[0] + 1
        if token.type == "heading_open":
            slug, n = github_slug(_heading_title(tokens[index + 1])), 1
            unique = slug
            while unique in page.anchors:
                unique, n = f"{slug}-{n}", n + 1
            if unique:
                page.anchors.add(unique)
        elif token.type == "html_block":
            page.anchors.update(_HTML_ID.findall(token.content))
        elif token.type == "fence" and token.info.strip() == "{toctree}":
            page.toctree.extend(_toctree_entries(token, line))
        if token.type == "inline":
            _read_inline(page, token, line)
    return page


def _read_inline(page: Page, token: Token, line: int) -> None:
    """An inline run's HTML anchors, repository paths in code, links and images."""
    for child in _walk(token.children or []):
        if child.type == "html_inline":
            page.anchors.update(_HTML_ID.findall(child.content))
        elif child.type == "code_inline" and _CODE_PATH.fullmatch(child.content):
            page.code_paths.append(Link(child.content, line))
        href = child.attrs.get("href") if child.type == "link_open" else None
        src = child.attrs.get("src") if child.type == "image" else None
        target = href or src
        if isinstance(target, str):
            page.links.append(Link(target, line))


def _toctree_entries(token: Token, line: int) -> list[Link]:
    entries = []
    for offset, raw in enumerate(token.content.splitlines(), start=1):
        text = raw.strip()
        if not text or text.startswith(":"):
            continue
        match = re.fullmatch(r".*<(.+)>", text)  # "Title <page>"
        entries.append(Link(match.group(1) if match else text, line + offset))
    return entries


class Checker:
    """Checks one repository's README.md and docs/."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.docs = self.root / "docs"
        self.md = _parser()
        self.pages: dict[Path, Page] = {}
        self.problems: list[str] = []

    def files(self) -> list[Path]:
        readme = self.root / "README.md"
        found = [readme] if readme.is_file() else []
        if self.docs.is_dir():
            found += sorted(
                p
                for p in self.docs.rglob("*.md")
                if not any(part.startswith(("_", ".")) for part in p.relative_to(self.docs).parts)
            )
        return found

    def page(self, path: Path) -> Page:
        if path not in self.pages:
            self.pages[path] = parse(path, self.md)
        return self.pages[path]

    def report(self, path: Path, line: int, message: str) -> None:
        self.problems.append(f"{path.relative_to(self.root)}:{line}: {message}")

    def run(self) -> list[str]:
        for path in self.files():
            page = self.page(path)
            for link in page.links:
                self.check_link(page, link)
            for path_link in page.code_paths:
                if not (self.root / path_link.target).exists():
                    self.report(
                        page.path,
                        path_link.line,
                        f"`{path_link.target}` names no file or folder of the repository",
                    )
        self.check_nav()
        return self.problems

    def check_link(self, page: Page, link: Link) -> None:
        target = link.target
        if _SCHEME.match(target) or target.startswith("//"):
            return
        raw_path, _, anchor = target.partition("#")
        raw_path = unquote(raw_path.split("?", 1)[0])
        if not raw_path:
            if anchor and anchor not in page.anchors:
                self.report(page.path, link.line, f"no heading here has the anchor #{anchor}")
            return
        # Lexically, as GitHub and Sphinx resolve a link (a symlinked folder stays where it is).
        resolved = Path(os.path.normpath(page.path.parent / raw_path))
        where = f"link {target!r}"
        if not resolved.is_relative_to(self.root):
            self.report(page.path, link.line, f"{where} leaves the repository")
            return
        if not resolved.exists():
            self.report(page.path, link.line, f"{where}: {self._rel(resolved)} does not exist")
            return
        if not self._allowed(page.path, resolved):
            self.report(page.path, link.line, f"{where}: {self._why_not(page.path)}")
            return
        if resolved.is_dir() and page.path.is_relative_to(self.docs):
            # Sphinx links a file outside docs/ as a download; a folder it cannot link at all.
            self.report(
                page.path, link.line, f"{where}: a folder (name it in code, or link a file)"
            )
            return
        if not anchor:
            return
        if resolved.suffix != ".md" or not resolved.is_file():
            self.report(page.path, link.line, f"{where}: an anchor into a non-Markdown file")
            return
        if anchor not in self.page(resolved).anchors:
            self.report(
                page.path, link.line, f"{where}: {self._rel(resolved)} has no heading #{anchor}"
            )

    def _allowed(self, source: Path, target: Path) -> bool:
        in_docs = target.is_relative_to(self.docs)
        if source == self.root / "README.md":
            return in_docs
        return in_docs or target.suffix != ".md"

    def _why_not(self, source: Path) -> str:
        if source == self.root / "README.md":
            return (
                "README.md may link only into docs/ (it is the site's home page too); "
                "move the text into a docs page or link a URL"
            )
        return "a docs page may not link a Markdown file outside docs/ (index.md is the README)"

    def _rel(self, path: Path) -> str:
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)

    def check_nav(self) -> None:
        index = self.docs / "index.md"
        if not index.is_file():
            if self.docs.is_dir():
                self.problems.append("docs/index.md is missing (the site's home page and nav)")
            return
        entries = self.page(index).toctree
        names = {
            p.relative_to(self.docs).with_suffix("").as_posix()
            for p in self.files()
            if p.is_relative_to(self.docs) and p != index
        }
        globs = [e for e in entries if any(ch in e.target for ch in "*?[")]
        for entry in entries:
            if entry in globs or _SCHEME.match(entry.target):
                continue
            name = entry.target.removesuffix(".md")
            if name not in names:
                self.report(index, entry.line, f"the nav names {entry.target!r}: no such page")
        for name in sorted(names):
            listed = any(e.target.removesuffix(".md") == name for e in entries)
            # Sphinx's glob: "*" does not cross "/", "**" does.
            matched = any(_glob_match(name, g.target) for g in globs)
            if not listed and not matched:
                self.problems.append(
                    f"docs/{name}.md is not in the site's nav: add it to the toctree in docs/index.md"
                )


def _glob_match(name: str, pattern: str) -> bool:
    """Sphinx's toctree glob: ``**`` matches across ``/``, ``*`` and ``?`` do not."""
    regex = re.escape(pattern.removesuffix(".md"))
    regex = regex.replace(r"\*\*", ".*").replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
    return re.fullmatch(regex, name) is not None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else Path(__file__).resolve().parent.parent
    problems = Checker(root).run()
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(
            f"check_docs: {len(problems)} broken link(s) or page(s) outside the nav",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
