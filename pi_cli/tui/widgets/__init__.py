"""Widgets of the interactive TUI."""
