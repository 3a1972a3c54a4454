"""Every AuthError says what happened and the way on in Python (the package's names, never the broker's D-Bus
methods and arguments), and carries Firebase's code and name: the translation checked offline on messages as the
broker sends them, then the main errors as the broker answers them."""
from __future__ import annotations

import ast
import os
import re
from types import SimpleNamespace
from typing import Any

import pytest
from jeepney import HeaderFields  # type: ignore[import-untyped]

import keyringauth
from conftest import unique_email
from keyringauth import ActionCodeSettings, Auth, FirebaseOptions, errors
from keyringauth._broker import reply_error
from keyringauth._messages import METHODS, in_python

SOURCE = os.path.dirname(os.path.abspath(keyringauth.__file__))
#: The broker's method names no message of the package may use: those that are no English word.
DBUS_METHODS = [method for method in METHODS if sum(letter.isupper() for letter in method) > 1]


def assert_in_python(message: str) -> None:
    for method in DBUS_METHODS:
        assert not re.search(rf"\b{method}\b", message), f"{method} in {message!r}"
    for argument in ("actionCodeSettings", "photoURL", "handleCodeInApp", "emulatorHost", "apiKey", "providerID", "factorUID",
                     "appCheckToken"):
        assert argument not in message, f"{argument} in {message!r}"


@pytest.mark.offline
def test_a_wrong_password_says_to_check_it_or_send_a_reset() -> None:
    error = errors.broker_error("Backend", "ERROR_WRONG_PASSWORD: The password is wrong. (INVALID_PASSWORD)")
    assert isinstance(error, keyringauth.WrongPasswordError)
    assert (error.code, error.name) == ("auth/wrong-password", "ERROR_WRONG_PASSWORD")
    assert error.message == ("The password is wrong. Check the password, or send a reset with "
                             "auth.send_password_reset_email(email). (INVALID_PASSWORD)")
    assert str(error) == "auth/wrong-password: " + error.message


@pytest.mark.offline
def test_the_servers_words_come_last_and_a_message_without_a_way_on_keeps_the_brokers() -> None:
    weak = errors.broker_error("Backend", "ERROR_WEAK_PASSWORD: Choose a password of at least 6 characters. "
                                          "(WEAK_PASSWORD: Password should be at least 6 characters)")
    assert weak.code == "auth/weak-password" and weak.message == (
        "Choose a password of at least 6 characters. (WEAK_PASSWORD: Password should be at least 6 characters)")
    credentials = errors.broker_error("Backend", "ERROR_INVALID_CREDENTIAL: The email address or the password is wrong. "
                                                 "(INVALID_LOGIN_CREDENTIALS)")
    assert isinstance(credentials, keyringauth.InvalidCredentialError)
    assert "auth.send_password_reset_email(email)" in credentials.message, "the server's code chooses the way on"
    assert credentials.message.endswith("(INVALID_LOGIN_CREDENTIALS)")


@pytest.mark.offline
def test_the_brokers_methods_and_arguments_are_named_as_the_package_names_them() -> None:
    for method in DBUS_METHODS:
        assert_in_python(in_python(f"Call {method} first."))
    cases = {
        "That handle is a sign-in's; finish it with ResolveSignInWithTOTP.": "finish it with e.resolver.resolve_sign_in.",
        "That handle is an enrollment's; finish it with FinishTOTPEnrollment.": "finish it with user.multi_factor.enroll.",
        "The account has no authenticator-app (totp) factor of uid 'x'; use one of the factors SecondFactorRequired listed.":
            "use one of the factors of e.resolver.hints.",
        "profile's photoURL is not a URL; give one such as https://example.com/me.png, or \"\" to remove it.":
            "photo_url is not a URL; give one such as https://example.com/me.png, or None to remove it.",
        "newPassword contains the control character U+000A; the broker takes none.": "new_password contains",
        "This app already uses 16 apps and scopes in calls and watches, the most the broker gives one app; unwatch one, or "
        "call again when a call has ended.": "close one of its Auths (each watches its app and group: auth.close()",
    }
    for message, said in cases.items():
        error = errors.broker_error("InvalidArgument", message)
        assert error.code == "auth/argument-error" and said in error.message, error.message
        assert_in_python(error.message)
    denied = errors.broker_error("AccessDenied", "com.example.Notes may not use the access group TEAMID.org.evil: a sandboxed "
                                                 "app may use only groups under its own app ID's domain.")
    assert isinstance(denied, keyringauth.AccessDeniedError) and "access_group=None" in denied.message


@pytest.mark.offline
def test_app_checks_refusal_has_javascripts_code_and_the_way_on_in_python() -> None:
    # The broker's message of Identity Platform's 401, as the Swift package words it for a Swift app.
    error = errors.broker_error("Backend", (
        "ERROR_INTERNAL_ERROR: Firebase App Check token is invalid: the project enforces App Check on Authentication, and "
        "accounts:signUp carried no valid token. Set an App Check provider factory before FirebaseApp.configure() "
        "(AppCheck.setAppCheckProviderFactory(AppCheckDebugProviderFactory()) with a debug secret registered in the Firebase "
        "console, or the app's custom provider); a warning of KeyringAuth.AppCheck says why a token was missing."))
    assert (error.code, error.name) == ("auth/firebase-app-check-token-is-invalid.", "ERROR_INTERNAL_ERROR")
    assert error.message.startswith("Firebase App Check token is invalid: the project enforces App Check on Authentication, and "
                                    "accounts:signUp carried no valid token. ")
    assert "initialize_app_check(auth, provider=CustomProvider(get_token=" in error.message and "DebugProvider()" in error.message
    assert "FirebaseApp.configure" not in error.message and "setAppCheckProviderFactory" not in error.message
    bare = errors.broker_error("Backend", "ERROR_INTERNAL_ERROR: Firebase App Check token is invalid.")
    assert bare.code == "auth/firebase-app-check-token-is-invalid." and "initialize_app_check" in bare.message
    other = errors.broker_error("Backend", "ERROR_INTERNAL_ERROR: The identity service's answer cannot be read.")
    assert other.code == "auth/internal-error"
    refused = errors.broker_error("InvalidArgument", "app's appCheckToken is not an App Check token (a JWT of visible ASCII); pass "
                                                     "the token the app's App Check provider gave, or leave it out.")
    assert_in_python(refused.message)


