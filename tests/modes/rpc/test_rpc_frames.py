"""Malformed lines and hostile command fields against a real RPC process: every line that
carries a command gets a response (an error when it is wrong), nothing ends the server, and a
prompt after the whole corpus still runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.modes.rpc.test_rpc import RpcClient, is_event
from tests.modes.rpc.test_rpc import scripted_client as scripted_client

RAW_LINES = [
    b"[]",
    b"5",
    b"null",
    b'"prompt"',
    b"{",
    b"\xff\xfe not utf-8",
    b"[" * 100_000,
    b"{}",
    b'{"type": 5}',
    b'{"type": null, "id": "x"}',
    b'{"type": ["prompt"]}',
    b'{"type": "get_state", "id": 1e999}',
]

COMMANDS = (
    "abort abort_bash abort_retry bash compact cycle_model cycle_thinking_level edit_queued "
    "export_html follow_up fork get_available_models get_commands get_context get_fork_messages "
    "get_last_assistant_text get_messages get_queue get_session_stats get_state move_queued "
    "new_session promote_queued prompt remove_queued set_auto_compaction set_auto_retry "
    "set_follow_up_mode set_model set_session_name set_steering_mode set_thinking_level steer "
    "switch_session take_queued extension_ui_response"
).split()
FIELDS = (
    "message text command path sessionPath entryId index level mode model provider name "
    "enabled images id from to value confirmed cancelled"
).split()
HOSTILE: list[Any] = [None, 5, -1, 1e308, True, [], {}, {"a": [1]}, [[[]]], 2**80]


def test_hostile_frames_and_fields_never_end_the_server(
    scripted_client: Callable[[list[dict]], RpcClient],
) -> None:
    client = scripted_client([{"text": "still here"}])
    for line in RAW_LINES:
        client.send_raw(line + b"\n")
        assert client.wait_for(is_event("response"))["success"] is False
    answered = 0
    for command in COMMANDS:
        for index, value in enumerate(HOSTILE):
            request_id = f"{command}-{index}"
            fields = {field: value for field in FIELDS if field != "id"}
            client.send({"type": command, "id": request_id, **fields})
            response = client.wait_for(
                lambda x, wanted=request_id: x.get("type") == "response" and x.get("id") == wanted
            )
            assert "Unknown command" not in str(response.get("error")), command
            answered += 1
    assert answered == len(COMMANDS) * len(HOSTILE)
    state = client.request({"type": "get_state", "id": "s"})
    assert state["success"] is True
    client.request({"type": "abort", "id": "a"})
    client.request({"type": "new_session", "id": "n"})
    assert client.request({"type": "prompt", "id": "p", "message": "hi"})["success"]
    end = client.wait_for(is_event("agent_end"))
    assert "still here" in json.dumps(end)
    assert client.close() == 0
    for raw in client.raw:  # every line pi wrote is standard JSON (no NaN or Infinity)
        json.loads(raw, parse_constant=_not_json)


def _not_json(name: str) -> None:
    raise AssertionError(f"pi wrote {name}, which is not JSON")
