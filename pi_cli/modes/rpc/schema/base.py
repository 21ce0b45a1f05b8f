"""The fields every RPC command may carry, and the shapes commands share."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from agent_core import skip_pydantic_plugin_discovery

skip_pydantic_plugin_discovery()  # before the first model is built (~15 ms of start-up)

RequestId = str | int | None


class Command(BaseModel):
    """Fields every command may carry."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        strict=True,
        defer_build=True,
    )
    type: str
    id: RequestId = Field(default=None, description="Echoed in the response.")


class ImageParam(BaseModel):
    """pi's image input: base64 data and an ``image/*`` MIME type."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, strict=True)
    type: Literal["image"] = "image"
    data: str = Field(description="Base64 image bytes.")
    mime_type: str = Field(description="image/png, image/jpeg, image/gif or image/webp.")


Intent = Literal["auto", "steer", "follow_up"]
QueueMode = Literal["all", "one-at-a-time"]
Thinking = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
