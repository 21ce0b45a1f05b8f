"""The plain line-mode REPL (``pi --plain``) and its pieces."""
