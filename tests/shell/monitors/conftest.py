"""Fixtures of the agent tools' tests (a fake provider, a small project, pi as a subprocess)."""

from tests.shell.agent_tools.conftest import project, run_pi, server

__all__ = ["project", "run_pi", "server"]
