"""Listeners that raise: logged on the ``keyringauth`` logger, naming the listener, while the Auth's other listeners,
``current_user`` and ``auth_state_ready`` go on. Against the broker, with the changes made by another process; and
offline, the Auth's watch thread driven by a stand-in broker whose UserChanged signals the test sends. And a
UserChanged that another peer than the broker sends is not heard."""
from __future__ import annotations

import json
import logging
import queue
import subprocess
import sys
import threading
import types
from dataclasses import replace
from typing import Callable

import pytest
from jeepney import DBusAddress, HeaderFields, new_method_call, new_signal  # type: ignore[import-untyped]
from jeepney.io.blocking import open_dbus_connection  # type: ignore[import-untyped]

from conftest import StandInBroker
from keyringauth import Auth, AuthError, FirebaseOptions, User, glib_dispatch


class Heard:
    """What a listener was told (each user's uid, ``None`` for nobody), waited for with a deadline."""

    def __init__(self) -> None:
        self.uids: list[str | None] = []
        self._changed = threading.Condition()

    def __call__(self, user: User | None) -> None:
        with self._changed:
            self.uids.append(user.uid if user else None)
            self._changed.notify_all()

    def wait_for(self, count: int, timeout: float = 30.0) -> list[str | None]:
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.uids) >= count, timeout), f"heard {self.uids}, waited for {count}"
            return list(self.uids)


def raising_listener(user: User | None) -> None:
    raise RuntimeError("a listener's own bug")


def failures_of(caplog: pytest.LogCaptureFixture, name: str) -> list[logging.LogRecord]:
    """The records of the ``keyringauth`` logger that name ``name``, each with its traceback."""
    records = [record for record in caplog.records if record.name == "keyringauth" and name in record.getMessage()]
    assert all(record.levelno == logging.ERROR and record.exc_info for record in records), [record.getMessage() for record in records]
    return records


# Against the broker: the changes made by another process.
OTHER_APP = """
import json, sys
from keyringauth import Auth, FirebaseOptions
with Auth(FirebaseOptions(**json.loads(sys.argv[1])), access_group=sys.argv[2]) as auth:
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "sign-in":
            print(auth.sign_in_anonymously().user.uid, flush=True)
        else:
            auth.sign_out()
            print("none", flush=True)
"""


def test_a_listener_that_raises_is_logged_and_the_others_follow_another_process(
        auth: Auth, options: FirebaseOptions, group: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="keyringauth")
    raising = auth.on_auth_state_changed(raising_listener)  # told at once, and it raises: logged, not raised here
    states: queue.Queue[User | None] = queue.Queue()
    auth.on_auth_state_changed(states.put)
    heard = Heard()
    auth.on_user_changed(heard)
    assert states.get(timeout=30) is None
    other_app = replace(options, app_id=options.app_id + "-other")
    fields = {"api_key": other_app.api_key, "app_id": other_app.app_id, "project_id": other_app.project_id}
    other = subprocess.Popen([sys.executable, "-c", OTHER_APP, json.dumps(fields), group], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    assert other.stdin is not None and other.stdout is not None
    stdin, stdout = other.stdin, other.stdout

    def read() -> None:
        for line in stdout:
            lines.put(line.strip())
    threading.Thread(target=read, daemon=True).start()
    try:
        assert lines.get(timeout=60) == "ready"
        uids = []
        for _ in range(3):
            stdin.write("sign-in\n")
            stdin.flush()
            uid = lines.get(timeout=60)
            user = states.get(timeout=30)
            assert user is not None and user.uid == uid, "the other listener heard the other process's sign-in"
            assert auth.current_user is not None and auth.current_user.uid == uid, "current_user follows"
            stdin.write("sign-out\n")
            stdin.flush()
            assert lines.get(timeout=60) == "none"
            assert states.get(timeout=30) is None and [auth.current_user] == [None]
            uids.append(uid)
        stdin.close()
        assert other.wait(timeout=60) == 0, other.stderr.read() if other.stderr else ""
    finally:
        if other.poll() is None:
            other.kill()
            other.wait()
    assert len(set(uids)) == 3 and states.empty(), "each of the six changes heard once"
    assert heard.wait_for(7)[1:] == [uids[0], None, uids[1], None, uids[2], None], "on_user_changed heard all six too"
    assert auth.auth_state_ready(timeout=0)
    failures = failures_of(caplog, f"on_auth_state_changed listener {__name__}.raising_listener")
    assert len(failures) == 7, "the call at once and each of the six changes, each logged with its traceback"
    assert all(record.exc_info and record.exc_info[0] is RuntimeError for record in failures)
    raising()
    auth.sign_in_anonymously()
    assert states.get(timeout=30) is auth.current_user and len(failures_of(caplog, "raising_listener")) == 7, "stopped: not told"


def test_a_user_changed_that_another_peer_sends_is_not_heard(auth: Auth, group: str) -> None:
    states: queue.Queue[User | None] = queue.Queue()
    auth.on_auth_state_changed(states.put)
    assert states.get(timeout=30) is None
    forged = new_signal(DBusAddress("/io/github/keyringauth/Broker1", interface="io.github.keyringauth.Broker1"), "UserChanged",
                        "a{sv}sa{sv}", (dict(auth._binding.app), group, {"uid": ("s", "forged"), "idToken": ("s", "forged")}))
    forged.header.fields[HeaderFields.destination] = auth._broker.unique_name
    with open_dbus_connection("SESSION") as peer:
        peer.send(forged)
        # The bus daemon handles one connection's messages in order: once it answers, the forged signal is delivered.
        peer.send_and_get_reply(new_method_call(DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus",
                                                            interface="org.freedesktop.DBus.Peer"), "Ping"), timeout=30)
    uid = auth.sign_in_anonymously().user.uid
    told = states.get(timeout=30)
    assert told is not None and told.uid == uid, "the first change heard is the broker's, not the forged one"
    assert auth.current_user is not None and auth.current_user.uid == uid


