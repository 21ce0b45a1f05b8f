"""Retries for transient failures (429, 5xx, 529/overloaded) with backoff honouring Retry-After."""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from agent_core.abort import Aborted, run_abortable
from agent_core.providers.errors import ProviderError
from agent_core.stream import RetryNotice, StreamOptions

T = TypeVar("T")


@dataclass
class RetryConfig:
    """How to retry. Delay for retry n (1-based) is ``base_delay_s * 2**(n-1)``, capped.

    A server's ``Retry-After`` wins over the computed delay; if it asks for more than
    ``max_delay_s`` we fail at once rather than hang. ``sleep`` is injectable for tests.
    """

    max_retries: int = 3
    base_delay_s: float = 2.0
    max_delay_s: float = 60.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, repr=False)

    def delay(self, attempt: int) -> float:
        """Backoff before retry ``attempt`` (1-based)."""
        return min(self.base_delay_s * 2.0 ** (attempt - 1), self.max_delay_s)


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``retry-after`` (seconds or HTTP date)."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms:
        try:
            return max(float(raw_ms) / 1000, 0.0)
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if not raw:
        return None
    try:
        return max(float(raw), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _notify(callback: Callable[..., None] | None, *args: object) -> None:
    if callback is None:
        return
    try:
        callback(*args)
    except Exception:  # noqa: BLE001 - a UI callback must never break the request
        pass


async def with_retries(
    attempt_fn: Callable[[], Awaitable[T]],
    retry: RetryConfig,
    options: StreamOptions,
) -> T:
    """Call ``attempt_fn`` until it succeeds or fails for good.

    ``attempt_fn`` raises :class:`ProviderError` (with ``retryable``/``retry_after``) on failure.
    Calls ``options.on_retry`` before each wait and ``options.on_retry_end`` once a retried
    sequence ends (success, attempts made, final error or None).
    """
    attempt = 0
    while True:
        try:
            result = await attempt_fn()
        except ProviderError as error:
            delay = error.retry_after if error.retry_after is not None else retry.delay(attempt + 1)
            if not error.retryable or attempt >= retry.max_retries or delay > retry.max_delay_s:
                if error.retryable and delay > retry.max_delay_s:
                    error.message += f" (server asked to wait {delay:.0f}s; not retrying)"
                elif attempt > 0:
                    error.message += (
                        f" (gave up after {attempt} {'retry' if attempt == 1 else 'retries'})"
                    )
                if attempt > 0:
                    _notify(options.on_retry_end, False, attempt, error.message)
                raise
            attempt += 1
            _notify(options.on_retry, RetryNotice(attempt, retry.max_retries, delay, error.message))
            try:
                # The attempt no longer runs inside the transport's abortable pump: watch the signal.
                await run_abortable(retry.sleep(delay), options.cancel)
            except (asyncio.CancelledError, Aborted):
                _notify(options.on_retry_end, False, attempt, "aborted")
                raise
            continue
        except (asyncio.CancelledError, Aborted):
            if attempt > 0:
                _notify(options.on_retry_end, False, attempt, "aborted")
            raise
        if attempt > 0:
            _notify(options.on_retry_end, True, attempt, None)
        return result
