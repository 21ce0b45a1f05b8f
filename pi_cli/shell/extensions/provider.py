"""Provider requests through the extensions: inspect or rewrite a request, route it elsewhere.

The shell sets :meth:`ProviderHooks.middleware` as the agent's stream middleware. When no
extension handles ``before_provider_request`` or ``after_provider_response`` it hands the stream
function back unchanged (nothing added to a turn). Otherwise each model request first goes to the
``before_provider_request`` handlers (a :class:`~.api.ProviderRequestEvent` they may change: the
system prompt, messages, tool schemas, thinking level, output limit, and ``model`` to send the
request to another model), then streams, and its final message goes to the
``after_provider_response`` handlers (which may replace it). A handler that fails is disabled;
the request goes on as it was.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

from agent_core import AssistantMessage, LlmContext, StreamFn, StreamOptions, ToolSpec
from pi_cli.shell.extensions.dispatch import Dispatcher
from pi_cli.shell.extensions.runtime import CallFailed

if TYPE_CHECKING:
    from pi_cli.shell.extensions.api import ProviderRequestEvent

Route = Callable[[str], tuple[StreamFn, str]]
"""A model spec -> (its stream function, the model id it reports); raises with a message."""
FIELDS = ("model", "system_prompt", "messages", "tools", "thinking", "max_tokens")


class ProviderHooks:
    """The request and response handlers of one shell's extensions."""

    def __init__(self, dispatcher: Dispatcher, route: Route | None) -> None:
        self.dispatcher = dispatcher
        self.route = route

    @property
    def active(self) -> bool:
        """Some extension handles provider requests or responses."""
        return bool(
            self.dispatcher.handling("before_provider_request")
            or self.dispatcher.handling("after_provider_response")
        )

    def middleware(self, inner: StreamFn) -> StreamFn:
        """``inner``, or it wrapped in the handlers when there are any."""
        if not self.active:
            return inner

        def stream(context: LlmContext, options: StreamOptions) -> AsyncIterator[Any]:
            return self._stream(inner, context, options)

        return stream

    async def _stream(
        self, inner: StreamFn, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[Any]:
        from pi_cli.shell.extensions.api import ProviderRequestEvent  # with the first request

        await self.dispatcher.start()
        event = ProviderRequestEvent(
            model=options.model,
            system_prompt=context.system_prompt,
            messages=list(context.messages),
            tools=[
                {"name": t.name, "description": t.description, "parameters": t.parameters}
                for t in context.tools
            ],
            thinking=options.thinking,
            max_tokens=options.max_tokens,
        )
        await self._before(event)
        stream_fn, model = inner, options.model
        if event.model != options.model:
            stream_fn, model = self._routed(event.model, inner, options.model)
        request = LlmContext(
            system_prompt=event.system_prompt,
            messages=list(event.messages),
            tools=[
                ToolSpec(
                    str(t["name"]), str(t.get("description", "")), dict(t.get("parameters") or {})
                )
                for t in event.tools
            ],
        )
        sent = dataclasses.replace(
            options, model=model, thinking=event.thinking, max_tokens=event.max_tokens
        )
        async for item in stream_fn(request, sent):
            if isinstance(item, AssistantMessage):
                yield await self._after(model, item)
                return
            yield item

    def _routed(self, spec: str, inner: StreamFn, current: str) -> tuple[StreamFn, str]:
        if self.route is None:
            return inner, current
        try:
            return self.route(spec)
        except Exception as exc:  # noqa: BLE001 - a bad route is said; the request goes as it was
            self.dispatcher.extensions.notify(
                f"An extension routed a request to {spec}: {exc}; sent to {current} instead.",
                "warning",
            )
            return inner, current

    async def _before(self, event: ProviderRequestEvent) -> None:
        extensions = self.dispatcher.extensions
        for ext in self.dispatcher.handling("before_provider_request"):
            if not await extensions.ensure(ext):
                continue
            for handler in ext.handlers("before_provider_request"):
                try:
                    result = await extensions.call(ext, "before_provider_request", handler, event)
                except CallFailed:
                    break
                if isinstance(result, Mapping):
                    for key in FIELDS:
                        if key in result:
                            setattr(event, key, result[key])

    async def _after(self, model: str, message: AssistantMessage) -> AssistantMessage:
        from pi_cli.shell.extensions.api import ProviderResponseEvent

        extensions = self.dispatcher.extensions
        for ext in self.dispatcher.handling("after_provider_response"):
            if not await extensions.ensure(ext):
                continue
            for handler in ext.handlers("after_provider_response"):
                event = ProviderResponseEvent(model, message.model_copy(deep=True))
                try:
                    result = await extensions.call(ext, "after_provider_response", handler, event)
                except CallFailed:
                    break
                if isinstance(result, AssistantMessage):
                    message = result
        return message
