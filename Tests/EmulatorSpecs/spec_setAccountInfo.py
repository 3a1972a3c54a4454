"""firebase-tools src/emulator/auth/setAccountInfo.spec.ts: accounts:update."""

import json

from specs import decode_jwt_header, expect_id_token_expired, pass_a_second_boundary
from specs import (IDENTITY, PROJECT_ID, TEST_INVALID_PHONE_NUMBER, TEST_MFA_INFO, TEST_PHONE_NUMBER, TEST_PHONE_NUMBER_2,
                   TEST_PHONE_NUMBER_3, decode_jwt_payload, expect_equal, expect_error, expect_field, expect_includes,
                   expect_no_field, expect_status, expect_true, get_account_info_by_id_token, get_signin_methods,
                   inspect_oobs, register_anon_user, register_tenant, register_user, sign_in_with_email_link,
                   sign_in_with_fake_claims, sign_in_with_phone_number, spec, update_account_by_local_id)

it = spec("setAccountInfo.spec.ts")
PATH = IDENTITY + "/accounts:update"


def _expect_new_tokens(res, local_id, provider, email=None):
    """The checks after an update that issues new tokens: a refresh token, and an unsigned ID token for the user."""
    expect_field(res.body, "refreshToken", kind=str)
    id_token = expect_field(res.body, "idToken", kind=str)
    expect_equal(decode_jwt_header(id_token).get("alg"), "none", "JWT alg")
    claims = decode_jwt_payload(id_token)
    expect_equal(claims.get("user_id"), local_id, "user_id claim")
    if email is not None:
        expect_equal(claims.get("email"), email, "email claim")
    expect_field(claims.get("firebase"), "sign_in_provider", provider)


def _expect_signin_methods_exclude(api, email, method):
    """chai's `expect(methods).not.to.contain(method)`, which fails too when there is no list at all."""
    methods = get_signin_methods(api, email)
    expect_true(isinstance(methods, list), f"expected a signinMethods list, got {methods!r}")
    expect_true(method not in methods, f"expected signinMethods {methods!r} not to contain {method!r}")


@it("should allow updating and deleting displayName and photoUrl")
def _(api):
    id_token = register_anon_user(api)["idToken"]
    attrs = {"displayName": "Alice", "photoUrl": "http://localhost/alice.png"}
    res = api.post(PATH, {"idToken": id_token, **attrs})
    expect_status(200, res)
    expect_equal(res.body.get("displayName"), attrs["displayName"], "displayName")
    expect_equal(res.body.get("photoUrl"), attrs["photoUrl"], "photoUrl")
    expect_no_field(res.body, "idToken")
    expect_no_field(res.body, "refreshToken")

    res = api.post(PATH, {"idToken": id_token, "deleteAttribute": ["DISPLAY_NAME", "PHOTO_URL"]})
    expect_status(200, res)
    expect_no_field(res.body, "displayName")
    expect_no_field(res.body, "photoUrl")


@it("should set password and issue new tokens")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret"}
    registered = register_user(api, user)
    new_password = "notasecreteither"
    res = api.post(PATH, {"idToken": registered["idToken"], "password": new_password})
    expect_status(200, res)
    _expect_new_tokens(res, registered["localId"], "password")

    res = api.post(IDENTITY + "/accounts:signInWithPassword", {"email": user["email"], "password": new_password})
    expect_status(200, res)
    expect_equal(res.body.get("localId"), registered["localId"], "localId")


@it("should add password provider to anon user")
def _(api):
    anon = register_anon_user(api)
    email, password = "alice@example.com", "notasecreteither"
    res = api.post(PATH, {"idToken": anon["idToken"], "email": email, "password": password})
    expect_status(200, res)
    _expect_new_tokens(res, anon["localId"], "password")

    res = api.post(IDENTITY + "/accounts:signInWithPassword", {"email": email, "password": password})
    expect_status(200, res)
    expect_equal(res.body.get("localId"), anon["localId"], "localId")
    expect_equal(get_signin_methods(api, email), ["password"], "signinMethods")


