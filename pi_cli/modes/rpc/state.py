"""RPC state and settings: ``get_state``, the model and thinking commands, queue modes,
automatic compaction and retry, statistics, the last answer and the available commands."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_cli.modes.rpc.base import (
    JSON_NULL,
    Handler,
    RpcContext,
    RpcError,
    bool_arg,
    choice_arg,
    text_arg,
)
from pi_cli.modes.rpc.views import commands_of, messages_of, session_stats, state_of
from pi_cli.shell import THINKING_LEVELS

QUEUE_MODES = ("all", "one-at-a-time")


def state_commands(rpc: RpcContext) -> Mapping[str, Handler]:
    """The state group."""
    shell = rpc.shell

    async def get_state(command: dict[str, Any]) -> Any:
        return state_of(shell)

    async def get_messages(command: dict[str, Any]) -> Any:
        return {"messages": messages_of(shell)}

    async def set_model(command: dict[str, Any]) -> Any:
        await rpc.settle()
        spec = command.get("model")  # ours: any spec pi can resolve, unchecked
        if command.get("modelId") is not None:  # pi's form: one of the available models
            model_id, provider = text_arg(command, "modelId"), text_arg(command, "provider")
            models = await shell.controls.available_models()
            if not any((m["provider"], m["id"]) == (provider, model_id) for m in models):
                raise RpcError(f"Model not found: {provider}/{model_id}")
            spec = f"{provider}/{model_id}"
        if not isinstance(spec, str) or not spec:
            raise RpcError('"provider" and "modelId" are required')
        shell.set_model(spec)
        return shell.controls.model_info()

    async def cycle_model(command: dict[str, Any]) -> Any:
        await rpc.settle()
        model = await shell.controls.cycle_model()
        if model is None:
            return JSON_NULL
        return {"model": model, "thinkingLevel": shell.thinking, "isScoped": False}

    async def get_available_models(command: dict[str, Any]) -> Any:
        needle = command.get("filter")  # ours: a substring of provider/id
        try:
            models = await shell.controls.available_models()
        except Exception as exc:  # noqa: BLE001 - a bad models.json carries a user-facing message
            raise RpcError(str(exc)) from None
        if isinstance(needle, str) and needle.strip():
            wanted = needle.strip().lower()
            models = [m for m in models if wanted in f"{m['provider']}/{m['id']}".lower()]
        return {"models": models}

    async def set_thinking_level(command: dict[str, Any]) -> Any:
        shell.set_thinking(choice_arg(command, "level", THINKING_LEVELS))

    async def cycle_thinking_level(command: dict[str, Any]) -> Any:
        level = shell.controls.cycle_thinking()
        return JSON_NULL if level is None else {"level": level}

    async def set_steering_mode(command: dict[str, Any]) -> Any:
        shell.queue.steering_mode = choice_arg(command, "mode", QUEUE_MODES)  # type: ignore[assignment]

    async def set_follow_up_mode(command: dict[str, Any]) -> Any:
        shell.queue.follow_up_mode = choice_arg(command, "mode", QUEUE_MODES)  # type: ignore[assignment]

    async def set_auto_compaction(command: dict[str, Any]) -> Any:
        shell.controls.set_auto_compaction(bool_arg(command))

    async def set_auto_retry(command: dict[str, Any]) -> Any:
        shell.controls.set_auto_retry(bool_arg(command))

    async def abort_retry(command: dict[str, Any]) -> Any:
        shell.controls.abort_retry()

    async def get_session_stats(command: dict[str, Any]) -> Any:
        return session_stats(shell)

    async def get_last_assistant_text(command: dict[str, Any]) -> Any:
        for message in reversed(shell.messages):
            if message.role == "assistant":
                return {"text": message.text}
        return {}  # as pi: no "text" at all (the client reads undefined)

    async def get_context(command: dict[str, Any]) -> Any:
        from pi_cli.shell import context_report

        return context_report(shell).wire()

    async def get_commands(command: dict[str, Any]) -> Any:
        return {"commands": commands_of(shell)}

    return {
        "get_state": get_state,
        "get_messages": get_messages,
        "set_model": set_model,
        "cycle_model": cycle_model,
        "get_available_models": get_available_models,
        "set_thinking_level": set_thinking_level,
        "cycle_thinking_level": cycle_thinking_level,
        "set_steering_mode": set_steering_mode,
        "set_follow_up_mode": set_follow_up_mode,
        "set_auto_compaction": set_auto_compaction,
        "set_auto_retry": set_auto_retry,
        "abort_retry": abort_retry,
        "get_session_stats": get_session_stats,
        "get_last_assistant_text": get_last_assistant_text,
        "get_commands": get_commands,
        "get_context": get_context,
    }
