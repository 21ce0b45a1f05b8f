"""What the model reads about every tool, checked in: a change to it shows up in review.

``tests/tools/model_facing.json`` holds each tool's name, description, JSON schema (as sent to
the provider), the system prompt's summary line and its guideline. After a deliberate change:
``make snapshot-update`` (or ``pytest tests/tools -k snapshot --snapshot-update``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_core import tool_spec
from tools import TOOL_FACTORIES, create_tools

SNAPSHOT = Path(__file__).with_name("model_facing.json")


def model_facing(tmp_path: Path) -> list[dict[str, Any]]:
    out = []
    for tool in create_tools(list(TOOL_FACTORIES), tmp_path):
        spec = tool_spec(tool)
        out.append(
            {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.parameters,
                "summary": tool.summary,
                "guideline": tool.guideline,
            }
        )
    return out


def test_model_facing_descriptions_snapshot(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    current = json.dumps(model_facing(tmp_path), indent=2, ensure_ascii=False) + "\n"
    if request.config.getoption("--snapshot-update", default=False):
        SNAPSHOT.write_text(current, encoding="utf-8")
    stored = SNAPSHOT.read_text(encoding="utf-8") if SNAPSHOT.exists() else ""
    assert current == stored, (
        "What the model reads about the tools changed. Review the diff, then run "
        "`make snapshot-update` to accept it."
    )


def test_every_field_the_model_reads_is_described(tmp_path: Path) -> None:
    def walk(schema: dict[str, Any], defs: dict[str, Any], where: str) -> None:
        for name, prop in schema.get("properties", {}).items():
            ref = prop.get("$ref") or prop.get("items", {}).get("$ref")
            if ref:
                walk(defs[ref.rsplit("/", 1)[-1]], defs, f"{where}.{name}")
            assert prop.get("description"), f"{where}.{name} has no description"

    for entry in model_facing(tmp_path):
        schema = entry["parameters"]
        walk(schema, schema.get("$defs", {}), entry["name"])
        assert entry["summary"] and "\n" not in entry["summary"]
