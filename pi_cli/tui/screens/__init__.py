"""Modal screens (pickers) of the interactive TUI."""
