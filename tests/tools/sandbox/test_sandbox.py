"""The sandbox with real processes (skipped, with the probe's reason, where bubblewrap cannot
run): root cannot escape, writes outside the workspace fail and are reported, the network is
off, PI_HOME and credentials are hidden, the protected paths stay read-only, one sandbox per
session (a background server answers the next call), tool chains work."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_core import ToolError
from tests.tools._helpers import run
from tests.tools.sandbox.procs import marker, tag_env, tagged
from tools import Sandbox, create_tools
from tools.sandbox._bwrap import Probe

pytestmark = pytest.mark.usefixtures("bwrap")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
async def box(workspace: Path) -> AsyncIterator[Sandbox]:
    sandbox = Sandbox(workspace, mode="required")
    yield sandbox
    await sandbox.aclose()


async def sh(box: Sandbox, command: str, **args: object) -> str:
    """Run ``command`` in the sandbox; its output (a failure's message included)."""
    (bash,) = create_tools(["bash"], box.workspace, sandbox=box)
    try:
        return (await run(bash, command=command, **args)).text
    except ToolError as exc:
        return f"FAILED: {exc}"


async def test_probe_and_status(bwrap: Probe, box: Sandbox) -> None:
    assert "--cap-drop" in bwrap.flags and "--unshare-all" in bwrap.flags
    assert box.status.active and not box.status.network and box.status.reason is None
    assert box.describe().startswith("Sandbox: active (bubblewrap)")
    assert await sh(box, "echo $PI_SANDBOX; grep CapEff /proc/self/status") == (
        "1\nCapEff:\t0000000000000000"
    )


@pytest.mark.parametrize(
    "escape",
    [
        "mount -o remount,rw / && touch /usr/{name}",
        "mount -t tmpfs none /usr && touch /usr/{name}",
        "unshare -U -r -m sh -c 'mount -o remount,rw / && touch /usr/{name}'",
        "unshare -m sh -c 'mount -o remount,rw / && touch /usr/{name}'",
        "nsenter -t 1 -m -U -- touch /usr/{name}",
        "touch /proc/1/root/usr/{name}",
        "touch /proc/self/root/usr/{name}",
        "chroot / touch /usr/{name}",
        "mknod ./{name} c 1 3 && ls -l ./{name}",
        "mknod /dev/shm/{name} b 8 0 && dd if=/dev/shm/{name} of=/dev/null count=1",
        'python3 -c \'import os; os.setuid(0); open("/usr/{name}", "w")\'',
    ],
)
async def test_root_cannot_escape(box: Sandbox, escape: str) -> None:
    """As root (CI runs as root): no capability, no new user namespace, no way to write /usr."""
    tool = escape.split()[0]
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed: this escape cannot even be tried")
    name = f"pi-escape-{marker()}"
    output = await sh(box, escape.format(name=name))
    assert output.startswith("FAILED"), output
    assert "command not found" not in output  # refused, not missing
    assert not Path("/usr", name).exists()
    assert not (box.workspace / name).exists()


async def test_write_inside_works_and_outside_fails_with_a_hint(
    box: Sandbox, tmp_path: Path
) -> None:
    assert await sh(box, "echo data > made.txt && cat made.txt") == "data"
    assert (box.workspace / "made.txt").read_text() == "data\n"
    for target in (Path.home() / f".pi-sandbox-{marker()}", Path(f"/etc/pi-sandbox-{marker()}")):
        output = await sh(box, f"echo data > {target}")
        assert output.startswith("FAILED") and "Read-only file system" in output
        assert "may have failed because of the sandbox" in output and "sandbox: false" in output
        assert not target.exists()
    # /tmp is a private tmpfs: writable inside, and none of it reaches the host's /tmp.
    outside = tmp_path / "outside.txt"
    assert await sh(box, f"mkdir -p {tmp_path} && echo data > {outside} && cat {outside}") == "data"
    assert not outside.exists()


async def test_sandbox_false_runs_outside(workspace: Path, tmp_path: Path) -> None:
    box = Sandbox(workspace, mode="auto")
    try:
        target = tmp_path / "written-outside.txt"
        assert (await sh(box, f"echo out > {target}", sandbox=False)) == "(no output)"
        assert target.read_text() == "out\n"
        await sh(box, f"mkdir -p {tmp_path}; echo in > {target}")  # inside: the private /tmp
        assert target.read_text() == "out\n"
        assert "Read-only" in await sh(box, f"echo in > {Path.home()}/pi-sandbox-{marker()}")
    finally:
        await box.aclose()
    required = Sandbox(workspace, mode="required")
    try:
        output = await sh(required, "true", sandbox=False)
        assert 'sandbox.mode is "required"' in output and "outside the sandbox" in output
    finally:
        await required.aclose()


class _Listener:
    """A TCP server on the host's loopback that records whether anybody connected."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.sendall(b"hello from the host\n")
            conn.close()


CONNECT = (
    'python3 -c \'import socket; s = socket.create_connection(("127.0.0.1", {port}), 3); '
    "print(s.recv(100).decode().strip())'"
)


async def test_network_is_off_by_default(workspace: Path) -> None:
    listener = _Listener()
    try:
        box = Sandbox(workspace, mode="required")
        output = await sh(box, CONNECT.format(port=listener.port))
        await box.aclose()
        assert output.startswith("FAILED") and "Connection refused" in output
        assert "the network is off inside the sandbox" in output
        assert listener.accepted == 0
        on = Sandbox(workspace, mode="required", network=True)
        assert await sh(on, CONNECT.format(port=listener.port)) == "hello from the host"
        await on.aclose()
        assert listener.accepted == 1
    finally:
        listener.sock.close()


async def test_pi_home_and_credentials_are_hidden(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hidden even where they would be visible: inside the workspace, under a writable dir."""
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.events.bus import EventBus
    from pi_cli.shell.options import ShellOptions
    from pi_cli.shell.sandbox_setup import build_sandbox

    pi_home = workspace / ".pihome"
    session = pi_home / "sessions" / "--ws--" / "s.jsonl"
    session.parent.mkdir(parents=True)
    session.write_text('{"type": "session", "secret": "sk-session"}\n')
    (pi_home / "models.json").write_text('{"apiKey": "sk-models"}')
    extra = tmp_path / "extra"
    home = extra / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    (home / ".netrc").write_text("machine x password hunter2")
    (home / "notes.txt").write_text("visible")
    monkeypatch.setenv("PI_HOME", str(pi_home))
    monkeypatch.setenv("HOME", str(home))
    settings = Settings.model_validate({"sandbox": {"mode": "required", "writable": [str(extra)]}})
    box = build_sandbox(workspace, ShellOptions(cwd=workspace), settings, EventBus())
    try:
        output = await sh(
            box,
            f"cat {session} {pi_home}/models.json ~/.ssh/id_ed25519 ~/.netrc; ls -A {pi_home}; "
            "cat ~/notes.txt",
        )
        assert "sk-session" not in output and "sk-models" not in output
        assert "PRIVATE KEY" not in output and "hunter2" not in output
        assert output.rstrip().endswith("visible")  # the rest of the writable dir is there
        assert "FAILED" in await sh(box, f"echo x > {pi_home}/models.json")
    finally:
        await box.aclose()
    assert (pi_home / "models.json").read_text() == '{"apiKey": "sk-models"}'


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
    }
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


