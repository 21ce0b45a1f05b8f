"""Pieces of the plain line-mode REPL (``pi --plain``)."""
