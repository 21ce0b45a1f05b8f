"""From a model spec to a stream function: settings, env keys, local servers, credentials.

Kept apart from the CodingAgent so the rule "a ``--api-key`` never reaches another vendor"
lives in one place.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core import Agent, StreamFn, Tool

if TYPE_CHECKING:
    from agent_core.providers import ResolvedModel, RetryConfig
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.options import ShellOptions
    from tools.sandbox import Sandbox

log = logging.getLogger("pi_cli")


SUBSCRIBABLE = ("anthropic", "openai-codex", "github-copilot")
"""Providers ``pi login`` signs in to (``models/_subscription.py``)."""


class ConfigError(Exception):
    """The shell cannot start (no model, bad flag...). The message is meant for the user."""


@dataclass
class ModelChoice:
    """A resolved model and the stream function bound to it."""

    stream_fn: StreamFn
    model_id: str
    resolved: ResolvedModel | None = None  # None for an injected stream (tests, replay)
    warning: str | None = None  # one line for the user: an unknown model, tried anyway


class ModelResolver:
    """Resolves specs for one shell, remembering the start-up provider for credentials."""

    def __init__(
        self,
        options: ShellOptions,
        settings: Settings,
        env: Callable[[], dict[str, str]] | None = None,
        notify: Callable[..., None] | None = None,
    ) -> None:
        self.options = options
        self.settings = settings
        self.env = env or (lambda: dict(os.environ))
        self.notify = notify  # where an unknown model's one warning goes
        self.startup_provider: str | None = None
        from pi_cli.shell.models.controls import RetryGate

        self.retry_gate = RetryGate()
        self._retry: RetryConfig | None = None  # one, shared by every stream function
        # Asked about every model resolved after start-up (``--max-cost`` refuses unknown prices).
        self.check: Callable[[str, ResolvedModel | None], None] | None = None
        self.fallback: Callable[[str], ModelChoice | None] | None = None  # extensions' providers

    @staticmethod
    def identify(agent: Agent, resolved: ResolvedModel | None) -> None:
        """Tell ``agent`` the api, provider and model id its provider reports (for message_start)."""
        agent.api = resolved.api if resolved is not None else ""
        agent.provider = resolved.provider if resolved is not None else ""
        agent.model_name = resolved.name if resolved is not None else ""

    def set_retry_enabled(self, enabled: bool) -> None:
        """Turn automatic retries on or off for every model, also mid-session."""
        self.settings.retry.enabled = enabled
        if self._retry is not None:
            self._retry.max_retries = self.settings.retry.max_retries if enabled else 0

    def resolve(self, spec: str | None) -> ModelChoice:
        """The model for ``spec`` (default: settings, then env keys, then a local server).

        Raises:
            ConfigError: no model can be found or the spec is invalid (user-facing message).
        """
        if self.options.stream_fn is not None:
            model_id = spec or self.settings.model or "test/scripted"
            if self.check is not None:
                self.check(model_id, None)
            return ModelChoice(self.options.stream_fn, model_id)
        from agent_core import providers

        env = self.env()
        chosen = spec or self.settings.model or providers.default_model_spec(env)
        if chosen is None:
            from pi_cli.shell.models._subscription import SUBSCRIPTION_DEFAULT, signed_in

            chosen = SUBSCRIPTION_DEFAULT if signed_in("anthropic") else None
        api_key, api_base = self.credentials_for(chosen)
        if chosen is None:
            # No model and no key: a local server (Ollama, llama.cpp, ...) before giving up.
            from pi_cli.shell.models.local import announce, detect_local_model

            local = detect_local_model(self.settings.local_probe_ports, env)
            if local is None:
                raise ConfigError(no_model_message())
            chosen, api_base = local.spec, local.api_base
            announce(local)
        model = self._resolve_or_fallback(chosen, api_key, api_base, env)
        if isinstance(model, ModelChoice):  # an extension's provider
            return model
        if self.check is not None:
            self.check(model.id, model)  # raises ConfigError before any client exists
        model = _explicit_key(model)
        if self.startup_provider is None:
            self.startup_provider = model.provider
        retry = self.settings.retry
        if self._retry is None:
            self._retry = providers.RetryConfig(
                max_retries=retry.max_retries if retry.enabled else 0,
                base_delay_s=retry.base_delay_ms / 1000,
                sleep=self.retry_gate.sleep,
            )
        timeouts = self.settings.timeouts
        stream_fn = providers.make_stream_fn(
            model,
            retry=self._retry,
            idle_timeout_s=timeouts.idle_s,
            first_byte_timeout_s=timeouts.first_byte_s,
            network=self.network(),
        )
        warning = unknown_model_warning(model, api_base)
        if warning and self.notify is not None:
            self.notify(warning, "warning")
        return ModelChoice(stream_fn, model.id, model, warning)

    def _resolve_or_fallback(self, chosen: str, *args: Any) -> ResolvedModel | ModelChoice:
        """:meth:`_resolve_spec`, else (a provider pi does not know) :attr:`fallback`'s."""
        try:
            return self._resolve_spec(chosen, *args)
        except ConfigError:
            if (found := self.fallback(chosen) if self.fallback else None) is None:
                raise
            if self.check is not None:
                self.check(found.model_id, None)
            return found

    def _resolve_spec(
        self, chosen: str, api_key: str | None, api_base: str | None, env: dict[str, str]
    ) -> ResolvedModel:
        """``chosen`` with its key, or with a subscription signed in by ``pi login``."""
        from agent_core import providers

        def resolve(spec: str, base: str | None, key: str | None) -> ResolvedModel:
            return providers.resolve_model(
                spec,
                api_base=base,
                api_key=key,
                models_file=models_file(),
                env=env,
                transport=os.environ.get("PI_TRANSPORT") or self.settings.transport,
                openai_api=self.settings.openai_api,
            )

        subscription = None
        if chosen.partition("/")[0] in SUBSCRIBABLE:  # else nothing of it is imported
            from pi_cli.shell.models._subscription import subscription_provider

            subscription = subscription_provider(chosen, api_key, api_base, env)
        if subscription is None:
            check_provider(chosen, api_base)
        try:
            if subscription is None:
                model = resolve(chosen, api_base, api_key)
            else:  # the key is the signed-in token, asked for before each request
                from pi_cli.shell.models._subscription import subscription_model

                model = subscription_model(
                    subscription,
                    chosen,
                    api_base,
                    self.network,
                    lambda spec, base: resolve(spec, base, "subscription"),
                )
        except providers.ModelConfigError as exc:
            raise ConfigError(str(exc)) from None
        return model

    def network(self) -> Any:
        """The ``network`` settings for a client (a bad proxy URL or CA file: ConfigError)."""
        network = self.settings.network
        if not (network.proxy or network.no_proxy or network.ca_file):
            return None  # nothing set: agent_core.net loads with the first remote client only
        from agent_core.net import NetworkConfigError, ssl_context

        try:
            config = network.config()
            if config is not None and config.ca_file:
                ssl_context(config)  # a missing or broken CA file is said now, not per request
            return config
        except NetworkConfigError as exc:
            raise ConfigError(str(exc)) from None

    def credentials_for(self, chosen: str | None) -> tuple[str | None, str | None]:
        """(api key, api base) for ``chosen``: a --api-key must never reach another vendor.

        At start-up every flag applies. After a switch (/model, a restored model_change) the
        CLI key and base apply only to the start-up model's provider, and the settings' base
        only to that provider or to the settings' own model.
        """
        if self.startup_provider is None or chosen is None:
            return self.options.api_key, self.options.api_base or self.settings.api_base
        same = spec_provider(chosen) == self.startup_provider
        api_key = self.options.api_key if same else None
        api_base = self.options.api_base if same else None
        if api_base is None and (same or chosen == self.settings.model):
            api_base = self.settings.api_base
        return api_key, api_base


