"""The shadow repository itself: isolation from the user's git setup, limits, odd files, pruning."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from pi_cli.shell.checkpoints.git import ShadowGit
from pi_cli.shell.checkpoints.prune import prune
from pi_cli.shell.checkpoints.restore import restore_tree
from pi_cli.shell.checkpoints.snapshot import (
    Limits,
    SnapshotSkipped,
    name_status,
    take_snapshot,
)
from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import reply, text, tool_call
from tests.shell.checkpoints.conftest import git, require_git, tree_bytes
from tests.shell.helpers import make_shell, notices


def snap(shadow: ShadowGit, session: str = "s1", limits: Limits | None = None) -> str:
    return take_snapshot(shadow, session, limits or Limits()).tree


def test_hooks_filters_fsmonitor_and_crlf_of_the_user_never_apply(
    repo: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = repo.parent / "marker"
    hook = repo.parent / "hooks"
    hook.mkdir()
    for name in ("pre-commit", "post-checkout", "post-index-change", "reference-transaction"):
        (hook / name).write_text(f"#!/bin/sh\necho {name} >> {marker}\n")
        (hook / name).chmod(0o755)
    # The user's global config: hooks, a filter on every file, fsmonitor, CRLF conversion.
    (fake_home / ".gitconfig").write_text(
        f"[core]\n\thooksPath = {hook}\n\tautocrlf = true\n\tfsmonitor = {hook}/pre-commit\n"
        f'[filter "evil"]\n\tclean = "echo clean >> {marker}; cat"\n'
        f'\tsmudge = "echo smudge >> {marker}; cat"\n\trequired = true\n'
    )
    (repo / ".gitattributes").write_text("* filter=evil\n*.txt text eol=crlf\n")
    (repo / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    (repo / "lf.txt").write_bytes(b"one\ntwo\n")
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))  # as if pi ran inside a git hook
    monkeypatch.setenv("GIT_INDEX_FILE", str(repo / ".git" / "index"))
    user_git = tree_bytes(repo / ".git")
    shadow = ShadowGit(repo)
    first = snap(shadow)
    (repo / "crlf.txt").write_bytes(b"changed\n")
    (repo / "lf.txt").unlink()
    second = snap(shadow)
    restore_tree(shadow, second, first)
    assert (repo / "crlf.txt").read_bytes() == b"one\r\ntwo\r\n"  # byte for byte, no conversion
    assert (repo / "lf.txt").read_bytes() == b"one\ntwo\n"
    assert not marker.exists()  # no hook, filter or fsmonitor ran
    assert tree_bytes(repo / ".git") == user_git
    assert not (shadow.git_dir / "hooks").exists() or not any((shadow.git_dir / "hooks").iterdir())


def test_gitignore_respected_and_ignored_files_never_touched(repo: Path) -> None:
    shadow = ShadowGit(repo)
    first = snap(shadow)
    listed = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", first],
        env=shadow.env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "app.py" in listed and "notes.txt" in listed
    assert "debug.log" not in listed and not any(p.startswith("build/") for p in listed)
    assert not any(p.startswith(".git/") for p in listed)
    (repo / "debug.log").write_text("new log\n")
    (repo / "app.py").write_text("changed\n")
    restore_tree(shadow, snap(shadow), first)
    assert (repo / "debug.log").read_text() == "new log\n"  # ignored: left alone
    assert (repo / "build" / "out.bin").read_bytes() == b"\x00ignored"


def test_modes_links_odd_names_and_file_to_directory(repo: Path) -> None:
    shadow = ShadowGit(repo)
    script = repo / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    (repo / "link").symlink_to("app.py")
    odd = os.fsencode(repo) + b"/caf\xe9 \n name.txt"
    with open(odd, "wb") as handle:
        handle.write(b"latin-1 name")
    (repo / "thing").write_text("a file\n")
    first = snap(shadow)
    script.chmod(0o644)
    (repo / "link").unlink()
    os.unlink(odd)
    (repo / "thing").unlink()
    (repo / "thing").mkdir()
    (repo / "thing" / "inside.txt").write_text("now a directory\n")
    second = snap(shadow)
    assert ("A", "thing/inside.txt") in name_status(shadow, first, second)
    report = restore_tree(shadow, second, first)
    assert not report.failed, report.failed
    assert os.access(script, os.X_OK)
    assert (repo / "link").is_symlink() and os.readlink(repo / "link") == "app.py"
    assert open(odd, "rb").read() == b"latin-1 name"
    assert (repo / "thing").is_file() and (repo / "thing").read_text() == "a file\n"


def test_nested_repository_is_left_to_its_own_git(repo: Path) -> None:
    nested = repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    (nested / "code.c").write_text("int x;\n")
    shadow = ShadowGit(repo)
    tree = snap(shadow)
    listed = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", tree], env=shadow.env(), capture_output=True,
        text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert not any(p.startswith("vendor/") for p in listed)


def test_limits_skip_big_files_and_too_big_snapshots(repo: Path) -> None:
    shadow = ShadowGit(repo)
    big = repo / "big.bin"
    with big.open("wb") as handle:
        handle.truncate(100_000_000)
    result = take_snapshot(shadow, "s1", Limits())
    assert result.too_big == [("big.bin", 100_000_000)]
    assert result.bytes_read < 1_000_000
    for name in ("n1", "n2", "n3"):
        (repo / name).write_text(name)
    with pytest.raises(SnapshotSkipped, match="3 files to snapshot.*maxFiles") as raised:
        take_snapshot(shadow, "s1", Limits(max_files=2))
    assert raised.value.whole_workspace is False  # too much at once, not the workspace itself
    for index in shadow.index_dir.iterdir():
        index.unlink()
    with pytest.raises(SnapshotSkipped, match="maxSnapshotBytes") as raised:
        take_snapshot(shadow, "s3", Limits(max_snapshot_bytes=10))
    assert raised.value.whole_workspace is True


async def test_a_100_mb_file_is_skipped_with_a_notice_and_never_touched(repo: Path) -> None:
    require_git()
    shell, _, recorder = make_shell(
        repo,
        reply(tool_call("b1", "bash", {"command": "head -c 100000000 /dev/zero > big.bin"})),
        reply(text("made it")),
        tools=["bash"],
    )
    await shell.submit("make a big file")
    await shell.wait_idle()
    said = notices(recorder, "warning")
    assert any("leave out big.bin (100.0 MB" in n for n in said), said
    first = (await shell.checkpoints.points())[0]
    plan = await shell.checkpoints.plan(first.entry_id)
    assert all(path != "big.bin" for _, path in plan.changes)
    await shell.checkpoints.rewind(first.entry_id)
    assert (repo / "big.bin").stat().st_size == 100_000_000  # not in any snapshot: kept


async def test_a_workspace_over_the_limits_turns_checkpoints_off_with_a_notice(repo: Path) -> None:
    settings = Settings()
    settings.checkpoints.max_files = 1
    shell, _, recorder = make_shell(
        repo,
        reply(tool_call("w1", "write", {"path": "x.txt", "content": "x"})),
        reply(text("ok")),
        tools=["write"],
        settings=settings,
    )
    await shell.submit("go")
    await shell.wait_idle()
    assert (repo / "x.txt").read_text() == "x"
    assert any("Checkpoints are off for this workspace" in n for n in notices(recorder))
    assert shell.checkpoints.off is not None


def test_stale_lock_and_pruned_objects_are_recovered(repo: Path) -> None:
    shadow = ShadowGit(repo)
    snap(shadow)
    index = shadow.index_dir / "s1"
    index.with_name("s1.lock").write_text("left by a killed git")
    (repo / "app.py").write_text("after a crash\n")
    assert snap(shadow)  # the stale lock does not stop it
    # Objects the index names disappear (an aggressive gc): the index is rebuilt from the files.
    objects = shadow.git_dir / "objects"
    for path in objects.glob("??/*"):
        path.unlink()
    (repo / "other.py").write_text("new\n")
    tree = snap(shadow)
    assert ("A", "other.py") in name_status(
        shadow, "4b825dc642cb6eb9a060e54bf8d69288fbee4904", tree
    )


def test_prune_drops_old_sessions_and_keeps_recent_ones(repo: Path) -> None:
    shadow = ShadowGit(repo)
    for session in ("old", "new"):
        tree = snap(shadow, session)
        commit = shadow.run("commit-tree", tree, "-m", session).strip().decode()
        shadow.run("update-ref", shadow.ref(session), commit)
    report = prune(shadow, keep_days=30, max_repo_mb=1024, now=time.time() + 40 * 86400)
    assert sorted(report.dropped) == ["new", "old"]
    tree = snap(shadow, "fresh")
    commit = shadow.run("commit-tree", tree, "-m", "fresh").strip().decode()
    shadow.run("update-ref", shadow.ref("fresh"), commit)
    kept = prune(shadow, keep_days=30, max_repo_mb=1024)
    assert kept.dropped == [] and shadow.has_object(tree)


def test_a_first_snapshot_of_many_files_is_packed_and_still_counts_lines(repo: Path) -> None:
    from pi_cli.shell.checkpoints.snapshot import PACK_FROM_FILES, numstats

    for i in range(PACK_FROM_FILES + 10):
        (repo / f"mod{i}.py").write_text("a\nb\nc\n")
    shadow = ShadowGit(repo)
    first = snap(shadow)
    loose = list((shadow.git_dir / "objects").glob("??/*"))
    assert len(loose) == 1  # the tree; the 74 files went into one pack
    assert list((shadow.git_dir / "objects" / "pack").glob("*.pack"))
    (repo / "mod3.py").write_text("a\nB\nc\nd\n")
    (stats,) = numstats(shadow, [(first, snap(shadow))])
    assert [(s.path, s.added, s.removed) for s in stats] == [("mod3.py", 2, 1)]


def test_pi_home_inside_the_workspace_is_never_snapshotted(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside = repo / "tools" / "pi-home"
    inside.mkdir(parents=True)
    (inside / "settings.json").write_text("{}")
    monkeypatch.setenv("PI_HOME", str(inside))
    shadow = ShadowGit(repo)
    tree = snap(shadow)
    listed = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", tree], env=shadow.env(), capture_output=True,
        text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert "app.py" in listed and not any(p.startswith("tools/") for p in listed)
    assert shadow.git_dir.is_relative_to(inside)  # the shadow repository itself lives there
