"""Post a ``pi review --json`` report to a pull request (GitHub) or merge request (GitLab).

    python -m pi_cli.ci_post github REPORT.json [--mode comments|summary|both]
    python -m pi_cli.ci_post gitlab REPORT.json [--mode comments|summary|both]

GitHub (the REST API at ``GITHUB_API_URL``, token ``GITHUB_TOKEN``, the pull request from
``GITHUB_EVENT_PATH``): ``comments`` posts one review whose inline comments are the findings
on the diff (``side: RIGHT``, a line range when it spans lines) and whose body lists the
others; ``summary`` appends a Markdown table to ``GITHUB_STEP_SUMMARY``. GitLab (``CI_API_V4_URL``,
``CI_PROJECT_ID``, ``CI_MERGE_REQUEST_IID``, a token in ``PI_GITLAB_TOKEN`` or ``GITLAB_TOKEN``):
``comments`` opens a discussion per finding on the diff (the merge request's ``diff_refs``) and
one note with the rest; ``summary`` posts one note. The review's verdict is never posted as an
approval: pi only comments (event ``COMMENT``). Exit codes: 0 posted, 1 the API refused, 2 bad
arguments or environment.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import httpx

from pi_cli.shell import one_line, say

MAX_COMMENTS = 50
MAX_BODY = 60000
ICON = {"critical": "🛑", "high": "🔴", "medium": "🟠", "low": "🟡", "info": "ℹ️"}


class PostError(Exception):
    """The forge refused a request, or the environment is incomplete."""


def _env(name: str, *others: str) -> str:
    for key in (name, *others):
        value = os.environ.get(key, "").strip()
        if value:
            return value
    raise PostError(f"{name} is not set")


def _fence(text: str) -> str:
    """``text`` in a code fence no line of it can close."""
    longest = max((len(run) for run in text.split("\n") if set(run) == {"`"}), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}\n{text.rstrip()}\n{ticks}"


def finding_body(finding: dict[str, Any]) -> str:
    """One finding as Markdown (the model's words are quoted as text, never as HTML)."""
    title = str(finding["title"]).replace("<", "&lt;")
    body = f"{ICON.get(finding['severity'], '')} **{finding['severity']}**: {title}\n\n"
    body += str(finding["explanation"]).replace("<", "&lt;")
    if finding.get("suggestedPatch"):
        body += "\n\nSuggested change:\n" + _fence(str(finding["suggestedPatch"]))
    return body[:MAX_BODY]


def summary_markdown(report: dict[str, Any]) -> str:
    """The report as a Markdown summary (a table of findings)."""
    stats = report["stats"]
    lines = [
        f"## pi review: {len(report['findings'])} finding(s)",
        "",
        f"{report['target']['description']} with `{report['model']}`: {stats['files']} file(s), "
        f"+{stats['additions']} -{stats['deletions']}.",
        "",
    ]
    if report["summary"]:
        lines += [report["summary"].replace("<", "&lt;"), ""]
    if report["findings"]:
        lines += ["| severity | where | finding |", "|---|---|---|"]
        for f in report["findings"]:
            where = f"`{f['file']}:{f['startLine']}`" + (
                "" if f["inDiff"] else " (outside the diff)"
            )
            title = f["title"].replace("|", "\\|").replace("<", "&lt;")
            lines.append(f"| {f['severity']} | {where} | {title} |")
    if not report["complete"]:
        lines += ["", "**The review is incomplete:** " + "; ".join(report["warnings"])]
    if report["failOn"] != "none":
        lines += [
            "",
            f"Result: **{'failed' if report['failed'] else 'passed'}** (fail on {report['failOn']})",
        ]
    return "\n".join(lines)[:MAX_BODY] + "\n"


def _check(response: httpx.Response) -> Any:
    if response.status_code >= 300:
        raise PostError(
            f"{response.request.method} {response.request.url.path}: HTTP {response.status_code} {response.text[:300]}"
        )
    return response.json() if response.content else None


def post_github(report: dict[str, Any], mode: str, client: httpx.Client) -> None:
    """Post to the pull request of this workflow run (see the module doc)."""
    if mode in ("summary", "both"):
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as out:
                out.write(summary_markdown(report))
    if mode not in ("comments", "both"):
        return
    event = json.loads(Path(_env("GITHUB_EVENT_PATH")).read_text("utf-8"))
    pull = event.get("pull_request") or {}
    number, head = pull.get("number"), (pull.get("head") or {}).get("sha")
    if not number or not head:
        raise PostError(
            "this workflow run is not for a pull request (no pull_request in the event)"
        )
    repo = _env("GITHUB_REPOSITORY")
    inline = [f for f in report["findings"] if f["inDiff"]][:MAX_COMMENTS]
    rest = [f for f in report["findings"] if f not in inline]
    comments = []
    for f in inline:
        comment: dict[str, Any] = {
            "path": f["file"],
            "line": f["endLine"],
            "side": "RIGHT",
            "body": finding_body(f),
        }
        if f["endLine"] > f["startLine"]:
            comment.update(start_line=f["startLine"], start_side="RIGHT")
        comments.append(comment)
    body = (
        summary_markdown({**report, "findings": rest})
        if rest or not inline
        else summary_markdown({**report, "findings": []})
    )
    payload = {"commit_id": head, "event": "COMMENT", "body": body, "comments": comments}
    _check(client.post(f"/repos/{repo}/pulls/{number}/reviews", json=payload))


def post_gitlab(report: dict[str, Any], mode: str, client: httpx.Client) -> None:
    """Post to the merge request of this pipeline (see the module doc)."""
    project = _env("CI_PROJECT_ID")
    iid = _env("CI_MERGE_REQUEST_IID")
    base = f"/projects/{project}/merge_requests/{iid}"
    inline = (
        [f for f in report["findings"] if f["inDiff"]][:MAX_COMMENTS] if mode != "summary" else []
    )
    if inline:
        refs = (_check(client.get(base)) or {}).get("diff_refs") or {}
        for f in inline:
            position = {
                "position_type": "text",
                "base_sha": refs.get("base_sha"),
                "start_sha": refs.get("start_sha"),
                "head_sha": refs.get("head_sha"),
                "new_path": f["file"],
                "old_path": f.get("oldPath") or f["file"],
                "new_line": f["endLine"],
            }
            _check(
                client.post(
                    f"{base}/discussions", json={"body": finding_body(f), "position": position}
                )
            )
    rest = [f for f in report["findings"] if f not in inline]
    _check(
        client.post(f"{base}/notes", json={"body": summary_markdown({**report, "findings": rest})})
    )


def main(argv: list[str] | None = None) -> int:
    """Entry point (see the module doc)."""
    args = sys.argv[1:] if argv is None else argv
    mode = "comments"
    if "--mode" in args:
        at = args.index("--mode")
        mode = args[at + 1] if at + 1 < len(args) else ""
        args = args[:at] + args[at + 2 :]
    if (
        len(args) != 2
        or args[0] not in ("github", "gitlab")
        or mode not in ("comments", "summary", "both")
    ):
        say(__doc__, err=True)
        return 2
    try:
        report = json.loads(Path(args[1]).read_text("utf-8"))
        if args[0] == "github":
            headers = {"Authorization": f"Bearer {_env('GITHUB_TOKEN')}", "Accept": "application/vnd.github+json",
                       "X-GitHub-Api-Version": "2022-11-28"}  # fmt: skip
            url = os.environ.get("GITHUB_API_URL") or "https://api.github.com"
            with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
                post_github(report, mode, client)
        else:
            headers = {"PRIVATE-TOKEN": _env("PI_GITLAB_TOKEN", "GITLAB_TOKEN")}
            with httpx.Client(
                base_url=_env("CI_API_V4_URL"), headers=headers, timeout=30
            ) as client:
                post_gitlab(report, mode, client)
    except (OSError, ValueError, KeyError, PostError, httpx.HTTPError) as exc:
        say(f"pi: ci_post: {one_line(exc)}", err=True)
        return (
            1 if isinstance(exc, (PostError, httpx.HTTPError)) and "not set" not in str(exc) else 2
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
