"""A review's findings, placed on the diff, and the report: human text, JSON, SARIF 2.1.0.

The reviewer names files and new-side lines; :func:`place_findings` checks them against the
real hunks (a rename's old path is accepted and reported under the new one). A finding whose
lines are in no hunk stays in the report, marked ``inDiff: false``, and is said to be outside
the diff. Whether the review *fails* (``--fail-on``) is computed here from the severities
alone: nothing the diff or the model writes can say "approved".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_cli.shell.review.hunks import DiffFile

SEVERITIES = ("critical", "high", "medium", "low", "info")
"""From the most to the least severe."""
FAIL_ON = (*SEVERITIES, "none")
HERE = Path(__file__).parent
ANSWER_SCHEMA = HERE / "answer.schema.json"
REPORT_SCHEMA = HERE / "report.schema.json"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {
    "critical": "error",
    "high": "error",
    "medium": "warning",
    "low": "note",
    "info": "note",
}


@dataclass
class Finding:
    """One problem the reviewer found."""

    file: str
    start_line: int
    end_line: int
    severity: str
    title: str
    explanation: str
    suggested_patch: str | None = None
    in_diff: bool = False
    hunk: str | None = None
    old_path: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The finding on the JSON wire (camelCase)."""
        return {
            "file": self.file,
            "startLine": self.start_line,
            "endLine": self.end_line,
            "severity": self.severity,
            "title": self.title,
            "explanation": self.explanation,
            "suggestedPatch": self.suggested_patch,
            "inDiff": self.in_diff,
            "hunk": self.hunk,
            "oldPath": self.old_path,
        }


@dataclass
class ReviewReport:
    """Everything ``pi review`` prints."""

    target: dict[str, Any]
    model: str
    focus: str | None
    summary: str
    findings: list[Finding]
    files: list[DiffFile]
    chunks: int
    cost: float = 0.0
    incomplete: list[str] = field(default_factory=list)
    """Why parts have no review: ``budget``, ``error``, ``schema`` (empty: complete)."""
    warnings: list[str] = field(default_factory=list)
    fail_on: str = "none"

    @property
    def failed(self) -> bool:
        """A finding at or above ``fail_on`` is present."""
        return fails(self.findings, self.fail_on)

    def to_json(self) -> dict[str, Any]:
        """The report as ``--json`` prints it (``report.schema.json``)."""
        return {
            "version": 1,
            "target": self.target,
            "model": self.model,
            "focus": self.focus,
            "summary": self.summary,
            "findings": [f.to_json() for f in self.findings],
            "stats": {
                "files": len(self.files),
                "additions": sum(f.additions for f in self.files),
                "deletions": sum(f.deletions for f in self.files),
                "chunks": self.chunks,
                "cost": round(self.cost, 6),
            },
            "complete": not self.incomplete,
            "warnings": list(self.warnings),
            "failOn": self.fail_on,
            "failed": self.failed,
        }


def fails(findings: list[Finding], fail_on: str) -> bool:
    """A finding at or above ``fail_on`` (``none``: never)."""
    if fail_on == "none":
        return False
    limit = SEVERITIES.index(fail_on)
    return any(SEVERITIES.index(f.severity) <= limit for f in findings)


def _by_path(files: list[DiffFile]) -> dict[str, DiffFile]:
    found: dict[str, DiffFile] = {}
    for file in files:
        found.setdefault(file.path, file)
        if file.old_path:
            found.setdefault(file.old_path, file)
    return found


def _normal(path: str) -> str:
    path = path.strip().replace("\\", "/")
    for prefix in ("./", "a/", "b/"):
        if path.startswith(prefix):
            path = path[len(prefix) :]
    return path


