"""Every method of the package against the Auth emulator, through the broker, on a real keyring."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import replace
from email.utils import parsedate_to_datetime
from typing import Any

import pytest

import keyringauth
from keyringauth import (
    ActionCodeSettings,
    ActionCodeURL,
    Auth,
    EmailAuthProvider,
    FirebaseOptions,
    GoogleAuthProvider,
    TotpMultiFactorGenerator,
    User,
)

assert sys.version_info >= (3, 9)
from conftest import oob_code, run_sandboxed, totp, unique_email, verified_user


def test_an_anonymous_user_is_signed_in_for_the_whole_group(auth: Auth, options: FirebaseOptions, group: str) -> None:
    assert auth.current_user is None
    user = auth.sign_in_anonymously().user
    assert user.is_anonymous and user.uid
    with Auth(options, access_group=group) as other:
        assert other.current_user == user, "another app of the group is signed in too"
    with Auth(options, access_group=group + "x") as elsewhere:
        assert elsewhere.current_user is None, "another group is not"
    assert user.get_id_token().count(".") == 2
    auth.sign_out()
    assert auth.current_user is None


def test_the_account_from_creation_to_deletion(auth: Auth) -> None:
    email = unique_email()
    created = auth.create_user_with_email_and_password(email, "first-password")
    user = created.user
    assert created.provider_id == "password" and created.operation_type == "signIn"
    # Lists, not `and`: mypy would keep a property narrowed across the calls that change it.
    assert [user.email, user.email_verified, user.provider_id] == [email, False, "firebase"]
    [password_info] = user.provider_data
    assert (password_info.provider_id, password_info.uid, password_info.email) == ("password", email, email)

    result = user.get_id_token_result()
    assert result.claims["email"] == email and result.sign_in_provider == "password" and result.sign_in_second_factor is None
    assert result.expiration_time > result.issued_at_time
    assert "token" not in repr(result) and result.token not in repr(result)

    user.update_profile(display_name="Ada", photo_url="https://example.com/ada.png")
    assert [user.display_name, user.photo_url] == ["Ada", "https://example.com/ada.png"]
    user.update_profile(display_name=None)
    assert [user.display_name, user.photo_url] == [None, "https://example.com/ada.png"]

    user.send_email_verification()
    code = oob_code("VERIFY_EMAIL", email)
    info = auth.check_action_code(code)
    assert info.operation == keyringauth.ActionCodeOperation.VERIFY_EMAIL and info.data.email == email and info.data.previous_email is None
    auth.apply_action_code(code)
    user.reload()
    assert user.email_verified

    user.update_password("second-password")
    assert auth.sign_in_with_email_and_password(email, "second-password").user.uid == user.uid

    auth.send_password_reset_email(email)
    reset = oob_code("PASSWORD_RESET", email)
    assert auth.verify_password_reset_code(reset) == email
    auth.confirm_password_reset(reset, "third-password")
    with pytest.raises((keyringauth.WrongPasswordError, keyringauth.InvalidCredentialError)) as wrong:
        auth.sign_in_with_email_and_password(email, "second-password")
    assert wrong.value.code.startswith("auth/") and wrong.value.name.startswith("ERROR_")
    user = auth.sign_in_with_email_and_password(email, "third-password").user

    assert user.reauthenticate_with_credential(EmailAuthProvider.credential(email, "third-password")).operation_type == "reauthenticate"
    linked = user.link_with_credential(GoogleAuthProvider.credential(id_token=json.dumps({"sub": "ada-g", "email": "ada@gmail.example"})))
    assert "google.com" in [info.provider_id for info in linked.user.provider_data]
    assert [info.provider_id for info in user.unlink("google.com").provider_data] == ["password"]
    assert user.to_json()["providerData"] == [password_info.to_json()] and user.to_json()["providerId"] == "firebase"

    new_email = "new-" + email
    user.verify_before_update_email(new_email)
    auth.apply_action_code(oob_code("VERIFY_AND_CHANGE_EMAIL", new_email))
    user = auth.sign_in_with_email_and_password(new_email, "third-password").user

    auth.sign_out()
    settings = ActionCodeSettings(url="https://example.com/finish", handle_code_in_app=True)
    auth.send_sign_in_link_to_email(new_email, settings)
    link = oob_code("EMAIL_SIGNIN", new_email, link=True)
    assert auth.is_sign_in_with_email_link(link)
    assert auth.sign_in_with_email_link(new_email, link).user.email == new_email

    current = auth.current_user
    assert current is not None and current.email == new_email
    current.delete()
    assert auth.current_user is None
    with pytest.raises((keyringauth.UserNotFoundError, keyringauth.InvalidCredentialError)):
        auth.sign_in_with_email_and_password(new_email, "third-password")


def test_a_user_has_its_times_and_the_groups_refresh_token(auth: Auth, options: FirebaseOptions, group: str) -> None:
    before = time.time()
    user = auth.create_user_with_email_and_password(unique_email("times"), "a-password").user
    metadata = user.metadata
    assert metadata.creation_time is not None and metadata.creation_time.endswith(" GMT"), "a UTC string, as JavaScript's"
    created = parsedate_to_datetime(metadata.creation_time).timestamp()
    assert before - 5 <= created <= time.time() + 5
    assert metadata.last_sign_in_time is not None and parsedate_to_datetime(metadata.last_sign_in_time).timestamp() >= created
    assert user.to_json()["createdAt"] == str(int(created) * 1000)

    # The group's refresh token: every app of the group has the same, and it gets this user's ID tokens.
    token = user.refresh_token
    assert token and token not in repr(user) and token not in json.dumps(user.to_json())
    with Auth(options, access_group=group) as other:
        assert other.current_user is not None and other.current_user.refresh_token == token
    url = "http://{}/securetoken.googleapis.com/v1/token?key={}".format(os.environ["FIREBASE_AUTH_EMULATOR_HOST"], options.api_key)
    body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": token}).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=body), timeout=30) as answer:
        assert json.load(answer)["user_id"] == user.uid


def emulator_config(**fields: Any) -> None:
    """Sets the emulator's project configuration (its own API, as firebase-tools has it)."""
    url = "http://{}/emulator/v1/projects/{}/config".format(os.environ["FIREBASE_AUTH_EMULATOR_HOST"], "demo-keyring-auth")
    request = urllib.request.Request(url, data=json.dumps(fields).encode(), method="PATCH", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30):
        pass


