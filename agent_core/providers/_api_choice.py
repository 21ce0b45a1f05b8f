"""Which API OpenAI's own endpoint is spoken to with: Chat Completions or Responses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

from agent_core.providers.catalog import ModelConfigError

OpenAiApi = Literal["auto", "completions", "responses"]
OPENAI_APIS: Final[tuple[OpenAiApi, ...]] = ("auto", "completions", "responses")


def speaks_responses(
    provider: str, entry: Mapping[str, object] | None, setting: str, env: Mapping[str, str]
) -> bool:
    """True when ``provider``'s model is to use the Responses API.

    Only the ``openai`` provider has a choice: ``setting`` (``openaiApi``), else
    ``PI_OPENAI_API``, else the catalogue (``mode: responses``: models OpenAI serves only there).
    """
    if provider != "openai":
        return False
    chosen = setting if setting != "auto" else env.get("PI_OPENAI_API") or "auto"
    chosen = chosen.strip().lower()
    if chosen not in OPENAI_APIS:
        raise ModelConfigError(
            f"Unknown OpenAI API {chosen!r}: use one of auto, completions, responses "
            "(the openaiApi setting or PI_OPENAI_API)."
        )
    if chosen == "auto":
        return bool(entry) and entry is not None and entry.get("mode") == "responses"
    return chosen == "responses"
