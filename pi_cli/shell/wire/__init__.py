"""Line-delimited JSON and JSON-RPC framing shared by the modes, MCP and the language servers:
reading a frame without trusting it, answering a bad one, writing one safely."""
