"""The GitLab CI snippet (``examples/ci/gitlab-review.yml``): its script run as a GitLab runner
runs it (one shell, the job's variables) against a fake GitLab API and a fake provider."""

from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

from tests.ci.conftest import REPO, base_env
from tests.fakes.forge_api import FakeForgeApi
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.shell.review.conftest import answer, finding


def _run_job(workdir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    job = yaml.safe_load((REPO / "examples/ci/gitlab-review.yml").read_text())["pi-review"]
    variables = {k: str(v) for k, v in job["variables"].items() if k != "GIT_DEPTH"}
    script = "\n".join(job["script"])
    return subprocess.run(
        ["bash", "-c", script], cwd=workdir, env={**variables, **env},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_the_merge_request_gets_discussions_and_a_note(
    pull_request: Path, pi_home: Path, tmp_path: Path
) -> None:
    findings = answer(
        finding("app/stats.py", 3, 3, "high", "Off by one"),
        finding("README.md", 1, 1, "low", "Outside"),
    )
    with FakeProviderServer([Turn(text=findings)]) as server, FakeForgeApi() as api:
        env = base_env(pi_home, tmp_path)
        env.update(
            PI_INSTALL="skip", PI_FAIL_ON="high", OPENAI_API_KEY="sk-masked",
            PI_REVIEW_ARGS=f"--model openai/fake-model --api-base {server.openai_base_url}",
            CI_API_V4_URL=f"{api.url}/api/v4", CI_PROJECT_ID="42", CI_MERGE_REQUEST_IID="5",
            CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main", PI_GITLAB_TOKEN="glpat-test",
            PI_SANDBOX_MODE="auto",
        )  # fmt: skip
        done = _run_job(pull_request, env)
        assert done.returncode == 9, done.stderr  # a high finding, PI_FAIL_ON=high
        calls = [(m, p) for m, p, _, _ in api.requests]
        assert calls == [
            ("GET", "/api/v4/projects/42/merge_requests/5"),
            ("POST", "/api/v4/projects/42/merge_requests/5/discussions"),
            ("POST", "/api/v4/projects/42/merge_requests/5/notes"),
        ]
        discussion = api.requests[1][3]
        assert discussion["position"]["new_path"] == "app/stats.py"
        assert discussion["position"]["new_line"] == 3
        assert discussion["position"]["head_sha"] == "h" * 40
        assert "Off by one" in discussion["body"]
        note = api.requests[2][3]["body"]
        assert "Outside" in note and "(outside the diff)" in note
        assert {k.lower(): v for k, v in api.requests[0][2].items()}[
            "private-token"
        ] == "glpat-test"
        assert (pull_request / "pi-review.json").is_file()


def test_without_a_token_nothing_is_posted(
    pull_request: Path, pi_home: Path, tmp_path: Path
) -> None:
    with FakeProviderServer([Turn(text=answer())]) as server, FakeForgeApi() as api:
        env = base_env(pi_home, tmp_path)
        env.update(
            PI_INSTALL="skip", OPENAI_API_KEY="sk-masked", PI_SANDBOX_MODE="auto",
            PI_REVIEW_ARGS=f"--model openai/fake-model --api-base {server.openai_base_url}",
            CI_API_V4_URL=f"{api.url}/api/v4", CI_PROJECT_ID="42", CI_MERGE_REQUEST_IID="5",
            CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main",
        )  # fmt: skip
        done = _run_job(pull_request, env)
        assert done.returncode == 0, done.stderr
        assert api.requests == []
