"""App Check against the emulator enforcing it on Auth, through the broker: a Python app signs in, refreshes and
updates with the debug provider and with a custom provider whose backend mints tokens at the emulator (as the Admin
SDK's ``create_token`` does at App Check); without a token every call fails with the clear error and nothing changes;
a provider that fails has the placeholder sent and the 401 reported. Run by KeyringAuth's PythonPackageTests with an
emulator of its own that enforces App Check and has KEYRING_AUTH_TEST_APP_CHECK_DEBUG_TOKEN registered (not by the
suite's general run, whose emulator enforces nothing)."""
from __future__ import annotations

import json
import logging
import os
import time
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any, Callable

import pytest

from conftest import PROJECT, run_sandboxed, unique_email
from keyringauth import Auth, AuthError, FirebaseOptions
from keyringauth.app_check import (
    PLACEHOLDER_TOKEN,
    AppCheck,
    AppCheckError,
    AppCheckToken,
    CustomProvider,
    DebugProvider,
    get_limited_use_token,
    get_token,
    initialize_app_check,
)

REFUSED = "auth/firebase-app-check-token-is-invalid."


@pytest.fixture
def debug_token() -> str:
    """The debug secret the emulator has registered."""
    return os.environ["KEYRING_AUTH_TEST_APP_CHECK_DEBUG_TOKEN"]


@pytest.fixture
def app_checks() -> Iterator[list[AppCheck]]:
    """App Checks the test makes, closed at its end (each app's is the process's until then)."""
    made: list[AppCheck] = []
    yield made
    for app_check in made:
        app_check.close()


