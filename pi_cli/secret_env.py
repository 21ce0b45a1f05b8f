"""Keys out of reach of tools: not in pi's ``/proc/<pid>/environ`` nor ``/proc/<pid>/cmdline``.

A tool can read ``/proc/<pi's pid>/environ`` and ``/proc/<pi's pid>/cmdline``; removing keys
from the tool's own environment is not enough. So, when a provider key is in the environment
or ``--api-key`` is on the command line, :func:`hide_secrets` (called first thing by
``pi_cli.cli.main``, before any heavy import) keeps them in :data:`HELD` only (passed to the
provider layer explicitly, never put back into ``os.environ``) and wipes them where the kernel
shows them from: the process's own argument and environment strings, overwritten with NUL bytes
through ``/proc/self/mem`` at the addresses ``/proc/self/stat`` gives, then read back through
``/proc/self/environ`` and ``cmdline`` to prove they are gone. Where that cannot be done or
proved (no ``/proc``, a kernel refusing the write), pi execs itself again without them, handing
them over through an inherited pipe (``PI_SECRETS_FD``): the slower way, ~35 ms of a second
interpreter start, that was the only way before.

A leaf module: standard library only.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from typing import BinaryIO

HANDOVER_ENV = "PI_SECRETS_FD"
SKIP_ENV = "PI_NO_REEXEC"
KEY_ENV_NAMES: tuple[str, ...] = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "DEEPSEEK_API_KEY",
    "XAI_API_KEY",
    "TOGETHER_API_KEY",
    "TOGETHERAI_API_KEY",
    "GEMINI_API_KEY",
    "MISTRAL_API_KEY",
    "COHERE_API_KEY",
    "AZURE_API_KEY",
    "FIREWORKS_AI_API_KEY",
    "PERPLEXITYAI_API_KEY",
    # web_search's keyed backends (kept from tools and sessions like the provider keys)
    "BRAVE_API_KEY",
    "TAVILY_API_KEY",
)
"""The key variables pi reads: the providers' and web_search's."""
KEY_FLAGS = ("--api-key",)
KEY_BYTES = frozenset(flag.encode() for flag in KEY_FLAGS)
_MAX_PIPE = 60_000  # stays below the pipe buffer, so writing before exec never blocks

_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*\Z")
HELD: dict[str, str] = {}
"""Environment keys taken out of this process's environment at start-up (name -> value)."""
HELD_API_KEY: list[str] = []
"""The ``--api-key`` value taken out of argv, if any (a list so it can be filled in place)."""


def models_file_key_envs(env: dict[str, str] | os._Environ[str]) -> list[str]:
    """Key variables named by the custom providers of ``$PI_HOME/models.json`` and of the
    TypeScript pi's ``~/.pi/agent/models.json`` (best effort): ``apiKeyEnv``, and ``apiKey`` or
    header values that are a variable's name (the TypeScript pi reads those as variables)."""
    home = os.path.expanduser(env.get("PI_HOME") or os.path.join("~", ".pi"))
    pi_ts = os.path.expanduser(env.get("PI_CODING_AGENT_DIR") or os.path.join("~", ".pi", "agent"))
    names: list[str] = []
    for folder in (home, pi_ts):
        names += _key_envs_of(os.path.join(folder, "models.json"))
    return names


def _key_envs_of(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError, RecursionError):  # a bad file is reported where it is loaded
        return []
    providers = data.get("providers") if isinstance(data, dict) else None
    if not isinstance(providers, dict):
        return []
    names = []
    for provider in providers.values():
        if not isinstance(provider, dict):
            continue
        for key in ("apiKeyEnv", "api_key_env"):
            if isinstance(provider.get(key), str):
                names.append(provider[key])
        headers = provider.get("headers")
        values = [provider.get("apiKey"), *(headers.values() if isinstance(headers, dict) else [])]
        names += [v for v in values if isinstance(v, str) and _ENV_NAME.match(v)]
    return names


def secret_names(argv: list[str], env: dict[str, str] | os._Environ[str]) -> list[str]:
    """Every key variable pi may read for this command line (``--model p/x`` adds ``P_API_KEY``)."""
    names = [*KEY_ENV_NAMES, *models_file_key_envs(env)]
    for index, word in enumerate(argv):
        if word == "--":
            break
        value = None
        if word in ("--model", "-m") and index + 1 < len(argv):
            value = argv[index + 1]
        elif word.startswith("--model="):
            value = word.split("=", 1)[1]
        if value and "/" in value:
            names.append(value.split("/", 1)[0].upper().replace("-", "_") + "_API_KEY")
    return list(dict.fromkeys(names))


def strip_key_args(argv: list[str]) -> tuple[list[str], str | None]:
    """``argv`` without ``--api-key VALUE`` / ``--api-key=VALUE`` (the last value returned)."""
    out: list[str] = []
    key: str | None = None
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--":
            out.extend(argv[index:])
            break
        if word in KEY_FLAGS and index + 1 < len(argv):
            key = argv[index + 1]
            index += 2
            continue
        if word.startswith("--api-key="):
            key = word.split("=", 1)[1]
            index += 1
            continue
        out.append(word)
        index += 1
    return out, key