# Offline: the Auth's own watch thread, on a stand-in broker (conftest's).
def sign_ins(broker: StandInBroker, auth: Auth) -> list[str]:
    """Three sign-ins and sign-outs, as the group's other apps make them: the broker's signals only."""
    uids = []
    for number in range(3):
        uid = f"uid-{number}"
        broker.send(auth, {"uid": uid, "idToken": f"token-{number}"})
        broker.send(auth, {})
        uids.append(uid)
    return uids


@pytest.mark.offline
def test_each_kind_of_listener_that_raises_is_logged_and_the_others_go_on(
        stand_in: Callable[..., tuple[Auth, StandInBroker]], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="keyringauth")
    auth, broker = stand_in()

    class Window:
        def on_token(self, user: User | None) -> None:
            raise ValueError("the window is gone")

    window = Window()
    auth.on_auth_state_changed(raising_listener)
    auth.on_id_token_changed(window.on_token)
    def divides(user: User | None) -> None:
        print(1 / 0)
    auth.on_user_changed(divides)
    states, tokens, changes = Heard(), Heard(), Heard()
    auth.on_auth_state_changed(states)
    auth.on_id_token_changed(tokens)
    auth.on_user_changed(changes)
    uids = sign_ins(broker, auth)
    expected = [None, uids[0], None, uids[1], None, uids[2], None]
    assert states.wait_for(7) == expected and tokens.wait_for(7) == expected and changes.wait_for(7) == expected
    assert [auth.current_user] == [None] and auth.auth_state_ready(timeout=0) and auth._watching.is_alive()
    assert len(failures_of(caplog, f"on_auth_state_changed listener {__name__}.raising_listener raised RuntimeError")) == 7
    assert len(failures_of(caplog, "on_id_token_changed listener " + __name__ + ".test_each_kind_of_listener_that_raises_is_logged_and_the_"
                                   "others_go_on.<locals>.Window.on_token raised ValueError")) == 7
    assert len(failures_of(caplog, ".<locals>.divides raised ZeroDivisionError")) == 7
    broker.send(auth, {"uid": "uid-last", "idToken": "token-last"})
    assert states.wait_for(8)[-1] == "uid-last"
    assert auth.current_user is not None and auth.current_user.uid == "uid-last", "current_user follows after every failure"


