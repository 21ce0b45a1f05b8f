"""Model providers extensions implement: ``--model echo/parrot`` (``examples/extensions``'s
``echo_provider``) at start (from the extensions' cache) and ``/model`` later; a provider whose
stream raises ends that request with an error and is disabled, the run goes on."""

from __future__ import annotations

import json
from pathlib import Path

from pi_cli.shell import CodingAgent, ConfigError, Notice, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream
from tests.shell.extensions.helpers import texts, write_extension

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "extensions"


def shell_on(project: Path, model: str, notices: list[Notice] | None = None) -> CodingAgent:
    shell = CodingAgent(ShellOptions(cwd=project, model=model, persist_session=False, tools=[]))
    if notices is not None:
        shell.subscribe(lambda e: notices.append(e) if isinstance(e, Notice) else None)
    return shell


async def test_model_echo_parrot_streams_through_the_extension(
    project: Path, pi_home: Path
) -> None:
    (pi_home / "settings.json").write_text(
        json.dumps({"extensions": [str(EXAMPLES / "echo_provider.py")]})
    )
    try:
        shell_on(project, "echo/parrot")
    except ConfigError as exc:  # never loaded: pi cannot know the provider yet
        assert 'Unknown provider "echo"' in str(exc)
    else:
        raise AssertionError("an unknown provider was accepted")
    seed = CodingAgent(ShellOptions(cwd=project, stream_fn=ScriptedStream(), persist_session=False))
    await seed.aclose()  # any start loads it: its registrations are cached
    shell = shell_on(project, "echo/parrot")
    assert shell.model_id == "echo/parrot"
    assert shell.extensions is not None
    assert shell.extensions.runtime.items["echo_provider"].state == "cached"  # not imported yet
    await shell.submit("hello there")
    answer = shell.messages[-1]
    assert answer.role == "assistant" and answer.text.strip() == "You said: hello there"
    result = await shell.submit("/model echo/nonexistent")
    assert result is not None and result.error
    await shell.aclose()


async def test_a_provider_that_raises_ends_the_request_and_is_disabled(
    project: Path, pi_home: Path
) -> None:
    write_extension(
        pi_home / "extensions",
        "broken_llm",
        """
        def register(pi):
            async def stream(context, options):
                raise RuntimeError("upstream exploded")
                yield  # an async generator
            pi.register_provider("broken", stream, models=["m1"])
        """,
    )
    seed = CodingAgent(ShellOptions(cwd=project, stream_fn=ScriptedStream(), persist_session=False))
    await seed.aclose()
    notices: list[Notice] = []
    shell = shell_on(project, "broken/m1", notices)
    await shell.submit("hi")
    assert "Extension broken_llm provider broken raised RuntimeError: upstream exploded" in texts(
        notices
    )
    assert shell.extensions is not None
    assert shell.extensions.runtime.items["broken_llm"].state == "disabled"
    await shell.aclose()
