"""Proxies and certificates for the model transports, against a local CONNECT proxy and a local
TLS server whose certificate a CA made for the test signed."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core import LlmContext, StreamOptions, user_message
from agent_core.abort import AbortSignal
from agent_core.net import NetworkConfig, NetworkConfigError, proxy_for, ssl_context
from agent_core.providers import RetryConfig, make_stream_fn, resolve_model
from tests.fakes import FakeProviderServer, Turn
from tests.fakes.proxy import FakeProxy
from tests.fakes.tls import TEST_HOST, ThrowawayCA

NO_ENV: dict[str, str] = {}


# ---------------------------------------------------------------------------- choosing a proxy


def test_setting_wins_over_environment() -> None:
    config = NetworkConfig(proxy="http://corp:3128")
    env = {"HTTPS_PROXY": "http://env:1"}
    assert proxy_for("https://api.openai.com/v1", config, env) == "http://corp:3128"
    assert proxy_for("https://api.openai.com/v1", NetworkConfig(), env) == "http://env:1"
    assert proxy_for("http://api.example/v1", NetworkConfig(), {"http_proxy": "http://p:2"}) == (
        "http://p:2"
    )
    assert proxy_for("https://x.example", NetworkConfig(), {"ALL_PROXY": "socks5://s:1"}) == (
        "socks5://s:1"
    )
    assert proxy_for("https://x.example", NetworkConfig(use_env=False), env) is None


@pytest.mark.parametrize(
    ("no_proxy", "url", "direct"),
    [
        ("corp.example", "https://git.corp.example/x", True),
        (".corp.example", "https://corp.example/x", True),
        ("*.corp.example", "https://a.corp.example", True),
        ("corp.example", "https://notcorp.example", False),
        ("10.0.0.0/8", "https://10.1.2.3/v1", True),
        ("10.0.0.0/8", "https://11.1.2.3/v1", False),
        ("api.example:8443", "https://api.example:8443", True),
        ("api.example:8443", "https://api.example", False),
        ("*", "https://anything.example", True),
        (" , ,", "https://anything.example", False),
    ],
)
def test_no_proxy(no_proxy: str, url: str, direct: bool) -> None:
    env = {"NO_PROXY": no_proxy, "HTTPS_PROXY": "http://p:1"}
    assert (proxy_for(url, NetworkConfig(), env) is None) is direct
    config = NetworkConfig(proxy="http://p:1", no_proxy=tuple(no_proxy.split(",")))
    assert (proxy_for(url, config, NO_ENV) is None) is direct


def test_loopback_is_never_proxied() -> None:
    config = NetworkConfig(proxy="http://p:1")
    for url in (
        "http://127.0.0.1:8080",
        "https://localhost/v1",
        "http://[::1]:9",
        "http://a.localhost",
    ):
        assert proxy_for(url, config, NO_ENV) is None


def test_bad_proxy_and_ca_file_are_named() -> None:
    with pytest.raises(NetworkConfigError, match="network.proxy"):
        NetworkConfig(proxy="corp:3128")
    with pytest.raises(NetworkConfigError, match="HTTPS_PROXY"):
        proxy_for("https://x.example", NetworkConfig(), {"HTTPS_PROXY": "::nonsense"})
    with pytest.raises(NetworkConfigError, match=r"user:\*\*\*@"):
        NetworkConfig(proxy="ftp://user:hunter2@proxy")


def test_ca_file_problems(tmp_path: Path) -> None:
    with pytest.raises(NetworkConfigError, match="does not exist"):
        ssl_context(NetworkConfig(ca_file=str(tmp_path / "missing.pem")))
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate")
    with pytest.raises(NetworkConfigError, match="not a PEM"):
        ssl_context(NetworkConfig(ca_file=str(junk)))


# ---------------------------------------------------------------------------- end to end


async def _ask(base_url: str, network: NetworkConfig) -> object:
    model = resolve_model("openai/gpt-4o", api_base=base_url, api_key="sk-net", env=NO_ENV)
    fn = make_stream_fn(model, retry=RetryConfig(max_retries=0), timeout_s=10, network=network)
    final = None
    try:
        options = StreamOptions(model=model.id, cancel=AbortSignal())
        async for item in fn(LlmContext("sys", [user_message("hi")]), options):
            final = item
    finally:
        await fn.aclose()  # type: ignore[attr-defined]
    return final


@pytest.fixture
def ca(tmp_path: Path) -> ThrowawayCA:
    return ThrowawayCA(tmp_path / "ca")


async def test_through_proxy_with_extra_ca(ca: ThrowawayCA) -> None:
    with FakeProviderServer([Turn(text="via proxy")], tls=(ca.cert_file, ca.key_file)) as server:
        with FakeProxy(hosts={TEST_HOST: "127.0.0.1"}) as proxy:
            base = f"https://{TEST_HOST}:{server.port}/v1"
            network = NetworkConfig(proxy=proxy.url, ca_file=str(ca.ca_file), use_env=False)
            final = await _ask(base, network)
    assert getattr(final, "text", None) == "via proxy", getattr(final, "error_message", None)
    assert proxy.requests == [f"CONNECT {TEST_HOST}:{server.port} HTTP/1.1"]


async def test_untrusted_certificate_names_host_and_trust(ca: ThrowawayCA) -> None:
    with FakeProviderServer([Turn(text="never")], tls=(ca.cert_file, ca.key_file)) as server:
        with FakeProxy(hosts={TEST_HOST: "127.0.0.1"}) as proxy:
            base = f"https://{TEST_HOST}:{server.port}/v1"
            final = await _ask(base, NetworkConfig(proxy=proxy.url, use_env=False))
    message = getattr(final, "error_message", "") or ""
    assert getattr(final, "stop_reason", None) == "error"
    assert f"certificate of {TEST_HOST} could not be verified" in message
    assert "system trust store" in message and "network.caFile" in message
    assert "\n" not in message


async def test_refusing_proxy_is_named(ca: ThrowawayCA) -> None:
    with FakeProxy(refuse=403) as proxy:
        network = NetworkConfig(proxy=proxy.url, ca_file=str(ca.ca_file), use_env=False)
        final = await _ask(f"https://{TEST_HOST}:443/v1", network)
    message = getattr(final, "error_message", "") or ""
    assert f"the proxy {proxy.url} refused to connect to {TEST_HOST}" in message, message


async def test_proxy_that_is_down_is_named(ca: ThrowawayCA) -> None:
    import socket

    # A port held bound but not listening: connections are refused, and no other test can
    # take it meanwhile (a proxy's port freed on exit could be reused by a parallel test).
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{held.getsockname()[1]}"
        final = await _ask(f"https://{TEST_HOST}:443/v1", NetworkConfig(proxy=down, use_env=False))
    message = getattr(final, "error_message", "") or ""
    assert f"the proxy {down} (for {TEST_HOST}) cannot be reached" in message, message


async def test_proxy_credentials_are_sent_and_never_shown(ca: ThrowawayCA) -> None:
    with FakeProviderServer([Turn(text="ok")], tls=(ca.cert_file, ca.key_file)) as server:
        with FakeProxy(hosts={TEST_HOST: "127.0.0.1"}, require_auth="me:s3cret") as proxy:
            url = proxy.url.replace("http://", "http://me:s3cret@")
            base = f"https://{TEST_HOST}:{server.port}/v1"
            good = await _ask(
                base, NetworkConfig(proxy=url, ca_file=str(ca.ca_file), use_env=False)
            )
            bad_url = proxy.url.replace("http://", "http://me:wrong@")
            bad = await _ask(
                base, NetworkConfig(proxy=bad_url, ca_file=str(ca.ca_file), use_env=False)
            )
    assert getattr(good, "text", None) == "ok"
    message = getattr(bad, "error_message", "") or ""
    assert "refused" in message and "wrong" not in message, message