@pytest.mark.offline
def test_a_listener_is_named_by_its_repr_without_a_qualified_name(
        stand_in: Callable[..., tuple[Auth, StandInBroker]], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="keyringauth")
    auth, _ = stand_in()

    class Listener:
        def __call__(self, user: User | None) -> None:
            raise KeyError("gone")

        def __repr__(self) -> str:
            return "<the notes window's listener>"

    auth.on_auth_state_changed(Listener())
    assert len(failures_of(caplog, "on_auth_state_changed listener <the notes window's listener> raised KeyError")) == 1


@pytest.mark.offline
def test_a_dispatch_that_raises_or_a_signal_that_cannot_be_taken_ends_nothing(
        stand_in: Callable[..., tuple[Auth, StandInBroker]], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="keyringauth")
    handed: list[Callable[[], None]] = []

    def dispatch(function: Callable[[], None]) -> None:
        handed.append(function)
        if len(handed) == 3:  # the call at once, uid-0's, then the sign-out's: refused
            raise RuntimeError("the main loop has quit")
        function()

    auth, broker = stand_in(dispatch=dispatch)
    states = Heard()
    auth.on_auth_state_changed(states)
    broker.send(auth, {"uid": "uid-0", "idToken": "token-0"})
    broker.send(auth, {})
    broker.send_raw(["not", "a signal"])
    broker.send(auth, {"uid": "uid-1", "idToken": "token-1"})
    assert states.wait_for(3) == [None, "uid-0", "uid-1"], "the sign-out's call was refused by the dispatch, the rest told"
    assert auth.current_user is not None and auth.current_user.uid == "uid-1" and auth._watching.is_alive()
    assert len(failures_of(caplog, f"This Auth's dispatch {__name__}.")) == 1
    assert len(failures_of(caplog, "Taking a UserChanged signal of the broker raised ValueError")) == 1


@pytest.mark.offline
def test_before_auth_state_changed_refuses_with_its_error_and_an_on_abort_that_raises_is_logged(
        stand_in: Callable[..., tuple[Auth, StandInBroker]], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="keyringauth")
    auth, broker = stand_in()
    states = Heard()
    auth.on_auth_state_changed(states)
    broker.send(auth, {"uid": "uid-0", "idToken": "token-0"})
    assert states.wait_for(2) == [None, "uid-0"]
    aborted: list[str] = []

    def broken_on_abort() -> None:
        raise OSError("the dialog is gone")

    def refuse(user: User | None) -> None:
        raise PermissionError("not now")

    auth.before_auth_state_changed(lambda user: None, lambda: aborted.append("first"))
    auth.before_auth_state_changed(lambda user: None, broken_on_abort)
    auth.before_auth_state_changed(refuse)
    with pytest.raises(AuthError) as blocked:
        auth.sign_out()
    assert blocked.value.code == "auth/login-blocked" and "PermissionError: not now" in blocked.value.message
    assert aborted == ["first"], "the on_abort after the one that raised still runs"
    assert len(failures_of(caplog, f"on_abort {__name__}.test_before_auth_state_changed_refuses_with_its_error_and_an_on_abort_that_"
                                   "raises_is_logged.<locals>.broken_on_abort raised OSError")) == 1
    assert "SignOut" not in [call[0] for call in broker.calls], "nothing was changed"
    assert auth.current_user is not None and auth.current_user.uid == "uid-0"
    broker.send(auth, {})  # another app signs out: the listeners and current_user follow, callbacks or not
    assert states.wait_for(3)[-1] is None and [auth.current_user] == [None] and auth._watching.is_alive()


@pytest.mark.offline
def test_glib_dispatch_logs_a_function_that_raises_and_the_main_loop_goes_on(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="keyringauth")
    idle: list[Callable[[], bool]] = []
    glib = types.SimpleNamespace(idle_add=idle.append)
    monkeypatch.setitem(sys.modules, "gi", types.ModuleType("gi"))
    monkeypatch.setitem(sys.modules, "gi.repository", types.SimpleNamespace(GLib=glib))
    ran: list[str] = []

    def broken() -> None:
        raise RuntimeError("a GTK app's bug")
    glib_dispatch(broken)
    glib_dispatch(lambda: ran.append("next"))
    assert [source() for source in idle] == [False, False], "each runs once, the one that raised too"
    assert ran == ["next"]
    assert len(failures_of(caplog, ".<locals>.broken, called on GLib's main loop by keyringauth.glib_dispatch, raised RuntimeError")) == 1