@it("should allow adding email without password to anon user")
def _(api):
    anon = register_anon_user(api)
    email = "alice@example.com"
    res = api.post(PATH, {"idToken": anon["idToken"], "email": email})
    expect_status(200, res)
    # The sign-in provider stays that of the previous token.
    _expect_new_tokens(res, anon["localId"], "anonymous")
    # `not.to.contain(["password"])` looks for the array itself as an element.
    _expect_signin_methods_exclude(api, email, ["password"])


@it("should allow changing email of an existing user, and send out an oob to reset the email")
def _(api):
    old_email, password, new_email = "alice@example.com", "notasecret", "bob@example.com"
    registered = register_user(api, {"email": old_email, "password": password})
    res = api.post(PATH, {"idToken": registered["idToken"], "email": new_email})
    expect_status(200, res)
    _expect_new_tokens(res, registered["localId"], "password", email=new_email)

    res = api.post(IDENTITY + "/accounts:signInWithPassword", {"email": new_email, "password": password})
    expect_status(200, res)
    expect_equal(res.body.get("localId"), registered["localId"], "localId")

    res = api.post(IDENTITY + "/accounts:signInWithPassword", {"email": old_email, "password": password})
    expect_error(res, 400, "EMAIL_NOT_FOUND")

    oobs = inspect_oobs(api)
    expect_equal(len(oobs), 1, "number of oob codes")
    expect_equal(oobs[0].get("email"), old_email, "oob email")
    expect_equal(oobs[0].get("requestType"), "RECOVER_EMAIL", "oob requestType")


@it("should disallow setting email to same as an existing user")
def _(api):
    user = {"email": "bob@example.com", "password": "notasecret"}
    register_user(api, user)
    id_token = register_anon_user(api)["idToken"]
    expect_error(api.post(PATH, {"idToken": id_token, "email": user["email"]}), 400, "EMAIL_EXISTS")
    res = api.post(PATH, {"idToken": id_token, "email": "BOB@example.com", "password": "notasecret"})
    expect_error(res, 400, "EMAIL_EXISTS")


@it("should set initialEmail for the user, after updating email")
def _(api):
    old_email, new_email = "alice@example.com", "bob@example.com"
    id_token = register_user(api, {"email": old_email, "password": "notasecret"})["idToken"]
    res = api.post(PATH, {"idToken": id_token, "email": new_email})
    expect_status(200, res)
    expect_equal(res.body.get("email"), new_email, "email")

    # The change ends the sessions begun before it (validSince). The spec's frozen fake clock keeps its first ID
    # token valid; on the real clock a second may pass, so the lookup uses the token the change answered with.
    info = get_account_info_by_id_token(api, res.body.get("idToken"))
    expect_equal(info.get("initialEmail"), old_email, "initialEmail")


@it("should reset email when OOB flow is initiated, after updating user email")
def _(api):
    old_email, new_email = "alice@example.com", "bob@example.com"
    id_token = register_user(api, {"email": old_email, "password": "notasecret"})["idToken"]
    expect_status(200, api.post(PATH, {"idToken": id_token, "email": new_email}))

    oobs = inspect_oobs(api)
    expect_equal(len(oobs), 1, "number of oob codes")
    expect_equal(oobs[0].get("email"), old_email, "oob email")
    expect_equal(oobs[0].get("requestType"), "RECOVER_EMAIL", "oob requestType")

    res = api.post(PATH, {"oobCode": oobs[0].get("oobCode")})
    expect_status(200, res)
    expect_equal(res.body.get("email"), old_email, "email")
    expect_equal(res.body.get("emailVerified"), True, "emailVerified")

    expect_equal(len(inspect_oobs(api)), 0, "number of oob codes after redeeming")


