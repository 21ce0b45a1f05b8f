"""A line written as a command none is called: named, with the commands it is close to."""

from __future__ import annotations

from pi_cli.shell.builtin_commands import builtin_commands
from pi_cli.shell.commands import SlashCommandRegistry


def _registry() -> SlashCommandRegistry:
    registry = SlashCommandRegistry()
    registry.register_all(builtin_commands())
    return registry


def test_typos_are_named_with_what_they_are_close_to() -> None:
    registry = _registry()
    unknown = registry.unknown("/modle gpt-5")
    assert unknown is not None and unknown.close[0] == "model"
    assert unknown.corrected("model") == "/model gpt-5"
    assert unknown.question == (
        "Unknown command /modle (did you mean /model?): send it to the model as a prompt?"
    )
    assert registry.unknown("/exti") is not None  # close to an alias: the command's name
    assert "quit" in registry.unknown("/exti").close  # type: ignore[union-attr]
    far = registry.unknown("/tpyo hello")
    assert far is not None and far.close == [] and "did you mean" not in far.question


def test_commands_prompts_and_paths_are_not_unknown() -> None:
    registry = _registry()
    for text in ("/help", "/q", "hello", "/usr/bin/env is odd", "// comment", "/ x", "/*", "  "):
        assert registry.unknown(text) is None, text
