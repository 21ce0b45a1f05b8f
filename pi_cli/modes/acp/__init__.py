"""``pi --mode acp``: pi as an Agent Client Protocol agent (Zed, toad, JetBrains)."""