def startup_spec(options: ShellOptions) -> str | None:
    """The ``--model`` spec, qualified by ``--provider`` (``--provider anthropic --model x``)."""
    provider, model = options.provider, options.model
    if not provider:
        return model
    if not model:
        raise ConfigError(f"--provider {provider} needs --model (the model id at {provider})")
    return model if model.startswith(f"{provider}/") else f"{provider}/{model}"


def _explicit_key(model: Any) -> Any:
    """A key litellm would read from the environment, passed explicitly instead: pi took the
    keys out of its environment (:mod:`pi_cli.secret_env`). Registered for redaction."""
    from pi_cli.secret_env import KEY_ENV_NAMES
    from pi_cli.shell.text.redaction import REDACTOR

    if model.api_key is None and model.env_secret and model.api_key_env in KEY_ENV_NAMES:
        model = model.model_copy(update={"api_key": model.env_secret})
    REDACTOR.add(model.secret)
    return model


def check_provider(spec: str, api_base: str | None) -> None:
    """Reject a ``provider/model`` whose provider nobody knows, at once and in one line.

    Known: pi's native providers, models.json providers, every provider of the model
    catalogue; any provider goes with an ``--api-base`` (an OpenAI-compatible server).
    """
    provider, slash, _ = spec.strip().partition("/")
    if not slash or api_base:
        return
    from agent_core.providers.catalog import known_providers, load_models_file
    from agent_core.providers.models import LITELLM_KEY_ENVS, NATIVE

    if provider in NATIVE or provider in LITELLM_KEY_ENVS or provider in known_providers():
        return
    try:
        if provider in load_models_file(models_file()):
            return
    except Exception:  # noqa: BLE001 - a bad models.json is reported by resolve_model itself
        return
    raise ConfigError(
        f'Unknown provider "{provider}" in model "{spec.strip()}": see pi --list-models '
        "(or pass --api-base for an OpenAI-compatible server)."
    )