@pytest.mark.offline
def test_a_second_factor_says_how_to_finish_and_keeps_the_handle_to_itself() -> None:
    factors = [{"uid": "f1", "displayName": "Phone", "factorID": "totp", "enrollmentDate": 0}]
    reply = SimpleNamespace(header=SimpleNamespace(fields={HeaderFields.error_name: "io.github.keyringauth.Broker1.Error.SecondFactorRequired"}),
                            body=["ERROR_SECOND_FACTOR_REQUIRED: … finish the sign-in with ResolveSignInWithTOTP, handle h-123 …", "h-123",
                                  factors])
    error = reply_error(reply, "SignInWithEmail", 25.0)
    assert isinstance(error, errors.SecondFactorChallenge) and error.handle == "h-123"
    assert (error.code, error.name) == ("auth/multi-factor-auth-required", "ERROR_SECOND_FACTOR_REQUIRED")
    assert "e.resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(hint.uid, code))" in error.message
    assert "totp 'Phone' (uid f1)" in error.message and "h-123" not in error.message
    assert_in_python(error.message)


@pytest.mark.offline
def test_no_broker_says_to_install_the_debian_package_and_a_timeout_names_the_python_call() -> None:
    reply = SimpleNamespace(header=SimpleNamespace(fields={HeaderFields.error_name: "org.freedesktop.DBus.Error.ServiceUnknown"}),
                            body=["The name is not activatable"])
    missing = reply_error(reply, "GetUser", 25.0)
    assert isinstance(missing, keyringauth.BrokerUnavailableError) and missing.code == "auth/broker-unavailable"
    assert "keyring-auth Debian package" in missing.message and "scripts/install" in missing.message
    late = errors.timed_out("SignInWithEmail", 25.0)
    assert late.code == "auth/timeout" and "auth.sign_in_with_email_and_password within 25 s" in late.message
    assert "Auth(options, timeout=60)" in late.message


@pytest.mark.offline
def test_every_method_the_package_calls_has_its_python_name() -> None:
    """So that a timeout, and a broker message naming a method, says the app's own call."""
    called: set[str] = set()
    for name in os.listdir(SOURCE):
        if name.endswith(".py"):
            with open(os.path.join(SOURCE, name), encoding="utf-8") as file:
                tree = ast.parse(file.read())
            for node in ast.walk(tree):
                function = node.func if isinstance(node, ast.Call) else None
                named = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
                if isinstance(node, ast.Call) and named in ("call", "answer", "read_user", "sign_in"):
                    called.update(argument.value for argument in node.args
                                  if isinstance(argument, ast.Constant) and isinstance(argument.value, str)
                                  and re.fullmatch(r"[A-Z][A-Za-z]+", argument.value))
    assert len(called) > 25 and called <= set(METHODS), sorted(called - set(METHODS))


def test_the_main_errors_name_the_python_way_on(auth: Auth, options: FirebaseOptions) -> None:
    email = unique_email("messages")
    user = auth.create_user_with_email_and_password(email, "a-password").user
    raised: list[keyringauth.AuthError] = []

    def check(call: Any, kind: type[keyringauth.AuthError], code: str, said: str) -> None:
        with pytest.raises(kind) as caught:
            call()
        error = caught.value
        assert error.code == code and said in error.message, error
        assert error.name == "ERROR_" + code.removeprefix("auth/").upper().replace("-", "_") or code == "auth/argument-error"
        assert_in_python(error.message)
        raised.append(error)

    check(lambda: auth.sign_in_with_email_and_password(email, "wrong-password"), keyringauth.WrongPasswordError,
          "auth/wrong-password", "Check the password, or send a reset with auth.send_password_reset_email(email).")
    check(lambda: auth.create_user_with_email_and_password(email, "a-password"), keyringauth.EmailAlreadyInUseError,
          "auth/email-already-in-use", "auth.sign_in_with_email_and_password(email, password) signs in to it")
    check(lambda: auth.sign_in_with_email_and_password("nobody-" + email, "a-password"), keyringauth.UserNotFoundError,
          "auth/user-not-found", "auth.create_user_with_email_and_password(email, password) creates one")
    check(lambda: auth.apply_action_code("not-a-code"), keyringauth.AuthError, "auth/invalid-action-code",
          "pass the oobCode of its link")
    check(lambda: user.update_profile(photo_url="not a url"), keyringauth.AuthError, "auth/argument-error",
          "photo_url is not a URL; give one such as https://example.com/me.png, or None to remove it")
    check(lambda: auth.send_sign_in_link_to_email(email, ActionCodeSettings(url="https://example.com/finish")), keyringauth.AuthError,
          "auth/argument-error", "ActionCodeSettings(url=…, handle_code_in_app=True)")
    check(lambda: Auth(options, access_group="not a group"), keyringauth.AuthError, "auth/argument-error",
          "or access_group=None for the app's private scope")
    auth.sign_out()
    check(user.get_id_token, keyringauth.NoCurrentUserError, "auth/null-user", "auth's sign_in_ methods, signs in")
    assert len(raised) == 8
