"""The keys a command model accepts: each field's declared metadata (aliases, error code, spec
text) and every accepted key mapped to the field it fills. Validation, the hints for a key an
action does not take, and the spec all read them from here."""

from __future__ import annotations

from functools import cache
from typing import Any

from .base import Command


def field_meta(model: type[Command], name: str) -> dict[str, Any]:
    extra = model.model_fields[name].json_schema_extra
    return extra if isinstance(extra, dict) else {}


@cache  # a model's fields never change, and every block of its action asks
def alias_map(model: type[Command]) -> dict[str, str]:
    """Every accepted key (field names and aliases) -> the field it fills. Do not change the dict
    returned."""
    names = {name: name for name in model.model_fields}
    for name in model.model_fields:
        for alias in field_meta(model, name).get("aliases", []):
            names[alias] = name
    return names
