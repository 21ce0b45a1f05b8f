"""Goals on the fake provider server: the agent tools' fixtures (a small project, pi as a
subprocess, shells on the server)."""

from tests.shell.agent_tools.conftest import project, run_pi, server

__all__ = ["project", "run_pi", "server"]