@it("should disallow resetting an email if another user exists with the same email")
def _(api):
    bob = {"email": "bob@example.com", "password": "notasecret"}
    other_bob = {"email": "bob@example.com", "password": "notasecreteither"}
    bob_new_email = "bob_new@example.com"
    id_token = register_user(api, bob)["idToken"]
    res = api.post(PATH, {"idToken": id_token, "email": bob_new_email})
    expect_status(200, res)
    expect_equal(res.body.get("email"), bob_new_email, "email")

    register_user(api, other_bob)

    oobs = inspect_oobs(api)
    expect_equal(len(oobs), 1, "number of oob codes")
    expect_equal(oobs[0].get("requestType"), "RECOVER_EMAIL", "oob requestType")
    expect_error(api.post(PATH, {"oobCode": oobs[0].get("oobCode")}), 400, "EMAIL_EXISTS")


@it("should not set initial email or send OOB when anon user updates email")
def _(api):
    id_token = register_anon_user(api)["idToken"]
    email = "alice@example.com"
    res = api.post(PATH, {"idToken": id_token, "email": email})
    expect_status(200, res)
    expect_equal(res.body.get("email"), email, "email")

    expect_equal(len(inspect_oobs(api)), 0, "number of oob codes")
    info = get_account_info_by_id_token(api, res.body.get("idToken"))  # as in the case above: the change's token
    expect_no_field(info, "initialEmail")


@it("should not update email if user is disabled")
def _(api):
    registered = register_user(api, {"email": "bob@example.com", "password": "notasecret"})
    update_account_by_local_id(api, registered["localId"], {"disableUser": True})
    res = api.post(PATH, {"idToken": registered["idToken"], "email": "alice@example.com"})
    expect_error(res, 400, "USER_DISABLED")


@it("should update email when OOB flow of VERIFY_AND_CHANGE_EMAIL is initiated")
def _(api):
    old_email, new_email = "alice@example.com", "bob@example.com"
    id_token = register_user(api, {"email": old_email, "password": "notasecret"})["idToken"]
    res = api.post(IDENTITY + "/accounts:sendOobCode",
                   {"idToken": id_token, "newEmail": new_email, "requestType": "VERIFY_AND_CHANGE_EMAIL"})
    expect_status(200, res)

    oobs = inspect_oobs(api)
    expect_equal(len(oobs), 1, "number of oob codes")
    expect_equal(oobs[0].get("email"), old_email, "oob email")
    expect_equal(oobs[0].get("newEmail"), new_email, "oob newEmail")
    expect_equal(oobs[0].get("requestType"), "VERIFY_AND_CHANGE_EMAIL", "oob requestType")

    res = api.post(PATH, {"oobCode": oobs[0].get("oobCode")})
    expect_status(200, res)
    expect_equal(res.body.get("email"), new_email, "email")
    expect_equal(res.body.get("newEmail"), new_email, "newEmail")
    expect_equal(res.body.get("emailVerified"), True, "emailVerified")

    expect_equal(len(inspect_oobs(api)), 0, "number of oob codes after redeeming")


@it("should disallow changing an email if another user exists with the same email")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret"}
    another = {"email": "bob@example.com", "password": "notasecreteither"}
    id_token = register_user(api, user)["idToken"]
    res = api.post(IDENTITY + "/accounts:sendOobCode",
                   {"idToken": id_token, "newEmail": another["email"], "requestType": "VERIFY_AND_CHANGE_EMAIL"})
    expect_status(200, res)

    oobs = inspect_oobs(api)
    expect_equal(len(oobs), 1, "number of oob codes")
    expect_equal(oobs[0].get("requestType"), "VERIFY_AND_CHANGE_EMAIL", "oob requestType")

    register_user(api, another)
    expect_error(api.post(PATH, {"oobCode": oobs[0].get("oobCode")}), 400, "EMAIL_EXISTS")

    expect_equal(len(inspect_oobs(api)), 0, "number of oob codes after redeeming")


def _admin_update(api, body):
    return api.post(PATH, body, key=None, owner=True)


