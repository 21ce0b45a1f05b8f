"""The CodingAgent shell shared by every front end (one-shot, JSON, RPC, plain REPL, TUI)."""
