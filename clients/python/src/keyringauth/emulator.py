"""The Auth emulator an app's calls go to: ``connect_auth_emulator`` as Firebase's JavaScript SDK names it, or the
app's own ``FIREBASE_AUTH_EMULATOR_HOST`` as Firebase's server SDKs read it. Either puts ``emulatorHost`` into the app
dictionary of every call the Auth makes; the broker serves an emulator on this machine's loopback only, and only to an
app that could reach it itself (a Flatpak app with ``--share=network``). ``connect_auth_emulator`` itself is the auth
module's, which this one is below."""
from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict

from . import errors

#: The environment variable Firebase's server SDKs read: ``host:port`` of the Auth emulator.
ENVIRONMENT_VARIABLE = "FIREBASE_AUTH_EMULATOR_HOST"

_EXAMPLES = "127.0.0.1:9099, [::1]:9099 or localhost:9099"


class EmulatorOptions(TypedDict, total=False):
    """``connect_auth_emulator``'s options: ``disable_warnings`` (``disableWarnings`` in JavaScript) leaves out the
    warning that the app uses the emulator."""

    disable_warnings: bool


@dataclass(frozen=True)
class EmulatorConfig:
    """The emulator an Auth uses (``Auth.emulator_config``), as the JavaScript SDK's ``emulatorConfig`` holds it."""

    host: str
    port: int
    protocol: str = "http"
    disable_warnings: bool = False

    @property
    def host_and_port(self) -> str:
        """``host:port``, as ``FIREBASE_AUTH_EMULATOR_HOST`` and the broker's ``emulatorHost`` write it."""
        return f"{self.host}:{self.port}"


def invalid(message: str) -> errors.AuthError:
    return errors.invalid_argument(message)


def loopback_emulator(value: str, source: str) -> tuple[str, int]:
    """``host`` and ``port`` of ``value``, ``host:port`` (``[ipv6]:port``) of an emulator on this machine's loopback,
    the host as the broker takes it (``localhost``, an address of 127.0.0.0/8, or ``[::1]``).

    Raises AuthError (``auth/argument-error``) naming ``source`` and what is wrong.
    """
    if value.startswith("["):
        close = value.find("]")
        if close < 0 or value[close + 1:close + 2] != ":":
            raise invalid(f"{source} {value!r} is not [IPv6 address]:port; use for example [::1]:9099.")
        host, port_text = value[1:close], value[close + 2:]
    else:
        if "/" in value or ":" not in value:
            raise invalid(f"{source} {value!r} is not host:port (no scheme or path); use for example 127.0.0.1:9099.")
        host, _, port_text = value.rpartition(":")
        if ":" in host:
            raise invalid(f"{source} {value!r} is ambiguous: put an IPv6 address in brackets before the port, as in [::1]:9099.")
    if not (port_text.isascii() and port_text.isdigit()) or not 1 <= int(port_text) <= 65535:
        raise invalid(f"{source} {value!r} has no port from 1 to 65535; use for example {_EXAMPLES}.")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if value.startswith("[") and (address is None or address.version != 6):
        raise invalid(f"{source} {value!r} has no IPv6 address in its brackets; use for example [::1]:9099.")
    if host.lower() == "localhost":
        host = "localhost"
    elif address is not None and address.is_loopback and (address.version == 4 or address == ipaddress.IPv6Address("::1")):
        host = str(address) if address.version == 4 else "[::1]"
    else:
        raise invalid(f"{source} {value!r} is not on this machine's loopback: the broker reaches an emulator at 127.0.0.1, [::1] or "
                       f"localhost only (it speaks plain HTTP); use for example {_EXAMPLES}.")
    return host, int(port_text)


def from_url(url: str, disable_warnings: bool = False) -> EmulatorConfig:
    """The emulator at ``url``, ``http://host:port`` with no path but ``/``, as ``connect_auth_emulator`` takes it.

    Raises AuthError: ``auth/invalid-emulator-scheme`` for a URL that is not ``http://``, ``auth/argument-error``
    for anything else that is not an emulator on this machine's loopback.
    """
    if not url.startswith("http://"):
        raise errors.AuthError(
            "auth/invalid-emulator-scheme", "ERROR_INVALID_EMULATOR_SCHEME",
            f"The emulator URL {url!r} does not start with http://: the emulator on this machine speaks plain HTTP; use for "
            "example http://127.0.0.1:9099.")
    rest = url[len("http://"):]
    end = min([index for index in (rest.find("/"), rest.find("?"), rest.find("#")) if index >= 0] or [len(rest)])
    authority, remainder = rest[:end], rest[end:]
    if remainder not in ("", "/"):
        raise invalid(f"The emulator URL {url!r} has a path, query or fragment ({remainder!r}); name the emulator only, as in "
                       "http://127.0.0.1:9099.")
    if "@" in authority:
        raise invalid(f"The emulator URL {url!r} names a user; name the emulator only, as in http://127.0.0.1:9099.")
    if ":" not in authority.rpartition("]")[2]:
        raise invalid(f"The emulator URL {url!r} names no port; name the emulator's, as in http://127.0.0.1:9099.")
    host, port = loopback_emulator(authority, "The emulator URL's address")
    return EmulatorConfig(host, port, disable_warnings=disable_warnings)


def from_environment(environment: Mapping[str, str] | None = None) -> EmulatorConfig | None:
    """The emulator ``FIREBASE_AUTH_EMULATOR_HOST`` names in ``environment`` (the process's by default), or ``None``
    when it is unset or empty.

    Raises AuthError (``auth/argument-error``) when it names no emulator on this machine's loopback.
    """
    value = (os.environ if environment is None else environment).get(ENVIRONMENT_VARIABLE, "")
    if not value:
        return None
    try:
        host, port = loopback_emulator(value, ENVIRONMENT_VARIABLE)
    except errors.AuthError as error:
        raise invalid(error.message + f" Or unset {ENVIRONMENT_VARIABLE} to use Firebase.") from None
    return EmulatorConfig(host, port, disable_warnings=True)