@it("should update phoneNumber if specified")
def _(api):
    user = sign_in_with_phone_number(api, TEST_PHONE_NUMBER)
    expect_status(200, _admin_update(api, {"localId": user["localId"], "phoneNumber": "+15555550123"}))
    expect_equal(get_account_info_by_id_token(api, user["idToken"]).get("phoneNumber"), "+15555550123", "phoneNumber")


@it("should noop when setting phoneNumber to the same as before")
def _(api):
    user = sign_in_with_phone_number(api, TEST_PHONE_NUMBER)
    expect_status(200, _admin_update(api, {"localId": user["localId"], "phoneNumber": TEST_PHONE_NUMBER}))
    expect_equal(get_account_info_by_id_token(api, user["idToken"]).get("phoneNumber"), TEST_PHONE_NUMBER, "phoneNumber")


@it("should disallow setting phone to same as an existing user")
def _(api):
    sign_in_with_phone_number(api, TEST_PHONE_NUMBER)
    local_id = register_anon_user(api)["localId"]
    expect_error(_admin_update(api, {"localId": local_id, "phoneNumber": TEST_PHONE_NUMBER}), 400, "PHONE_NUMBER_EXISTS")


@it("should error if phoneNumber is invalid")
def _(api):
    local_id = register_anon_user(api)["localId"]
    res = api.post(PATH, {"localId": local_id, "phoneNumber": "555-555-0100"}, key=None, owner=True)
    expect_error(res, 400, "INVALID_PHONE_NUMBER : Invalid format.")


# Second factors given as phone numbers (TEST_MFA_INFO's `phoneInfo`), through signUp and the Admin API.


def _set_factors(api, local_id, enrollments):
    """`accounts:update` with `mfa.enrollments` (None: the field left out, as JSON.stringify leaves out undefined)."""
    return _admin_update(api, {"localId": local_id, "mfa": {"enrollments": enrollments} if enrollments is not None else {}})


def _factors(api, id_token):
    return get_account_info_by_id_token(api, id_token).get("mfaInfo")


def _user_with_factor(api, factors=(TEST_MFA_INFO,)):
    return register_user(api, {"email": "bob@example.com", "password": "notasecret", "mfaInfo": list(factors)})


@it("should allow creating MFA info")
def _(api):
    user = register_user(api, {"email": "bob@example.com", "password": "notasecret"})
    expect_status(200, _set_factors(api, user["localId"], [{**TEST_MFA_INFO, "mfaEnrollmentId": "enrollmentId1"}]))
    factors = _factors(api, user["idToken"]) or []
    expect_equal(len(factors), 1, "number of factors")
    expect_includes(factors[0], {**TEST_MFA_INFO, "mfaEnrollmentId": "enrollmentId1"}, "factor")


@it("should allow adding a second MFA factor")
def _(api):
    user = _user_with_factor(api)
    saved = (_factors(api, user["idToken"]) or [None])[0]
    second = {"displayName": "Second MFA Factor", "phoneInfo": TEST_PHONE_NUMBER_2, "mfaEnrollmentId": "enrollmentId2"}
    expect_status(200, _set_factors(api, user["localId"], [saved, second]))
    factors = _factors(api, user["idToken"]) or []
    expect_equal(len(factors), 2, "number of factors")
    for factor in factors:
        expect_includes(factor, saved if factor.get("mfaEnrollmentId") == saved["mfaEnrollmentId"] else second, "factor")


@it("should allow changing the MFA phone number")
def _(api):
    user = _user_with_factor(api)
    saved = (_factors(api, user["idToken"]) or [None])[0]
    expect_true(isinstance(saved.get("mfaEnrollmentId"), str) and saved["mfaEnrollmentId"], "mfaEnrollmentId")
    changed = {**saved, "displayName": "New Display Name", "phoneInfo": "+15555550101"}
    expect_status(200, _set_factors(api, user["localId"], [changed]))
    factors = _factors(api, user["idToken"]) or []
    expect_equal(len(factors), 1, "number of factors")
    expect_includes(factors[0], {"displayName": "New Display Name", "phoneInfo": "+15555550101",
                                 "mfaEnrollmentId": saved["mfaEnrollmentId"]}, "factor")


