"""A local OTLP/HTTP receiver: decodes the protobuf exports of traces and metrics.

``with OtlpReceiver() as otlp: otlp.url`` -> ``http://127.0.0.1:PORT``; ``otlp.spans()`` the
spans received (name, attributes, events, ids), ``otlp.metric_names()`` the metrics' names.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        self.server.owner.received.append((self.path, dict(self.headers), body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


class OtlpReceiver:
    """Collects what OTLP exporters send to it."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, str], bytes]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.owner = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def spans(self) -> list[dict[str, Any]]:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        out = []
        for path, _, body in self.received:
            if path != "/v1/traces":
                continue
            request = ExportTraceServiceRequest.FromString(body)
            for resource in request.resource_spans:
                service = {a.key: _value(a.value) for a in resource.resource.attributes}
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        out.append(
                            {
                                "name": span.name,
                                "id": span.span_id.hex(),
                                "parent": span.parent_span_id.hex(),
                                "trace": span.trace_id.hex(),
                                "attributes": {a.key: _value(a.value) for a in span.attributes},
                                "events": [
                                    (e.name, {a.key: _value(a.value) for a in e.attributes})
                                    for e in span.events
                                ],
                                "status": span.status.code,
                                "duration_ns": span.end_time_unix_nano - span.start_time_unix_nano,
                                "resource": service,
                            }
                        )
        return out

    def metric_names(self) -> set[str]:
        from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
            ExportMetricsServiceRequest,
        )

        names = set()
        for path, _, body in self.received:
            if path != "/v1/metrics":
                continue
            request = ExportMetricsServiceRequest.FromString(body)
            for resource in request.resource_metrics:
                for scope in resource.scope_metrics:
                    names.update(metric.name for metric in scope.metrics)
        return names
