"""The agent-tools suite's fixtures: a fake provider server, a project and a PI_HOME."""

from tests.shell.agent_tools.conftest import project, server  # noqa: F401 - fixtures
