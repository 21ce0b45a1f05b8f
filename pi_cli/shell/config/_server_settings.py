"""``server``: the settings of ``pi serve`` and its clients (docs/server.md)."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from pi_cli.shell.config.sections import SettingsSection


class ServerSettings(SettingsSection):
    """``server``: ``pi serve`` and its clients (docs/server.md)."""

    approval_timeout_s: (
        Annotated[
            float,
            Meta(
                gt=0,
                description="How long an approval in a session hosted by `pi serve` waits for a person "
                "(seconds), attached or not; `null`: until it is answered or the run is aborted.",
            ),
        ]
        | None
    ) = 86400.0
    idle_exit_s: Annotated[
        float,
        Meta(
            gt=0,
            description="A server started on demand (`pi --detach`, `pi attach`) stops after this "
            "long (seconds) with no client, no live run and no approval waiting.",
        ),
    ] = 600.0
    notify: Annotated[
        Literal["auto", "off"],
        Meta(
            description="`auto`: a desktop notification (`notify-send`) when an approval waits and "
            "no client is attached; `off`: none."
        ),
    ] = "auto"
    client_lag_mib: Annotated[
        float,
        Meta(
            gt=0,
            description="A client this far behind a session's stream (MiB), a reader that never "
            "drains, is dropped.",
        ),
    ] = 16.0
