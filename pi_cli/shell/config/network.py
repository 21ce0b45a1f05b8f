"""The ``network`` settings as the clients take them (agent_core.net.NetworkConfig)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_core.net import NetworkConfig
    from pi_cli.shell.config.settings import Settings


def network_config(
    settings: Settings, notify: Callable[[str, Any], None], who: str
) -> NetworkConfig | None:
    """``settings.network`` for ``who``'s clients; a bad value is said and the defaults used."""
    from agent_core.net import NetworkConfigError

    try:
        return settings.network.config()  # type: ignore[no-any-return]
    except NetworkConfigError as exc:
        notify(f"{who} ignore the network settings: {exc}", "warning")
        return None
