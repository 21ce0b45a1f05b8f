"""Real ``git diff`` output parsed into files and hunks, and findings placed on them."""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell.review.hunks import parse_diff, split_chunks, unquote
from pi_cli.shell.review.report import place_findings
from pi_cli.shell.review.target import resolve_review_target
from tests.shell.review.conftest import commit, finding, git, write


def _diff(root: Path, target: str | None = None) -> str:
    return resolve_review_target(root, target).diff


def test_seeded_bugs_map_to_their_new_lines(repo: Path) -> None:
    files = {f.path: f for f in parse_diff(_diff(repo, "HEAD"))}
    assert sorted(files) == ["app/db.py", "app/files.py", "app/stats.py"]
    raw = [
        finding("app/stats.py", 3, 3, title="off by one"),
        finding("app/db.py", 2, 2, "critical", "injection"),
        finding("app/files.py", 2, 4, "medium", "leak"),
        finding("app/stats.py", 40, 41, "low", "far away"),
        finding("README.md", 1, 1, "low", "not changed"),
        finding("./app/db.py", 1, 1, "info", "context line"),
    ]
    placed = {f.title: f for f in place_findings(raw, list(files.values()))}
    assert placed["off by one"].in_diff and placed["off by one"].hunk == "@@ -1,5 +1,5 @@"
    assert placed["injection"].in_diff and placed["leak"].in_diff
    assert placed["context line"].file == "app/db.py" and placed["context line"].in_diff
    assert not placed["far away"].in_diff and placed["far away"].hunk is None
    assert not placed["not changed"].in_diff
    assert [f.severity for f in place_findings(raw, list(files.values()))][0] == "critical"
    numbered = files["app/stats.py"].hunks[0].numbered()
    added = [(new, text) for old, new, text in numbered if old is None]
    assert added == [(3, "+    for i in range(len(items) + 1):")]


def test_a_rename_with_changes_is_one_file_under_its_new_name(repo: Path) -> None:
    git(repo, "mv", "app/stats.py", "app/maths.py")
    text = (repo / "app/maths.py").read_text().replace("return result", "return result * 1")
    (repo / "app/maths.py").write_text(text)
    [file] = parse_diff(_diff(repo))
    assert (file.path, file.old_path, file.status) == ("app/maths.py", "app/stats.py", "renamed")
    placed = place_findings([finding("app/stats.py", 5, 5), finding("app/maths.py", 1, 1)], [file])
    assert {(f.file, f.in_diff, f.old_path) for f in placed} == {
        ("app/maths.py", True, "app/stats.py"),
        ("app/maths.py", False, "app/stats.py"),
    }


def test_a_pure_rename_has_no_hunks(repo: Path) -> None:
    git(repo, "mv", "README.md", "READ ME.md")
    [file] = parse_diff(_diff(repo))
    assert (file.path, file.old_path, file.hunks) == ("READ ME.md", "README.md", [])


def test_binary_files_are_files_without_lines(repo: Path) -> None:
    write(repo, {"logo.png": bytes(range(256)) * 4, "app/stats.py": "x = 1\n"})
    files = {f.path: f for f in parse_diff(_diff(repo))}
    assert files["logo.png"].binary and files["logo.png"].status == "added"
    assert files["logo.png"].hunks == []
    [on_binary] = place_findings([finding("logo.png", 1, 1)], list(files.values()))
    assert on_binary.in_diff  # the file is in the diff, though it has no lines to point at


def test_crlf_lines_keep_their_carriage_return_and_their_numbers(repo: Path) -> None:
    write(repo, {"win.txt": "one\r\ntwo\r\nthree\r\n"})
    commit(repo, "crlf")
    write(repo, {"win.txt": "one\r\n2\r\nthree\r\nfour\x0cfive\x1csix\r\n"})
    [file] = parse_diff(_diff(repo))
    numbered = file.hunks[0].numbered()
    assert [(new, text) for old, new, text in numbered if old is None] == [
        (2, "+2\r"),
        (4, "+four\x0cfive\x1csix\r"),
    ]
    assert file.hunk_for(4, 4) is not None and file.hunk_for(6, 9) is None


def test_no_newline_at_end_and_deleted_files(repo: Path) -> None:
    (repo / "README.md").unlink()
    write(repo, {"app/stats.py": "def total(items):\n    return sum(items)"})
    files = {f.path: f for f in parse_diff(_diff(repo))}
    assert files["README.md"].status == "deleted" and files["README.md"].deletions == 1
    stats = files["app/stats.py"]
    assert any(line.startswith("\\ No newline") for line in stats.hunks[0].lines)
    assert stats.additions == 1


def test_quoted_paths_come_back_unquoted(repo: Path) -> None:
    write(repo, {'tést "q".py': "a = 1\n", "tab\there.py": "b = 2\n"})
    paths = sorted(f.path for f in parse_diff(_diff(repo)))
    assert paths == ["tab\there.py", 'tést "q".py']
    assert unquote('"a/t\\303\\251st"') == "a/tést"


def test_a_5000_line_diff_maps_exactly_and_splits_by_file(repo: Path) -> None:
    lines = [f"line {n}\n" for n in range(1, 5001)]
    write(repo, {"big.txt": "".join(lines)})
    commit(repo, "big")
    changed = [f"changed {n}\n" if n % 7 == 0 else line for n, line in enumerate(lines, 1)]
    write(repo, {"big.txt": "".join(changed), "app/db.py": "x = 1\n"})
    diff = _diff(repo)
    assert diff.count("\n") > 5000
    files = parse_diff(diff)
    big = next(f for f in files if f.path == "big.txt")
    assert big.additions == 5000 // 7 and big.deletions == 5000 // 7
    for n in (7, 700, 4998):
        hunk = big.hunk_for(n, n)
        assert hunk is not None
        assert any(new == n and text == f"+changed {n}" for _, new, text in hunk.numbered())
    chunks = split_chunks(files, 1500)
    assert len(chunks) >= 3
    assert sum(len(h.lines) for c in chunks for f in c for h in f.hunks) == sum(
        len(h.lines) for f in files for h in f.hunks
    )
    assert all(sum(f.size for f in chunk) <= 1500 for chunk in chunks)
    pieces = [(new, text) for c in chunks for f in c if f.path == "big.txt" for h in f.hunks
              for _, new, text in h.numbered() if text.startswith("+")]  # fmt: skip
    assert pieces == [(n, f"+changed {n}") for n in range(7, 5001, 7)]


def test_garbage_is_no_files() -> None:
    assert parse_diff("") == []
    assert parse_diff("hello\n@@ -1 +1 @@\n+x\n") == []
    files = parse_diff("diff --git a/x b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n")  # cut short
    assert files[0].additions == 1 and files[0].hunks[0].new_count == 2