def place_findings(raw: list[dict[str, Any]], files: list[DiffFile]) -> list[Finding]:
    """Findings from the reviewer's answers, placed on the diff's hunks, most severe first."""
    paths = _by_path(files)
    placed: list[Finding] = []
    seen: set[tuple[str, int, int, str]] = set()
    for item in raw:
        start = int(item["startLine"])
        end = max(start, int(item["endLine"]))
        name = _normal(str(item["file"]))
        file = paths.get(name) or paths.get(str(item["file"]))
        finding = Finding(
            file=file.path if file is not None else name,
            start_line=start,
            end_line=end,
            severity=str(item["severity"]),
            title=" ".join(str(item["title"]).split()),
            explanation=str(item["explanation"]).strip(),
            suggested_patch=item.get("suggestedPatch") or None,
            old_path=file.old_path if file is not None else None,
        )
        if file is not None:
            hunk = file.hunk_for(start, end)
            finding.in_diff = hunk is not None or (file.binary and not file.hunks)
            finding.hunk = hunk.header if hunk is not None else None
        key = (finding.file, start, end, finding.title)
        if key not in seen:
            seen.add(key)
            placed.append(finding)
    placed.sort(key=lambda f: (SEVERITIES.index(f.severity), f.file, f.start_line))
    return placed


def review_human(report: ReviewReport) -> str:
    """The report for a person (no colour: the caller cleans it for the terminal)."""
    lines = [f"Review of {report.target['description']} ({report.model})"]
    stats = report.to_json()["stats"]
    lines.append(
        f"{stats['files']} file(s), +{stats['additions']} -{stats['deletions']}"
        + (f", {report.chunks} parts reviewed in parallel" if report.chunks > 1 else "")
    )
    if report.summary:
        lines += ["", report.summary.strip()]
    lines.append("")
    if not report.findings:
        lines.append("No findings.")
    for number, finding in enumerate(report.findings, 1):
        where = f"{finding.file}:{finding.start_line}"
        if finding.end_line != finding.start_line:
            where += f"-{finding.end_line}"
        outside = "" if finding.in_diff else "  (outside the diff)"
        lines.append(f"{number}. [{finding.severity}] {where}  {finding.title}{outside}")
        lines += [f"   {line}" for line in finding.explanation.splitlines()]
        if finding.suggested_patch:
            lines.append("   Suggested change:")
            lines += [f"     {line}" for line in finding.suggested_patch.rstrip().splitlines()]
        lines.append("")
    lines += [f"warning: {w}" for w in report.warnings]
    if report.incomplete:
        lines.append("warning: the review is incomplete (see the warnings above)")
    if report.fail_on != "none":
        verdict = "FAILED" if report.failed else "passed"
        lines.append(f"Result: {verdict} (--fail-on {report.fail_on})")
    return "\n".join(lines).rstrip() + "\n"


def review_json(report: ReviewReport) -> str:
    """``--json``: one JSON document."""
    return json.dumps(report.to_json(), ensure_ascii=False, indent=2) + "\n"


def review_sarif(report: ReviewReport, version: str) -> dict[str, Any]:
    """SARIF 2.1.0 for code scanning (one run, one rule per severity)."""
    rules = [
        {
            "id": f"pi-review/{severity}",
            "name": f"Review{severity.title()}",
            "shortDescription": {"text": f"A {severity} finding of pi review"},
            "defaultConfiguration": {"level": _SARIF_LEVEL[severity]},
            "properties": {"security-severity": _SECURITY[severity]},
        }
        for severity in SEVERITIES
    ]
    results = []
    for finding in report.findings:
        message = finding.title + ("\n\n" + finding.explanation if finding.explanation else "")
        result: dict[str, Any] = {
            "ruleId": f"pi-review/{finding.severity}",
            "ruleIndex": SEVERITIES.index(finding.severity),
            "level": _SARIF_LEVEL[finding.severity],
            "message": {"text": message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(finding.file), "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": finding.start_line, "endLine": finding.end_line},
                    }
                }
            ],
            "properties": {"inDiff": finding.in_diff, "severity": finding.severity},
        }
        if finding.suggested_patch:
            result["properties"]["suggestedPatch"] = finding.suggested_patch
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "pi review",
                        "version": version,
                        "rules": rules,
                    }
                },
                "results": results,
                "properties": {"model": report.model, "target": report.target},
            }
        ],
    }


_SECURITY = {"critical": "9.0", "high": "7.0", "medium": "5.0", "low": "3.0", "info": "0.0"}


def _uri(path: str) -> str:
    from urllib.parse import quote

    return quote(path.replace("\\", "/"), safe="/")
