"""Extensions into a shell being built: found cheaply, loaded only when there are some.

With no extension anywhere this costs a few directory reads and one small cache file
(:mod:`pi_cli.shell.extension_sources`): nothing of :mod:`pi_cli.shell.extensions` is imported
(``python -X importtime`` shows it; ``tests/test_architecture.py`` checks it).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.shell.extension_sources import find_sources, foreign_warning

if TYPE_CHECKING:
    from agent_core import LlmContext, StreamOptions
    from pi_cli.shell.extensions.attach import ExtensionShell
    from pi_cli.shell.extensions.shell import ShellExtensions
    from pi_cli.shell.models.setup import ModelChoice, ModelResolver


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


class _ProviderHost(Protocol):
    @property
    def extensions(self) -> ShellExtensions | None: ...


def extension_models(shell: _ProviderHost) -> Callable[[str], ModelChoice | None]:
    """The model resolver's fallback: ``provider/model`` of a provider an extension registered
    (found in the extensions' cache, or live), streamed through it (:mod:`.extensions.providers`)."""

    def choose(spec: str) -> ModelChoice | None:
        from pi_cli.shell.extension_sources import cached_providers
        from pi_cli.shell.models.setup import ModelChoice

        provider, _, model = spec.partition("/")
        known = cached_providers()
        extensions = getattr(shell, "extensions", None)  # None while the shell is being built
        if extensions is not None:
            for ext in extensions.runtime.usable():
                if ext.state == "live":
                    known.update({p.name: p.models for p in ext.registration.providers.values()})
        if not model or model not in known.get(provider, []) or os.environ.get("PI_NO_EXTENSIONS"):
            return None

        async def stream(context: LlmContext, options: StreamOptions) -> AsyncIterator[Any]:
            from pi_cli.shell.extensions.providers import ProviderFailed, run_provider

            extensions = shell.extensions
            if extensions is None:
                raise ProviderFailed(f"no extension provides {provider!r} (none loaded)")
            async for item in run_provider(extensions.runtime, provider, context, options):
                yield item

        return ModelChoice(stream, spec)

    return choose
