"""Phone numbers' names and checks that need no broker: the JavaScript SDK's shapes, the code never printed, the
options of verify_phone_number, and the broker's phone messages said in Python."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

import keyringauth
from keyringauth import (
    MultiFactorInfo,
    MultiFactorSession,
    PhoneAuthProvider,
    PhoneMultiFactorGenerator,
    PhoneMultiFactorInfo,
    VerificationPage,
    errors,
    sign_in_with_phone_number,
)
from keyringauth._messages import in_python

pytestmark = pytest.mark.offline


class Recorder:
    """Stands for an Auth's binding: records the broker calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def call(self, method: str, signature: str = "", *arguments: Any, timeout: float | None = None,
             on_page: Any = None) -> list[Any]:
        self.calls.append((method, *arguments))
        self.on_page = on_page
        return ["handle-1"]


def test_a_credential_keeps_its_code_out_of_print() -> None:
    credential = PhoneAuthProvider.credential("handle-1", "123456")
    assert (credential.provider_id, credential.verification_id, credential.verification_code) == ("phone", "handle-1", "123456")
    assert "123456" not in repr(credential)
    assert PhoneMultiFactorGenerator.assertion(credential).factor_id == PhoneMultiFactorGenerator.FACTOR_ID == keyringauth.FactorId.PHONE
    with pytest.raises(errors.AuthError):
        PhoneMultiFactorGenerator.assertion("123456")  # type: ignore[arg-type]


def test_an_sms_factor_is_a_phone_multi_factor_info() -> None:
    factor = MultiFactorInfo.from_dictionary({"uid": "f1", "factorID": "phone", "enrollmentDate": 0, "phoneNumber": "+*******0100"})
    assert isinstance(factor, PhoneMultiFactorInfo) and factor.phone_number == "+*******0100"
    assert factor.enrollment_time == datetime(1970, 1, 1, tzinfo=timezone.utc)
    assert not isinstance(MultiFactorInfo.from_dictionary({"uid": "f2", "factorID": "totp"}), PhoneMultiFactorInfo)


def test_verify_phone_number_starts_what_its_options_say() -> None:
    binding = Recorder()
    provider = PhoneAuthProvider.__new__(PhoneAuthProvider)
    provider._auth = type("FakeAuth", (), {"_binding": binding})()
    assert provider.verify_phone_number("+15555550100") == "handle-1"
    enrollment = MultiFactorSession(binding)  # type: ignore[arg-type]
    provider.verify_phone_number({"phoneNumber": "+15555550101", "session": enrollment})
    sign_in = MultiFactorSession(binding, sign_in_handle="sign-in-1")  # type: ignore[arg-type]
    hint = PhoneMultiFactorInfo("f1", None, "phone", datetime.now(timezone.utc), "+*******0100")
    provider.verify_phone_number({"multi_factor_hint": hint, "session": sign_in})
    assert [call[:3] for call in binding.calls] == [
        ("StartPhoneVerification", "+15555550100", "sign-in"), ("StartPhoneVerification", "+15555550101", "enroll"),
        ("StartPhoneSecondFactor", "sign-in-1", "f1")]
    with pytest.raises(errors.AuthError, match="resolver.session"):
        provider.verify_phone_number({"multi_factor_uid": "f1", "session": enrollment})
    with pytest.raises(errors.AuthError, match="phone_number"):
        provider.verify_phone_number({})


def test_a_verification_page_in_the_app_verifiers_place_says_how_the_page_reaches_the_person() -> None:
    binding = Recorder()
    auth = type("FakeAuth", (), {"_binding": binding, "sign_in_with_credential": None})()
    addresses: list[str] = []
    sign_in_with_phone_number(auth, "+15555550100", VerificationPage(on_address=addresses.append, open_browser=False))
    assert binding.calls[-1][-1] == {"openBrowser": ("b", False)} and binding.on_page == addresses.append
    sign_in_with_phone_number(auth, "+15555550100", VerificationPage(on_address=addresses.append))
    assert binding.calls[-1][-1] == {} and binding.on_page == addresses.append, "the browser opens, and the app is told too"
    sign_in_with_phone_number(auth, "+15555550100", object())
    assert binding.calls[-1][-1] == {} and binding.on_page is None, "JavaScript's verifier: not used"
    with pytest.raises(errors.AuthError, match="needs on_address"):
        VerificationPage(open_browser=False)
    with pytest.raises(errors.AuthError, match="a function"):
        VerificationPage(on_address="http://localhost")  # type: ignore[arg-type]


def test_the_brokers_phone_messages_are_said_in_python() -> None:
    message = in_python("finish the sign-in with ResolveSignInWithTOTP, or for an SMS factor with StartPhoneSecondFactor and "
                        "ConfirmPhoneVerification; start one with StartPhoneVerification.")
    for method in ("StartPhoneSecondFactor", "ConfirmPhoneVerification", "StartPhoneVerification"):
        assert method not in message, message
    wrong = errors.broker_error("Backend", "ERROR_INVALID_VERIFICATION_CODE: 4 more tries of this verification's code are left; check "
                                           "the SMS and call again with the same handle. The code is wrong. (INVALID_CODE)")
    assert wrong.code == "auth/invalid-verification-code"
    assert "confirmation_result.confirm(code)" in wrong.message and wrong.message.endswith("(INVALID_CODE)")
    assert "assertion_for_sign_in(hint.uid, code)" in wrong.message, "an authenticator app's code answers the same"
    bound = errors.broker_error("Backend", "ERROR_TOO_MANY_REQUESTS: A code was sent to this number less than 30 s ago.")
    assert bound.code == "auth/too-many-requests" and "Wait as the message says" in bound.message
