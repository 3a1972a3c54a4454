"""An Auth's app and group on its broker connection: what every call of its users carries. Above the transport,
below the users: it answers the broker's values, and the user module makes users of them."""
from __future__ import annotations

from typing import Any, Callable

from ._broker import Broker
from ._variants import Variant


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
        """Calls ``method`` for this app and group, in the Auth's language, its sign-ins held while the Auth has
        before_auth_state_changed callbacks; a second factor raises errors.SecondFactorChallenge. ``on_page`` is told
        the address of each verification page the broker serves for the call."""
        self.used = True
        app = dict(self.app)
        if self.language_code is not None:
            app["languageCode"] = ("s", self.language_code)
        if self.hold_sign_ins:
            app["holdSignIn"] = ("s", "true")
        if on_page is not None:
            return self.broker.call_telling_pages(method, app, self.group, signature, *arguments,
                                                  timeout=timeout or self.broker.timeout, on_page=on_page)
        return self.broker.call(method, app, self.group, signature, *arguments, timeout=timeout)