@it("should allow changing the MFA enrollment ID")
def _(api):
    user = _user_with_factor(api)
    saved = (_factors(api, user["idToken"]) or [None])[0]
    expect_status(200, _set_factors(api, user["localId"], [{**saved, "mfaEnrollmentId": "newEnrollmentId"}]))
    factors = _factors(api, user["idToken"]) or []
    expect_equal(len(factors), 1, "number of factors")
    expect_includes(factors[0], {"displayName": saved.get("displayName"), "phoneInfo": saved.get("phoneInfo"),
                                 "mfaEnrollmentId": "newEnrollmentId"}, "factor")


@it("should overwrite existing MFA info")
def _(api):
    user = _user_with_factor(api, [TEST_MFA_INFO, {**TEST_MFA_INFO, "phoneInfo": TEST_PHONE_NUMBER_3}])
    old_ids = [factor.get("mfaEnrollmentId") for factor in _factors(api, user["idToken"]) or []]
    expect_equal(len(old_ids), 2, "number of factors")
    new = {"displayName": "New New", "phoneInfo": TEST_PHONE_NUMBER_3, "mfaEnrollmentId": "newEnrollmentId"}
    expect_status(200, _set_factors(api, user["localId"], [new]))
    factors = _factors(api, user["idToken"]) or []
    expect_equal(len(factors), 1, "number of factors")
    expect_includes(factors[0], new, "factor")
    expect_true(factors[0]["mfaEnrollmentId"] not in old_ids, "a new enrollment ID")


@it("should remove MFA info with an empty enrollments array")
def _(api):
    user = _user_with_factor(api)
    expect_equal(len(_factors(api, user["idToken"]) or []), 1, "number of factors")
    expect_status(200, _set_factors(api, user["localId"], []))
    expect_equal(_factors(api, user["idToken"]), None, "mfaInfo")


@it("should remove MFA info with an undefined enrollments array")
def _(api):
    user = _user_with_factor(api)
    expect_equal(len(_factors(api, user["idToken"]) or []), 1, "number of factors")
    expect_status(200, _set_factors(api, user["localId"], None))
    expect_equal(_factors(api, user["idToken"]), None, "mfaInfo")


@it("should error if mfaEnrollmentId is absent")
def _(api):
    user = _user_with_factor(api)
    expect_error(_set_factors(api, user["localId"], [TEST_MFA_INFO]), 400,
                 "INVALID_MFA_ENROLLMENT_ID : mfaEnrollmentId must be defined.")


@it("should de-duplicate MFA factors with the same phone number")
def _(api):
    user = register_user(api, {"email": "bob@example.com", "password": "notasecret"})
    same_id = {**TEST_MFA_INFO, "mfaEnrollmentId": "enrollmentId1"}
    expect_status(200, _set_factors(api, user["localId"], [same_id, same_id]))
    factors = _factors(api, user["idToken"]) or []
    expect_equal(len(factors), 1, "number of factors")
    expect_includes(factors[0], same_id, "factor")
    expect_status(200, _set_factors(api, user["localId"], []))
    expect_equal(_factors(api, user["idToken"]), None, "mfaInfo")
    expect_status(200, _set_factors(api, user["localId"], [{**TEST_MFA_INFO, "mfaEnrollmentId": f"enrollmentId{n}"}
                                                          for n in (2, 3, 4)]))
    factors = _factors(api, user["idToken"]) or []
    expect_equal(len(factors), 1, "number of factors")
    expect_includes(factors[0], TEST_MFA_INFO, "factor")
    expect_true(factors[0].get("mfaEnrollmentId") != "enrollmentId1", "another enrollment ID")
    expect_status(200, _set_factors(api, user["localId"], [
        *({**TEST_MFA_INFO, "mfaEnrollmentId": f"enrollmentId{n}"} for n in (5, 6, 7)),
        {"phoneInfo": TEST_PHONE_NUMBER_2, "mfaEnrollmentId": "enrollmentId8"},
        {"phoneInfo": TEST_PHONE_NUMBER_2, "mfaEnrollmentId": "enrollmentId9"},
    ]))
    factors = _factors(api, user["idToken"]) or []
    expect_equal(len(factors), 2, "number of factors")
    for factor in factors:
        if factor.get("phoneInfo") == TEST_MFA_INFO["phoneInfo"]:
            expect_includes(factor, TEST_MFA_INFO, "factor")
        else:
            expect_equal(factor.get("phoneInfo"), TEST_PHONE_NUMBER_2, "phoneInfo")
        expect_true(isinstance(factor.get("mfaEnrollmentId"), str) and factor["mfaEnrollmentId"] != "enrollmentId1",
                    "mfaEnrollmentId")


