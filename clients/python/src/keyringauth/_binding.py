"""An Auth's app and group on its broker connection: what every call of its users carries. Above the transport,
below the users: it answers the broker's values, and the user module makes users of them. It also holds the App Check
of each Firebase app (app_check registers it there), whose token each call carries: so an Auth made before or after
``initialize_app_check`` sends it, and neither module imports the other."""
from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Callable, Optional

from ._broker import Broker
from ._variants import Variant

#: The broker's methods that reach no Firebase service (the keyring only): they carry no App Check token, so that a
#: provider that is slow or failing never holds up a sign-out.
_KEYRING_ONLY = frozenset({"SignOut", "CommitSignIn", "DropSignIn"})

#: Answers the App Check token a call carries, told the emulator the call goes to (``host:port``, or ``None``); it never
#: raises (a placeholder when the app's provider failed).
AppCheckSource = Callable[[Optional[str]], str]

_app_checks: dict[tuple[str, str, str, str], AppCheckSource] = {}
_app_checks_lock = threading.Lock()


def app_key(app: Mapping[str, Variant]) -> tuple[str, str, str, str]:
    """The Firebase app of an app dictionary, as App Check knows it (the tenant is not the app's): its API key, app ID,
    project and app name."""
    def value(key: str) -> str:
        return str(app[key][1]) if key in app else ""
    return value("apiKey"), value("appID"), value("projectID"), value("appName")


def set_app_check(key: tuple[str, str, str, str], source: AppCheckSource | None) -> None:
    """Makes ``source`` the App Check of the app ``key`` (``None``: none), for the calls of every Auth of it."""
    with _app_checks_lock:
        if source is None:
            _app_checks.pop(key, None)
        else:
            _app_checks[key] = source


def app_check_of(app: Mapping[str, Variant]) -> AppCheckSource | None:
    with _app_checks_lock:
        return _app_checks.get(app_key(app))


class Binding:
    def __init__(self, broker: Broker, app: dict[str, Variant], group: str) -> None:
        self.broker = broker
        self.app = app
        self.group = group
        #: Whether a call was made: the app (its emulator) is fixed from then on.
        self.used = False
        #: Told each user the broker answers (its values; empty for nobody): the Auth keeps its ``current_user`` so.
        self.answered: Callable[[dict[str, Any]], object] = lambda values: None
        #: The Auth's ``language_code``, which each call carries (``languageCode``): the call's own, not the group's.
        self.language_code: str | None = None
        #: Whether the Auth has before_auth_state_changed callbacks: then each sign-in is held by the broker
        #: (``holdSignIn``) and answered with its handle (``heldSignIn``), which ``settle`` commits or drops.
        self.hold_sign_ins = False
        #: Told each held sign-in's values: answers the values stored once the Auth's callbacks let it through, or raises.
        self.settle: Callable[[dict[str, Any]], dict[str, Any]] = lambda values: values
        #: Told before a user's own call signs it out (a deletion): the Auth's callbacks may refuse it by raising.
        self.before_sign_out: Callable[[], None] = lambda: None

    def call(self, method: str, signature: str = "", *arguments: Any, timeout: float | None = None,
             on_page: Callable[[str], None] | None = None) -> list[Any]:
        """Calls ``method`` for this app and group, in the Auth's language, with the app's App Check token when
        ``initialize_app_check`` was called for it (``appCheckToken``: the call's own), its sign-ins held while the Auth
        has before_auth_state_changed callbacks; a second factor raises errors.SecondFactorChallenge. ``on_page`` is
        told the address of each verification page the broker serves for the call."""
        self.used = True
        app = dict(self.app)
        if self.language_code is not None:
            app["languageCode"] = ("s", self.language_code)
        if self.hold_sign_ins:
            app["holdSignIn"] = ("s", "true")
        if method not in _KEYRING_ONLY:
            app_check = app_check_of(app)
            if app_check is not None:
                app["appCheckToken"] = ("s", app_check(app["emulatorHost"][1] if "emulatorHost" in app else None))
        if on_page is not None:
            return self.broker.call_telling_pages(method, app, self.group, signature, *arguments,
                                                  timeout=timeout or self.broker.timeout, on_page=on_page)
        return self.broker.call(method, app, self.group, signature, *arguments, timeout=timeout)
