"""Configuration: settings files as layers, folder trust, provider keys inside the shell, and
Claude Code's names for pi's tools."""
