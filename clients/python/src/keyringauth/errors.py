"""The errors of keyringauth: one type, AuthError, carrying Firebase's error name, and subclasses for the
errors an app branches on (SecondFactorRequiredError, which carries a resolver, is the user module's); and App Check's,
AppCheckError. Each message says what happened and the way on in Python (_messages says the broker's messages so); each
error carries Firebase's code. It imports only _messages, so that every other module may import it."""
from __future__ import annotations

from typing import Any

from ._messages import APP_CHECK_REFUSAL, METHODS, app_check_refusal_message, firebase_message, in_python


class AuthError(Exception):
    """An error of Firebase Authentication, or of the broker that runs it for this app.

    ``code`` is Firebase's error code as the JavaScript SDK writes it (``auth/wrong-password``), ``name`` as Firebase's
    Apple SDK and the broker write it (``ERROR_WRONG_PASSWORD``); ``message`` says what happened and the way on in Python
    (``Check the password, or send a reset with auth.send_password_reset_email(email).``).
    """

    def __init__(self, code: str, name: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.name = name
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class AppCheckError(Exception):
    """An error of App Check (``keyringauth.app_check``): its provider could not give a token, or App Check was used
    before ``initialize_app_check`` (or after ``close()``).

    ``code`` is the JavaScript SDK's (``appCheck/fetch-status-error``), or KeyringAuth's own ``appCheck/argument-error``
    (a function given what it does not take) and ``appCheck/fetch-in-progress`` (a provider asking for the token it
    fetches); ``message`` says what happened and the way on in Python, and ``http_status`` is the App Check service's HTTP status for ``appCheck/fetch-status-error`` (JavaScript's
    ``customData.httpStatus``), else ``None``. No message holds a debug secret or a token.
    """

    def __init__(self, code: str, message: str, http_status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.http_status = http_status

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class WrongPasswordError(AuthError):
    """The password is wrong (``auth/wrong-password``)."""


class UserNotFoundError(AuthError):
    """No account has that address or ID (``auth/user-not-found``)."""


class InvalidCredentialError(AuthError):
    """The credential (an address and password, a provider's token) is not accepted (``auth/invalid-credential``);
    a project that protects against address enumeration answers this for a wrong password too."""


class EmailAlreadyInUseError(AuthError):
    """An account already has that address (``auth/email-already-in-use``)."""


class NoCurrentUserError(AuthError):
    """Nobody is signed in to this app and group any more (``auth/null-user``): another app signed out."""


class SecondFactorChallenge(AuthError):
    """A sign-in met the account's second factor (``auth/multi-factor-auth-required``), as the broker answers it: the
    handle of the pending sign-in and the account's factors. The user module raises it as SecondFactorRequiredError,
    with the resolver that finishes the sign-in."""

    def __init__(self, message: str, handle: str, factors: list[dict[str, Any]]) -> None:
        super().__init__("auth/multi-factor-auth-required", "ERROR_SECOND_FACTOR_REQUIRED", message)
        self.handle = handle
        self.factors = factors


class KeyringUnavailableError(AuthError):
    """The session's keyring cannot be used: none runs, it is locked, or it failed (``auth/keychain-error``)."""


class AccessDeniedError(AuthError):
    """The broker refuses this app the access group (a sandboxed app may use only groups under its own app ID's
    domain), or could not tell who is calling (``auth/access-denied``)."""


class BrokerUnavailableError(AuthError):
    """No session bus, or KeyringAuth's broker is not installed (``auth/broker-unavailable``)."""


_BY_NAME: dict[str, type[AuthError]] = {
    "ERROR_WRONG_PASSWORD": WrongPasswordError,
    "ERROR_USER_NOT_FOUND": UserNotFoundError,
    "ERROR_INVALID_CREDENTIAL": InvalidCredentialError,
    "ERROR_EMAIL_ALREADY_IN_USE": EmailAlreadyInUseError,
}

# Where the JavaScript SDK's code is not the Apple name's words.
_JS_CODES = {
    "ERROR_SECOND_FACTOR_REQUIRED": "auth/multi-factor-auth-required",
    "ERROR_NULL_USER": "auth/null-user",
    "ERROR_INVALID_ARGUMENT": "auth/argument-error",
}


#: The JavaScript SDK's code of Identity Platform's 401 when a project enforces App Check on Authentication and a call
#: carried no valid token: the server's message made a code, as the SDK makes one of a message it has no code for.
APP_CHECK_TOKEN_INVALID = "auth/firebase-app-check-token-is-invalid."


def js_code(name: str) -> str:
    """``ERROR_WRONG_PASSWORD`` as the JavaScript SDK writes it: ``auth/wrong-password``."""
    if name in _JS_CODES:
        return _JS_CODES[name]
    words = name.removeprefix("ERROR_")
    return "auth/" + words.lower().replace("_", "-")


def from_name(name: str, message: str) -> AuthError:
    """The error of Firebase's error name ``name``, of its subclass where it has one, saying ``message`` of the broker
    in Python. Identity Platform's refusal of a call without a valid App Check token has the code the JavaScript SDK
    gives it, ``auth/firebase-app-check-token-is-invalid.`` (its words made a code, period and all), and the name
    ``ERROR_INTERNAL_ERROR``, as Firebase's Apple SDK and the broker say it."""
    if name == "ERROR_INTERNAL_ERROR" and message.startswith(APP_CHECK_REFUSAL):
        return AuthError(APP_CHECK_TOKEN_INVALID, name, app_check_refusal_message(message))
    return _BY_NAME.get(name, AuthError)(js_code(name), name, firebase_message(name, message))


def broker_error(kind: str, message: str) -> AuthError:
    """The error for the broker's D-Bus error ``kind`` (its name's last element) and message, said in Python."""
    if kind == "Backend":
        name, _, rest = message.partition(": ")
        if name.startswith("ERROR_") and rest:
            return from_name(name, rest)
        return AuthError("auth/internal-error", "ERROR_INTERNAL_ERROR", in_python(message))
    if kind == "AccessDenied":
        if "may not use the access group" in message:
            message += (" Make the Auth with an access_group under the app's own domain, or access_group=None for the app's "
                        "private scope.")
        return AccessDeniedError("auth/access-denied", "ERROR_ACCESS_DENIED", in_python(message))
    if kind == "KeychainUnavailable":
        return KeyringUnavailableError("auth/keychain-error", "ERROR_KEYCHAIN_ERROR", firebase_message("ERROR_KEYCHAIN_ERROR", message))
    if kind == "NotSignedIn":
        return no_current_user(message)
    if kind == "InvalidArgument":
        return invalid_argument(in_python(message))
    return AuthError("auth/internal-error", "ERROR_INTERNAL_ERROR", in_python(message))


def second_factor_required(handle: str, factors: list[dict[str, Any]]) -> SecondFactorChallenge:
    """The broker's SecondFactorRequired: the pending sign-in's handle and the account's factors (which the message
    names, never the handle)."""
    named = ", ".join(f"{factor.get('factorID', '')} {factor.get('displayName') or 'unnamed'!r} (uid {factor.get('uid', '')})"
                      for factor in factors)
    return SecondFactorChallenge(
        "The account has a second factor: ask the person for their authenticator app's code, and finish the sign-in within "
        "five minutes with e.resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(hint.uid, code)); for an "
        "SMS factor, PhoneAuthProvider(auth).verify_phone_number({\"multi_factor_hint\": hint, \"session\": e.resolver.session}) "
        "sends the code, and e.resolver.resolve_sign_in(PhoneMultiFactorGenerator.assertion(PhoneAuthProvider.credential("
        f"verification_id, code))) finishes it; hint being one of e.resolver.hints: {named}.", handle, factors)


def no_current_user(message: str) -> NoCurrentUserError:
    """NoCurrentUserError saying ``message`` and how to sign in."""
    return NoCurrentUserError("auth/null-user", "ERROR_NULL_USER", firebase_message("ERROR_NULL_USER", message))


def invalid_argument(message: str) -> AuthError:
    return AuthError("auth/argument-error", "ERROR_INVALID_ARGUMENT", message)


def broker_unavailable(message: str) -> BrokerUnavailableError:
    return BrokerUnavailableError("auth/broker-unavailable", "ERROR_BROKER_UNAVAILABLE", message)


def closed() -> AuthError:
    """A call of an Auth that was closed (``auth/app-deleted``, as the JavaScript SDK says of a deleted app's)."""
    return AuthError("auth/app-deleted", "ERROR_APP_DELETED", (
        "This Auth is closed (by close(), or at the end of its with block), and with it its connection to the broker; make "
        "a new Auth(options, access_group) to call again."))


def timed_out(method: str, seconds: float) -> AuthError:
    """The broker did not answer ``method`` (the broker's name of it) within ``seconds``."""
    return AuthError("auth/timeout", "ERROR_TIMEOUT", (
        f"KeyringAuth's broker did not answer {METHODS.get(method, method)} within {seconds:g} s; call it again, or make the Auth "
        "with a longer timeout (Auth(options, timeout=60))."))


__all__ = [
    "AccessDeniedError", "AppCheckError", "AuthError", "BrokerUnavailableError", "EmailAlreadyInUseError", "InvalidCredentialError",
    "KeyringUnavailableError", "NoCurrentUserError", "UserNotFoundError", "WrongPasswordError",
]