class Backend:
    """The app's backend: attests the app its own way, then has App Check mint a token for it with the Admin SDK's
    ``createToken``, which the emulator stands in for (``exchangeCustomToken``, as an administrator)."""

    def __init__(self, app_id: str) -> None:
        self.app_id = app_id
        self.minted = 0

    def __call__(self) -> AppCheckToken:
        url = "http://{}/firebaseappcheck.googleapis.com/v1/projects/{}/apps/{}:exchangeCustomToken".format(
            os.environ["FIREBASE_AUTH_EMULATOR_HOST"], PROJECT, self.app_id)
        body = json.dumps({"customToken": f"custom-token-of-{self.app_id}", "ttl": "3600s"}).encode()
        request = urllib.request.Request(url, data=body, method="POST",
                                         headers={"Authorization": "Bearer owner", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            minted = json.load(answer)
        self.minted += 1
        assert minted["ttl"] == "3600s"
        return AppCheckToken(minted["token"], time.time() * 1000 + 3600_000)


def the_account_from_sign_up_to_deletion(auth: Auth) -> None:
    """Identity Platform's protected calls, one after the other: sign-up, sign-in, a refresh, an update, a lookup, an
    email action, the deletion."""
    email = unique_email("appcheck")
    user = auth.create_user_with_email_and_password(email, "a-password").user
    auth.sign_out()
    user = auth.sign_in_with_email_and_password(email, "a-password").user
    assert user.get_id_token(force_refresh=True).count(".") == 2
    user.update_profile(display_name="Ada")
    user.reload()
    assert user.display_name == "Ada"
    auth.send_password_reset_email(email)
    user.delete()
    assert auth.current_user is None


def refused(call: Callable[[], object]) -> AuthError:
    with pytest.raises(AuthError) as raised:
        call()
    assert raised.value.code == REFUSED and raised.value.name == "ERROR_INTERNAL_ERROR", raised.value
    assert raised.value.message.startswith("Firebase App Check token is invalid")
    assert "initialize_app_check(auth, provider=CustomProvider(get_token=" in raised.value.message
    return raised.value


def test_without_app_check_every_call_fails_with_the_clear_error_and_nothing_changes(options: FirebaseOptions, group: str) -> None:
    email = unique_email("no-app-check")
    with Auth(options, access_group=group) as auth:
        refused(auth.sign_in_anonymously)
        refused(lambda: auth.create_user_with_email_and_password(email, "a-password"))
        refused(lambda: auth.sign_in_with_email_and_password(email, "a-password"))
        refused(lambda: auth.send_password_reset_email(email))
        assert auth.current_user is None
        with Auth(options, access_group=group) as other:
            assert other.current_user is None, "nothing was stored for the group"


def test_a_python_app_signs_in_refreshes_and_updates_with_the_debug_provider(
        options: FirebaseOptions, group: str, debug_token: str, app_checks: list[AppCheck]) -> None:
    with Auth(options, access_group=group) as auth:
        app_checks.append(initialize_app_check(auth, provider=DebugProvider(debug_token)))
        the_account_from_sign_up_to_deletion(auth)
        token = get_token(app_checks[0]).token
        assert token.count(".") == 2 and token != PLACEHOLDER_TOKEN
        assert get_limited_use_token(app_checks[0]).token != token, "a limited-use token is a new one"
    with Auth(options, access_group=group) as later:  # an Auth made after initialize_app_check
        later.sign_in_anonymously()
        later.sign_out()


def test_the_debug_provider_reads_its_secret_from_the_environment(
        options: FirebaseOptions, group: str, debug_token: str, app_checks: list[AppCheck], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APP_CHECK_DEBUG_TOKEN", debug_token)
    app_checks.append(initialize_app_check(options, provider=DebugProvider()))
    with Auth(options, access_group=group) as auth:
        assert auth.sign_in_anonymously().user.is_anonymous
        auth.sign_out()


def test_a_python_app_signs_in_refreshes_and_updates_with_a_custom_provider(
        options: FirebaseOptions, group: str, app_checks: list[AppCheck]) -> None:
    backend = Backend(options.app_id)
    with Auth(options, access_group=group) as auth:
        app_checks.append(initialize_app_check(auth, provider=CustomProvider(get_token=backend), is_token_auto_refresh_enabled=True))
        the_account_from_sign_up_to_deletion(auth)
    assert backend.minted == 1, "one token for every call: kept while valid"


def test_a_failing_provider_has_the_placeholder_sent_and_the_refusal_reported(
        options: FirebaseOptions, group: str, app_checks: list[AppCheck], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="keyringauth")

    def down() -> AppCheckToken:
        raise ConnectionError("the app's backend is down")

    with Auth(options, access_group=group) as auth:
        app_checks.append(initialize_app_check(auth, provider=CustomProvider(get_token=down)))
        refused(auth.sign_in_anonymously)
        assert auth.current_user is None
    assert any("placeholder" in record.getMessage() and "the app's backend is down" in record.getMessage() for record in caplog.records)


def test_an_unregistered_debug_secret_is_refused_and_said_by_no_message(
        options: FirebaseOptions, group: str, app_checks: list[AppCheck], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="keyringauth")
    secret = str(uuid.uuid4()).upper()
    with Auth(options, access_group=group) as auth:
        app_checks.append(initialize_app_check(auth, provider=DebugProvider(secret)))
        error = refused(auth.sign_in_anonymously)
        with pytest.raises(AppCheckError) as exchange:
            get_token(app_checks[0])
    assert exchange.value.code == "appCheck/fetch-status-error" and exchange.value.http_status == 403
    assert "register the debug secret" in exchange.value.message
    assert "fetch-status-error" in caplog.text
    for text in (caplog.text, str(exchange.value), str(error), repr(app_checks[0])):
        assert secret not in text


SANDBOXED_APP = """
import json, sys
from keyringauth import Auth, AuthError, FirebaseOptions
from keyringauth.app_check import DebugProvider, initialize_app_check
options = FirebaseOptions(**json.loads(sys.argv[1]))
with Auth(options, access_group=sys.argv[2]) as auth:
    try:
        auth.sign_in_anonymously()
    except AuthError as error:
        print("without:", error.code)
    with open(sys.argv[3]) as secret:
        initialize_app_check(auth, provider=DebugProvider(secret.read().strip()))
    print("with:", auth.sign_in_anonymously().user.is_anonymous)
    auth.sign_out()
"""


def test_a_sandboxed_app_obtains_its_own_token(options: FirebaseOptions, debug_token: str, tmp_path: Any) -> None:
    """A Flatpak app with the network exchanges its own debug secret (read from a file of its own, not argv) and the
    broker sends its token with its calls."""
    secret = tmp_path / "app-check-debug-token"
    secret.write_text(debug_token)
    secret.chmod(0o600)
    values = {"api_key": options.api_key, "app_id": options.app_id, "project_id": options.project_id}
    result = run_sandboxed(SANDBOXED_APP, tmp_path, [json.dumps(values), "TEAMID.com.example.notes" + uuid.uuid4().hex[:6], str(secret)])
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"without: {REFUSED}", "with: True"], result.stdout + result.stderr
    assert debug_token not in result.stdout + result.stderr
