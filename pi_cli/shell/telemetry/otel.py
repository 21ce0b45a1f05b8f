"""The OpenTelemetry side: spans and metrics from shell events, GenAI semantic conventions.

Spans: ``invoke_agent pi`` for a run, ``turn`` for each turn under it, ``chat <model>`` for each
model call and ``execute_tool <name>`` for each tool call under their turn; permission questions
and answers are events on the tool's span. Attributes follow the GenAI conventions
(``gen_ai.operation.name``, ``gen_ai.provider.name``, ``gen_ai.request.model``,
``gen_ai.usage.input_tokens``/``output_tokens``, ``gen_ai.response.finish_reasons``,
``gen_ai.tool.name``/``gen_ai.tool.call.id``, ``error.type``) plus ``pi.*`` ones where none
exists (cost, cache writes, permission outcomes). Metrics: ``gen_ai.client.token.usage`` and
``gen_ai.client.operation.duration`` histograms, ``pi.cost.usd``, ``pi.tool.calls`` and
``pi.permission.decisions`` counters.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, Status, StatusCode

DEFAULT_ENDPOINT = "http://localhost:4318"
MAX_ATTRIBUTE = 16_000  # a long prompt or tool output is cut (opt-in attributes only)


def _endpoint(configured: str | None) -> str:
    base = configured or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or DEFAULT_ENDPOINT
    return base.rstrip("/")


class Telemetry:
    """Turns :data:`pi_cli.shell.events.ShellEvent` s into spans and metrics, exported by OTLP."""

    def __init__(self, settings: Any) -> None:
        self.log_prompts = bool(settings.log_prompts)
        endpoint = _endpoint(settings.endpoint)
        headers = dict(settings.headers)
        from pi_cli import __version__ as version

        resource = Resource.create(
            {"service.name": settings.service_name, "service.version": version}
        )
        self.tracer_provider = TracerProvider(resource=resource)
        self.tracer_provider.add_span_processor(
            BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces", headers=headers))
        )
        self.tracer = self.tracer_provider.get_tracer("pi")
        reader = PeriodicExportingMetricReader(
            OTLPMetricExporter(endpoint=f"{endpoint}/v1/metrics", headers=headers),
            export_interval_millis=settings.metrics_interval_s * 1000,
        )
        self.meter_provider = MeterProvider(resource=resource, metric_readers=[reader])
        meter = self.meter_provider.get_meter("pi")
        self.tokens = meter.create_histogram(
            "gen_ai.client.token.usage", unit="{token}", description="Tokens per model call"
        )
        self.duration = meter.create_histogram(
            "gen_ai.client.operation.duration", unit="s", description="Model call duration"
        )
        self.cost = meter.create_counter("pi.cost.usd", unit="USD", description="Model cost")
        self.tool_calls = meter.create_counter("pi.tool.calls", description="Tool calls")
        self.decisions = meter.create_counter(
            "pi.permission.decisions", description="Permission questions and their answers"
        )
        self.run: Span | None = None
        self.turn: Span | None = None
        self.turn_index = 0
        self.chat: tuple[Span, float] | None = None
        self.tools: dict[str, Span] = {}
        self.model = ""
        self._closed = False

    # ------------------------------------------------------------------ events

    def on_event(self, event: Any) -> None:
        """One shell event (every event the shell emits comes here)."""
        handler = getattr(self, f"_on_{getattr(event, 'type', '')}", None)
        if handler is not None:
            handler(event)

    def _child(self, name: str, parent: Span | None, **attributes: Any) -> Span:
        context = trace.set_span_in_context(parent) if parent is not None else None
        return self.tracer.start_span(name, context=context, attributes=attributes)

    def _on_agent_start(self, event: Any) -> None:
        self.turn_index = 0
        self.run = self._child(
            "invoke_agent pi",
            None,
            **{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "pi"},
        )

    def _on_agent_end(self, event: Any) -> None:
        for span in self.tools.values():
            span.end()
        self.tools.clear()
        self._end_turn()
        if self.run is not None:
            if event.error_message:
                self.run.set_status(Status(StatusCode.ERROR, event.error_message[:500]))
            self.run.end()
            self.run = None

    def _on_turn_start(self, event: Any) -> None:
        self._end_turn()
        self.turn_index += 1
        self.turn = self._child("turn", self.run, **{"pi.turn.index": self.turn_index})

    def _on_turn_end(self, event: Any) -> None:
        self._end_turn()

    def _end_turn(self) -> None:
        if self.turn is not None:
            self.turn.end()
            self.turn = None

    def _on_message_start(self, event: Any) -> None:
        message = event.message
        if message.role == "user" and self.run is not None and self.log_prompts:
            self.run.set_attribute("gen_ai.input.messages", _cut(_messages([message])))
        if message.role != "assistant":
            return
        self.model = message.model or self.model
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": message.provider,
            "gen_ai.request.model": message.model,
        }
        parent = self.turn or self.run
        self.chat = (self._child(f"chat {message.model}", parent, **attributes), time.monotonic())

    def _on_message_end(self, event: Any) -> None:
        message = event.message
        if message.role != "assistant" or self.chat is None:
            return
        span, started = self.chat
        self.chat = None
        usage = message.usage
        input_tokens = usage.input + usage.cache_read + usage.cache_write
        span.set_attributes(
            {
                "gen_ai.response.model": message.model,
                "gen_ai.response.finish_reasons": [message.stop_reason],
                "gen_ai.usage.input_tokens": input_tokens,
                "gen_ai.usage.output_tokens": usage.output,
                "gen_ai.usage.cache_read.input_tokens": usage.cache_read,
                "gen_ai.usage.cache_creation.input_tokens": usage.cache_write,
                "pi.cost.usd": usage.cost.total,
            }
        )
        if self.log_prompts:
            span.set_attribute("gen_ai.output.messages", _cut(_messages([message])))
        if message.stop_reason in ("error", "aborted"):
            span.set_attribute("error.type", message.stop_reason)
            span.set_status(Status(StatusCode.ERROR, (message.error_message or "")[:500]))
        span.end()
        common = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": message.provider,
            "gen_ai.request.model": message.model,
        }
        self.duration.record(time.monotonic() - started, common)
        self.tokens.record(input_tokens, {**common, "gen_ai.token.type": "input"})
        self.tokens.record(usage.output, {**common, "gen_ai.token.type": "output"})
        if usage.cost.total:
            self.cost.add(usage.cost.total, common)

    def _on_tool_execution_start(self, event: Any) -> None:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": event.tool_name,
            "gen_ai.tool.call.id": event.tool_call_id,
        }
        if self.log_prompts:
            attributes["gen_ai.tool.call.arguments"] = _cut(_json(event.args))
        parent = self.turn or self.run
        self.tools[event.tool_call_id] = self._child(
            f"execute_tool {event.tool_name}", parent, **attributes
        )

    def _on_tool_execution_end(self, event: Any) -> None:
        span = self.tools.pop(event.tool_call_id, None)
        self.tool_calls.add(1, {"gen_ai.tool.name": event.tool_name, "error": bool(event.is_error)})
        if span is None:
            return
        if self.log_prompts:
            span.set_attribute("gen_ai.tool.call.result", _cut(event.result.text))
        if event.is_error:
            span.set_attribute("error.type", "tool_error")
            span.set_status(Status(StatusCode.ERROR))
        span.end()

    def _on_permission_requested(self, event: Any) -> None:
        span = self.tools.get(event.tool_call_id) or self.turn or self.run
        attributes = {"pi.permission.tool": event.tool_name, "pi.permission.reason": event.reason}
        if span is not None:
            span.add_event("pi.permission.requested", attributes)
        self.decisions.add(
            1, {"pi.permission.outcome": "asked", "gen_ai.tool.name": event.tool_name}
        )

    def _on_permission_resolved(self, event: Any) -> None:
        outcome = "allowed" if event.allowed else "denied"
        attributes = {"pi.permission.outcome": outcome, "pi.permission.by": event.by}
        if event.choice:
            attributes["pi.permission.choice"] = str(event.choice)
        for span in self.tools.values():
            span.add_event("pi.permission.resolved", attributes)
            break
        self.decisions.add(1, attributes)

    # ------------------------------------------------------------------ end

    def shutdown(self) -> None:
        """End open spans, export what is left and stop the exporters (once)."""
        if self._closed:
            return
        self._closed = True
        for span in self.tools.values():
            span.end()
        self._end_turn()
        if self.run is not None:
            self.run.end()
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


def _messages(messages: list[Any]) -> str:
    return _json([m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in messages])


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_ATTRIBUTE else text[: MAX_ATTRIBUTE - 1] + "…"