def adopt_handover() -> None:
    """In the re-executed process: read the keys from the inherited pipe into :data:`HELD`."""
    fd_text = os.environ.pop(HANDOVER_ENV, None)
    if fd_text is None:
        return
    try:
        fd = int(fd_text)
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        os.close(fd)
        data = json.loads(b"".join(chunks) or b"{}")
    except (OSError, ValueError):
        return
    env = data.get("env") if isinstance(data, dict) else None
    if isinstance(env, dict):
        HELD.update({str(k): str(v) for k, v in env.items()})
    if isinstance(data, dict) and isinstance(data.get("apiKey"), str):
        HELD_API_KEY[:] = [data["apiKey"]]


def interpreter_prefix() -> list[str]:
    """The interpreter and its options as this process was started (``sys.orig_argv``)."""
    orig = list(getattr(sys, "orig_argv", []) or [])
    keep = len(orig) - len(sys.argv) + 1
    if not orig or keep < 1:
        return [sys.executable, *sys.argv[:1]]
    return orig[:keep]


def hide_secrets(argv: list[str]) -> list[str]:
    """Take the keys out of this process's environment and ``argv``; the arguments to use.

    The keys go to :data:`HELD` / :data:`HELD_API_KEY`; their strings are wiped in place (see
    the module doc) or, when that cannot be proved, this process execs itself without them.
    """
    adopt_handover()
    if os.environ.get(SKIP_ENV):
        return argv
    names = [name for name in secret_names(argv, os.environ) if os.environ.get(name)]
    new_argv, key = strip_key_args(argv)
    if not names and key is None:
        return argv
    held = {name: os.environ[name] for name in names}
    if not _wipe_in_place(names, key):
        reexec_without_secrets(argv)  # returns only when exec failed: keep going as we are
        return argv
    HELD.update(held)
    if key is not None:
        HELD_API_KEY[:] = [key]
    for name in names:
        os.environ.pop(name, None)
    sys.argv[1:] = new_argv
    return new_argv


def _wipe_in_place(names: list[str], key: str | None) -> bool:
    """NUL over the environment strings of ``names`` and over the ``--api-key`` arguments
    (flag and value); True when ``/proc/self`` then shows none of them."""
    prefixes = tuple(name.encode() + b"=" for name in names)
    value = key.encode() if key is not None else None

    def secret_env(entry: bytes) -> bool:
        return entry.startswith(prefixes)

    def secret_arg(word: bytes) -> bool:
        return word in KEY_BYTES or word.startswith(b"--api-key=") or word == value

    try:
        with open("/proc/self/stat", "rb") as stat_file:
            fields = stat_file.read().rsplit(b")", 1)[1].split()
        arg_start, arg_end, env_start, env_end = (int(f) for f in fields[45:49])
        with open("/proc/self/mem", "r+b", buffering=0) as mem:
            _wipe(mem, arg_start, arg_end, secret_arg)
            _wipe(mem, env_start, env_end, secret_env)
        with open("/proc/self/environ", "rb") as env_file, open("/proc/self/cmdline", "rb") as cmd:
            environ, cmdline = env_file.read().split(b"\0"), cmd.read().split(b"\0")
    except (OSError, ValueError):
        return False
    return not any(map(secret_env, environ)) and not any(map(secret_arg, cmdline))


def _wipe(mem: BinaryIO, start: int, end: int, secret: Callable[[bytes], bool]) -> None:
    mem.seek(start)
    area = mem.read(end - start)
    offset = 0
    for word in area.split(b"\0"):
        if word and secret(word):
            mem.seek(start + offset)
            mem.write(b"\0" * len(word))
        offset += len(word) + 1


def reexec_without_secrets(argv: list[str]) -> None:
    """Exec this command again without keys in the environment and argv (see the module doc).

    Returns when there is nothing to hide, in the re-executed process, or when exec fails.
    """
    adopt_handover()
    if os.environ.get(SKIP_ENV):
        return
    names = [name for name in secret_names(argv, os.environ) if os.environ.get(name)]
    new_argv, key = strip_key_args(argv)
    if not names and key is None:
        return
    payload = json.dumps({"env": {n: os.environ[n] for n in names}, "apiKey": key}).encode()
    if len(payload) > _MAX_PIPE:
        return
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, payload)
    finally:
        os.close(write_fd)
    os.set_inheritable(read_fd, True)
    env = {k: v for k, v in os.environ.items() if k not in names}
    env[HANDOVER_ENV] = str(read_fd)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, [*interpreter_prefix(), *new_argv], env)
    except OSError:
        os.close(read_fd)  # could not exec: carry on as we are (the keys stay where they were)
