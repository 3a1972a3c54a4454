"""Phone numbers through the broker, against the emulator (which verifies no app, and lists the codes it "sends"):
every phone function of the package with the JavaScript SDK's names."""
from __future__ import annotations

import pytest

import keyringauth
from conftest import account_with_phone_number, phone_number, sms_code, unique_email, verified_user
from keyringauth import (
    Auth,
    PhoneAuthProvider,
    PhoneMultiFactorGenerator,
    PhoneMultiFactorInfo,
    link_with_phone_number,
    multi_factor,
    reauthenticate_with_phone_number,
    sign_in_with_phone_number,
    update_phone_number,
)


def test_a_phone_number_signs_in_links_reauthenticates_and_changes(auth: Auth) -> None:
    number = phone_number()
    confirmation = sign_in_with_phone_number(auth, number, app_verifier=object())
    with pytest.raises(keyringauth.AuthError) as wrong:
        confirmation.confirm("000000")
    assert wrong.value.code == "auth/invalid-verification-code" and "confirmation_result.confirm(code)" in wrong.value.message
    user = confirmation.confirm(sms_code(number)).user
    assert user.phone_number == number and auth.current_user == user
    with pytest.raises(keyringauth.AuthError) as again:
        sign_in_with_phone_number(auth, number)
    assert again.value.code == "auth/too-many-requests", "a resend waits 30 s"

    # Reauthenticating sends a code to the user's number: one that no code has been sent to lately.
    email, known = unique_email("katherine"), phone_number()
    account_with_phone_number(email, known)
    user = auth.sign_in_with_email_and_password(email, "a-password").user
    reauthenticated = reauthenticate_with_phone_number(user, known)
    assert reauthenticated.confirm(sms_code(known)).operation_type == "reauthenticate" and user.phone_number == known

    auth.sign_out()
    anonymous = auth.sign_in_anonymously().user
    first, second = phone_number(), phone_number()
    linked = link_with_phone_number(anonymous, first).confirm(sms_code(first))
    assert linked.operation_type == "link" and anonymous.phone_number == first
    verification_id = PhoneAuthProvider(auth).verify_phone_number(second)
    update_phone_number(anonymous, PhoneAuthProvider.credential(verification_id, sms_code(second)))
    assert anonymous.phone_number == second and auth.current_user is not None and auth.current_user.phone_number == second


def test_an_sms_factor_is_enrolled_and_signs_in(auth: Auth) -> None:
    user = verified_user(auth, "hedy")
    email = str(user.email)
    number = phone_number()
    provider = PhoneAuthProvider(auth)
    verification_id = provider.verify_phone_number({"phone_number": number, "session": multi_factor(user).get_session()})
    credential = PhoneAuthProvider.credential(verification_id, sms_code(number))
    multi_factor(user).enroll(PhoneMultiFactorGenerator.assertion(credential), "Work phone")
    [factor] = user.multi_factor.enrolled_factors
    assert isinstance(factor, PhoneMultiFactorInfo) and factor.factor_id == "phone" and factor.display_name == "Work phone"

    auth.sign_out()
    with pytest.raises(keyringauth.SecondFactorRequiredError) as required:
        auth.sign_in_with_email_and_password(email, "a-password")
    resolver = required.value.resolver
    [hint] = resolver.hints
    assert isinstance(hint, PhoneMultiFactorInfo) and hint.phone_number.endswith(number[-4:])
    assert "PhoneMultiFactorGenerator.assertion" in required.value.message
    verification_id = provider.verify_phone_number({"multiFactorHint": hint, "session": resolver.session})
    signed_in = resolver.resolve_sign_in(PhoneMultiFactorGenerator.assertion(
        PhoneAuthProvider.credential(verification_id, sms_code()))).user
    assert signed_in.email == email and signed_in.get_id_token_result().sign_in_second_factor == "phone"
    signed_in.multi_factor.unenroll(hint)
    assert signed_in.multi_factor.enrolled_factors == []
