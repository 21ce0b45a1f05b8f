"""The providers' HTTP wire: pooled httpx clients, SSE framing, the stall watch, a streamed
POST's source of parsed events, and whole (non-streamed) bodies read as a stream's items."""
