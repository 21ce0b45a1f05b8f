"""The docs' link check (`make lint`): broken links, anchors and pages outside the nav fail."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.scripts.conftest import ROOT, load_script

check_docs = load_script("check_docs")

INDEX = """```{include} ../README.md
:relative-docs: docs/
```

```{toctree}
:hidden:

guide
```
"""


def _tree(tmp_path: Path, readme: str, pages: dict[str, str], index: str = INDEX) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text(readme, encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text(index, encoding="utf-8")
    for name, text in pages.items():
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "x.py").write_text("", encoding="utf-8")
    return tmp_path


def _problems(root: Path) -> list[str]:
    return check_docs.Checker(root).run()


GUIDE = """# The guide

## RPC (pi's protocol)

### Keys: Ctrl+O / Alt+O — and `code`

## Repeated

## Repeated

See [the top](#the-guide), [the second repeat](#repeated-1), [a file](../examples/x.py).

```sh
[not a link](nowhere.md#inside-a-code-fence)
```
"""


def test_good_links_and_anchors_pass(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        "# pi\n\n[rpc](docs/guide.md#rpc-pis-protocol) [keys](docs/guide.md#keys-ctrlo--alto--and-code)"
        " [web](https://example.com/x.md#nope) [mail](mailto:a@b.c) [here](#pi)\n",
        {"guide.md": GUIDE},
    )
    assert _problems(root) == []


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ("docs/guide.md#no-such-heading", "has no heading #no-such-heading"),
        ("docs/gone.md", "docs/gone.md does not exist"),
        ("#nowhere", "no heading here has the anchor #nowhere"),
        ("docs/guide.md#repeated-2", "has no heading #repeated-2"),
        ("pyproject.toml", "README.md may link only into docs/"),
        ("../outside.md", "leaves the repository"),
        ("docs/guide.md#RPC-pis-protocol", "has no heading #RPC-pis-protocol"),
    ],
)
def test_a_broken_link_in_the_readme_fails_with_file_and_line(
    tmp_path: Path, link: str, expected: str
) -> None:
    root = _tree(tmp_path, f"# pi\n\ntext\n\nsee [this]({link})\n", {"guide.md": GUIDE})
    (root / "pyproject.toml").write_text("", encoding="utf-8")
    problems = _problems(root)
    assert len(problems) == 1, problems
    assert problems[0].startswith("README.md:5: ")
    assert expected in problems[0]


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ("../README.md", "may not link a Markdown file outside docs/"),
        ("../tools/x.py#L3", "an anchor into a non-Markdown file"),
        ("missing.png", "docs/missing.png does not exist"),
        ("sub/", "docs/sub does not exist"),
        ("../tools/", "a folder (name it in code, or link a file)"),
    ],
)
def test_a_broken_link_in_a_page_fails(tmp_path: Path, link: str, expected: str) -> None:
    root = _tree(tmp_path, "# pi\n", {"guide.md": f"# Guide\n\n![a picture]({link})\n"})
    (root / "tools").mkdir()
    (root / "tools" / "x.py").write_text("", encoding="utf-8")
    problems = _problems(root)
    assert len(problems) == 1, problems
    assert problems[0].startswith("docs/guide.md:3: ") and expected in problems[0]


def test_a_page_outside_the_nav_fails_and_so_does_a_nav_entry_without_a_page(
    tmp_path: Path,
) -> None:
    index = INDEX.replace("guide\n", "guide\nvanished\n")
    root = _tree(
        tmp_path, "# pi\n", {"guide.md": "# G\n", "lsp.md": "# L\n", "sub/x.md": "# X\n"}, index
    )
    problems = _problems(root)
    assert any("'vanished': no such page" in p for p in problems), problems
    assert any(p.startswith("docs/lsp.md is not in the site's nav") for p in problems), problems
    assert any(p.startswith("docs/sub/x.md is not in the site's nav") for p in problems), problems
    assert len(problems) == 3


def test_a_glob_in_the_nav_covers_pages_the_way_sphinx_matches_it(tmp_path: Path) -> None:
    index = INDEX.replace("guide\n", "guide\ntopics/*\n")
    pages = {"guide.md": "# G\n", "topics/a.md": "# A\n", "topics/deeper/b.md": "# B\n"}
    problems = _problems(_tree(tmp_path, "# pi\n", pages, index))
    assert problems == [
        "docs/topics/deeper/b.md is not in the site's nav: add it to the toctree in docs/index.md"
    ]


def test_slugs_are_githubs_and_mysts() -> None:
    # MyST's github_slugify (myst_parser/slugs.py), which GitHub's own anchors match.
    assert check_docs.github_slug("RPC (pi's protocol)") == "rpc-pis-protocol"
    assert check_docs.github_slug("task: sub-agents") == "task-sub-agents"
    assert check_docs.github_slug("web_fetch") == "web_fetch"
    assert check_docs.github_slug("Branches: /tree and /fork") == "branches-tree-and-fork"
    assert check_docs.github_slug("Plan mode's end") == "plan-modes-end"


def _run(root: Path) -> subprocess.CompletedProcess[str]:
    script = ROOT / "scripts" / "check_docs.py"
    return subprocess.run(
        [sys.executable, str(script), str(root)], capture_output=True, text=True, check=False
    )


def test_the_repository_docs_pass_as_make_lint_runs_them() -> None:
    result = _run(ROOT)
    assert result.returncode == 0, result.stderr


def test_a_deliberately_broken_link_in_a_copy_of_the_docs_fails_the_check(tmp_path: Path) -> None:
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    for folder in check_docs.CODE_ROOTS:  # pages link and name files of the repository
        (tmp_path / folder).symlink_to(ROOT / folder)
    assert _run(tmp_path).returncode == 0
    page = tmp_path / "docs" / "sandbox.md"
    page.write_text(
        page.read_text(encoding="utf-8") + "\nSee [rules](permissions.md#no-such-rule).\n",
        encoding="utf-8",
    )
    result = _run(tmp_path)
    assert result.returncode == 1
    assert "docs/sandbox.md:" in result.stderr and "has no heading #no-such-rule" in result.stderr


def test_a_code_span_naming_a_missing_repository_file_fails(tmp_path: Path) -> None:
    page = (
        "# Guide\n\nThe policy is `pi_cli/shell/gone.py`; `examples/x.py` and `examples/` exist;"
        " `tests/shell/<feature>/` is a pattern, `scripts/x.py` a skill's own path.\n\n"
        "```sh\ncat tools/not_checked_in_a_fence.py\n```\n"
    )
    problems = _problems(_tree(tmp_path, "# pi\n", {"guide.md": page}))
    assert problems == [
        "docs/guide.md:3: `pi_cli/shell/gone.py` names no file or folder of the repository"
    ]
