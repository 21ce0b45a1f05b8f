"""The ``packages`` setting: packages a scope declares it should have (the TypeScript pi's key
and shape: source strings, or objects with a ``source``).

pi never installs them silently at start: it names the declared packages that are not in the
scope's lock, and ``pi install`` (a project's: ``pi install -l``) installs them. A user's
``~/.pi/settings.json`` declares the user's packages (folders relative to ``$PI_HOME``); a
project's ``.pi/settings.json`` the project's (folders relative to the project, and only read
in a trusted folder, like the rest of that file's keys but the harmless ones).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.shell.packages.lock import Scope, in_scope, project_scope, read_lock, user_scope
from pi_cli.shell.paths import pi_home
from pi_cli.shell.text.terminal import one_line

# The installer, its sources and git are imported only when some package is declared: a start
# without the setting reads nothing more than the settings it already has.

if TYPE_CHECKING:
    from pi_cli.shell.config.layers import Layer

MAX_DECLARED = 200


def declared_sources(layers: Iterable[Layer], scope: str) -> list[str]:
    """The sources pi's settings files of ``scope`` (``user`` or ``project``) declare, in order,
    each once."""
    found: list[str] = []
    for layer in layers:
        if layer.kind != "pi" or layer.scope != scope:
            continue
        value = layer.data.get("packages")
        for item in value if isinstance(value, list) else []:
            source = item.get("source") if isinstance(item, dict) else item
            if isinstance(source, str) and source.strip() and source.strip() not in found:
                found.append(source.strip())
    return found[:MAX_DECLARED]


def _base(scope: Scope) -> Path:
    return scope.project if scope.project is not None else pi_home()


def _matches(source: str, record: dict[str, Any], base: Path) -> bool:
    from pi_cli.shell.packages import install as installer
    from pi_cli.shell.packages.sources import PackageError, parse_spec

    try:
        spec = parse_spec(source, base)
    except PackageError:
        return False
    if record.get("source") == source:
        return True
    if record.get("kind") != spec.kind:
        return False
    try:
        location = installer.locked_location(record)
    except PackageError:
        return False
    if spec.kind == "local":
        location = str(Path(location).resolve())
    return location == spec.location and spec.ref in (
        None,
        record.get("ref"),
        record.get("version"),
    )


def missing(scope: Scope, sources: list[str]) -> list[str]:
    """The declared ``sources`` no package of ``scope``'s lock was installed from."""
    if not sources:
        return []
    with in_scope(scope):
        records = list(read_lock().values())
        return [s for s in sources if not any(_matches(s, r, _base(scope)) for r in records)]


def declared_notice(cwd: Path, layers: list[Layer]) -> list[str]:
    """One line per scope naming its declared packages that are not installed, and how to
    install them (nothing when all are, or none is declared)."""
    lines = []
    for scope, command, where in (
        (user_scope(), "pi install", "your settings"),
        (project_scope(cwd), "pi install -l", "the project's settings"),
    ):
        absent = missing(scope, declared_sources(layers, scope.label))
        if absent:
            lines.append(
                one_line(
                    f"Packages declared in {where} are not installed: {', '.join(absent)}. "
                    f"Install them: {command}"
                )
            )
    return lines


def _allowed(scope: Scope, source: str) -> None:
    """A project's settings may declare a folder inside the project, or a remote repository or
    distribution; never a folder or repository elsewhere on this machine (a cloned project
    naming ``~/.ssh`` would have it copied into its store)."""
    from pi_cli.shell.packages.sources import PackageError, parse_spec

    project = scope.project
    if project is None:
        return
    spec = parse_spec(source, project)
    root = project.resolve()
    if spec.kind == "local" or (spec.kind == "npm" and spec.location.startswith("/")):
        inside = Path(spec.location) == root or root in Path(spec.location).parents
        if not inside:
            raise PackageError("a project may declare only folders inside it")
    elif spec.kind == "git" and (
        spec.location.startswith("file:") or spec.location.startswith("/")
    ):
        raise PackageError("a project may not declare a repository on this machine")


def install_declared(scope: Scope, layers: list[Layer]) -> tuple[list[str], set[str]]:
    """``pi install`` alone: each declared package of ``scope`` not yet installed (lines to show,
    the names installed; one that fails is named and the others go on). Call inside
    :func:`in_scope`."""
    from pi_cli.shell.packages import install as installer
    from pi_cli.shell.packages.git import GitError
    from pi_cli.shell.packages.sources import PackageError

    lines: list[str] = []
    names: set[str] = set()
    for source in missing(scope, declared_sources(layers, scope.label)):
        try:
            _allowed(scope, source)
            record, notes = installer.install(source, _base(scope))
        except (PackageError, GitError) as exc:
            lines.append(one_line(f"{source}: not installed: {exc}"))
            continue
        names.add(str(record["name"]))
        pin = str(record.get("commit") or record.get("version") or "a copy")[:12]
        lines.append(f"Installed {record['name']} at {pin} (declared in the settings).")
        lines += [one_line(f"  note: {note}") for note in notes]
    return lines, names
