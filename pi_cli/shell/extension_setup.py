"""Extensions into a shell being built: found cheaply, loaded only when there are some.

With no extension anywhere this costs a few directory reads and one small cache file
(:mod:`pi_cli.shell.extension_sources`): nothing of :mod:`pi_cli.shell.extensions` is imported
(``python -X importtime`` shows it; ``tests/test_architecture.py`` checks it).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pi_cli.shell.extension_sources import find_sources, foreign_warning

if TYPE_CHECKING:
    from pi_cli.shell.extensions.attach import ExtensionShell
    from pi_cli.shell.extensions.shell import ShellExtensions
    from pi_cli.shell.models.setup import ModelResolver


def attach_extensions(
    shell: ExtensionShell, models: ModelResolver, trusted: bool, fresh: bool = False
) -> ShellExtensions | None:
    """Find the shell's extensions and weave them in (``None``: there are none, and nothing of
    the extension machinery was imported); ``fresh`` (``/reload``) loads them all, none from the
    cache. ``PI_NO_EXTENSIONS=1`` skips them. The TypeScript pi's extensions are named once."""
    warning = foreign_warning(shell.cwd)
    if warning:
        shell.notify(warning, "warning")
    if os.environ.get("PI_NO_EXTENSIONS"):
        return None
    sources, notes = find_sources(shell.cwd, trusted, shell.settings)
    for note in notes:
        shell.notify(note, "warning")
    if not sources:
        return None
    from pi_cli.shell.extensions.attach import weave

    return weave(shell, models, sources, fresh)
