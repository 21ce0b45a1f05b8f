"""``/context`` and ``/usage``: what fills the context window, and what the session and today
cost. Loaded when asked for."""
