"""Sessions: append-only JSONL files, their index and tree, loading and listing, names, branching,
the durable queue, the session-side event recorder and ``--replay``."""
