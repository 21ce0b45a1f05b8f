"""Where web_fetch may connect: public addresses only, unless an entry of the allow-list says so.

Every host is resolved here, every address it resolves to is checked, and the connection is
then made to the checked address itself (see :mod:`tools.web._http`), so neither a DNS answer
that changes between check and connect (rebinding) nor a redirect reaches a private, loopback,
link-local or otherwise non-public address. Numeric spellings (``2130706433``, ``0x7f.1``,
``[::ffff:127.0.0.1]``) resolve to the address they mean and are checked as such.

Allow-list entries (``webFetch.allowPrivateHosts``, or a test's own server): ``127.0.0.1:8080``
(that address and port), ``10.0.0.0/8`` (a network, any port), ``wiki.corp`` or
``wiki.corp:8443`` (whatever that host name resolves to), ``[::1]:9000``.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Sequence
from typing import NamedTuple
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]
"""``(host, port)`` -> the addresses it resolves to (text form)."""

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NUMERIC_V4 = re.compile(r"[0-9a-fx.]+", re.IGNORECASE)
_LOOPBACK_NAMES = ("localhost", "localhost.localdomain")


class Refused(Exception):
    """The request may not be made (the message says why, for the model and the user)."""


class _Entry(NamedTuple):
    network: ipaddress.IPv4Network | ipaddress.IPv6Network | None
    host: str | None
    port: int | None


def parse_entry(text: str) -> _Entry:
    """One allow-list entry (raises ValueError for a malformed one)."""
    value = text.strip().lower()
    if not value:
        raise ValueError("empty entry")
    port: int | None = None
    if value.startswith("["):  # [v6] or [v6]:port
        inside, _, rest = value[1:].partition("]")
        value = inside
        if rest:
            port = _port(rest.removeprefix(":"))
    elif value.count(":") == 1:
        value, raw_port = value.split(":")
        port = _port(raw_port)
    try:
        return _Entry(ipaddress.ip_network(value, strict=False), None, port)
    except ValueError:
        pass
    if "/" in value or not value.replace("-", "").replace(".", "").isalnum():
        raise ValueError(f"{text!r} is neither an address, a network nor a host name")
    return _Entry(None, value.rstrip("."), port)


def _port(text: str) -> int:
    port = int(text)
    if not 0 < port < 65536:
        raise ValueError(f"port {port} is out of range")
    return port


def normalise(ip: IPAddress) -> IPAddress:
    """The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address, else ``ip``."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip in _NAT64:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def is_public(ip: IPAddress) -> bool:
    """A globally routable unicast address (not private, loopback, link-local, CGNAT...)."""
    ip = normalise(ip)
    return ip.is_global and not ip.is_multicast and not ip.is_unspecified


def describe(ip: IPAddress) -> str:
    """Why ``ip`` is not public, in a few words."""
    ip = normalise(ip)
    for attribute, words in (
        ("is_loopback", "a loopback address"),
        ("is_link_local", "a link-local address"),
        ("is_multicast", "a multicast address"),
        ("is_unspecified", "the unspecified address"),
        ("is_private", "a private address"),
    ):
        if getattr(ip, attribute):
            return words
    return "not a public address"


class AddressPolicy:
    """The allow-list, and the check every connection goes through.

    Raises:
        ValueError: from the constructor, for a malformed entry (the message names it).
    """

    def __init__(self, allow: Sequence[str] = ()) -> None:
        self.entries = [parse_entry(text) for text in allow]

    def _allowed(self, host: str, port: int, ip: IPAddress) -> bool:
        for entry in self.entries:
            if entry.port is not None and entry.port != port:
                continue
            if entry.host is not None and entry.host == host.lower().rstrip("."):
                return True
            if entry.network is not None and normalise(ip) in entry.network:
                return True
            if entry.network is not None and ip in entry.network:
                return True
        return False

    def refuse_literal(self, host: str, port: int) -> None:
        """:class:`Refused` for a host known not to be public without asking DNS: an address
        in any spelling (``127.1``, ``0x7f.1``, ``2130706433``, ``[::ffff:7f00:1]``) or a
        name that means this machine (``localhost``, ``*.localhost``), unless allowed.

        Nothing is resolved: a name is looked up only after the call was approved (a lookup
        of ``<secret>.attacker.example`` would already send the secret).
        """
        name = host.lower().rstrip(".")
        ip = literal_address(name)
        if ip is not None:
            self.pick(host, port, [str(ip)])
            return
        local = name in _LOOPBACK_NAMES or name.endswith(".localhost")
        if local and not self._allowed(name, port, ipaddress.ip_address("127.0.0.1")):
            raise Refused(
                f"refused to fetch from {host}: it names this machine (a loopback address). "
                "web_fetch reaches only public addresses unless webFetch.allowPrivateHosts "
                "allows it"
            )

    def pick(self, host: str, port: int, addresses: Sequence[str]) -> str:
        """The address to connect to; :class:`Refused` when any of them is not allowed.

        All of them are checked (not only the first): a name that resolves to a public and a
        private address is refused, since which one a connection would use is not ours to say.
        """
        if not addresses:
            raise Refused(f"{host} did not resolve to any address")
        for text in addresses:
            ip = ipaddress.ip_address(text.split("%", 1)[0])
            if not is_public(ip) and not self._allowed(host, port, ip):
                shown = host if host == text else f"{host} ({text})"
                raise Refused(
                    f"refused to fetch from {shown}: it is {describe(ip)}. web_fetch reaches "
                    "only public addresses unless webFetch.allowPrivateHosts allows it"
                )
        return addresses[0].split("%", 1)[0]


def literal_address(host: str) -> IPAddress | None:
    """The address a host spelled as a number means (as the C resolver reads it), or None."""
    text = host.strip("[]")
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        pass
    if not _NUMERIC_V4.fullmatch(text) or not any(ch.isdigit() for ch in text):
        return None
    try:  # inet_aton: the forms getaddrinfo accepts too (127.1, 0x7f.0.0.1, 017700000001)
        return ipaddress.IPv4Address(socket.inet_aton(text))
    except OSError:
        return None


def check_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an http(s) URL; :class:`Refused` for anything else."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise Refused(f"not a valid URL ({exc}): {url!r}") from None
    if parts.scheme not in ("http", "https"):
        raise Refused(f"only http and https URLs can be fetched, not {parts.scheme or 'this'}")
    host = parts.hostname
    if not host:
        raise Refused(f"the URL names no host: {url!r}")
    if parts.username is not None or parts.password is not None:
        raise Refused("URLs with credentials (user:password@) are not fetched")
    return parts.scheme, host, port or (443 if parts.scheme == "https" else 80)


async def system_resolver(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to (IPv4 and IPv6, in the resolver's order)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise Refused(f"cannot resolve {host}: {exc}") from None
    seen: list[str] = []
    for info in infos:
        address = str(info[4][0])
        if address not in seen:
            seen.append(address)
    return seen
