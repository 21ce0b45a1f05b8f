"""``pi install``, ``pi list``, ``pi update``, ``pi remove``: the words, the lines shown."""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell.packages import install as installer
from pi_cli.shell.packages.declared import install_declared
from pi_cli.shell.packages.files import exclusive
from pi_cli.shell.packages.lock import (
    Scope,
    current_scope,
    in_scope,
    lock_file,
    packages_home,
    project_scope,
    read_lock,
    user_scope,
)
from pi_cli.shell.packages.sources import PackageError, valid_name

__all__ = ["PACKAGE_USAGE", "PackageError", "package_accepts", "package_words"]
from pi_cli.shell.text.terminal import one_line

PACKAGE_USAGE = """usage: pi install [-l] SOURCE     git:URL[@REF], a folder, pypi:NAME[==VERSION]
       pi install [-l]            install the declared packages (the `packages` setting) and put
                                  back every locked one, as locked (offline when it can)
       pi list
       pi update [-l] [NAME...]   (none: all unpinned packages)
       pi remove [-l] NAME
  -l, --local   the project's packages (.pi/packages.lock, committed) instead of yours"""
LOCAL_FLAGS = ("-l", "--local")


def _local(words: list[str]) -> tuple[bool, list[str]]:
    """(whether ``-l``/``--local`` was given, the other words)."""
    rest = [w for w in words if w not in LOCAL_FLAGS]
    return len(rest) != len(words), rest


def package_accepts(verb: str, words: list[str]) -> bool:
    """Whether ``pi VERB WORDS`` is this command (else it stays a prompt: ``pi list files``)."""
    if verb != "list":
        words = _local(words)[1]
    if verb == "install":
        return len(words) <= 1
    if verb == "list":
        return not words
    if verb == "update":
        return words == ["--all"] or all(valid_name(w) for w in words) and len(words) <= 20
    return verb == "remove" and len(words) == 1


def _list(cwd: Path) -> list[str]:
    user = _listed()
    project = project_scope(cwd)
    if not project.lock.is_file():
        return user
    with in_scope(project):
        return ["user packages:", *user, "project packages (pi install -l):", *_listed()]


def _listed() -> list[str]:
    packages = read_lock()
    if not packages:
        local = " -l" if current_scope().project is not None else ""
        return [f"No packages installed (pi install{local} SOURCE)."]
    lines = []
    for name, record in sorted(packages.items()):
        pin = record.get("commit") or record.get("version") or record.get("hash") or "-"
        carried = record.get("resources") if isinstance(record.get("resources"), dict) else {}
        kinds = ", ".join(
            f"{len(v)} {k}" for k, v in sorted((carried or {}).items()) if v and k != "python"
        )
        lines.append(
            one_line(f"{name}  {record.get('source')}  @ {str(pin)[:12]}  ({kinds or 'nothing'})")
        )
    return [*lines, f"lock: {lock_file()}"]


def package_words(verb: str, words: list[str], cwd: Path) -> list[str]:
    """Do ``pi VERB WORDS``; the lines to show. Raises :class:`PackageError`. One pi at a time
    changes the packages (another waits for it)."""
    if verb == "list":
        return _list(cwd)
    local, words = _local(words)
    scope = project_scope(cwd) if local else user_scope()
    if local and (scope.home.is_symlink() or scope.lock.is_symlink()):
        raise PackageError(
            f"{scope.home} or {scope.lock} is a link; pi keeps a project's packages only in its own .pi folder"
        )
    with in_scope(scope):
        with exclusive(packages_home() / ".lock"):
            return _change(verb, words, cwd, scope)


def _declared(scope: Scope, cwd: Path) -> tuple[list[str], set[str]]:
    """The settings' declared packages of ``scope`` not installed yet, installed."""
    from pi_cli.shell.config.layers import read_layers
    from pi_cli.shell.config.settings import SettingsError

    try:
        layers, _ = read_layers(cwd)
    except SettingsError as exc:
        raise PackageError(f"the settings cannot be read ({exc})") from None
    return install_declared(scope, layers)


def _change(verb: str, words: list[str], cwd: Path, scope: Scope) -> list[str]:
    if verb == "install" and not words:
        declared, installed = _declared(scope, cwd)
        locked = [line for line in installer.reinstall() if line.split(":")[0] not in installed]
        if declared and locked == ["No packages in the lock file (pi install SOURCE)."]:
            return declared
        return declared + locked
    if verb == "install":
        record, notes = installer.install(words[0], cwd)
        pin = str(record.get("commit") or record.get("version") or "a copy")[:12]
        carried = ", ".join(
            f"{len(v)} {k}" for k, v in sorted(record["resources"].items()) if k != "python"
        )
        lines = [f"Installed {record['name']} at {pin} ({carried or 'nothing pi loads'})."]
        return lines + [one_line(f"  note: {note}") for note in notes]
    if verb == "update":
        return installer.update([w for w in words if w != "--all"])
    if verb == "remove":
        return [installer.remove(words[0])]
    raise PackageError(PACKAGE_USAGE)