def test_the_sign_in_methods_of_an_address(auth: Auth) -> None:
    email = unique_email("methods")
    assert auth.fetch_sign_in_methods_for_email(email) == [], "no account"
    auth.create_user_with_email_and_password(email, "a-password")
    assert auth.fetch_sign_in_methods_for_email(email) == [keyringauth.SignInMethod.EMAIL_PASSWORD]
    google = unique_email("google")
    auth.sign_in_with_credential(GoogleAuthProvider.credential(id_token=json.dumps({"sub": google, "email": google})))
    assert auth.fetch_sign_in_methods_for_email(google) == [keyringauth.SignInMethod.GOOGLE]
    with pytest.raises(keyringauth.AuthError) as malformed:
        auth.fetch_sign_in_methods_for_email("not an address")
    assert malformed.value.code == "auth/invalid-email"
    emulator_config(emailPrivacyConfig={"enableImprovedEmailPrivacy": True})
    try:
        assert auth.fetch_sign_in_methods_for_email(email) == [], "email enumeration protection answers nothing, as Firebase"
    finally:
        emulator_config(emailPrivacyConfig={"enableImprovedEmailPrivacy": False})


def link_language(request_type: str, email: str) -> str | None:
    """The language of the latest email link of ``request_type`` for ``email``: the emulator's link carries the
    request's X-Firebase-Locale as its ``lang``, as Firebase's do."""
    parsed = ActionCodeURL.parse_link(oob_code(request_type, email, link=True))
    assert parsed is not None
    return parsed.language_code


