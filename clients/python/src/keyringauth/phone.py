"""Phone numbers, as Firebase's JavaScript SDK has them: ``sign_in_with_phone_number`` and its ``ConfirmationResult``,
``link_with_phone_number``, ``reauthenticate_with_phone_number``, ``update_phone_number``, and ``PhoneAuthProvider``
for the credential of a code and for SMS second factors.

Where the JavaScript SDK verifies its web page with a ``RecaptchaVerifier``, the broker verifies the app on a page it
serves on this machine and opens in the person's browser (none for the emulator, which verifies nothing), then has
Firebase send the code. In the ``app_verifier`` argument's place a ``VerificationPage`` says how the page reaches the
person (its address told to the app, the browser left closed); any other ``app_verifier``, for code written for the
JavaScript SDK, is not used: there is no page of the app's own for reCAPTCHA to render in. Each start waits up to five
minutes for the person."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from . import errors
from ._binding import Binding
from .auth import Auth
from .credentials import PhoneAuthCredential
from .multifactor import MultiFactorInfo, MultiFactorSession, PhoneMultiFactorInfo
from .user import User, UserCredential

#: How long a start may wait: the person's five minutes on the page, and Firebase's answer.
START_TIMEOUT = 330.0


@dataclass(frozen=True)
class VerificationPage:
    """How the broker's app verification page reaches the person, given where the JavaScript SDK takes its
    ``ApplicationVerifier``: ``sign_in_with_phone_number(auth, number, VerificationPage(on_address=show))``.
    KeyringAuth's own.

    ``on_address`` is told the page's address (``http://localhost:PORT/#…``) before the browser opens, on a thread of
    the package: for an app to show its own way (a link in its window, a browser of its choosing). The
    address holds the page's one-time secret: show it to the person, and do not log it. With ``open_browser=False``
    the broker opens no browser, and ``on_address`` is needed."""

    on_address: Callable[[str], None] | None = None
    open_browser: bool = True

    def __post_init__(self) -> None:
        if not self.open_browser and self.on_address is None:
            raise errors.invalid_argument("VerificationPage(open_browser=False) needs on_address, to show the person the "
                                          "page's address: no one would see the page otherwise.")
        if self.on_address is not None and not callable(self.on_address):
            raise errors.invalid_argument(f"on_address is a function taking the page's address, not {self.on_address!r}.")


def _page_options(app_verifier: object) -> tuple[dict[str, Any], Callable[[str], None] | None]:
    """The broker's page options for ``app_verifier``, and whom to tell the page's address."""
    if not isinstance(app_verifier, VerificationPage):
        return {}, None
    return ({} if app_verifier.open_browser else {"openBrowser": ("b", False)}), app_verifier.on_address


def _start(binding: Binding, phone_number: str, purpose: str, app_verifier: object) -> str:
    if not isinstance(phone_number, str):
        raise errors.invalid_argument(f"The phone number is a string in E.164 form, such as \"+15555550100\", not {phone_number!r}.")
    options, on_page = _page_options(app_verifier)
    return str(binding.call("StartPhoneVerification", "ssa{sv}", phone_number, purpose, options, timeout=START_TIMEOUT,
                            on_page=on_page)[0])


@dataclass(frozen=True)
class ConfirmationResult:
    """A started phone verification (``sign_in_with_phone_number`` and its kin), as the JavaScript SDK's:
    ``confirm(code)`` signs in, links or reauthenticates with the SMS code, within five minutes; a wrong code raises
    ``auth/invalid-verification-code`` and may be corrected, five wrong codes in all."""

    verification_id: str
    _confirm: Any = field(repr=False, compare=False)

    def confirm(self, verification_code: str) -> UserCredential:
        result: UserCredential = self._confirm(PhoneAuthProvider.credential(self.verification_id, verification_code))
        return result


def sign_in_with_phone_number(auth: Auth, phone_number: str, app_verifier: object = None) -> ConfirmationResult:
    """Has an SMS code sent to ``phone_number`` (E.164) for a sign-in, as the JavaScript SDK's: the person first
    verifies the app on the page the broker opens in their browser. ``app_verifier``: a ``VerificationPage``, or
    anything else, not used."""
    return ConfirmationResult(_start(auth._binding, phone_number, "sign-in", app_verifier), auth.sign_in_with_credential)


def link_with_phone_number(user: User, phone_number: str, app_verifier: object = None) -> ConfirmationResult:
    """Has an SMS code sent to ``phone_number`` to link it to ``user``; ``confirm(code)`` links it."""
    return ConfirmationResult(_start(user._binding, phone_number, "link", app_verifier), user.link_with_credential)


def reauthenticate_with_phone_number(user: User, phone_number: str, app_verifier: object = None) -> ConfirmationResult:
    """Has an SMS code sent to ``user``'s ``phone_number``; ``confirm(code)`` reauthenticates the user."""
    return ConfirmationResult(_start(user._binding, phone_number, "reauthenticate", app_verifier), user.reauthenticate_with_credential)


