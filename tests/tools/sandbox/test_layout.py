"""The sandbox's layout without running it: mount order, hidden paths around the workspace,
git directories (read-only entries, nested ones, what pi creates for them and its clean-up
after a ``kill -9``), no mount point in the project for a missing protected path."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tools.sandbox import _bwrap
from tools.sandbox._bwrap import Layout, mount_args
from tools.sandbox._git_layout import git_layout
from tools.sandbox._layout import DEFAULT_PROTECTED, build_layout


def _pairs(args: list[str], flag: str) -> list[str]:
    return [args[i + 1] for i, a in enumerate(args) if a == flag]


def test_mount_order_writable_then_git_then_hidden_then_protected(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "objects").mkdir()
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (ws / ".git" / "config").write_text("")
    (ws / ".pihome" / "sessions").mkdir(parents=True)
    (ws / ".vscode").mkdir()
    git = git_layout(ws, {})
    layout = build_layout(
        ws,
        writable=[],
        hidden=[ws / ".pihome"],
        protected=DEFAULT_PROTECTED,
        network=False,
        env={},
        git=git,
    )
    from tools.sandbox._bwrap import create_entries

    created = create_entries(git.create_dirs, git.create_files)
    args = mount_args(layout)
    assert args[:3] == ["--ro-bind", "/", "/"]
    order = [args.index(x) for x in (str(ws), str(ws / ".git"), str(ws / ".pihome"))]
    assert order == sorted(order)
    assert str(ws / ".git") in _pairs(args, "--bind")  # pinned: cannot be renamed
    read_only = set(_pairs(args, "--ro-bind"))
    for name in ("hooks", "config", "commondir", "config.worktree", "info", "modules", "worktrees"):
        assert str(ws / ".git" / name) in read_only, name
    assert str(ws / ".vscode") in read_only  # existing: bound read-only
    assert str(ws / ".pihome") in _pairs(args, "--tmpfs")
    # Missing protected paths of the project get no mount point (nothing appears in it).
    for name in (".pi", ".claude", ".mcp.json", ".envrc", ".idea"):
        assert str(ws / name) not in args and not (ws / name).exists()
    # What pi created for the git directory: only inside it, and harmless to git.
    assert sorted(p.name for p in created) == [
        "commondir", "config.worktree", "info", "modules", "worktrees"
    ]  # fmt: skip
    assert (ws / ".git" / "commondir").read_text() == ".\n"
    _bwrap.remove_placeholders(created)
    assert sorted(p.name for p in (ws / ".git").iterdir()) == ["HEAD", "config", "hooks", "objects"]


def test_a_hidden_directory_around_the_workspace_hides_only_its_other_entries(
    tmp_path: Path,
) -> None:
    home = tmp_path / "pihome"
    ws = home / "projects" / "ws"
    ws.mkdir(parents=True)
    (home / "sessions").mkdir()
    (home / "models.json").write_text("{}")
    (home / "projects" / "other").mkdir()
    args = mount_args(Layout(workspace=ws, hidden=[home]))
    hidden = set(_pairs(args, "--tmpfs")) | {
        args[i + 2] for i, a in enumerate(args) if a == "--ro-bind" and args[i + 1] == "/dev/null"
    }
    assert str(home / "sessions") in hidden and str(home / "models.json") in hidden
    assert str(home / "projects" / "other") in hidden
    assert str(home) not in hidden and str(ws) not in hidden


def test_git_layout_of_a_worktree(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=main, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"],
        cwd=main,
        check=True,
    )  # fmt: skip
    subprocess.run(["git", "worktree", "add", "-q", str(tmp_path / "tree")], cwd=main, check=True)
    git = git_layout(tmp_path / "tree", {})
    mine = main / ".git" / "worktrees" / "tree"
    assert git.git_dir == mine and git.common_dir == main / ".git"
    mounts = git.mounts
    assert ("bind", main / ".git") in mounts and ("bind", mine) in mounts
    for path in (main / ".git" / "config", main / ".git" / "hooks", tmp_path / "tree" / ".git"):
        assert ("ro-bind", path) in mounts
    # worktrees/ read-only, the workspace's own worktree directory opened again after it,
    # with its pointers read-only on top.
    order = [
        mounts.index(("ro-bind", main / ".git" / "worktrees")),
        mounts.index(("bind", mine)),
        mounts.index(("ro-bind", mine / "commondir")),
    ]
    assert order == sorted(order)
    assert ("ro-bind", mine / "gitdir") in mounts


def test_git_dir_from_the_environment_and_a_hooks_path(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    subprocess.run(
        ["git", "init", "-q", "--separate-git-dir", str(tmp_path / "store"), str(ws)], check=True
    )
    (ws / ".husky" / "_").mkdir(parents=True)
    subprocess.run(["git", "config", "core.hooksPath", ".husky/_"], cwd=ws, check=True)
    git = git_layout(ws, {"GIT_DIR": str(tmp_path / "store")})
    assert git.git_dir == tmp_path / "store"
    assert ("ro-bind", tmp_path / "store" / "config") in git.mounts
    assert ("ro-bind", ws / ".husky" / "_") in git.mounts  # husky's hooks: read-only inside


def test_placeholders_of_a_killed_pi_are_swept(tmp_path: Path) -> None:
    empty, used = tmp_path / "modules", tmp_path / "worktrees"
    empty.mkdir()
    used.mkdir()
    (used / "settings.json").write_text("{}")
    dead = 2**22 + 12345  # above pid_max on common systems: never a live process
    manifest_dir = _bwrap._manifests()
    manifest_dir.mkdir(mode=0o700, exist_ok=True)
    manifest = manifest_dir / f"{dead}-test.txt"
    manifest.write_text(f"{empty}\n{used}\n")
    mine = _bwrap.record_placeholders([tmp_path / "mine"])
    (tmp_path / "mine").mkdir()
    assert mine is not None
    _bwrap.sweep_placeholders()
    assert not empty.exists() and not manifest.exists()
    assert (used / "settings.json").exists()  # never anything but an empty directory
    assert (tmp_path / "mine").exists() and mine.exists()  # a live pi's are kept
    os.unlink(mine)


def test_pi_installed_under_tmp_still_starts_its_helper(tmp_path: Path) -> None:
    """The private /tmp would hide a pi (venv, helper) installed under /tmp: what it needs is
    bound read-only again; never over the writable workspace, never anything not covered."""
    venv = tmp_path / "venv"
    venv.mkdir()
    ws = tmp_path / "ws"
    ws.mkdir()
    inside = ws / ".venv"
    inside.mkdir()
    layout = Layout(workspace=ws, runtime=[venv, inside, Path("/usr"), tmp_path])
    args = mount_args(layout)
    read_only = _pairs(args, "--ro-bind")
    assert str(venv) in read_only  # under /tmp: covered by the private tmpfs, bound again
    assert args.index(str(venv)) > args.index("--tmpfs")  # after the tmpfs that covers it
    assert str(inside) not in read_only  # in the workspace: visible and writable already
    assert "/usr" not in read_only  # not covered by anything: nothing to add
    assert str(tmp_path) not in read_only  # would cover the writable workspace


def test_a_pi_under_tmp_runs_sandboxed_commands(tmp_path: Path, bwrap: _bwrap.Probe) -> None:
    """End to end: an interpreter reached through /tmp (sys.executable there, a symlink to a
    symlink there) runs bash in the sandbox."""
    import sys
    import sysconfig

    # Two hops under /tmp, as a venv there links its python to the real one.
    hop = tmp_path / "venv" / "bin" / "python"
    hop.parent.mkdir(parents=True)
    hop.symlink_to(sys.executable)
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    python.symlink_to(os.path.relpath(hop, python.parent))
    root = Path(__file__).resolve().parents[3]
    code = (
        "import asyncio\nfrom agent_core import AbortSignal\nfrom tools import Sandbox, "
        "create_bash_tool\n"
        "async def main():\n"
        "    box = Sandbox('.', mode='required')\n"
        "    tool = create_bash_tool('.', box)\n"
        "    args = tool.parameters(command='echo inside $PPID')\n"
        "    result = await tool.execute('c1', args, AbortSignal())\n"
        "    print(result.text, box.active)\n"
        "    await box.aclose()\n"
        "asyncio.run(main())\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), sysconfig.get_paths()["purelib"]]),
    }
    ws = tmp_path / "ws"
    ws.mkdir()
    out = subprocess.run(
        [str(python), "-c", code], capture_output=True, text=True, cwd=ws, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("inside") and out.stdout.strip().endswith("True"), out.stdout