def unknown_model_warning(model: Any, api_base: str | None = None) -> str | None:
    """One line when the catalogue does not know the model (a new one, a typo): it is tried
    anyway. A server named by ``--api-base`` / ``apiBase`` and the local servers (Ollama,
    llama.cpp...) serve models of their own: no warning for those."""
    from agent_core.providers.models import NATIVE

    native = NATIVE.get(model.provider)
    if model.known or api_base or (native is not None and not native.litellm_known):
        return None
    return f"Model {model.id} is not in pi's model list; trying it anyway."


def spec_provider(spec: str) -> str:
    """The provider part of a model spec (``gpt-4o`` -> ``openai`` via the catalogue)."""
    provider, _, name = spec.strip().partition("/")
    if name:
        return provider
    try:
        from agent_core.providers.catalog import provider_of_bare_name

        return provider_of_bare_name(provider) or ""
    except Exception:  # noqa: BLE001 - unknown: treated as another provider (no key shared)
        return ""


def models_file() -> list[Path]:
    """``$PI_HOME/models.json`` (custom providers), then the TypeScript pi's (a fallback)."""
    from pi_cli.shell.paths import models_files

    return models_files()


def no_model_message() -> str:
    """How to configure a model, for a user who has none."""
    from pi_cli.shell.paths import pi_home

    settings_file = pi_home() / "settings.json"
    return (
        "No model configured. Set an API key, for example:\n"
        "  export ANTHROPIC_API_KEY=...    (Anthropic, default anthropic/claude-sonnet-4-5)\n"
        "  export OPENAI_API_KEY=...       (OpenAI)\n"
        "  export OPENROUTER_API_KEY=...   (OpenRouter)\n"
        "or choose a model and key explicitly:\n"
        '  pi --model openai/gpt-4o-mini --api-key ... "your prompt"\n'
        "or use a local OpenAI-compatible server (Ollama, llama.cpp, LM Studio, vLLM):\n"
        '  pi --model ollama/qwen2.5-coder:7b "your prompt"\n'
        '  pi --model openai/local --api-base http://127.0.0.1:8080/v1 "your prompt"\n'
        f'A default model can also be set in {settings_file}: {{"model": "provider/model"}}.'
    )


class StreamFnPool:
    """Closes the provider clients of replaced stream functions (their HTTP connections)."""

    def __init__(self) -> None:
        self._retired: list[StreamFn] = []
        self._closing: set[asyncio.Task[None]] = set()

    def retire(self, old: StreamFn) -> None:
        """Close ``old``: now if a loop runs, else at :meth:`aclose`."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._retired.append(old)
            return
        task = loop.create_task(aclose_stream_fn(old))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def keep(self, extra: StreamFn) -> None:
        """Close ``extra`` (a second model's, kept in use) at :meth:`aclose`."""
        self._retired.append(extra)

    async def aclose(self, current: StreamFn) -> None:
        """Close ``current`` and every retired one; call once at shutdown."""
        fns = [*self._retired, current]
        self._retired.clear()
        for fn in fns:
            await aclose_stream_fn(fn)
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)


async def aclose_stream_fn(stream_fn: object) -> None:
    """Await ``stream_fn.aclose()`` if the provider layer gave it one (closes its HTTP client)."""
    close = getattr(stream_fn, "aclose", None)
    if close is None:
        return
    try:
        await close()
    except Exception:  # shutting down: a failed close must not mask the exit code
        log.debug("closing the provider client failed", exc_info=True)


def create_shell_tools(
    options: ShellOptions,
    settings: Settings,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    sandbox: Sandbox | None = None,
    services: Any = None,
) -> list[Tool]:
    """The tools a shell gets: injected ones, none (``--no-tools``), or the named built-ins
    (their commands run with ``env``: no keys; the process tools on the session's ``sandbox``;
    ``services``: the shell's side of the agent tools, a :class:`tools.services.ToolServices`)."""
    if options.tool_objects is not None:
        return list(options.tool_objects)
    if options.no_tools:
        return []
    import tools

    names = options.tools if options.tools is not None else settings.tools
    chosen = list(names or tools.DEFAULT_TOOL_NAMES)
    if not names and settings.web_search.backend is not None:
        chosen.append("web_search")  # on by default only once a backend is configured
    try:
        built = tools.create_tools(
            chosen,
            cwd,
            env=env,
            sandbox=sandbox,
            services=services,
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if settings.bash_timeout_s is not None:
        for tool in built:
            if isinstance(tool, tools.BashTool):
                tool.set_default_timeout(settings.bash_timeout_s)
    return built
