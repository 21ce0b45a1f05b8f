"""pi_cli: the CodingAgent shell, the `pi` command and its front ends."""

from __future__ import annotations

__version__ = "0.1.0"