def update_phone_number(user: User, credential: PhoneAuthCredential) -> None:
    """``user.update_phone_number(credential)``, as the JavaScript SDK's ``updatePhoneNumber(user, credential)``."""
    user.update_phone_number(credential)


class PhoneAuthProvider:
    """Phone numbers' provider, as the JavaScript SDK's: ``verify_phone_number`` has a code sent and answers the
    verification ID for ``credential``."""

    PROVIDER_ID = "phone"
    PHONE_SIGN_IN_METHOD = "phone"

    def __init__(self, auth: Auth) -> None:
        self.provider_id = self.PROVIDER_ID
        self._auth = auth

    def verify_phone_number(self, phone_options: str | Mapping[str, Any], application_verifier: object = None) -> str:
        """Has an SMS code sent, and answers the verification ID. ``phone_options``: a number (E.164), for a sign-in,
        link, reauthentication or number change (``auth.sign_in_with_credential``, ``user.link_with_credential``,
        ``user.reauthenticate_with_credential``, ``update_phone_number``); ``{"phone_number": n, "session":
        multi_factor(user).get_session()}`` to enroll it as a second factor; ``{"multi_factor_hint": hint, "session":
        resolver.session}`` (or ``multi_factor_uid``) for a sign-in's SMS factor. camelCase keys, as the JavaScript
        SDK's, are taken too. ``application_verifier``: a ``VerificationPage``, or anything else, not used."""
        if isinstance(phone_options, str):
            return _start(self._auth._binding, phone_options, "sign-in", application_verifier)
        options = {_snake(key): value for key, value in phone_options.items()}
        session = options.get("session")
        if session is not None and not isinstance(session, MultiFactorSession):
            raise errors.invalid_argument("session is multi_factor(user).get_session() or a resolver's session.")
        hint = options.get("multi_factor_hint")
        uid = hint.uid if isinstance(hint, MultiFactorInfo) else options.get("multi_factor_uid")
        if uid is not None:
            if session is None or session._sign_in_handle is None:
                raise errors.invalid_argument("A sign-in's SMS factor is verified with the session of its resolver (resolver.session).")
            if isinstance(hint, MultiFactorInfo) and not isinstance(hint, PhoneMultiFactorInfo):
                raise errors.invalid_argument(f"The hint {hint.uid} is not an SMS factor; an authenticator app's is resolved with "
                                              "TotpMultiFactorGenerator.assertion_for_sign_in.")
            options, on_page = _page_options(application_verifier)
            reply = session._binding.call("StartPhoneSecondFactor", "ssa{sv}", session._sign_in_handle, str(uid), options,
                                          timeout=START_TIMEOUT, on_page=on_page)
            return str(reply[0])
        number = options.get("phone_number")
        if not isinstance(number, str):
            raise errors.invalid_argument("phone_options needs phone_number (E.164), or multi_factor_hint with a resolver's session.")
        if session is not None:
            if session._sign_in_handle is not None:
                raise errors.invalid_argument("A sign-in's session verifies one of its hints (multi_factor_hint), not a number.")
            return _start(session._binding, number, "enroll", application_verifier)
        return _start(self._auth._binding, number, "sign-in", application_verifier)

    @staticmethod
    def credential(verification_id: str, verification_code: str) -> PhoneAuthCredential:
        """The credential of the code the SMS of ``verification_id``'s verification carried."""
        return PhoneAuthCredential._of(verification_id, verification_code)


def _snake(key: str) -> str:
    return "".join("_" + letter.lower() if letter.isupper() else letter for letter in key)
