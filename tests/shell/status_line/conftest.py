"""Every test here runs with a fake HOME and gets a git project (see tests/fakes/home.py)."""

from tests.fakes.home import fake_home, project

__all__ = ["fake_home", "project"]
