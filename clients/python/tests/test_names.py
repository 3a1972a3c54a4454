"""The JavaScript SDK's names that need no broker: action links, error codes, a user's sign-in methods."""
from __future__ import annotations

import pytest

import keyringauth
from keyringauth import ActionCodeOperation, ActionCodeURL, AuthErrorCodes, UserInfo
from keyringauth._language import device_language

pytestmark = pytest.mark.offline


def test_an_action_link_is_parsed_as_javascripts() -> None:
    link = ("https://example.firebaseapp.com/__/auth/action?apiKey=AIza-k&mode=resetPassword&oobCode=CODE&"
            "continueUrl=https%3A%2F%2Fexample.com%2F&lang=fr&tenantId=t1")
    parsed = ActionCodeURL.parse_link(link)
    assert parsed == ActionCodeURL("AIza-k", "CODE", "https://example.com/", "fr", ActionCodeOperation.PASSWORD_RESET, "t1")
    assert keyringauth.parse_action_code_url(link) == parsed
    assert ActionCodeURL.parse_link("https://example.com/?mode=signIn") is None, "no code, no action link"


def test_error_codes_are_javascripts() -> None:
    assert AuthErrorCodes.INVALID_PASSWORD == "auth/wrong-password"
    assert AuthErrorCodes.EMAIL_EXISTS == "auth/email-already-in-use"
    assert AuthErrorCodes.MFA_REQUIRED == "auth/multi-factor-auth-required"


def test_a_sign_in_method_is_a_user_info() -> None:
    info = UserInfo(uid="ada@example.com", display_name=None, email="ada@example.com", phone_number=None, photo_url=None,
                    provider_id="password")
    assert info.to_json()["providerId"] == "password" and info.to_json()["uid"] == "ada@example.com"


def test_the_constant_maps_are_javascripts() -> None:
    assert [keyringauth.FactorId.TOTP, keyringauth.ProviderId.GOOGLE, keyringauth.SignInMethod.EMAIL_LINK] == ["totp", "google.com", "emailLink"]
    assert [keyringauth.OperationType.SIGN_IN, keyringauth.OperationType.LINK] == ["signIn", "link"]
    assert keyringauth.TotpMultiFactorGenerator.FACTOR_ID == keyringauth.FactorId.TOTP


def test_the_device_language_is_the_locales_as_a_language_tag() -> None:
    assert device_language({"LANG": "pt_BR.UTF-8"}) == "pt-BR"
    assert device_language({"LC_ALL": "fr_FR@euro", "LANG": "de_DE.UTF-8"}) == "fr-FR", "LC_ALL first"
    assert device_language({"LC_ALL": "", "LC_MESSAGES": "de.UTF-8", "LANG": "en_US"}) == "de", "an empty variable is not set"
    assert device_language({"LANG": "C.UTF-8"}) is None and device_language({"LANG": "POSIX"}) is None
    assert device_language({}) is None
