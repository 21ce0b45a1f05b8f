"""Hello: the smallest custom tool (the TypeScript pi's ``hello.ts``).

The model sees a ``hello`` tool taking a ``name``; it answers with a greeting and keeps the name
in the result's details (what a front end may show).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from pi_cli.shell.extensions import ExtensionAPI, ExtensionContext


class HelloArgs(BaseModel):
    name: str = Field(description="Name to greet")


def register(pi: ExtensionAPI) -> None:
    @pi.tool(
        description="A simple greeting tool", parameters=HelloArgs, label="Hello", read_only=True
    )
    async def hello(args: HelloArgs, ctx: ExtensionContext) -> dict[str, object]:
        return {
            "content": [{"type": "text", "text": f"Hello, {args.name}!"}],
            "details": {"greeted": args.name},
        }
