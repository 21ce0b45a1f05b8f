"""``pi --mode rpc``: pi's RPC protocol (JSON commands on stdin, responses and events on stdout)."""
