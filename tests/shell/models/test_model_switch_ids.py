"""Switching /model mid-session between providers whose tool-call ids differ: every request
is one the next provider accepts (strict fake servers, real HTTP, the real shell and tools)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from tests.fakes import FakeProviderServer, ToolCallSpec, Turn


def _models_file(
    pi_home: Path,
    anthropic: FakeProviderServer,
    mistral: FakeProviderServer,
    openai: FakeProviderServer,
) -> None:
    providers = {
        "fakeanth": {
            "baseUrl": anthropic.anthropic_base_url,
            "api": "anthropic-messages",
            "apiKey": "k1",
            "models": [{"id": "claude-test"}],
        },
        "fakemistral": {
            "baseUrl": mistral.openai_base_url,
            "api": "openai-completions",
            "apiKey": "k2",
            "models": [{"id": "devstral-small"}],
        },
        "fakeopenai": {
            "baseUrl": openai.openai_base_url,
            "api": "openai-completions",
            "apiKey": "k3",
            "models": [{"id": "gpt-test"}],
        },
    }
    (pi_home / "models.json").write_text(json.dumps({"providers": providers}))


async def test_switching_models_keeps_every_request_acceptable(
    tmp_path: Path, pi_home: Path
) -> None:
    (tmp_path / "a.txt").write_text("alpha")
    odd = ToolCallSpec("read", {"path": "a.txt"}, id="functions.read:0|weird id")
    with (
        FakeProviderServer(strict=True) as anthropic,
        FakeProviderServer(strict=True, mistral_ids=True) as mistral,
        FakeProviderServer(strict=True) as openai,
    ):
        _models_file(pi_home, anthropic, mistral, openai)
        anthropic.add(
            Turn(tool_calls=[ToolCallSpec("read", {"path": "a.txt"}, id="toolu_01A"), odd]),
            Turn(text="read it"),
        )
        mistral.add(
            Turn(tool_calls=[ToolCallSpec("read", {"path": "a.txt"}, id="abcDEF123")] * 2),
            Turn(text="mistral done"),
        )
        openai.add(Turn(text="openai done"))
        shell = CodingAgent(ShellOptions(cwd=tmp_path, model="fakeanth/claude-test"))
        try:
            await shell.submit("read a.txt twice")
            await shell.wait_idle()
            assert shell.messages[-1].text == "read it"
            shell.set_model("fakemistral/devstral-small")
            await shell.submit("and again")
            await shell.wait_idle()
            assert shell.messages[-1].text == "mistral done", shell.messages[-1]
            shell.set_model("fakeopenai/gpt-test")
            await shell.submit("once more")
            await shell.wait_idle()
            assert shell.messages[-1].text == "openai done"
        finally:
            await shell.aclose()
        assert not anthropic.rejected and not mistral.rejected and not openai.rejected
        # the Mistral requests carried Mistral's ids for every call, Anthropic's included
        for body in mistral.requests[:2]:
            for message in body["messages"]:
                for call in message.get("tool_calls") or []:
                    assert re.fullmatch(r"[A-Za-z0-9]{9}", call["id"])
        # the repeated Mistral id was made unique on the way in
        ids = [c.id for m in shell.messages if m.role == "assistant" for c in m.tool_calls]
        assert len(ids) == len(set(ids)) == 4
