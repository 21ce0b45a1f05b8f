"""The CLI tests' fixtures (a project, a fake provider server) for the ACP tests."""

from tests.cli.conftest import project, server  # noqa: F401 - fixtures
