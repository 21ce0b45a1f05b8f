"""Models of the prompting and state commands."""

from __future__ import annotations

from typing import Literal

from pi_cli.modes.rpc.schema.base import Command, ImageParam, Intent, QueueMode, Thinking

# ---------------------------------------------------------------------- prompting


class Prompt(Command):
    """Send a prompt. While pi is busy, ``streamingBehavior`` says whether it steers the live
    run or follows up after it (pi's rule); without it a busy pi refuses."""

    type: Literal["prompt"]
    message: str
    images: list[ImageParam] | None = None
    streaming_behavior: Literal["steer", "followUp"] | None = None


class Steer(Command):
    """Steer the live run: the message is injected at the start of its next turn."""

    type: Literal["steer"]
    message: str
    images: list[ImageParam] | None = None


class FollowUp(Command):
    """Queue a follow-up: handled when the live run would otherwise stop."""

    type: Literal["follow_up"]
    message: str
    images: list[ImageParam] | None = None


class Submit(Command):
    """Ours: hand input to pi as an editor does (text, a /command, a template); the response
    comes once it was handled, with what a command answered (``{result: null}`` for a prompt)."""

    type: Literal["submit"]
    message: str
    intent: Intent = "auto"
    images: list[ImageParam] | None = None


class Abort(Command):
    """Abort the input being handled (run, hooks, compaction); the queue is handed back."""

    type: Literal["abort"]


class Bash(Command):
    """Run the user's own command (pi's ``!cmd``); its output joins the context unless
    ``includeInContext`` is false (``!!cmd``)."""

    type: Literal["bash"]
    command: str
    include_in_context: bool = True


class AbortBash(Command):
    """Abort the user's running command."""

    type: Literal["abort_bash"]


# ---------------------------------------------------------------------- state


class GetState(Command):
    """pi's ``RpcSessionState``: model, thinking level, streaming, queue modes, session."""

    type: Literal["get_state"]


class GetMessages(Command):
    """The conversation the model sees."""

    type: Literal["get_messages"]


class SetModel(Command):
    """Switch the model: pi's ``provider`` + ``modelId`` (one of the available models), or
    ours: ``model``, any spec pi can resolve."""

    type: Literal["set_model"]
    provider: str | None = None
    model_id: str | None = None
    model: str | None = None


class CycleModel(Command):
    """The next model of the scoped list (``data: null`` when there is none)."""

    type: Literal["cycle_model"]


class GetAvailableModels(Command):
    """The models pi can use; ``filter``: a substring of ``provider/id``."""

    type: Literal["get_available_models"]
    filter: str | None = None


class SetThinkingLevel(Command):
    """The reasoning level of the next requests."""

    type: Literal["set_thinking_level"]
    level: Thinking


class CycleThinkingLevel(Command):
    """The next thinking level."""

    type: Literal["cycle_thinking_level"]


class SetSteeringMode(Command):
    """How steers are delivered: all at once or one per turn."""

    type: Literal["set_steering_mode"]
    mode: QueueMode


class SetFollowUpMode(Command):
    """How follow-ups are delivered: all at once or one per run."""

    type: Literal["set_follow_up_mode"]
    mode: QueueMode


class SetAutoCompaction(Command):
    """Automatic compaction on or off."""

    type: Literal["set_auto_compaction"]
    enabled: bool


class SetAutoRetry(Command):
    """Automatic retry of transient provider errors on or off."""

    type: Literal["set_auto_retry"]
    enabled: bool


class AbortRetry(Command):
    """Stop waiting for a retry."""

    type: Literal["abort_retry"]


class GetSessionStats(Command):
    """Message counts, tokens, cost and context usage."""

    type: Literal["get_session_stats"]


class GetContext(Command):
    """What fills the context window: the system prompt's parts, tools, messages, free space."""

    type: Literal["get_context"]


class GetLastAssistantText(Command):
    """The text of the last answer."""

    type: Literal["get_last_assistant_text"]


class GetCommands(Command):
    """Prompt templates and skills, as pi lists them."""

    type: Literal["get_commands"]
