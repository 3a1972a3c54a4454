"""The broker on the session bus (io.github.keyringauth.Broker1), through jeepney: one connection per Auth, whose
receiver thread answers calls from any thread and queues the UserChanged signals sent to this connection, and hands a
call's PhoneVerificationPage signals to its watcher. Signals count only from the owner of the broker's name: any peer
can send one to this connection. The transport: it knows D-Bus and the broker's error names, and nothing of users or
second factors."""
from __future__ import annotations

import concurrent.futures
import queue
import threading
from typing import Any, Callable

from jeepney import DBusAddress, HeaderFields, MatchRule, MessageType, new_method_call  # type: ignore[import-untyped]
from jeepney.io import RouterClosed  # type: ignore[import-untyped]
from jeepney.io.threading import DBusRouter, open_dbus_connection  # type: ignore[import-untyped]

from . import errors
from ._log import run_logged
from ._variants import Variant, plain

NAME = "io.github.keyringauth.Broker1"
PATH = "/io/github/keyringauth/Broker1"
ADDRESS = DBusAddress(PATH, bus_name=NAME, interface=NAME)
BUS = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")

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
        self._filter = self._router.filter(_signal_rule("UserChanged"), queue=self._signals)
        #: The unique name that owned the broker's name when last asked: the one sender whose signals count.
        self._owner: str | None = None

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

    def call_telling_pages(self, method: str, app: dict[str, Variant], group: str, signature: str, *arguments: Any,
                           timeout: float, on_page: Callable[[str], None]) -> list[Any]:
        """:meth:`call`, telling ``on_page`` the address of each verification page the broker sends this connection
        meanwhile (PhoneVerificationPage), on a thread of its own, so that the app's function may take its time."""
        pages: queue.Queue[Any] = queue.Queue(maxsize=16)
        watcher = threading.Thread(target=self._tell_pages, args=(pages, on_page), name="keyringauth-verification-page",
                                   daemon=True)
        with self._router.filter(_signal_rule("PhoneVerificationPage"), queue=pages):
            watcher.start()
            try:
                return self.call(method, app, group, signature, *arguments, timeout=timeout)
            finally:
                while True:  # the end, even past a full queue of pages nobody asked for
                    try:
                        pages.put(None, timeout=1.0)
                        break
                    except queue.Full:
                        continue
                watcher.join()

    def _tell_pages(self, pages: queue.Queue[Any], on_page: Callable[[str], None]) -> None:
        while (message := pages.get()) is not None:
            body = list(message.body)
            if len(body) == 3 and isinstance(body[2], str) and self._from_broker(message):
                run_logged(on_page, body[2], what="The app's on_address", then="the verification goes on.")

    def next_signal(self, timeout: float | None) -> list[Any] | None:
        """The next UserChanged the broker sent to this connection, its arguments unwrapped, or ``None`` after
        ``timeout`` (or when woken). One from another peer is dropped."""
        try:
            message = self._signals.get(timeout=timeout)
        except queue.Empty:
            return None
        if message is None or not self._from_broker(message):
            return None
        return [plain(value) for value in message.body]

    def _from_broker(self, message: Any) -> bool:
        """Whether ``message`` came from the broker's name's owner, asked again when it names another sender (the
        broker may have restarted since)."""
        sender = message.header.fields.get(HeaderFields.sender)
        if sender is None or sender != self._owner:
            try:
                reply = self._router.send_and_get_reply(new_method_call(BUS, "GetNameOwner", "s", (NAME,)), timeout=self.timeout)
            except (concurrent.futures.TimeoutError, RouterClosed, OSError):
                return False
            if reply.header.message_type == MessageType.error:
                return False
            self._owner = str(reply.body[0])
        return bool(sender == self._owner)

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


def _signal_rule(member: str) -> MatchRule:
    return MatchRule(type="signal", interface=NAME, member=member, path=PATH)


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
