"""The adversarial read-only classifier: a table of commands, globs, symlinks, cd, real git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from pi_cli.shell.permissions._bash_parse import ParseError, parse
from pi_cli.shell.permissions._git_grammar import resolve_git_long
from pi_cli.shell.permissions._git_tables import PARSE_OPTIONS
from pi_cli.shell.permissions._grammar import table
from pi_cli.shell.permissions._readonly import Context, classify
from pi_cli.shell.permissions.git_readonly import GIT_SAFE, repo_has_filters
from pi_cli.shell.permissions.workspace import Workspace

READ_ONLY = [
    "ls -la",
    "ls",
    "pwd",
    "cat package.json",
    "head -n 5 hello.mjs",
    "tail -20 hello.mjs",
    "wc -l hello.mjs package.json",
    "grep -rn 'import os' .",
    "grep -c x hello.mjs | sort | uniq",
    "find . -name '*.py' -type f",
    "cat package.json && wc -c hello.mjs",
    "ls; pwd",
    "ls -la # ; rm -rf / (a comment)",
    "echo $HOME",
    "echo 'rm -rf /'",
    "cat 'hello.mjs'",
    "ls src",
    "ls *.mjs",
    "cd src && ls",
    "stat hello.mjs",
    "diff package.json hello.mjs",
    "git status",
    "git log --oneline -5",
    "git diff HEAD~1 -- hello.mjs",
    "git show HEAD:hello.mjs",
    "git branch -a",
    "git branch --list 'feat*'",
    "git -C src log",
    "git rev-parse --show-toplevel",
    "sort package.json",
    "jq .name package.json",
    "du -sh .",
    "test -f package.json && echo yes",
]

NOT_READ_ONLY = [
    ("rm -rf build", "not a known read-only command"),
    ("ls > listing.txt", "redirection"),
    ("cat hello.mjs 2>/dev/null", "redirection"),
    ("cat < package.json", "redirection"),
    ("echo hi >> hello.mjs", "redirection"),
    ("ls | tee out.txt", "tee"),
    ("echo $(rm -rf /)", "command substitution"),
    ("echo `rm -rf /`", "backticks"),
    ("ls $(pwd)", "command substitution"),
    ("cat <(curl x)", "redirection"),
    ("(ls)", "subshell"),
    ("{ ls; }", "plain command name"),
    ("find . -exec rm {} \\;", "-exec"),
    ("find . -execdir sh -c x \\;", "-execdir"),
    ("find . -delete", "-delete"),
    ("find . -fprint out", "-fprint"),
    ("find . -fls out", "-fls"),
    ("find . -ok rm {} \\;", "-ok"),
    ("find / -name passwd", "outside the workspace"),
    ("rg --pre ./evil.sh pattern", "--pre"),
    ("rg --pre=./evil.sh pattern", "--pre"),
    ("sort -o out.txt package.json", "-o"),
    ("sort --output=out.txt package.json", "--output"),
    ("sort -uo out.txt package.json", "-uo"),
    ("git diff --output=patch.txt", "--output"),
    ("git log --ext-diff", "--ext-diff"),
    ("git -c core.pager=evil log", "git option -c"),
    ("git --git-dir=/tmp/x status", "git option"),
    ("git commit -m x", "not a read-only git command"),
    ("git push", "not a read-only git command"),
    ("git branch newbranch", "creates"),
    ("git tag v1", "creates"),
    ("git config user.name evil", "writes configuration"),
    ("git stash", "changes the repository"),
    ("cat /etc/passwd", "outside the workspace"),
    ("cat ../outside.txt", "outside the workspace"),
    ("ls ~", "outside the workspace"),
    ("head ~/.ssh/id_rsa", "outside the workspace"),
    ("cd .. && cat project/package.json", "cannot follow"),
    ("cd /etc && cat passwd", "cannot follow"),
    ("cd src | ls ..", "cannot follow"),
    ("FOO=bar ls", "environment assignment"),
    ("LD_PRELOAD=./evil.so cat package.json", "environment assignment"),
    ("./ls", "plain command name"),
    ("/bin/ls", "plain command name"),
    ("sed -i s/a/b/ hello.mjs", "not a known read-only command"),
    ("awk 'BEGIN{system(\"rm x\")}'", "not a known read-only command"),
    ("xargs rm < list", "redirection"),
    ("env rm -rf x", "not a known read-only command"),
    ("sudo ls", "not a known read-only command"),
    ("cat {package.json,/etc/passwd}", "brace expansion"),
    ("cat ${HOME}/.ssh/id_rsa", "parameter expansion"),
    ("cat $HOME/.bashrc", "variable"),
    ("echo 'unterminated", "unterminated"),
    ("ls &&", "incomplete"),
    ("ls\rrm -rf x", "control character"),
    ("cat <<EOF\nx\nEOF", "here-documents"),
    ("uniq package.json out.txt", "output file"),
    ("tree -o out.txt", "writes"),
    ("date -s 2020-01-01", "changes the system"),
    ("file -C -m magic", "writes"),
    ("ls -l --ignore=x /etc", "outside the workspace"),
    ("ls .*", "outside the workspace"),  # older bash expands .* to .. too
    ("grep -f/etc/shadow x", "outside the workspace"),
    ("exec ls", "not a known read-only command"),
    ("if true; then rm -rf x; fi", "not a known read-only command"),
]


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "hello"}\n')
    (root / "hello.mjs").write_text("console.log('hi')\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return Workspace(root)


def ctx(workspace: Workspace) -> Context:
    return Context(workspace, home=str(workspace.cwd.parent / "home"))


def test_the_tables_are_big_enough() -> None:
    assert len(READ_ONLY) + len(NOT_READ_ONLY) >= 30
    assert len(NOT_READ_ONLY) >= 30


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only_commands(command: str, workspace: Workspace) -> None:
    verdict = classify(command, ctx(workspace))
    assert verdict.read_only, verdict.reason


@pytest.mark.parametrize(("command", "why"), NOT_READ_ONLY)
def test_not_read_only_commands(command: str, why: str, workspace: Workspace) -> None:
    verdict = classify(command, ctx(workspace))
    assert not verdict.read_only
    assert why in verdict.reason, verdict.reason


def test_a_symlink_out_of_the_workspace_is_followed(workspace: Workspace) -> None:
    (workspace.cwd / "innocent.txt").symlink_to(workspace.cwd.parent / "outside.txt")
    verdict = classify("cat innocent.txt", ctx(workspace))
    assert not verdict.read_only and "outside the workspace" in verdict.reason
    (workspace.cwd / "src" / "up").symlink_to(workspace.cwd.parent)
    assert not classify("ls src/up", ctx(workspace)).read_only


def test_a_glob_is_expanded_and_every_match_checked(workspace: Workspace) -> None:
    (workspace.cwd / "link").symlink_to("/etc")
    verdict = classify("ls l*", ctx(workspace))
    assert not verdict.read_only and "/etc" in verdict.reason


def test_a_file_named_like_an_option_cannot_ride_a_glob(workspace: Workspace) -> None:
    (workspace.cwd / "-delete").write_text("")
    assert classify("find . -name x", ctx(workspace)).read_only
    verdict = classify("find *", ctx(workspace))
    assert not verdict.read_only and "reads as an option" in verdict.reason


def test_a_reader_found_inside_the_workspace_is_not_trusted(workspace: Workspace) -> None:
    fake = workspace.cwd / "bin" / "cat"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\ntouch pwned\n")
    fake.chmod(0o755)
    context = Context(workspace, search_path=f"{fake.parent}:{os.environ['PATH']}")
    verdict = classify("cat package.json", context)
    assert not verdict.read_only and "inside the workspace" in verdict.reason


def test_git_gets_the_safety_overrides_in_every_part(workspace: Workspace) -> None:
    verdict = classify("git status && git log -1 | head", ctx(workspace))
    assert verdict.read_only
    assert verdict.command == (
        f"git {GIT_SAFE} status && git {GIT_SAFE} log --no-textconv --no-ext-diff -1 | head"
    )


def test_the_overrides_stop_a_hostile_fsmonitor(workspace: Workspace) -> None:
    """A repo's .git/config runs core.fsmonitor on `git status`; pi's version of it does not."""
    root = workspace.cwd
    marker = root.parent / "fsmonitor-ran"
    hook = root / "monitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    subprocess.run(["git", "-C", str(root), "config", "core.fsmonitor", str(hook)], check=True)
    verdict = classify("git status", ctx(workspace))
    assert verdict.read_only and verdict.command is not None
    subprocess.run(["bash", "-c", verdict.command], cwd=root, capture_output=True, check=False)
    assert not marker.exists()
    subprocess.run(["git", "status"], cwd=root, capture_output=True, check=False)
    assert marker.exists()  # proof the config is hostile without the overrides


def test_a_repo_with_filter_programs_asks(workspace: Workspace) -> None:
    root = workspace.cwd
    subprocess.run(["git", "-C", str(root), "config", "filter.x.clean", "rm -rf ~"], check=True)
    assert repo_has_filters(root)
    context = Context(workspace, git_filters=repo_has_filters)
    verdict = classify("git status", context)
    assert not verdict.read_only and "filter programs" in verdict.reason
    assert classify("ls", context).read_only


def test_the_parser_splits_like_bash() -> None:
    commands = parse("a 'b c' \"d $e\" f\\ g | h && i ; j & k\nl # m ; n")
    assert [c.text for c in commands] == ["a b c d $e f g", "h", "i", "j", "k", "l"]
    assert [c.separator for c in commands] == ["|", "&&", ";", "&", "\n", ""]
    assert commands[0].words[2].dynamic == "variable"
    redirect = parse("cmd 2>&1 >out")[0].redirects
    assert [(r.fd, r.op, r.target.text, r.touches_file) for r in redirect] == [
        ("2", ">&", "1", False),
        (None, ">", "out", True),
    ]
    for bad in ("a $(b)", "a `b`", "(a)", "a <<X", "a 'b", "a |", "; a", "a\x00"):
        with pytest.raises(ParseError):
            parse(bad)


ISSUE_ATTACKS = [
    "sort -S 1K --compress-prog=sh package.json",
    "sort --compress-p sh package.json",
    "sort --outp=out.txt package.json",
    "sort --o=out.txt package.json",
    "git grep --open-files=sh x",
    "git grep --open x",
    "date --se=2020-01-01",
    "date --s 2020-01-01",
    "date 010101012030",
    "date -us 2020-01-01",
    "file --comp x",
    "file --uncomp package.json",
    "hostname --file /etc/hostname",
    "hostname --fi x",
    "hostname evil.example",
    "git log --format=%G?",
    "git log --pretty=format:%GS",
    "git log --show-sig",
    "git cat-file --textc HEAD:x",
    "git cat-file --filt HEAD:x",
    "git grep --textc x",
    "git diff --outp=/tmp/x",
    "git log --ext-d -p",
    "git branch --edit-desc",
    "git for-each-ref --format=%(signature)",
]


@pytest.mark.parametrize("command", ISSUE_ATTACKS)
def test_the_issues_abbreviation_attacks_ask(command: str, workspace: Workspace) -> None:
    verdict = classify(command, ctx(workspace))
    assert not verdict.read_only, verdict


def _prefixes(option: str) -> list[str]:
    return [option[:end] for end in range(3, len(option) + 1)]


_GIT_WRITES_OR_RUNS = ("--output", "--output-directory", "--ext-diff", "--textconv",
                       "--open-files-in-pager", "--show-signature", "--filters",
                       "--alternate-refs", "--edit", "--edit-description")  # fmt: skip


def test_every_abbreviation_of_every_git_option_that_writes_or_runs_asks(
    workspace: Workspace,
) -> None:
    """git's parse-options accepts any unique prefix: each one git reads as such an option
    (or as several) asks; log/diff/show match names exactly, so there every prefix asks."""
    checked = 0
    for option in _GIT_WRITES_OR_RUNS:
        for prefix in _prefixes(option):
            for sub in ("log", "diff", "show", "grep", "cat-file", "blame", "branch"):
                if sub in PARSE_OPTIONS:
                    found = resolve_git_long(table(PARSE_OPTIONS[sub]), prefix[2:])
                    if not isinstance(found, list) and found and found.option.key != option[2:]:
                        continue  # git reads it as another option of sub's
                command = f"git {sub} {prefix}=x"
                assert not classify(command, ctx(workspace)).read_only, command
                checked += 1
    assert checked > 300


def test_read_only_git_runs_with_every_program_key_overridden() -> None:
    for key in ("core.fsmonitor=false", "core.pager=cat", "diff.external=", "gpg.program=false",
                "gpg.ssh.program=false", "gpg.x509.program=false", "gpg.openpgp.program=false",
                "core.hooksPath=/dev/null", "core.sshCommand=false", "core.askPass=false",
                "core.editor=false", "sequence.editor=false", "uploadpack.packObjectsHook=",
                "core.alternateRefsCommand=", "credential.helper="):  # fmt: skip
        assert f"-c {key}" in GIT_SAFE, key
    assert "--no-pager" in GIT_SAFE and "--no-optional-locks" in GIT_SAFE


def test_the_overrides_stop_a_hostile_hook_on_git_status(workspace: Workspace) -> None:
    """git status writes the index, which runs post-index-change; pi's git status does not."""
    root = workspace.cwd
    marker = root.parent / "hook-ran"
    hooks = root / "hooks"
    hooks.mkdir()
    hook = hooks / "post-index-change"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    subprocess.run(["git", "-C", str(root), "config", "core.hooksPath", str(hooks)], check=True)
    (root / "package.json").touch()
    subprocess.run(["git", "-C", str(root), "add", "package.json"], check=True)
    marker.unlink(missing_ok=True)
    os.utime(root / "package.json", (1, 1))  # stat changed: status would refresh the index
    verdict = classify("git status", ctx(workspace))
    assert verdict.read_only and verdict.command is not None
    subprocess.run(["bash", "-c", verdict.command], cwd=root, capture_output=True, check=False)
    assert not marker.exists()
    subprocess.run(["git", "status"], cwd=root, capture_output=True, check=False)
    assert marker.exists()  # proof the hook runs without the overrides


def test_date_formats_stay_read_only(workspace: Workspace) -> None:
    for command in ("date", "date +%Y-%m-%d", "date -u +%s", "date --utc", "date -R"):
        assert classify(command, ctx(workspace)).read_only, command
