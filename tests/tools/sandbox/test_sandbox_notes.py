"""A command that fails because the sandbox hid, kept private or protected a path says so in
its result (issue 24): the kernel only says "No such file or directory" for an existing host
directory under /var/tmp, and a model then concludes the directory does not exist."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from agent_core import ToolError
from tests.tools._helpers import run
from tools import Sandbox, create_tools

pytestmark = pytest.mark.usefixtures("bwrap")


@pytest.fixture
def var_tmp_dir() -> Iterator[Path]:
    """A directory that exists on the host under /var/tmp (private inside the sandbox)."""
    if not Path("/var/tmp").is_dir():
        pytest.skip("no /var/tmp here")
    path = Path(tempfile.mkdtemp(prefix="pi-notes-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
async def box(tmp_path: Path) -> AsyncIterator[Sandbox]:
    workspace = tmp_path / "ws"
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (workspace / ".git" / "objects").mkdir()
    (workspace / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (workspace / ".git" / "config").write_text("")
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "token").write_text("s3cret")
    sandbox = Sandbox(workspace, mode="required", hidden=[tmp_path / "secrets"])
    yield sandbox
    await sandbox.aclose()


async def failure(box: Sandbox, command: str) -> str:
    (bash,) = create_tools(["bash"], box.workspace, sandbox=box)
    with pytest.raises(ToolError) as info:
        await run(bash, command=command)
    return str(info.value)


async def test_an_existing_host_directory_under_var_tmp(box: Sandbox, var_tmp_dir: Path) -> None:
    said = await failure(box, f"echo x > {var_tmp_dir}/out.txt")
    assert "No such file or directory" in said
    assert f"{var_tmp_dir} exists outside the sandbox, but inside it" in said  # its directory
    assert (
        "inside it /var/tmp is the sandbox's own private, empty directory: the host's /var/tmp "
        "cannot be seen or written from here"
    ) in said
    assert "ask the user whether you may rerun it with sandbox: false" in said


async def test_a_hidden_directory_and_a_protected_one(box: Sandbox, tmp_path: Path) -> None:
    hidden = await failure(box, f"cat {tmp_path}/secrets/token")
    assert f"{tmp_path / 'secrets'} is hidden inside the sandbox" in hidden
    protected = await failure(box, "echo evil > .git/hooks/pre-commit")
    assert f"{box.workspace / '.git' / 'hooks'} is protected: read-only inside the sandbox" in (
        protected
    )


async def test_a_real_not_found_gets_no_sandbox_note(box: Sandbox) -> None:
    said = await failure(box, "cat /var/tmp/surely-not-there-pi/x")
    assert "No such file or directory" in said and "[pi:" not in said
