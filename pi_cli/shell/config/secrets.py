"""Provider keys inside the shell: where they come from, how they are cleaned, who sees them.

- :func:`provider_env`: the environment the provider layer resolves keys from (``os.environ``
  plus the keys :mod:`pi_cli.secret_env` took out of it at start-up), values cleaned of
  whitespace/CR with a one-line warning each.
- :func:`api_key_option`: ``--api-key`` (kept out of argv), else ``--api-key-file`` /
  ``PI_API_KEY_FILE``.
- :func:`tool_environment`: what tools and command hooks run with: no key variable and no
  variable holding a key's value, unless ``toolEnv.inheritSecrets`` is set.

Every key found is registered with the redactor (:mod:`pi_cli.shell.text.redaction`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from pi_cli.secret_env import HELD, HELD_API_KEY, KEY_ENV_NAMES, models_file_key_envs
from pi_cli.shell.text.redaction import REDACTOR

KEY_FILE_ENV = "PI_API_KEY_FILE"


class KeyFileError(Exception):
    """``--api-key-file`` cannot be read (the message names the file)."""


def clean_key(value: str, origin: str, warnings: list[str], *, file: bool = False) -> str:
    """``value`` stripped of whitespace and CR; says so in ``warnings`` when that changed it.

    A file's single trailing newline is normal and not worth a warning.
    """
    stripped = value.strip()
    if stripped != value and not (file and value.rstrip("\n") == stripped and "\r" not in value):
        what = "a carriage return (a CRLF file?)" if "\r" in value else "whitespace"
        warnings.append(f"{origin} contains {what} around the key; using it stripped.")
    return stripped


def key_names(extra: Iterable[str] = ()) -> list[str]:
    """The key variables pi reads (built-in providers, models.json, ``extra``)."""
    return list(dict.fromkeys([*KEY_ENV_NAMES, *models_file_key_envs(os.environ), *extra]))


def provider_env(warnings: list[str] | None = None) -> dict[str, str]:
    """The environment for key resolution: ``os.environ`` plus the held keys, cleaned."""
    warnings = [] if warnings is None else warnings
    env = dict(os.environ)
    env.update(HELD)
    for name in {*key_names(), *HELD}:
        value = env.get(name)
        if value is None:
            continue
        env[name] = clean_key(value, name, warnings)
        REDACTOR.add(env[name])
    return env


def api_key_option(given: str | None, key_file: str | None, warnings: list[str]) -> str | None:
    """The key from ``--api-key`` (or the one held from argv), else from a key file.

    Raises:
        KeyFileError: the key file cannot be read or is empty.
    """
    key = given if given is not None else (HELD_API_KEY[0] if HELD_API_KEY else None)
    if key is not None:
        key = clean_key(key, "--api-key", warnings)
    else:
        path = key_file or os.environ.get(KEY_FILE_ENV)
        if path:
            key = read_key_file(Path(path).expanduser(), warnings)
    REDACTOR.add(key)
    return key or None


def read_key_file(path: Path, warnings: list[str]) -> str:
    """The key stored in ``path`` (raises :class:`KeyFileError`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise KeyFileError(f"Cannot read the API key file {path}: {reason}") from None
    key = clean_key(text, f"API key file {path}", warnings, file=True)
    if not key:
        raise KeyFileError(f"The API key file {path} is empty")
    return key


def tool_environment(
    inherit_secrets: bool = False,
    extra_names: Iterable[str] = (),
    secrets: Iterable[str] = (),
    base: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment tools and command hooks run with (see the module doc).

    ``secrets``: key values pi holds; any variable with one of these values is dropped too.
    """
    env = dict(os.environ if base is None else base)
    if inherit_secrets:
        env.update(HELD)
        return env
    names = set(key_names(extra_names))
    values = {v for v in (*secrets, *HELD.values()) if v and len(v) >= 8}
    for name in list(env):
        value = env[name]
        if name in names or value in values or value.strip() in values:
            del env[name]
    env.pop("PI_SECRETS_FD", None)
    return env
