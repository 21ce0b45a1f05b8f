"""Event names every part of the extension machinery agrees on (a leaf: it imports nothing, so
the modules a start-up needs do not load the event classes of :mod:`.api`)."""

from __future__ import annotations

EVENT_ALIASES = {"tool_call": "before_tool_call", "tool_result": "after_tool_call"}
"""pi-ts's event names, accepted as ours."""
DECISION_EVENTS = frozenset(
    {
        "input",
        "before_agent_start",
        "before_tool_call",
        "after_tool_call",
        "before_provider_request",
        "after_provider_response",
        "context",
        "session_start",
        "session_shutdown",
    }
)
"""Events a handler's answer can change something in (the others are notifications)."""
DERIVED_EVENTS = frozenset(
    {"session_switch", "session_fork", "session_tree", "session_compact", "model_select"}
)
"""pi-ts's lifecycle notifications, derived from the shell's events (``session_changed`` by its
reason, ``compaction_end``, ``model_changed``)."""
BUS_PREFIX = "bus:"
"""Handlers of :class:`~.bus.EventBus` events are kept under this prefix (never ``*``'s)."""
