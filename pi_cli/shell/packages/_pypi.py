"""Python distributions as packages: downloaded as wheels only (no build step), installed with
``--no-compile`` into the package's own folder, their wheels hashed for the lock."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from pi_cli.shell.packages.files import sha256_of
from pi_cli.shell.packages.sources import PackageError, Spec, resources

PIP_TIMEOUT_S = 600.0


def pip(*args: str) -> None:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PackageError(f"pip could not run ({exc})") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        tail = lines[-1] if lines else "no message"
        if "No module named pip" in done.stderr:
            tail = "pip is not installed in pi's Python"
        raise PackageError(f"pip {args[0]} failed: {tail[:300]}")


def wheel_hashes(folder: Path) -> dict[str, str]:
    return {p.name: sha256_of(str(p)) for p in sorted(folder.glob("*")) if p.is_file()}


def _dist_info(site: Path, name: str) -> Path | None:
    wanted = name.lower().replace("-", "_").replace(".", "_")
    for info in sorted(site.glob("*.dist-info")):
        if info.name.lower().split("-")[0].replace(".", "_") == wanted:
            return info
    return None


def _python_resources(site: Path, info: Path) -> dict[str, list[str]]:
    """A distribution's pi resources: its top-level packages' ``skills/``, ``prompts/``...
    folders; its ``pi.extensions`` entry points' packages."""
    tops: set[str] = set()
    try:
        record = (info / "RECORD").read_text(encoding="utf-8")
    except OSError:
        record = ""
    for line in record.splitlines():
        first = line.split(",", 1)[0].split("/", 1)[0]
        if first and not first.endswith((".dist-info", ".data")) and (site / first).is_dir():
            tops.add(first)
    found: dict[str, list[str]] = {"python": ["."]}
    for top in sorted(tops):
        _, _, table, _ = resources(site / top)
        for kind, paths in table.items():
            found.setdefault(kind, []).extend(f"{top}/{p}".removesuffix("/.") for p in paths)
    return found


def stage_pypi(spec: Spec, staging: Path, wheels: Path | None) -> dict[str, Any]:
    requirement = spec.location + (f"=={spec.ref}" if spec.ref else "")
    binary = ("--only-binary", ":all:")
    if wheels is None:
        wheels = staging / "wheels"
        pip("download", "--quiet", *binary, "--dest", str(wheels), requirement)
    site = staging / "copy"
    pip(
        "install", "--quiet", "--no-index", "--find-links", str(wheels), *binary,
        "--no-compile", "--target", str(site), requirement,
    )  # fmt: skip
    info = _dist_info(site, spec.location)
    if info is None:
        raise PackageError(f"{spec.location} installed no distribution of that name")
    version = info.name.removesuffix(".dist-info").split("-", 1)[-1]
    return {
        "version": version,
        "pin": version,
        "wheels": wheel_hashes(wheels),
        "wheelsDir": str(wheels),
        "resources": _python_resources(site, info),
        "name": spec.location,
    }
