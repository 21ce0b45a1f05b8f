"""Model providers an extension implements (pi-ts's ``registerProvider`` with its own stream):
``pi.register_provider("my-llm", stream, models=["fast", "smart"])`` where ``stream`` is an
agent_core :class:`~agent_core.StreamFn` (``async def stream(context, options)`` yielding
assistant-stream events, then the final ``AssistantMessage``).

``--model my-llm/fast`` and ``/model my-llm/fast`` select one. Model specs are resolved before
extensions load, so pi finds an extension's providers in the extensions' cache when a spec names
no provider pi knows (nothing is read otherwise); the stream function pi uses then loads the
extension when the first request goes out. The extension's stream runs on the extension's own
thread; its items are carried over to pi's loop one by one. One that raises ends the request
with an error (the model's turn ends, the run goes on) and the extension is disabled.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from pi_cli.shell.extensions.runtime import Extensions

if TYPE_CHECKING:
    from agent_core import LlmContext, StreamOptions

_DONE = object()


class ProviderFailed(Exception):
    """The extension's stream raised (its message says which extension and what)."""


async def run_provider(
    extensions: Extensions, provider: str, context: LlmContext, options: StreamOptions
) -> AsyncIterator[Any]:
    """Stream ``options.model`` of ``provider`` through the extension that registered it."""
    ext = next(
        (
            e
            for e in extensions.usable()
            if provider in e.registration.providers
            or (e.state == "cached" and e.manifest and provider in e.manifest.provider_names)
        ),
        None,
    )
    if ext is None or not await extensions.ensure(ext):
        raise ProviderFailed(f"no extension provides {provider!r} now")
    stream = ext.registration.providers.get(provider)
    if stream is None:
        raise ProviderFailed(f"extension {ext.name} no longer provides {provider!r}")
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()

    async def pump() -> None:  # on the extension's loop
        try:
            async for item in stream.function(context, options):
                loop.call_soon_threadsafe(queue.put_nowait, item)
        except BaseException as exc:  # noqa: BLE001 - handed over to pi's loop, said there
            loop.call_soon_threadsafe(queue.put_nowait, exc)
        else:
            loop.call_soon_threadsafe(queue.put_nowait, _DONE)

    future = ext.worker.run(pump)
    try:
        while (item := await queue.get()) is not _DONE:
            if isinstance(item, asyncio.CancelledError):
                raise ProviderFailed(f"extension {ext.name}'s stream was cancelled")
            if isinstance(item, BaseException):
                extensions.fail(ext, f"provider {provider} raised {type(item).__name__}: {item}")
                raise ProviderFailed(f"extension {ext.name}: {type(item).__name__}: {item}")
            yield item
    finally:
        future.cancel()  # the request was aborted (Esc) or ended: the extension's stream stops
