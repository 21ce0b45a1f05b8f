"""The user's own shell commands (``!cmd``, RPC ``bash``) and the ``/sandbox`` and ``/bashes`` commands."""
