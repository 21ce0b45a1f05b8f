"""Packages: extensions, skills, prompt templates, themes and agent profiles installed with
``pi install`` from git, a folder or PyPI, pinned in a lock file (see docs/packages.md).

:mod:`.git` and :mod:`.files` are shared with plugins (git without hooks or prompts; copies
recorded and verified file by file).
"""