def test_emails_are_sent_in_the_language_of_the_calling_auth(auth: Auth, options: FirebaseOptions, group: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    email = unique_email("language")
    user = auth.create_user_with_email_and_password(email, "a-password").user
    assert [auth.language_code] == [None]
    auth.send_password_reset_email(email)
    assert link_language("PASSWORD_RESET", email) == "en", "none sent: the project's default"
    auth.language_code = "fr"
    with Auth(options, access_group=group) as other:  # the same app and group: one Auth in the broker for both
        other.language_code = "de"
        auth.send_password_reset_email(email)
        assert link_language("PASSWORD_RESET", email) == "fr"
        other.send_password_reset_email(email)
        assert link_language("PASSWORD_RESET", email) == "de", "each call in its own Auth's language"
        user.send_email_verification()
        assert link_language("VERIFY_EMAIL", email) == "fr", "a user's call in its Auth's language"
    monkeypatch.setenv("LC_ALL", "pt_BR.UTF-8")
    auth.use_device_language()
    assert auth.language_code == "pt-BR"
    user.verify_before_update_email("new-" + email)
    assert link_language("VERIFY_AND_CHANGE_EMAIL", "new-" + email) == "pt-BR"
    auth.send_sign_in_link_to_email(email, ActionCodeSettings(url="https://example.com/finish", handle_code_in_app=True))
    assert link_language("EMAIL_SIGNIN", email) == "pt-BR"
    monkeypatch.setenv("LC_ALL", "C")
    auth.use_device_language()
    assert [auth.language_code] == [None]  # a list: mypy keeps a property narrowed across the calls that change it
    auth.language_code = "fr\nX-Forged: 1"
    with pytest.raises(keyringauth.AuthError) as refused:
        auth.send_password_reset_email(email)
    assert refused.value.code == "auth/argument-error" and "Auth.language_code" in refused.value.message


@pytest.mark.skipif(not os.environ.get("KEYRING_AUTH_TEST_GITHUB"), reason="needs the broker's fake GitHub (KEYRING_AUTH_TEST_GITHUB)")
def test_github_device_flow_through_the_broker(auth: Auth) -> None:
    authorization = auth.start_github_sign_in("Iv1.python", scopes=["read:user"])
    assert authorization.user_code == "ABCD-1234" and authorization.verification_uri.endswith("/login/device")
    assert authorization._handle not in repr(authorization)
    signed_in = auth.finish_github_sign_in(authorization)
    assert signed_in.provider_id == "github.com" and [info.provider_id for info in signed_in.user.provider_data] == ["github.com"]
    assert auth.current_user == signed_in.user


def test_a_custom_token_and_a_credential_sign_in(auth: Auth) -> None:
    assert auth.sign_in_with_custom_token(json.dumps({"uid": "py-custom"})).user.uid == "py-custom"
    google = auth.sign_in_with_credential(GoogleAuthProvider.credential(id_token=json.dumps({"sub": "py-g", "email": "g@example.com"})))
    assert google.user.email == "g@example.com" and google.provider_id == "google.com"
    email = unique_email("credential")
    auth.create_user_with_email_and_password(email, "a-password")
    password = auth.sign_in_with_credential(EmailAuthProvider.credential(email, "a-password"))
    assert password.user.email == email and password.provider_id == "password", "an address and password, as JavaScript's"


def test_a_second_factor_is_enrolled_and_signs_in(auth: Auth) -> None:
    user = verified_user(auth, "grace")
    email = str(user.email)

    secret = TotpMultiFactorGenerator.generate_secret(user.multi_factor.get_session(), issuer="Example")
    url = secret.generate_qr_code_url()
    assert url.startswith("otpauth://totp/Example:") and secret.secret_key and secret.secret_key not in repr(secret)
    enrolled_at = time.time()
    user.multi_factor.enroll(TotpMultiFactorGenerator.assertion_for_enrollment(secret, totp(secret.secret_key, enrolled_at)), "Phone")
    [factor] = user.multi_factor.enrolled_factors
    assert factor.display_name == "Phone" and factor.factor_id == "totp"

    auth.sign_out()
    # With a before_auth_state_changed callback, the sign-in is held to its end: the callback sees the user once the
    # second factor is given.
    through: list[str | None] = []
    stop_before = auth.before_auth_state_changed(lambda user: through.append(user.uid if user else None))
    with pytest.raises(keyringauth.SecondFactorRequiredError) as required:
        auth.sign_in_with_email_and_password(email, "a-password")
    error = required.value
    assert error.code == "auth/multi-factor-auth-required" and error.name == "ERROR_SECOND_FACTOR_REQUIRED"
    assert [hint.uid for hint in error.resolver.hints] == [factor.uid]
    assert keyringauth.get_multi_factor_resolver(auth, error) is error.resolver
    # The message says how to finish in Python, names the factor, and keeps the broker's handle to itself.
    assert "e.resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(hint.uid, code))" in error.message
    assert f"'Phone' (uid {factor.uid})" in error.message and error.resolver._handle not in str(error)
    assert "ResolveSignInWithTOTP" not in error.message
    assert auth.current_user is None, "nothing is stored before the second factor"
    with pytest.raises(keyringauth.AuthError) as wrong:
        error.resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(factor.uid, "000000"))
    assert wrong.value.name == "ERROR_INVALID_VERIFICATION_CODE" and "assertion_for_sign_in(hint.uid, code)" in wrong.value.message
    code = totp(secret.secret_key, max(enrolled_at + 30, time.time() - 29))
    assert through == [], "no callback before the second factor"
    signed_in = error.resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(factor.uid, code)).user
    assert signed_in.email == email and signed_in.get_id_token_result().sign_in_second_factor == "totp"
    assert [through, [auth.current_user]] == [[signed_in.uid], [signed_in]]  # lists: mypy keeps current_user narrowed
    stop_before()

    signed_in.multi_factor.unenroll(factor)
    assert signed_in.multi_factor.enrolled_factors == []


