"""Outbound network settings shared by every client pi opens: proxies and trusted certificates.

Used by the model transports, MCP servers over HTTP and ``web_search`` (``web_fetch`` is the
exception: it connects only to the address it checked, see ``docs/network.md``).

- **Proxy**: ``network.proxy`` (settings) wins; else ``HTTPS_PROXY``/``HTTP_PROXY``/
  ``ALL_PROXY`` (either case) for the URL's scheme. ``NO_PROXY`` (and ``network.noProxy``)
  lists hosts, domain suffixes (``.corp`` or ``corp``), ``host:port``, addresses or CIDR
  networks to reach directly; ``*`` means none is proxied. Loopback never goes through a proxy.
- **Trust**: the operating system's store by default (on Linux and BSD OpenSSL's default paths,
  which are the system bundle and honour ``SSL_CERT_FILE``/``SSL_CERT_DIR``; on macOS and
  Windows the native verifier through ``truststore``), plus ``network.caFile`` (a PEM bundle of
  extra CAs, e.g. a TLS-inspecting corporate proxy's). With no system bundle at all, certifi's.

Nothing here imports httpx, and ``truststore`` loads only on macOS and Windows.
"""

from __future__ import annotations

import ipaddress
import os
import ssl
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

__all__ = [
    "NetworkConfig",
    "NetworkConfigError",
    "describe_failure",
    "is_loopback_host",
    "proxy_for",
    "ssl_context",
]


class NetworkConfigError(ValueError):
    """A proxy URL or CA file that cannot be used (the message names the setting)."""


@dataclass(frozen=True)
class NetworkConfig:
    """``network`` settings: an explicit proxy, hosts to reach directly, an extra CA bundle.

    ``use_env``: read the ``*_PROXY`` variables (off in tests that must not see the machine's).
    """

    proxy: str | None = None
    no_proxy: tuple[str, ...] = ()
    ca_file: str | None = None
    use_env: bool = True

    def __post_init__(self) -> None:
        if self.proxy is not None:
            _check_proxy(self.proxy, "network.proxy")


def _check_proxy(url: str, where: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "socks5", "socks5h") or not parts.hostname:
        raise NetworkConfigError(
            f"{where} must be a proxy URL like http://proxy.example:3128 (got {_safe_url(url)!r})"
        )


def _safe_url(url: str) -> str:
    """``url`` without a password (proxy URLs may carry ``user:password@``)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return parts._replace(netloc=netloc).geturl()


def is_loopback_host(host: str) -> bool:
    """``localhost``, ``*.localhost`` or a loopback address."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _env(env: Mapping[str, str], name: str) -> str:
    return (env.get(name.lower()) or env.get(name.upper()) or "").strip()


def proxy_for(
    url: str, config: NetworkConfig | None = None, env: Mapping[str, str] | None = None
) -> str | None:
    """The proxy URL to reach ``url`` through, or None for a direct connection."""
    config = config or NetworkConfig()
    env = os.environ if env is None else env
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host or is_loopback_host(host):
        return None
    exempt = list(config.no_proxy)
    if config.use_env:
        exempt += [e for e in _env(env, "no_proxy").split(",") if e.strip()]
    port = parts.port or (443 if parts.scheme == "https" else 80)
    if any(_exempt(entry.strip().lower(), host, port) for entry in exempt):
        return None
    if config.proxy:
        return config.proxy
    if not config.use_env:
        return None
    scheme = "https" if parts.scheme == "https" else "http"
    chosen = _env(env, f"{scheme}_proxy") or _env(env, "all_proxy")
    if chosen:
        _check_proxy(chosen, f"{scheme.upper()}_PROXY")
    return chosen or None


def _exempt(entry: str, host: str, port: int) -> bool:
    if not entry:
        return False
    if entry == "*":
        return True
    name, _, entry_port = entry.rpartition(":") if entry.count(":") == 1 else (entry, "", "")
    if entry_port and entry_port.isdigit():
        if int(entry_port) != port:
            return False
        entry = name
    try:
        network = ipaddress.ip_network(entry.strip("[]"), strict=False)
    except ValueError:
        network = None
    if network is not None:
        try:
            return ipaddress.ip_address(host.strip("[]")) in network
        except ValueError:
            return False
    suffix = entry.lstrip("*").lstrip(".")
    return host == suffix or host.endswith("." + suffix)


_contexts: dict[str | None, ssl.SSLContext] = {}
_lock = threading.Lock()


def ssl_context(config: NetworkConfig | None = None) -> ssl.SSLContext:
    """A verifying client context: the system store plus ``ca_file`` (built once per file)."""
    ca_file = (config or NetworkConfig()).ca_file
    with _lock:
        context = _contexts.get(ca_file)
        if context is None:
            context = _contexts[ca_file] = _build_context(ca_file)
    return context


def _build_context(ca_file: str | None) -> ssl.SSLContext:
    context = _system_context()
    if ca_file:
        path = Path(ca_file).expanduser()
        try:
            context.load_verify_locations(cafile=str(path))
        except FileNotFoundError:
            raise NetworkConfigError(f"network.caFile {path} does not exist") from None
        except (ssl.SSLError, OSError, ValueError) as exc:
            raise NetworkConfigError(
                f"network.caFile {path} is not a PEM certificate bundle: {exc}"
            ) from None
    return context


def _system_context() -> ssl.SSLContext:
    if sys.platform in ("darwin", "win32"):
        import truststore  # the native verifier: the keychain / the Windows store

        return truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context = ssl.create_default_context()
    if context.cert_store_stats().get("x509_ca", 0) == 0:
        try:
            import certifi  # no system bundle (a bare container): certifi's, as before
        except ImportError:
            return context
        context.load_verify_locations(cafile=certifi.where())
    return context


def describe_failure(
    exc: BaseException, url: str, proxy: str | None, config: NetworkConfig | None = None
) -> str | None:
    """A one-line explanation of a proxy or certificate failure, or None for anything else.

    Names the host, the proxy and the trust used; for a certificate the verifier's reason.
    """
    text = _chain_text(exc)
    host = urlsplit(url).hostname or url
    trust = _trust_label(config)
    if "CERTIFICATE_VERIFY_FAILED" in text or "certificate verify failed" in text:
        reason = text.split("certificate verify failed:", 1)[-1].split("(_ssl")[0].strip(" :)")
        return (
            f"the TLS certificate of {host} could not be verified ({reason or 'rejected'}) "
            f"against {trust}: if a proxy or firewall inspects TLS, add its CA to "
            "network.caFile"
        )
    if proxy is None:
        return None
    where = _safe_url(proxy)
    if any(word in text for word in ("ProxyError", "407", "403 Forbidden", "tunnel")):
        return f"the proxy {where} refused to connect to {host}: {_first_line(text)}"
    if any(word in text for word in ("Connection refused", "ConnectError", "Name or service")):
        return f"the proxy {where} (for {host}) cannot be reached: {_first_line(text)}"
    return None


def _chain_text(exc: BaseException) -> str:
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        parts.append(f"{type(current).__name__}: {current}")
        current = current.__cause__ or current.__context__
    return " | ".join(parts)


def _first_line(text: str) -> str:
    return text.splitlines()[0][:300] if text else "unknown error"


def _trust_label(config: NetworkConfig | None) -> str:
    ca_file = (config or NetworkConfig()).ca_file
    base = "the system trust store"
    if sys.platform not in ("darwin", "win32"):
        paths = ssl.get_default_verify_paths()
        base += f" ({os.environ.get('SSL_CERT_FILE') or paths.cafile or paths.capath})"
    return f"{base} and network.caFile {ca_file}" if ca_file else base