@it("should error if MFA Enrollment ID is duplicated for different phone numbers")
def _(api):
    local_id = register_user(api, {"email": "bob@example.com", "password": "notasecret"})["localId"]
    duplicate = "duplicateMfaEnrollmentId "
    res = _set_factors(api, local_id, [{**TEST_MFA_INFO, "mfaEnrollmentId": duplicate},
                                       {"phoneInfo": TEST_PHONE_NUMBER_2, "mfaEnrollmentId": duplicate}])
    expect_error(res, 400, "DUPLICATE_MFA_ENROLLMENT_ID")


@it("does not require MFA Enrollment ID uniqueness across users")
def _(api):
    bob = register_user(api, {"email": "bob@example.com", "password": "notasecret", "mfaInfo": [TEST_MFA_INFO]})
    bob_factors = _factors(api, bob["idToken"]) or []
    expect_equal(len(bob_factors), 1, "number of bob's factors")
    alice = register_user(api, {"email": "alice@example.com", "password": "notasecret", "mfaInfo": [TEST_MFA_INFO]})
    alice_factors = _factors(api, alice["idToken"]) or []
    expect_equal(len(alice_factors), 1, "number of alice's factors")
    alice_id = alice_factors[0]["mfaEnrollmentId"]
    expect_status(200, _set_factors(api, bob["localId"], [{**bob_factors[0], "mfaEnrollmentId": alice_id}]))
    expect_equal((_factors(api, bob["idToken"]) or [{}])[0].get("mfaEnrollmentId"), alice_id, "bob's enrollment ID")


@it("should error if phone number for MFA is invalid")
def _(api):
    user = _user_with_factor(api)
    factors = _factors(api, user["idToken"]) or []
    expect_equal(len(factors), 1, "number of factors")
    without_phone = {k: v for k, v in factors[0].items() if k != "phoneInfo"}
    expect_error(_set_factors(api, user["localId"], [without_phone]), 400, "INVALID_MFA_PHONE_NUMBER : Invalid format.")
    expect_error(_set_factors(api, user["localId"], [{**factors[0], "phoneInfo": TEST_INVALID_PHONE_NUMBER}]), 400,
                 "INVALID_MFA_PHONE_NUMBER : Invalid format.")


@it("should error if user for MFA update is not found")
def _(api):
    enrollment = {**TEST_MFA_INFO, "mfaEnrollmentId": "anything"}
    res = api.post(PATH, {"localId": "anything", "mfa": {"enrollments": [enrollment]}}, key=None, owner=True)
    expect_error(res, 400, "USER_NOT_FOUND")


@it("should error if enrollments is not an array or undefined")
def _(api):
    res = api.post_text(PATH, json.dumps({"localId": "anything", "mfa": {"enrollments": None}}), key=None, owner=True)
    expect_error(res, 400, "Invalid JSON payload received. /mfa/enrollments must be array")


@it("should error if user is disabled when updating by idToken")
def _(api):
    anon = register_anon_user(api)
    update_account_by_local_id(api, anon["localId"], {"disableUser": True})
    expect_error(api.post(PATH, {"idToken": anon["idToken"], "displayName": "Foo"}), 400, "USER_DISABLED")