def test_listeners_hear_every_app_of_the_group(auth: Auth, options: FirebaseOptions, group: str) -> None:
    states: queue.Queue[User | None] = queue.Queue()
    changes: queue.Queue[User | None] = queue.Queue()
    stop = auth.on_auth_state_changed(states.put)
    stop_changes = auth.on_user_changed(changes.put)
    assert states.get(timeout=30) is None and changes.get(timeout=30) is None, "called at once with the state now"
    with Auth(options, access_group=group) as other:
        user = other.sign_in_anonymously().user
        assert states.get(timeout=30) == user
        user.update_profile(display_name="Grace")
        changed = changes.get(timeout=30)
        while changed is not None and changed.display_name != "Grace":
            changed = changes.get(timeout=30)
        assert states.empty(), "a profile change is no change of auth state"
        other.sign_out()
        assert states.get(timeout=30) is None
    stop()
    stop_changes()


def test_current_user_is_a_value_kept_live_by_the_group(auth: Auth, options: FirebaseOptions, group: str) -> None:
    assert auth.auth_state_ready(timeout=0) and [auth.current_user] == [None], "ready when made"
    changes: queue.Queue[User | None] = queue.Queue()
    auth.on_user_changed(changes.put)
    assert changes.get(timeout=30) is None
    with Auth(options, access_group=group) as other:
        user = other.sign_in_anonymously().user
        assert changes.get(timeout=30) == user and auth.current_user == user, "another app's sign-in reaches this Auth"
        held = auth.current_user
        assert held is not None
        user.update_profile(display_name="Ada")
        changed = changes.get(timeout=30)
        while changed is not None and changed.display_name != "Ada":
            changed = changes.get(timeout=30)
        assert auth.current_user is held and held.display_name == "Ada", "the same object, kept up to date"
    signed_in = auth.sign_in_anonymously().user
    assert signed_in is auth.current_user, "a sign-in answers the user the Auth holds"
    auth.sign_out()
    assert [auth.current_user] == [None], "signed out at once"  # a list: mypy keeps a property narrowed across calls
    auth.close()
    assert [auth.current_user] == [None], "read without a call: a closed Auth answers it too"


