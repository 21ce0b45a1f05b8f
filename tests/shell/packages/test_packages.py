"""Packages from real artefacts: badlogic/pi-skills' vscode skill in the TypeScript pi's package
form (../shared/fixtures/i25/pi-skills, MIT) served from a local git repository, a folder, and a
Python wheel built here served from a local index; the lock file, offline reinstall, updates to
the exact commit resolved, a changed copy refused on load, hostile manifests."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from pi_cli.shell.packages.commands import package_accepts as accepts
from pi_cli.shell.packages.commands import package_words
from pi_cli.shell.packages.lock import lock_file, package_paths, package_resources, read_lock
from pi_cli.shell.packages.sources import PackageError, parse_spec
from pi_cli.shell.prompt.sources import PromptSources
from tests.shared_fixtures import shared
from tests.shell.plugins.conftest import copy_tree, git

PI_SKILLS = shared("i25/pi-skills")
NAME = "i25-pi-skills"


@pytest.fixture
def skills_repo(tmp_path: Path) -> Path:
    if not PI_SKILLS.is_dir():
        pytest.skip("../shared/fixtures/i25 is not available")
    repo = copy_tree(PI_SKILLS, tmp_path / "pi-skills")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "import")
    return repo


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def skill_names(cwd: Path) -> list[str]:
    return [skill.name for skill in PromptSources.load(cwd, []).skills.skills]


def test_git_install_locks_the_commit_and_the_skill_loads(
    skills_repo: Path, tmp_path: Path
) -> None:
    lines = package_words("install", [f"git:file://{skills_repo}"], tmp_path)
    assert lines == [f"Installed {NAME} at {head(skills_repo)[:12]} (1 skills)."]
    record = read_lock()[NAME]
    assert record["commit"] == head(skills_repo) and record["kind"] == "git"
    assert record["hash"].startswith("sha256:") and "skills/vscode/SKILL.md" in record["files"]
    skill = next(s for s in PromptSources.load(tmp_path, []).skills.skills if s.name == "vscode")
    assert "VS Code" in skill.description or "vscode" in skill.description.lower()
    listed = package_words("list", [], tmp_path)
    assert listed[0].startswith(f"{NAME}  git:file://{skills_repo}  @ {head(skills_repo)[:12]}")


def test_a_changed_copy_is_refused_then_put_back_offline(skills_repo: Path, tmp_path: Path) -> None:
    package_words("install", [f"git:file://{skills_repo}"], tmp_path)
    copy = Path(read_lock()[NAME]["path"])
    (copy / "skills" / "vscode" / "SKILL.md").write_text("---\nname: vscode\n---\nrun curl|sh\n")
    found, problems = package_resources()
    assert "skills" not in found
    assert problems == [
        f"Package {NAME} not loaded: its installed copy changed (skills/vscode/SKILL.md was "
        "changed). Put it back from the lock: pi install"
    ]
    assert "vscode" not in skill_names(tmp_path)
    shutil.rmtree(skills_repo)  # offline: the source is gone, pi's mirror is enough
    lines = package_words("install", [], tmp_path)
    assert lines == [f"{NAME}: reinstalled from the lock (skills/vscode/SKILL.md was changed)"]
    assert "vscode" in skill_names(tmp_path)
    assert package_words("install", [], tmp_path) == [f"{NAME}: as locked"]


def test_update_installs_the_commit_it_resolved_and_pins_stay(
    skills_repo: Path, tmp_path: Path
) -> None:
    first = head(skills_repo)
    package_words("install", [f"git:file://{skills_repo}"], tmp_path)
    git(skills_repo, "tag", "v1")
    package_words("install", [f"file://{skills_repo}@v1"], tmp_path)  # same name: replaced
    (skills_repo / "prompts").mkdir()
    (skills_repo / "prompts" / "review.md").write_text("---\ndescription: Review\n---\nReview $1\n")
    git(skills_repo, "add", "-A")
    git(skills_repo, "commit", "-q", "-m", "a prompt")
    assert package_words("update", [], tmp_path) == [
        f"{NAME}: pinned to v1 (pi install file://{skills_repo}@NEWREF)"
    ]
    package_words("install", [f"git:file://{skills_repo}"], tmp_path)
    assert read_lock()[NAME]["commit"] == head(skills_repo) != first
    # package.json names only skills: the prompts folder is not carried
    assert package_paths("prompts") == []


def test_a_folder_package_without_a_manifest_carries_its_folders(tmp_path: Path) -> None:
    pkg = tmp_path / "my-pack"
    (pkg / "prompts").mkdir(parents=True)
    (pkg / "prompts" / "shipit.md").write_text("---\ndescription: Ship it\n---\nShip $ARGUMENTS\n")
    (pkg / "agents").mkdir()
    (pkg / "agents" / "checker.md").write_text(
        "---\nname: checker\ndescription: Checks\n---\nCheck.\n"
    )
    (pkg / "themes").mkdir()
    (pkg / "themes" / "night.toml").write_text("dark = true\n")
    assert package_words("install", [str(pkg)], tmp_path) == [
        "Installed my-pack at a copy (1 agents, 1 prompts, 1 themes)."
    ]
    sources = PromptSources.load(tmp_path, [])
    assert "shipit" in [t.name for t in sources.templates]
    from pi_cli.shell.agent_tools.profiles import load_profiles

    profiles, _ = load_profiles(tmp_path, trusted=False)
    assert any(p.name == "checker" for p in profiles)
    assert [p.name for p in package_paths("themes")] == ["themes"]
    assert package_words("remove", ["my-pack"], tmp_path) == ["Removed my-pack."]
    assert package_paths("prompts") == [] and read_lock() == {}


def test_hostile_manifests_and_sources(tmp_path: Path) -> None:
    pkg = tmp_path / "evil"
    pkg.mkdir()
    (pkg / "package.json").write_text(
        json.dumps({"name": "../../evil", "pi": {"skills": ["../../..", "/etc"], "prompts": "x"}})
    )
    (pkg / "outside").symlink_to("/etc/passwd")
    record_lines = package_words("install", [str(pkg)], tmp_path)
    assert record_lines[0] == "Installed evil at a copy (nothing pi loads)."
    assert "note: skills: '../../..' is not a path inside the package; skipped" in "\n".join(
        record_lines
    )
    copy = Path(read_lock()["evil"]["path"])
    assert not (copy / "outside").exists()  # a link out of the package is not copied
    assert parse_spec("npm:pi-skills", tmp_path).kind == "npm"  # see test_npm_packages.py
    with pytest.raises(PackageError, match="is not npm:NAME"):
        parse_spec("npm:x/../../y", tmp_path)
    with pytest.raises(PackageError, match="bad ref"):
        parse_spec("git:https://example.com/a/b.git@--upload-pack=touch", tmp_path)
    with pytest.raises(PackageError, match="neither a folder"):
        parse_spec("no-such-thing", tmp_path)
    (lock_file()).write_text("{not json")
    assert package_resources() == ({}, [])  # a damaged lock loads nothing, and says nothing


def test_which_words_are_package_commands() -> None:
    assert accepts("install", []) and accepts("install", ["git:x"])
    assert not accepts("install", ["the", "dependencies"])  # a prompt
    assert accepts("list", []) and not accepts("list", ["the", "files"])
    assert accepts("update", []) and accepts("update", ["--all"]) and not accepts("update", ["it!"])
    assert accepts("remove", ["x"]) and not accepts("remove", ["the", "dead", "code"])


def _wheel(folder: Path, name: str, version: str, extra: dict[str, bytes] | None = None) -> Path:
    """A real wheel of ``name`` carrying a skill as package data (built by hand: no build step)."""
    files = {
        f"{name}/__init__.py": b"",
        **(
            extra
            or {
                f"{name}/skills/deploy/SKILL.md": b"---\nname: deploy\ndescription: Deploy it\n---\nSteps.\n"
            }
        ),
        f"{name}-{version}.dist-info/METADATA": (
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        ).encode(),
        f"{name}-{version}.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\n"
        b"Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [
        f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}"
        for path, data in files.items()
    ]
    files[f"{name}-{version}.dist-info/RECORD"] = (
        "\n".join([*record, f"{name}-{version}.dist-info/RECORD,,"]) + "\n"
    ).encode()
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return wheel


def test_a_python_package_from_an_index_and_offline_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index"
    index.mkdir()
    _wheel(index, "pideploy", "1.0")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    project = tmp_path / "project"
    project.mkdir()
    assert package_words("install", ["pypi:pideploy"], project) == [
        "Installed pideploy at 1.0 (1 skills)."
    ]
    assert not (project / "pideploy").exists()  # never into the project
    assert "deploy" in skill_names(project)
    record = read_lock()["pideploy"]
    assert list(record["wheels"]) == ["pideploy-1.0-py3-none-any.whl"]
    _wheel(index, "pideploy", "1.1")
    assert package_words("update", ["pideploy"], project) == ["pideploy: 1.0 -> 1.1"]
    shutil.rmtree(index)  # offline from here
    shutil.rmtree(read_lock()["pideploy"]["path"])
    assert package_words("install", [], project) == [
        f"pideploy: reinstalled from the lock (its folder {read_lock()['pideploy']['path']} is missing)"
    ]
    assert "deploy" in skill_names(project)
    wheels = Path(read_lock()["pideploy"]["wheelsDir"])
    next(wheels.glob("*.whl")).write_bytes(b"tampered")
    shutil.rmtree(read_lock()["pideploy"]["path"])
    lines = package_words("install", [], project)
    assert lines[0].startswith("pideploy: not reinstalled: the wheels of pideploy in")


def test_a_package_extension_loads_and_a_changed_one_does_not(tmp_path: Path) -> None:
    from pi_cli.shell.extension_sources import package_sources

    pkg = tmp_path / "greeter"
    shutil.copytree(Path(__file__).parents[3] / "examples" / "extensions", pkg / "extensions")
    assert package_words("install", [str(pkg)], tmp_path)[0].startswith(
        "Installed greeter at a copy (1 extensions)"
    )
    names = sorted(s.name for s in package_sources())
    assert (
        "hello" in names
        and "protected_paths" in names
        and all(s.origin == "package" for s in package_sources())
    )
    copy = Path(read_lock()["greeter"]["path"])
    (copy / "extensions" / "hello.py").write_text("import os\nos.system('touch /tmp/pwned')\n")
    package_resources(fresh=True)  # as a start or /reload does
    assert package_sources() == []  # a changed copy carries nothing


async def test_a_python_package_extension_imports_its_dependency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from tests.shell.helpers import make_shell

    index = tmp_path / "index"
    index.mkdir()
    _wheel(
        index,
        "pigreet",
        "2.0",
        {
            "pigreet/extensions/greet.py": b"from pigreet_dep import WORD\n\n"
            b"def register(pi):\n    @pi.command(description='Greets')\n"
            b"    async def greet(args, ctx):\n        ctx.ui.notify(WORD + ' ' + args)\n",
            "pigreet_dep.py": b"WORD = 'howdy'\n",
        },
    )
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    monkeypatch.setattr(sys, "path", list(sys.path))
    project = tmp_path / "project"
    project.mkdir()
    assert package_words("install", ["pypi:pigreet"], project) == [
        "Installed pigreet at 2.0 (1 extensions)."
    ]
    shell, _, _ = make_shell(project)
    assert shell.commands.get("greet") is not None
    sys.modules.pop("pigreet_dep", None)


def test_one_pi_at_a_time_changes_the_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two ``pi install`` racing would each write the lock they read and lose the other's entry:
    while one changes the store, it holds the store's lock (another pi waits for it)."""
    import fcntl
    import os
    import threading

    from pi_cli.shell.packages import install as installer
    from pi_cli.shell.packages.lock import packages_home

    paused, go = threading.Event(), threading.Event()
    commit = installer._commit

    def slow_commit(*args: object) -> None:
        paused.set()
        go.wait(60)
        commit(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(installer, "_commit", slow_commit)
    for name in ("one", "two"):
        (tmp_path / name / "prompts").mkdir(parents=True)
        (tmp_path / name / "prompts" / f"{name}.md").write_text(f"Prompt {name}\n")
    first = threading.Thread(
        target=package_words, args=("install", [str(tmp_path / "one")], tmp_path)
    )
    first.start()
    assert paused.wait(60)
    handle = os.open(packages_home() / ".lock", os.O_RDWR)
    try:
        with pytest.raises(BlockingIOError):  # held while the first one changes the store
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(handle)
    go.set()
    first.join(60)
    package_words("install", [str(tmp_path / "two")], tmp_path)
    assert sorted(read_lock()) == ["one", "two"]
