"""Permission modes, Claude Code rules and the read-only bash classifier (see the submodules)."""
