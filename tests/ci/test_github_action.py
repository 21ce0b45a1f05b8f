"""The composite action (``action.yml``) against a fake GitHub API and a fake provider: a pull
request with seeded bugs reviewed, findings posted as inline comments on the right lines and
as the job summary; the safe defaults (pull_request_target refused, a fork's run without
secrets skipped, no approval possible, the verdict from severities only)."""

from __future__ import annotations

from pathlib import Path

from tests.ci.conftest import base_env, event_file, load_report, run_action
from tests.fakes.forge_api import FakeForgeApi
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.shell.review.conftest import answer, finding

FINDINGS = answer(
    finding("app/db.py", 2, 2, "critical", "SQL injection", suggestedPatch="use a ? parameter\n```\nx"),
    finding("app/files.py", 2, 3, "medium", "Handle never closed"),
    finding("README.md", 1, 1, "low", "Outside the diff"),
)  # fmt: skip


def _github(api: FakeForgeApi, tmp: Path, event: str = "pull_request") -> dict[str, str]:
    return {"action_path": "", "token": "ghs_test", "event_name": event}


def _env(
    pi_home: Path, tmp_path: Path, api: FakeForgeApi, event: str = "pull_request"
) -> dict[str, str]:
    env = base_env(pi_home, tmp_path)
    summary = tmp_path / "summary.md"
    summary.write_text("")
    env.update(
        GITHUB_API_URL=api.url, GITHUB_REPOSITORY="octo/demo", GITHUB_EVENT_NAME=event,
        GITHUB_EVENT_PATH=str(event_file(tmp_path)), GITHUB_BASE_REF="main",
        GITHUB_STEP_SUMMARY=str(summary),
    )  # fmt: skip
    return env


def _inputs(server: FakeProviderServer, **more: str) -> dict[str, str]:
    return {
        "api-key": "sk-secret", "api-key-env": "OPENAI_API_KEY", "model": "openai/fake-model",
        "api-base": server.openai_base_url, "install": "skip", "sandbox": "auto",
        "github-token": "ghs_test", **more,
    }  # fmt: skip


def test_a_pull_request_is_reviewed_and_commented(
    pull_request: Path, pi_home: Path, tmp_path: Path
) -> None:
    with FakeProviderServer([Turn(text=FINDINGS)]) as server, FakeForgeApi() as api:
        env = _env(pi_home, tmp_path, api)
        run = run_action(
            pull_request, _inputs(server, **{"fail-on": "high"}), env, _github(api, tmp_path)
        )
        assert run.ran == ["guard", "install", "run", "post", "verdict"], run.log
        assert run.code == 9, run.log  # a critical finding, fail-on high: the job fails
        assert server.request_headers[0]["Authorization"] == "Bearer sk-secret"
        report = load_report(run)
        assert report["target"]["kind"] == "branch" and report["target"]["spec"] == "origin/main"
        [(method, path, headers, body)] = api.requests
        assert (method, path) == ("POST", "/repos/octo/demo/pulls/7/reviews")
        assert headers["Authorization"] == "Bearer ghs_test"
        assert body["event"] == "COMMENT" and body["commit_id"] == "a" * 40  # never APPROVE
        placed = [(c["path"], c.get("start_line"), c["line"], c["side"]) for c in body["comments"]]
        assert placed == [("app/db.py", None, 2, "RIGHT"), ("app/files.py", 2, 3, "RIGHT")]
        assert "SQL injection" in body["comments"][0]["body"]
        assert "````\nuse a ? parameter\n```\nx\n````" in body["comments"][0]["body"]
        assert "Outside the diff" in body["body"] and "(outside the diff)" in body["body"]
        summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text()
        assert "## pi review: 3 finding(s)" in summary and "| critical | `app/db.py:2` |" in summary
        assert "Result: **failed** (fail on high)" in summary


def test_pull_request_target_is_refused(pull_request: Path, pi_home: Path, tmp_path: Path) -> None:
    with FakeProviderServer([Turn(text=FINDINGS)]) as server, FakeForgeApi() as api:
        env = _env(pi_home, tmp_path, api, event="pull_request_target")
        run = run_action(
            pull_request, _inputs(server), env, _github(api, tmp_path, "pull_request_target")
        )
        assert run.ran == ["guard"] and run.code == 2
        assert "refuses pull_request_target" in run.log
        assert server.requests == [] and api.requests == []


def test_a_forks_run_without_secrets_is_skipped(
    pull_request: Path, pi_home: Path, tmp_path: Path
) -> None:
    with FakeProviderServer([]) as server, FakeForgeApi() as api:
        env = _env(pi_home, tmp_path, api)
        run = run_action(
            pull_request, _inputs(server, **{"api-key": ""}), env, _github(api, tmp_path)
        )
        assert run.ran == ["guard"] and run.code == 0
        assert "a pull request from a fork gets no secrets" in run.log
        assert server.requests == [] and api.requests == []


def test_a_prompt_cannot_get_an_approval(pull_request: Path, pi_home: Path, tmp_path: Path) -> None:
    from tests.fakes.script import ToolCallSpec

    write = ToolCallSpec("write", {"path": "pwned.txt", "content": "x"}, id="w")
    with (
        FakeProviderServer([Turn(tool_calls=[write]), Turn(text="could not write")]) as server,
        FakeForgeApi() as api,
    ):
        env = _env(pi_home, tmp_path, api)
        inputs = _inputs(server, mode="prompt", prompt="write pwned.txt")
        run = run_action(pull_request, inputs, env, _github(api, tmp_path))
        assert run.code == 7, run.log  # the write needed an approval nobody could give: denied
        assert not (pull_request / "pwned.txt").exists()
        assert "could not write" in Path(env["GITHUB_STEP_SUMMARY"]).read_text()
        assert api.requests == []


def test_the_api_refusing_fails_the_post(pull_request: Path, pi_home: Path, tmp_path: Path) -> None:
    with FakeProviderServer([Turn(text=FINDINGS)]) as server, FakeForgeApi() as api:
        api.fail(422)
        env = _env(pi_home, tmp_path, api)
        run = run_action(
            pull_request, _inputs(server, post="comments"), env, _github(api, tmp_path)
        )
        assert run.ran[-1] == "post" and run.code == 1
        assert "HTTP 422" in run.log
