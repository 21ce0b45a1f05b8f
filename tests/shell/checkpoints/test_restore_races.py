"""Restores racing a hostile process that flips a directory for symlinks (issue 24): 100
restores (writes and removals) while ``sub`` keeps turning into a symlink to ``.git`` or to a
directory outside the workspace. Nothing in ``.git`` or outside ever changes; what could not be
restored safely is reported, never written through the link."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pi_cli.shell.checkpoints.git import ShadowGit
from pi_cli.shell.checkpoints.restore import restore_tree
from pi_cli.shell.checkpoints.snapshot import Limits, take_snapshot
from tests.shell.checkpoints.conftest import git, require_git, tree_bytes

RACER = Path(__file__).resolve().parents[2] / "tools" / "sandbox" / "racer.py"


def test_a_hundred_restores_racing_a_symlink_flipper_stay_in_the_workspace(
    tmp_path: Path,
) -> None:
    require_git()
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    git(repo, "init", "-q")
    outside.mkdir()
    for place in (repo / ".git", outside):  # what a restore through the link would hit
        (place / "config").write_text("[core]\n\tbare = false\n") if place == outside else None
        (place / "gone.txt").write_text("must survive\n")
    (repo / "sub").mkdir()
    (repo / "sub" / "config").write_text('[core]\n\tfsmonitor = "touch /tmp/pi-pwned"\n')
    (repo / "sub" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (repo / "sub" / "run.sh").chmod(0o755)
    shadow = ShadowGit(repo)
    first = take_snapshot(shadow, "s", Limits()).tree
    (repo / "sub" / "config").write_text("[core]\n\tbare = true\n")
    (repo / "sub" / "run.sh").unlink()
    (repo / "sub" / "gone.txt").write_text("created since\n")
    second = take_snapshot(shadow, "s", Limits()).tree
    before = {"git": tree_bytes(repo / ".git"), "outside": tree_bytes(outside)}
    racer = subprocess.Popen(
        [sys.executable, str(RACER), "sub", ".git", str(outside)],
        cwd=repo,
        stdout=subprocess.PIPE,
        text=True,
    )
    failed = written = 0
    try:
        assert racer.stdout is not None and racer.stdout.readline().strip() == "racing"
        for number in range(100):
            current, target = (second, first) if number % 2 == 0 else (first, second)
            report = restore_tree(shadow, current, target)
            failed += len(report.failed)
            written += len(report.written) + len(report.deleted)
            for line in report.failed:
                assert "is a symlink now" in line or "not a directory now" in line, line
    finally:
        racer.kill()
        racer.wait()
    after = {"git": tree_bytes(repo / ".git"), "outside": tree_bytes(outside)}
    assert after == before, "a restore wrote or removed through the flipped link"
    assert written, "no restore got through at all"
    print(f"restored or removed: {written}, refused as changed: {failed}")
