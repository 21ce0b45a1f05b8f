"""Settings sections made from their defaults without validating (see ``settings.defaults``)."""

from __future__ import annotations

from typing import Any

from pi_cli.shell.config.sections import SettingsSection


def unvalidated_defaults(model: type[SettingsSection]) -> SettingsSection:
    """``model()`` without validating: its defaults, nested sections made the same way."""
    values: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        factory = field.default_factory
        if isinstance(factory, type) and issubclass(factory, SettingsSection):
            values[name] = unvalidated_defaults(factory)
        elif factory is not None:  # list, dict: called here, not inspected by pydantic first
            values[name] = factory()  # type: ignore[call-arg]
    return model.model_construct(_fields_set=set(), **values)
