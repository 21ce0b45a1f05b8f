"""Before a run starts: what extensions may change about it (pi-ts's ``before_agent_start``).

A prompt that is about to start a run (after input hooks, commands and templates) goes through
``shell.run_preparers`` in order; each may change the :class:`RunStart`: the prompt's text, the
system prompt of this run only, messages added after the prompt. With none (no extension
handles ``before_agent_start``) nothing is built beyond the prompt itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from agent_core import Agent, ImageContent, Message, user_message


@dataclass
class RunStart:
    """The run about to start, as preparers may change it."""

    prompt: str
    images: list[ImageContent]
    system_prompt: str
    messages: list[Message] = field(default_factory=list)
    """Added after the prompt (kept in the session like it)."""


RunPreparer = Callable[[RunStart], Awaitable[None]]


@asynccontextmanager
async def prepared_run(
    agent: Agent, preparers: list[RunPreparer], text: str, images: list[ImageContent]
) -> AsyncIterator[list[Message]]:
    """The messages that start the run; the system prompt a preparer chose holds inside."""
    start = RunStart(text, list(images), agent.system_prompt)
    for prepare in list(preparers):
        await prepare(start)
    prompts: list[Message] = [user_message(start.prompt, start.images or None), *start.messages]
    original, chosen = agent.system_prompt, start.system_prompt
    agent.system_prompt = chosen
    try:
        yield prompts
    finally:
        if agent.system_prompt == chosen:  # not rebuilt meanwhile (a tool list changed)
            agent.system_prompt = original