def test_id_token_listeners_and_what_a_sign_in_tells(auth: Auth) -> None:
    tokens: queue.Queue[User | None] = queue.Queue()
    stop = auth.on_id_token_changed(tokens.put)
    assert tokens.get(timeout=30) is None
    email = unique_email("tokens")
    created = auth.create_user_with_email_and_password(email, "a-password")
    assert tokens.get(timeout=30) is created.user, "a sign-in is a new token"
    info = keyringauth.get_additional_user_info(created)
    assert info is not None and info.is_new_user and info.provider_id == "password"
    again = auth.sign_in_with_email_and_password(email, "a-password")
    assert tokens.get(timeout=30) is again.user, "the same user signed in again is a new token too"
    assert keyringauth.get_additional_user_info(again) == keyringauth.AdditionalUserInfo(False, "password")
    assert keyringauth.get_additional_user_info(auth.sign_in_with_custom_token(json.dumps({"uid": "py-tokens"}))) is None
    assert tokens.get(timeout=30) is auth.current_user
    stop()
    auth.sign_out()
    assert tokens.empty()
    with pytest.raises(keyringauth.AuthError) as not_a_second_factor:
        keyringauth.get_multi_factor_resolver(auth, keyringauth.AuthError("auth/internal-error", "ERROR_INTERNAL_ERROR", "x"))
    assert not_a_second_factor.value.code == "auth/argument-error"


def test_id_token_listeners_hear_every_refresh(auth: Auth, options: FirebaseOptions, group: str) -> None:
    user = auth.sign_in_anonymously().user
    tokens: queue.Queue[User | None] = queue.Queue()
    states: queue.Queue[User | None] = queue.Queue()
    stop, stop_states = auth.on_id_token_changed(tokens.put), auth.on_auth_state_changed(states.put)
    assert tokens.get(timeout=30) is user and states.get(timeout=30) is user
    first = user.get_id_token()
    assert user.get_id_token(force_refresh=True) != first
    assert tokens.get(timeout=30) is user, "the broker's refresh is a new token"
    # Another app of the group (another Auth in the broker) refreshes: the group's item has the new token, and this
    # Auth hears of it.
    with Auth(replace(options, app_id=options.app_id + "-other"), access_group=group) as other:
        assert other.current_user is not None and other.current_user.uid == user.uid
        refreshed = other.current_user.get_id_token(force_refresh=True)
        assert tokens.get(timeout=30) is user
        while user.to_dict().get("idToken") != refreshed:  # a refresh of this Auth's broker scope may come first
            assert tokens.get(timeout=30) is user
    assert user.get_id_token() == refreshed, "one token for the group"
    assert states.empty(), "a refresh is no change of auth state"
    stop()
    stop_states()


def test_a_user_of_another_auth_becomes_this_auths(auth: Auth, options: FirebaseOptions, group: str) -> None:
    states: queue.Queue[User | None] = queue.Queue()
    auth.on_auth_state_changed(states.put)
    assert states.get(timeout=30) is None
    with Auth(replace(options, app_id=options.app_id + "-mail"), access_group=group + "-mail") as mail:
        user = mail.create_user_with_email_and_password(unique_email("moved"), "a-password").user
        auth.update_current_user(user)
        current = auth.current_user
        assert current is not None and current.uid == user.uid and current is not user, "a User of this Auth's"
        assert states.get(timeout=30) is current
        assert current.get_id_token_result().claims["user_id"] == user.uid
        with Auth(options, access_group=group) as another:
            assert another.current_user is not None and another.current_user.uid == user.uid, "stored for the whole group"
        assert mail.current_user is user, "the other Auth keeps it"
        mail.sign_out()
        with pytest.raises(keyringauth.NoCurrentUserError):
            auth.update_current_user(user)
    with Auth(replace(options, api_key=options.api_key + "-other"), access_group=group + "-other") as foreign:
        with pytest.raises(keyringauth.AuthError) as refused:
            auth.update_current_user(foreign.sign_in_anonymously().user)
        assert refused.value.code == "auth/invalid-user-token"
    auth.update_current_user(None)
    assert [auth.current_user] == [None] and states.get(timeout=30) is None, "None signs out, as JavaScript's"