@it("should still update user despite user is disabled when authenticated")
def _(api):
    local_id = register_anon_user(api)["localId"]
    update_account_by_local_id(api, local_id, {"disableUser": True})
    update_account_by_local_id(api, local_id, {"displayName": "Foo"})
    update_account_by_local_id(api, local_id, {"disableUser": False})


@it("should invalidate old tokens after updating validSince or password")
def _(api):
    id_token = register_user(api, {"email": "alice@example.com", "password": "notasecret"})["idToken"]
    pass_a_second_boundary()  # the spec's tick: the ID token is issued in the past
    res = api.post(PATH, {"idToken": id_token, "password": "notasecreteither"})
    expect_status(200, res)
    id_token2 = res.body.get("idToken")
    expect_id_token_expired(api, id_token)
    get_account_info_by_id_token(api, id_token2)

    pass_a_second_boundary()
    # Any value works: only the presence of the field matters.
    res = api.post(PATH, {"idToken": id_token2, "validSince": "0"})
    expect_status(200, res)
    id_token3 = res.body.get("idToken")
    expect_id_token_expired(api, id_token)
    expect_id_token_expired(api, id_token2)
    get_account_info_by_id_token(api, id_token3)


def _expect_provider_deleted(api, user, provider_id):
    res = api.post(PATH, {"idToken": user["idToken"], "deleteProvider": [provider_id]})
    expect_status(200, res)
    providers = [info.get("providerId") for info in (res.body.get("providerUserInfo") or [])]
    expect_true(provider_id not in providers, f"expected providers {providers!r} not to include {provider_id!r}")
    if user.get("email"):
        _expect_signin_methods_exclude(api, user["email"], provider_id)
        _expect_signin_methods_exclude(api, user["email"], "emailLink")


@it("should delete password provider from user")
def _(api):
    _expect_provider_deleted(api, register_user(api, {"email": "alice@example.com", "password": "notasecret"}),
                             "password")


@it("should delete phone provider from user")
def _(api):
    _expect_provider_deleted(api, sign_in_with_phone_number(api, TEST_PHONE_NUMBER), "phone")


@it("should delete google.com provider from user")
def _(api):
    user = sign_in_with_fake_claims(api, "google.com", {"sub": "12345", "email": "bob@example.com"})
    _expect_provider_deleted(api, user, "google.com")


@it("should update user by localId when authenticated")
def _(api):
    local_id = register_user(api, {"email": "foo@example.com", "password": "barbaz"})["localId"]
    attrs = {"phoneNumber": TEST_PHONE_NUMBER, "displayName": "Alice", "photoUrl": "http://localhost/alice.png"}
    res = api.post(PATH, {"localId": local_id, **attrs, "emailVerified": True}, key=None, owner=True)
    expect_status(200, res)
    expect_equal(res.body.get("displayName"), attrs["displayName"], "displayName")
    expect_equal(res.body.get("photoUrl"), attrs["photoUrl"], "photoUrl")
    expect_equal(res.body.get("emailVerified"), True, "emailVerified")


@it("should error if authenticated request does not specify localId")
def _(api):
    expect_error(api.post(PATH, {"emailVerified": True}, key=None, owner=True), 400, "MISSING_LOCAL_ID")


@it("should update customAttributes and add them to ID Tokens")
def _(api):
    registered = register_user(api, {"email": "foo@example.com", "password": "barbaz"})
    attrs = {"foo": "bar", "baz": {"answer": 42}}
    res = api.post(PATH, {"localId": registered["localId"], "customAttributes": json.dumps(attrs)},
                   key=None, owner=True)
    expect_status(200, res)

    id_token = sign_in_with_email_link(api, registered["email"])["idToken"]
    expect_true(isinstance(id_token, str), f"expected an idToken from signInWithEmailLink, got {id_token!r}")
    claims = decode_jwt_payload(id_token)
    expect_field(claims, "foo", attrs["foo"])
    expect_field(claims, "baz", attrs["baz"])


