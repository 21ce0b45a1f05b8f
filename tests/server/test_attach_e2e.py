"""End to end with real processes: ``pi --detach`` starts a run in an on-demand server, the
run waits for an approval nobody is there to give (``pi ps`` says so), ``pi attach --plain`` in
tmux answers it, steers and queues a follow-up, is killed mid-run; the run goes on and another
process attaching later sees the whole transcript, the same bytes as the session file."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.server.harness import WsClient, of_type
from tests.server.terminal import PI, Tmux, listed, pi, user_texts, wait_listed

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(not PI.exists(), reason="the pi console script is not installed"),
    pytest.mark.timeout(240),
]


def test_detach_wait_for_approval_attach_steer_kill_and_attach_again(
    tmp_path: Path, project: Path, env: dict[str, str], pi_home: Path
) -> None:
    gate = project / "gate"
    job = f"touch approved && until [ -e {gate} ]; do sleep 0.05; done; echo slept"
    script = [
        Turn(tool_calls=[ToolCallSpec("bash", {"command": job}, id="call_1")]),
        Turn(text="Steer noted."),
        Turn(text="Follow-up answered."),
    ]
    tmux = Tmux("pi-attach-e2e")
    with FakeProviderServer(script) as provider:
        model = ["--model", "openai/fake", "--api-base", provider.openai_base_url, "--api-key", "x"]
        started = pi(
            env, project, "--detach", "--permission-mode", "default", *model, "start the job"
        )
        assert started.returncode == 0, started.stderr
        session = started.stdout.strip()
        assert "pi attach" in started.stderr
        # Nobody is attached: the run waits for a person, and pi ps says so.
        waiting = wait_listed(env, project, lambda s: s["waitingForApproval"] == 1, "the approval")
        assert waiting["id"] == session and waiting["approval"]["tool"] == "bash"
        table = pi(env, project, "ps").stdout
        assert "waiting" in table and "waits for approval: bash: $ touch approved" in table
        try:
            tmux.start(f"{PI} attach {session[:8]} --plain", project)
            tmux.wait_for(lambda s: "permission needed: bash" in s, "the approval question")
            tmux.type("y", "Enter")
            tmux.wait_for(lambda s: "allow once" in s, "the answer")
            end = time.monotonic() + 30
            while not (project / "approved").exists() and time.monotonic() < end:
                time.sleep(0.05)
            assert (project / "approved").exists()
            tmux.type("e2e steer", "Enter")
            tmux.type("e2e follow-up", "M-Enter")
            tmux.wait_for(
                lambda s: "queued steer: e2e steer" in s and "queued follow-up: e2e follow-up" in s,
                "both queued messages",
            )
        finally:
            tmux.kill()  # the client dies mid-run (SIGHUP); the run must go on
        gate.touch()
        done = wait_listed(
            env, project, lambda s: s["state"] == "idle" and s["messages"] == 7, "the run's end"
        )
        assert done["clients"] == []
        # Another process attaches: the whole transcript, identical for every client and to
        # the session file.
        from tests.server.harness import ServerProcess

        server = ServerProcess.__new__(ServerProcess)
        server.socket = Path(json.loads((pi_home / "server" / "server.json").read_text())["socket"])
        server.token = (pi_home / "server" / "token").read_text().strip()
        first, second = WsClient(server, session), WsClient(server, session[:8])
        hellos = [c.wait_for(of_type("attached")) for c in (first, second)]
        assert hellos[0]["messages"] == hellos[1]["messages"]
        messages = hellos[0]["messages"]
        assert user_texts(messages) == ["start the job", "e2e steer", "e2e follow-up"]
        assert [m["role"] for m in messages] == [
            "user",
            "assistant",
            "toolResult",
            "user",
            "assistant",
            "user",
            "assistant",
        ]
        assert messages[-1]["content"][0]["text"] == "Follow-up answered."
        raw = [c.request({"type": "get_messages", "id": "m"}) for c in (first, second)]
        assert json.dumps(raw[0]["data"]) == json.dumps(raw[1]["data"])
        stored = [
            json.loads(line)["message"]
            for line in Path(done["sessionFile"]).read_text().splitlines()
            if json.loads(line).get("type") == "message"
        ]
        assert json.dumps(stored, sort_keys=True) == json.dumps(messages, sort_keys=True)
        first.close()
        second.close()
        # And a terminal again: the plain REPL shows it all, then quitting leaves it alone.
        tmux = Tmux("pi-attach-e2e-2")
        try:
            tmux.start(f"{PI} attach {session[:8]} --plain; sleep 30", project)
            text = tmux.wait_for(
                lambda s: "Follow-up answered." in s and "── live ──" in s, "history"
            )
            assert "› e2e steer" in text and "slept" in text
            tmux.type("", "C-d")
            tmux.wait_for(lambda s: "Detached; the session goes on" in s, "the goodbye")
        finally:
            tmux.kill()
        assert len(provider.requests) == 3


def test_an_on_demand_server_stops_once_idle(
    project: Path, env: dict[str, str], pi_home: Path
) -> None:
    (pi_home / "settings.json").write_text(json.dumps({"server": {"idleExitS": 4}}))
    with FakeProviderServer([Turn(text="quick")]) as provider:
        model = ["--model", "openai/fake", "--api-base", provider.openai_base_url, "--api-key", "x"]
        started = pi(env, project, "--detach", *model, "say something")
        assert started.returncode == 0, started.stderr
        info = pi_home / "server" / "server.json"
        pid = json.loads(info.read_text())["pid"]
        end = time.monotonic() + 60
        while info.exists() and time.monotonic() < end:
            time.sleep(0.1)
        assert not info.exists(), "the on-demand server did not stop once idle"
        with pytest.raises(ProcessLookupError):
            for _ in range(100):  # it may take a moment to be reaped by init
                os.kill(pid, 0)
                time.sleep(0.05)
        # What it hosted is still listed (stored), and attaching would reopen it.
        stored = listed(env, project)
        assert [s["state"] for s in stored] == ["stored"] and stored[0]["title"] == "say something"
        assert "No server is running" in pi(env, project, "ps").stderr
        assert len(provider.requests) == 1  # the run ended before the server did


def test_the_tui_attached_answers_the_waiting_approval_aborts_and_leaves_the_session(
    project: Path, env: dict[str, str], pi_home: Path
) -> None:
    slow = " ".join(f"word{i}" for i in range(2000))
    script = [
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "touch from-tui"}, id="call_1")]),
        Turn(text="Approved and done."),
        Turn(text=slow, chunk_size=8, chunk_delay_s=0.02),
    ]
    tmux = Tmux("pi-attach-tui")
    with FakeProviderServer(script) as provider:
        model = ["--model", "openai/fake", "--api-base", provider.openai_base_url, "--api-key", "x"]
        started = pi(
            env, project, "--detach", "--permission-mode", "default", *model, "make a file"
        )
        assert started.returncode == 0, started.stderr
        session = started.stdout.strip()
        wait_listed(env, project, lambda s: s["waitingForApproval"] == 1, "the approval")
        try:
            tmux.start(f"{PI} attach; sleep 30", project)
            tmux.wait_for(lambda s: "Allow bash: $ touch from-tui?" in s, "the approval modal")
            tmux.type("y")
            tmux.wait_for(lambda s: "Approved and done." in s, "the answer")
            assert (project / "from-tui").exists()
            tmux.type("now talk at length", "Enter")
            tmux.wait_for(lambda s: "word40 " in s, "the long answer streaming")
            tmux.type("", "Escape")
            tmux.wait_for(lambda s: "Aborted" in s, "the abort")
            tmux.type("/quit", "Enter")
            tmux.wait_for(
                lambda s: "Detached; the session goes on in the server" in s, "the goodbye"
            )
        finally:
            tmux.kill()
        done = wait_listed(
            env, project, lambda s: s["id"] == session and s["state"] == "idle", "idle"
        )
        assert done["clients"] == [] and done["messages"] == 6
        assert len(provider.requests) == 3


def test_attach_through_a_forwarded_socket_with_another_pi_home(
    tmp_path: Path, project: Path, env: dict[str, str], pi_home: Path
) -> None:
    """What the SSH one-liner does (docs/server.md): the client's own PI_HOME has no server; it
    reaches the remote one through a forwarded socket (a relay here, as ``ssh -L`` would be)."""
    import socket
    import threading

    with FakeProviderServer([Turn(text="Hello from afar.")]) as provider:
        model = ["--model", "openai/fake", "--api-base", provider.openai_base_url, "--api-key", "x"]
        started = pi(env, project, "--detach", *model, "say hello")
        assert started.returncode == 0, started.stderr
        session = started.stdout.strip()
        wait_listed(
            env, project, lambda s: s["state"] == "idle" and s["messages"] == 2, "the answer"
        )
        remote = json.loads((pi_home / "server" / "server.json").read_text())["socket"]
        token = (pi_home / "server" / "token").read_text().strip()
        forwarded = tmp_path / "fwd.sock"
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(forwarded))
        listener.listen(8)

        def pipe(a: socket.socket, b: socket.socket) -> None:
            try:
                while data := a.recv(65536):
                    b.sendall(data)
            except OSError:
                pass
            finally:
                b.close()

        def relay() -> None:
            while True:
                try:
                    local, _ = listener.accept()
                except OSError:
                    return
                upstream = socket.socket(socket.AF_UNIX)
                upstream.connect(remote)
                for a, b in ((local, upstream), (upstream, local)):
                    threading.Thread(target=pipe, args=(a, b), daemon=True).start()

        threading.Thread(target=relay, daemon=True).start()
        other_home = tmp_path / "laptop-pi-home"
        laptop = {
            **env,
            "PI_HOME": str(other_home),
            "PI_SERVER_SOCKET": str(forwarded),
            "PI_SERVER_TOKEN": token,
        }
        try:
            listing = listed(laptop, project)
            assert [s["id"] for s in listing] == [session]
            tmux = Tmux("pi-attach-fwd")
            try:
                assignments = " ".join(
                    f"{k}={laptop[k]}" for k in ("PI_HOME", "PI_SERVER_SOCKET", "PI_SERVER_TOKEN")
                )
                tmux.start(f"env {assignments} {PI} attach --plain; sleep 30", project)
                end = time.monotonic() + 60
                while time.monotonic() < end and "Hello from afar." not in tmux.screen():
                    time.sleep(0.05)
                assert "Hello from afar." in tmux.screen()
            finally:
                tmux.kill()
            wrong = pi({**laptop, "PI_SERVER_TOKEN": "not-the-token-" + "x" * 30}, project, "ps")
            assert wrong.returncode == 1 and "refused the token" in wrong.stderr
        finally:
            listener.close()
        assert not (other_home / "server" / "server.json").exists()  # nothing started here


def test_an_ampersand_in_the_repl_starts_the_prompt_in_the_server(
    project: Path, env: dict[str, str]
) -> None:
    with FakeProviderServer([Turn(text="Done in the background.")]) as provider:
        tmux = Tmux("pi-ampersand")
        model = f"--model openai/fake --api-base {provider.openai_base_url} --api-key x"
        try:
            tmux.start(f"{PI} --plain --no-session {model}; sleep 30", project)
            tmux.wait_for(lambda s: "›" in s, "the prompt")
            tmux.type("& tidy up in the background", "Enter")
            text = tmux.wait_for(lambda s: "Started in the server: pi attach" in s, "the hand-off")
            short = text.split("Started in the server: pi attach ")[1][:8]
            done = wait_listed(
                env,
                project,
                lambda s: s["id"].startswith(short) and s["state"] == "idle" and s["messages"] == 2,
                "the run",
            )
            assert done["title"] == "tidy up in the background"
            assert (
                "Done in the background." not in tmux.screen()
            )  # this REPL's own session is untouched
            tmux.type("", "C-d")
        finally:
            tmux.kill()