def test_a_password_is_checked_against_the_projects_policy(auth: Auth, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    call = auth._binding.call

    def counted(method: str, *arguments: Any, **options: Any) -> list[Any]:
        calls.append(method)
        return call(method, *arguments, **options)
    monkeypatch.setattr(auth._binding, "call", counted)
    short = auth.validate_password("abc")
    # The emulator serves no policy: a project's without one, as the JavaScript SDK reads it (Firebase's six at least).
    assert not short.is_valid and short.meets_min_password_length is False and short.meets_max_password_length is None
    assert short.contains_lowercase_letter is None and short.password_policy.enforcement_state == "OFF"
    assert short.password_policy.custom_strength_options.min_password_length == 6
    assert keyringauth.validate_password(auth, "abcdef").is_valid
    assert calls == ["GetPasswordPolicy"], "fetched once, then kept by the Auth"
    auth.tenant_id = "tenant-policy"
    assert not auth.validate_password("abc").is_valid
    assert calls == ["GetPasswordPolicy", "GetPasswordPolicy"], "each tenant's own"


def test_before_auth_state_changed_stops_this_auths_own_changes(auth: Auth, options: FirebaseOptions, group: str) -> None:
    states: queue.Queue[User | None] = queue.Queue()
    auth.on_auth_state_changed(states.put)
    assert states.get(timeout=30) is None
    seen: list[str | None] = []
    aborted: list[str] = []

    def refuse(user: User | None) -> None:
        raise RuntimeError("not now")
    stop_seen = auth.before_auth_state_changed(lambda user: seen.append(user.uid if user else None), lambda: aborted.append("seen"))
    stop_refuse = auth.before_auth_state_changed(refuse, lambda: aborted.append("refuse"))
    email = unique_email("blocked")
    with pytest.raises(keyringauth.AuthError) as blocked:
        auth.create_user_with_email_and_password(email, "a-password")
    assert blocked.value.code == "auth/login-blocked" and "RuntimeError: not now" in blocked.value.message
    assert aborted == ["seen"], "the on_abort of the callbacks that ran before, not of the one that raised"
    assert len(seen) == 1 and seen[0] and [auth.current_user] == [None]
    with Auth(options, access_group=group) as other:
        assert other.current_user is None, "nothing stored: no app of the group signed in"
    stop_refuse()

    # The account was made at Firebase, as the JavaScript SDK makes it; signing in now passes the callback that is left.
    user = auth.sign_in_with_email_and_password(email, "a-password").user
    assert seen == [user.uid, user.uid] and auth.current_user is user and states.get(timeout=30) is user
    with Auth(options, access_group=group) as other:
        assert other.current_user is not None and other.current_user.uid == user.uid

    # A sign-out, and a deletion, are stopped too; the group stays signed in.
    stop_refuse = auth.before_auth_state_changed(refuse)
    with pytest.raises(keyringauth.AuthError) as kept:
        auth.sign_out()
    assert kept.value.code == "auth/login-blocked" and auth.current_user is user
    with pytest.raises(keyringauth.AuthError):
        user.delete()
    assert user.get_id_token(), "the account is still there"
    stop_refuse()
    auth.sign_out()
    assert seen[-1] is None and states.get(timeout=30) is None
    stop_seen()
    auth.sign_in_anonymously()
    assert seen == [user.uid, user.uid, None, None, None], "the refused sign-out's and deletion's, the sign-out's, none once removed"
    assert states.get(timeout=30) is auth.current_user and states.empty(), "the listeners heard of no refused change"


def test_a_group_holds_the_sign_in_of_one_tenant(auth: Auth) -> None:
    user = auth.sign_in_anonymously().user
    assert auth.tenant_id is None
    with pytest.raises(keyringauth.AuthError) as mismatch:
        auth.tenant_id = "tenant-a"
    assert mismatch.value.code == "auth/tenant-id-mismatch"
    assert auth.tenant_id is None and auth.current_user is user, "the tenant stays as it was"
    auth.sign_out()
    auth.tenant_id = "tenant-a"
    assert [auth.tenant_id, auth.current_user] == ["tenant-a", None]


def test_bad_input_is_an_error_and_the_broker_keeps_serving(auth: Auth, options: FirebaseOptions) -> None:
    with pytest.raises(keyringauth.AuthError) as refused:
        auth.sign_in_with_email_and_password("ada@example.com\nforged", "x")
    assert refused.value.code == "auth/argument-error" and "control character" in refused.value.message
    with pytest.raises(keyringauth.AuthError) as bad_group:
        Auth(options, access_group="not a group")
    assert bad_group.value.code == "auth/argument-error", "an Auth checks its group when it is made"
    user = auth.sign_in_anonymously().user
    auth.sign_out()
    with pytest.raises(keyringauth.NoCurrentUserError):
        user.get_id_token()
    with pytest.raises(keyringauth.AuthError) as wrong_code:
        auth.apply_action_code("not-a-code")
    assert wrong_code.value.name == "ERROR_INVALID_ACTION_CODE"
    assert auth.sign_in_anonymously().user.uid, "still serving"


def test_options_are_read_as_the_swift_package_reads_them(tmp_path: Any) -> None:
    json_file = tmp_path / "google-services.json"
    json_file.write_text(json.dumps({
        "project_info": {"project_id": "demo-p", "project_number": "42"},
        "client": [{"client_info": {"mobilesdk_app_id": "1:42:android:a"}, "api_key": [{"current_key": "AIza-a"}]}],
    }))
    assert FirebaseOptions.from_file(str(json_file)) == FirebaseOptions("AIza-a", "1:42:android:a", "demo-p")
    plist = tmp_path / "GoogleService-Info.plist"
    import plistlib
    plist.write_bytes(plistlib.dumps({"API_KEY": "AIza-b", "GOOGLE_APP_ID": "1:42:ios:b", "PROJECT_ID": "demo-q"}))
    assert FirebaseOptions.from_file(str(plist)) == FirebaseOptions("AIza-b", "1:42:ios:b", "demo-q")
    with pytest.raises(keyringauth.AuthError) as missing:
        FirebaseOptions.from_file(str(tmp_path / "nothing.json"))
    assert missing.value.code == "auth/invalid-app-options"
    two = tmp_path / "two.json"
    two.write_text(json.dumps({"project_info": {"project_id": "p"}, "client": [
        {"client_info": {"mobilesdk_app_id": "1:1:a"}, "api_key": [{"current_key": "k"}]},
        {"client_info": {"mobilesdk_app_id": "1:1:b"}, "api_key": [{"current_key": "k"}]}]}))
    with pytest.raises(keyringauth.AuthError, match="GOOGLE_APP_ID"):
        FirebaseOptions.from_file(str(two))
    assert FirebaseOptions.from_file(str(two), app_id="1:1:b").app_id == "1:1:b"


SANDBOXED = """
import json, sys
from keyringauth import AccessDeniedError, Auth, FirebaseOptions
options = FirebaseOptions(**json.loads(sys.argv[1]))
for group in sys.argv[2:]:
    try:
        with Auth(options, access_group=group) as auth:
            print(group, "signed in", auth.sign_in_anonymously().user.is_anonymous)
    except AccessDeniedError as error:
        print(group, "refused", error.code)
"""


def test_a_sandboxed_app_may_use_its_domains_group_only(options: FirebaseOptions, tmp_path: Any) -> None:
    fields = {"api_key": options.api_key, "app_id": options.app_id, "project_id": options.project_id}
    result = run_sandboxed(SANDBOXED, tmp_path, [json.dumps(fields), "TEAMID.com.example.notes", "TEAMID.org.evil.notes"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "TEAMID.com.example.notes signed in True", "TEAMID.org.evil.notes refused auth/access-denied"], result.stderr


SANDBOXED_UPDATE = """
import json, sys
from keyringauth import AccessDeniedError, Auth, FirebaseOptions
options = FirebaseOptions(**json.loads(sys.argv[1]))
with Auth(options, access_group="TEAMID.com.example.notes") as auth:
    uid = auth.sign_in_anonymously().user.uid
    binding = auth._binding
    try:  # the broker's call as an app that forged another group's user would make it
        binding.call("UpdateCurrentUser", "a{sv}ss", binding.app, "TEAMID.org.evil.notes", uid)
    except AccessDeniedError as error:
        print("refused", error.code)
"""


def test_a_user_is_taken_only_from_a_group_the_app_may_use(options: FirebaseOptions, tmp_path: Any) -> None:
    fields = {"api_key": options.api_key, "app_id": options.app_id, "project_id": options.project_id}
    result = run_sandboxed(SANDBOXED_UPDATE, tmp_path, [json.dumps(fields)])
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["refused auth/access-denied"], result.stderr


GTK_APP = """
import json, logging, sys, threading
from gi.repository import GLib
from keyringauth import Auth, FirebaseOptions, glib_dispatch
logging.basicConfig(format="%(name)s %(levelname)s %(message)s")
options = FirebaseOptions(**json.loads(sys.argv[1]))
loop = GLib.MainLoop()
seen = []
def the_broken_listener(user):
    raise RuntimeError("a GTK app's bug")
def changed(user):
    seen.append((user.uid if user else None, threading.current_thread() is threading.main_thread()))
    if user is None and len(seen) == 1:
        threading.Thread(target=lambda: Auth(options, access_group=sys.argv[2]).sign_in_anonymously()).start()
    elif user is not None:
        loop.quit()
with Auth(options, access_group=sys.argv[2], dispatch=glib_dispatch) as auth:
    auth.on_auth_state_changed(the_broken_listener)
    auth.on_auth_state_changed(changed)
    GLib.timeout_add_seconds(60, loop.quit)
    loop.run()
print(json.dumps(seen))
"""


def test_listeners_reach_a_glib_main_loop(options: FirebaseOptions, group: str, tmp_path: Any) -> None:
    """A GTK app's listeners run on its main loop (``glib_dispatch``): PyGObject's Python, the package on its path. One
    listener that raises is logged (on standard error), and the other is still told each change on the main loop."""
    import jeepney  # type: ignore[import-untyped]

    script = tmp_path / "gtk_app.py"
    script.write_text(GTK_APP)
    source = os.path.dirname(os.path.dirname(os.path.abspath(keyringauth.__file__)))
    jeepney_path = os.path.dirname(os.path.dirname(os.path.abspath(jeepney.__file__)))
    fields = {"api_key": options.api_key, "app_id": options.app_id, "project_id": options.project_id}
    environment = dict(os.environ, PYTHONPATH=f"{source}:{jeepney_path}")
    result = subprocess.run(["/usr/bin/python3", str(script), json.dumps(fields), group], capture_output=True, text=True,
                            timeout=120, env=environment, check=False)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert [uid is None for uid, _ in seen] == [True, False], seen
    assert all(on_main for _, on_main in seen), f"every call on the main loop's thread: {seen}"
    assert result.stderr.count("keyringauth ERROR The on_auth_state_changed listener __main__.the_broken_listener raised RuntimeError") == 2
    assert result.stderr.count("RuntimeError: a GTK app's bug") == 2, result.stderr