GIT_ENV = "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t"


async def test_protected_paths_stay_read_only(workspace: Path) -> None:
    _git(workspace, "init", "-q")
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "settings.json").write_text("{}")
    (workspace / "a.txt").write_text("a")
    config = (workspace / ".git" / "config").read_text()
    box = Sandbox(workspace, mode="required")
    try:
        for attack in (
            "echo '[core] fsmonitor = evil' >> .git/config",
            "echo evil > .git/hooks/pre-commit",
            "mv .git .git-old",
            "rm -rf .git/hooks",
            "echo evil > .vscode/tasks.json",
            "rm -rf .vscode",
        ):
            assert (await sh(box, attack)).startswith("FAILED"), attack
        # Missing ones have no mount point in the project: created, they are moved out of it
        # after the command, and the result says so.
        for name, attack in (
            (".envrc", "echo evil > .envrc"),
            (".mcp.json", "echo '{}' > .mcp.json"),
            (".pi", "mkdir -p .pi && echo '{}' > .pi/settings.json"),
            (".claude", "mkdir -p .claude/x"),
        ):
            said = await sh(box, attack)
            assert f"[pi: the command created {name}, a protected path" in said, said
            assert not (workspace / name).exists()
        # git itself works: the index, objects and refs are writable.
        commit = f"{GIT_ENV} git add a.txt && {GIT_ENV} git commit -qm one && git log --oneline"
        assert (await sh(box, commit)).endswith("one")
    finally:
        await box.aclose()
    assert (workspace / ".git" / "config").read_text() == config
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    for name in (".envrc", ".mcp.json", ".pi", ".claude", ".idea"):
        assert not (workspace / name).exists(), f"placeholder {name} left behind"
    assert (workspace / ".vscode" / "settings.json").read_text() == "{}"
    assert "one" in _git(workspace, "log", "--oneline")


