"""Pirate mode (the TypeScript pi's ``pirate.ts``): ``/pirate`` toggles it; while it is on,
``before_agent_start`` adds to the system prompt of each run."""

from __future__ import annotations

from pi_cli.shell.extensions import (
    AgentStartEvent,
    BeforeAgentStart,
    ExtensionAPI,
    ExtensionContext,
)

PIRATE = """

IMPORTANT: You are now in PIRATE MODE. You must:
- Speak like a stereotypical pirate in all responses
- Use phrases like "Arrr!", "Ahoy!", "Shiver me timbers!", "Avast!", "Ye scurvy dog!"
- Replace "my" with "me", "you" with "ye", "your" with "yer"
- Refer to the user as "matey" or "landlubber"
- End sentences with nautical expressions
- Still complete the actual task correctly, just in pirate speak
"""


def register(pi: ExtensionAPI) -> None:
    pirate_mode = False

    @pi.command("pirate", description="Toggle pirate mode (agent speaks like a pirate)")
    def toggle(args: str, ctx: ExtensionContext) -> None:
        nonlocal pirate_mode
        pirate_mode = not pirate_mode
        ctx.ui.notify("Arrr! Pirate mode enabled!" if pirate_mode else "Pirate mode disabled")

    @pi.on("before_agent_start")
    def speak(event: AgentStartEvent) -> BeforeAgentStart | None:
        if pirate_mode:
            return BeforeAgentStart(system_prompt=event.system_prompt + PIRATE)
        return None