@it("should error if customAttributes are invalid")
def _(api):
    local_id = register_user(api, {"email": "foo@example.com", "password": "barbaz"})["localId"]

    def update(custom_attributes):
        return api.post(PATH, {"localId": local_id, "customAttributes": custom_attributes}, key=None, owner=True)

    expect_error(update("{definitely[not]json}"), 400, "INVALID_CLAIMS")
    expect_error(update("42"), 400, "INVALID_CLAIMS")
    expect_error(update('["a", "b"]'), 400, "INVALID_CLAIMS")
    expect_error(update('{"sub": "12345"}'), 400, "FORBIDDEN_CLAIM : sub")
    long_string = "x" * 998  # new Array(999).join("x")
    expect_error(update('{"a":"' + long_string + '"}'), 400, "CLAIMS_TOO_LARGE")


@it("should error if auth is disabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": True})
    expect_error(api.post(PATH, {"tenantId": tenant.get("tenantId")}), 400, "PROJECT_DISABLED")


@it("should set tenantId in oobLink")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": False, "mfaConfig": {"state": "ENABLED"},
                                               "allowPasswordSignup": True})
    tenant_id = tenant.get("tenantId")
    old_email, new_email = "alice@example.com", "bob@example.com"
    id_token = register_user(api, {"email": old_email, "password": "notasecret", "tenantId": tenant_id})["idToken"]
    expect_status(200, api.post(PATH, {"idToken": id_token, "email": new_email, "tenantId": tenant_id}))

    oobs = inspect_oobs(api, tenant_id)
    expect_equal(len(oobs), 1, "number of oob codes")
    expect_equal(oobs[0].get("email"), old_email, "oob email")
    expect_equal(oobs[0].get("requestType"), "RECOVER_EMAIL", "oob requestType")
    link = oobs[0].get("oobLink")
    expect_true(isinstance(link, str) and tenant_id in link, f"expected oobLink {link!r} to include {tenant_id!r}")


@it("should link provider account with existing user account")
def _(api):
    id_token = register_user(api, {"email": "test@example.com", "password": "password"})["idToken"]
    provider_id = "google.com"
    provider_user_info = {"providerId": provider_id, "rawId": "google_user_id", "email": "linked@example.com",
                          "displayName": "Linked User", "photoUrl": "https://example.com/photo.jpg"}

    res = api.post(PATH, {"idToken": id_token, "linkProviderUserInfo": provider_user_info})
    expect_status(200, res)
    providers = res.body.get("providerUserInfo") or []
    expect_equal(len(providers), 2, "number of providers")
    linked = next((p for p in providers if p.get("providerId") == provider_id), None)
    expect_equal(linked, provider_user_info, "linked provider")

    info = get_account_info_by_id_token(api, id_token)
    providers = info.get("providerUserInfo") or []
    expect_equal(len(providers), 2, "number of providers in lookup")
    linked = next((p for p in providers if p.get("providerId") == provider_id), None)
    expect_equal(linked, provider_user_info, "linked provider in lookup")


@it("should error if linkProviderUserInfo is missing required fields")
def _(api):
    id_token = register_user(api, {"email": "test@example.com", "password": "password"})["idToken"]
    res = api.post(PATH, {"idToken": id_token,
                          "linkProviderUserInfo": {"providerId": "google.com", "email": "linked@example.com"}})
    expect_error(res, 400, "MISSING_RAW_ID", prefix=True)
    res = api.post(PATH, {"idToken": id_token,
                          "linkProviderUserInfo": {"rawId": "google_user_id", "email": "linked@example.com"}})
    expect_error(res, 400, "MISSING_PROVIDER_ID", prefix=True)


@it("should error if user is disabled when linking a provider")
def _(api):
    registered = register_user(api, {"email": "test@example.com", "password": "password"})
    update_account_by_local_id(api, registered["localId"], {"disableUser": True})
    res = api.post(PATH, {"idToken": registered["idToken"], "linkProviderUserInfo": {
        "providerId": "google.com", "rawId": "google_user_id", "email": "linked@example.com"}})
    expect_error(res, 400, "USER_DISABLED")