async def test_git_worktree_commits_but_its_repository_config_is_protected(
    tmp_path: Path,
) -> None:
    main = tmp_path / "main"
    main.mkdir()
    _git(main, "init", "-q")
    (main / "f.txt").write_text("f")
    _git(main, "add", "f.txt")
    _git(main, "commit", "-qm", "init")
    tree = tmp_path / "tree"
    _git(main, "worktree", "add", "-q", str(tree), "-b", "work")
    box = Sandbox(tree, mode="required")
    try:
        (tree / "g.txt").write_text("g")
        commit = f"{GIT_ENV} git add g.txt && {GIT_ENV} git commit -qm two && git log --oneline"
        assert (await sh(box, commit)).splitlines()[0].endswith("two")
        assert (await sh(box, f"echo evil >> {main}/.git/config")).startswith("FAILED")
        assert (await sh(box, f"echo evil > {main}/.git/hooks/post-commit")).startswith("FAILED")
        assert (await sh(box, "echo 'gitdir: /elsewhere' > .git")).startswith("FAILED")
        await sh(box, f"echo x > {main}/f.txt")  # the other checkout: not the host's
    finally:
        await box.aclose()
    assert (main / "f.txt").read_text() == "f"
    assert "two" in _git(main, "log", "--oneline", "work")


async def test_one_sandbox_per_session_background_server_then_fetch(box: Sandbox) -> None:
    tag = marker()
    tools = {
        t.name: t
        for t in create_tools(["bash", "bash_output", "bash_kill"], box.workspace, sandbox=box)
    }
    tools["bash"].env = tag_env(tag)  # type: ignore[attr-defined]
    server = "exec python3 -m http.server 8731 --bind 127.0.0.1"
    started = await run(tools["bash"], command=f"echo hi > index.html; {server}", background=True)
    assert started.details["sandboxed"] is True
    get = "python3 -c 'import urllib.request as u; print(u.urlopen(\"http://127.0.0.1:8731/index.html\").read().decode().strip())'"
    fetch = (
        f"for i in $(seq 50); do {get} 2>/dev/null && break; sleep 0.1; done; "
        "ps -eo args | grep -c '[h]ttp.server 8731'"
    )
    assert await sh(box, fetch) == "hi\n1"  # the next call's curl and ps see the server
    with pytest.raises(OSError):  # its own network namespace: not on the host's loopback
        socket.create_connection(("127.0.0.1", 8731), 0.5).close()
    log = await run(tools["bash_output"], id=started.details["background_id"])
    assert "GET /index.html" in log.text
    assert tagged(tag)
    await box.aclose()
    assert tagged(tag) == [], "the background server outlived the session"


async def test_pytest_and_npm_style_tool_chains(box: Sandbox) -> None:
    (box.workspace / "test_unit.py").write_text(
        "def test_tmp(tmp_path):\n    (tmp_path / 'x').write_text('x')\n    assert True\n"
    )
    output = await sh(box, f"{sys.executable} -m pytest -q -p no:randomly test_unit.py")
    assert "1 passed" in output, output
    assert (box.workspace / ".pytest_cache").is_dir()
    assert (await sh(box, "mktemp -d && echo $TMPDIR")).endswith("/tmp")
    cache = Path.home() / ".cache"
    if cache.is_dir():
        name = f"pi-sandbox-test-{marker()}"
        assert await sh(box, f"echo c > ~/.cache/{name} && cat ~/.cache/{name}") == "c"
        (cache / name).unlink()
    if not (Path("/usr/bin/npm").exists() or Path("/usr/local/bin/npm").exists()):
        pytest.skip("npm is not installed")
    (box.workspace / "package.json").write_text(
        json.dumps(
            {
                "name": "t",
                "version": "1.0.0",
                "scripts": {"test": "node -e \"require('fs').writeFileSync('out.txt', 'ok')\""},
            }
        )
    )
    output = await sh(box, "npm test --silent --offline 2>&1; cat out.txt")
    assert output.endswith("ok"), output
