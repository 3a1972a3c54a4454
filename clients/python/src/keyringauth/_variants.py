"""D-Bus values as the broker's interface writes them: the ``a{sv}`` dictionaries a call sends, and an answer's
variants unwrapped. The package's lowest layer: it imports nothing of the package."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: A D-Bus variant as jeepney writes one: its signature and its value.
Variant = tuple[str, Any]


def strings(values: Mapping[str, str | bool | None]) -> dict[str, Variant]:
    """An ``a{sv}`` of ``values``: strings, and booleans where given; a ``None`` is left out."""
    return {key: ("b" if isinstance(value, bool) else "s", value) for key, value in values.items() if value is not None}


def plain(value: Any) -> Any:
    """A value read from the bus with its variants unwrapped: an ``a{sv}`` as a dict, an ``aa{sv}`` as a list of dicts."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and value[0] in ("s", "b", "x", "aa{sv}", "a{sv}", "u"):
        return plain(value[1])
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value
