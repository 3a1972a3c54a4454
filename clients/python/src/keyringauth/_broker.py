"""The broker on the session bus (io.github.keyringauth.Broker1), through jeepney: one connection per Auth, whose
receiver thread answers calls from any thread and queues the UserChanged signals sent to this connection. The
transport: it knows D-Bus and the broker's error names, and nothing of users or second factors."""
from __future__ import annotations

import concurrent.futures
import queue
from typing import Any

from jeepney import DBusAddress, HeaderFields, MatchRule, MessageType, new_method_call  # type: ignore[import-untyped]
from jeepney.io import RouterClosed  # type: ignore[import-untyped]
from jeepney.io.threading import DBusRouter, open_dbus_connection  # type: ignore[import-untyped]

from . import errors
from ._variants import Variant, plain

NAME = "io.github.keyringauth.Broker1"
PATH = "/io/github/keyringauth/Broker1"
ADDRESS = DBusAddress(PATH, bus_name=NAME, interface=NAME)

#: D-Bus errors that mean nothing answers for the broker's name.
_NO_BROKER = {
    "org.freedesktop.DBus.Error.ServiceUnknown",
    "org.freedesktop.DBus.Error.NameHasNoOwner",
    "org.freedesktop.DBus.Error.Spawn.ServiceNotFound",
    "org.freedesktop.DBus.Error.Spawn.ChildExited",
    "org.freedesktop.DBus.Error.Spawn.ExecFailed",
}


class Broker:
    """Calls to the broker, each bounded by ``timeout`` seconds (a browser sign-in by its own five minutes)."""

    def __init__(self, bus: str = "SESSION", timeout: float = 25.0) -> None:
        self.timeout = timeout
        self.closed = False
        try:
            self._connection = open_dbus_connection(bus)
        except (OSError, KeyError, ValueError) as error:
            raise errors.broker_unavailable(
                f"There is no session bus to reach KeyringAuth's broker ({error}); run the app in a desktop session, or "
                "under dbus-run-session.") from None
        self._router = DBusRouter(self._connection)
        self._signals: queue.Queue[Any] = queue.Queue(maxsize=1024)
        self._filter = self._router.filter(MatchRule(type="signal", interface=NAME, member="UserChanged", path=PATH),
                                           queue=self._signals)

    @property
    def unique_name(self) -> str:
        return str(self._router.unique_name)

    def call(self, method: str, app: dict[str, Variant], group: str, signature: str = "", *arguments: Any,
             timeout: float | None = None) -> list[Any]:
        """Calls ``method`` with the app and group first, and answers its out-arguments, their variants unwrapped."""
        if self.closed:
            raise errors.closed()
        message = new_method_call(ADDRESS, method, "a{sv}s" + signature, (app, group) + arguments)
        try:
            reply = self._router.send_and_get_reply(message, timeout=timeout or self.timeout)
        except concurrent.futures.TimeoutError:
            raise errors.timed_out(method, timeout or self.timeout) from None
        except (RouterClosed, OSError) as error:  # the router stopped: closed meanwhile, or the bus went away
            if self.closed:
                raise errors.closed() from None
            raise errors.broker_unavailable(f"The session bus connection ended ({error}); start the app again.") from None
        if reply.header.message_type == MessageType.error:
            raise reply_error(reply, method, timeout or self.timeout)
        return [plain(value) for value in reply.body]

    def next_signal(self, timeout: float | None) -> list[Any] | None:
        """The next UserChanged sent to this connection, its arguments unwrapped, or ``None`` after ``timeout``."""
        try:
            message = self._signals.get(timeout=timeout)
        except queue.Empty:
            return None
        if message is None:
            return None
        return [plain(value) for value in message.body]

    def wake(self) -> None:
        """Makes a waiting :meth:`next_signal` return ``None``."""
        try:
            self._signals.put_nowait(None)
        except queue.Full:
            pass

    def close(self) -> None:
        """Ends the connection; calls after it raise errors.closed(). Closing again does nothing."""
        if self.closed:
            return
        self.closed = True
        self._filter.close()
        self._router.close()
        self._connection.close()


def reply_error(reply: Any, method: str, timeout: float) -> errors.AuthError:
    """The error of the broker's error ``reply`` to ``method``, said in Python."""
    name = str(reply.header.fields.get(HeaderFields.error_name, ""))
    body = list(reply.body)
    message = body[0] if body and isinstance(body[0], str) else name
    if name in _NO_BROKER:
        return errors.broker_unavailable(
            f"KeyringAuth's broker ({NAME}) is not installed on this machine, or could not start ({message}); install "
            "it: the keyring-auth Debian package (sudo apt install ./keyring-auth_VERSION_ARCH.deb, which "
            "scripts/package-deb builds from KeyringAuth's repository), or scripts/install from a checkout.")
    if name.startswith(NAME + ".Error."):
        kind = name[len(NAME + ".Error."):]
        if kind == "SecondFactorRequired" and len(body) >= 3:
            return errors.second_factor_required(str(body[1]), plain(body[2]))
        return errors.broker_error(kind, message)
    if name == "org.freedesktop.DBus.Error.NoReply":
        return errors.timed_out(method, timeout)
    return errors.broker_unavailable(f"The broker could not be called: {message} ({name}).")
