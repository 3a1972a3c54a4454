"""firebase-tools src/emulator/auth/signUp.spec.ts: accounts:signUp."""


from specs import decode_jwt_header
from specs import (IDENTITY, PROJECT_ID, TEST_INVALID_PHONE_NUMBER, TEST_MFA_INFO, TEST_PHONE_NUMBER, TEST_PHONE_NUMBER_2,
                   SpecFailure, decode_jwt_payload, expect_equal, expect_error, expect_field, expect_includes,
                   expect_no_field, expect_status, expect_true, get_account_info_by_id_token,
                   get_account_info_by_local_id, get_signin_methods, register_anon_user, register_tenant, register_user,
                   sign_in_with_fake_claims, sign_in_with_phone_number, spec, update_account_by_local_id)

it = spec("signUp.spec.ts")
PATH = IDENTITY + "/accounts:signUp"

BLOCKING = "blocking functions are not run by this emulator"


def _expect_unsigned(token):
    """`decode(idToken, {complete: true})` is not null and its header's alg is "none"."""
    expect_equal(decode_jwt_header(token).get("alg"), "none", "JWT header alg")


def _expect_empty(value, what):
    """chai's `to.be.empty`: an empty array, string or object (undefined is an error)."""
    if not isinstance(value, (list, str, dict)) or value:
        raise SpecFailure(f"expected {what} to be empty, got {value!r}")


@it("should throw error if no email provided")
def _(api):
    expect_error(api.post(PATH, {"password": "notasecret"}), 400, "MISSING_EMAIL")


@it("should throw error if empty email and password is provided")
def _(api):
    expect_error(api.post(PATH, {"email": "", "password": ""}), 400, "INVALID_EMAIL")


@it("should issue idToken and refreshToken on anon signUp")
def _(api):
    res = api.post(PATH, {"returnSecureToken": True})
    expect_status(200, res)
    expect_field(res.body, "refreshToken", kind=str)
    token = res.body.get("idToken")
    _expect_unsigned(token)
    payload = decode_jwt_payload(token)
    expect_field(payload, "user_id", kind=str)
    expect_equal(payload.get("provider_id"), "anonymous", "provider_id")
    expect_field(payload.get("firebase"), "sign_in_provider", "anonymous")


@it("should issue refreshToken on email+password signUp")
def _(api):
    email = "me@example.com"
    res = api.post(PATH, {"email": email, "password": "notasecret"})
    expect_status(200, res)
    expect_field(res.body, "refreshToken", kind=str)
    token = res.body.get("idToken")
    _expect_unsigned(token)
    payload = decode_jwt_payload(token)
    expect_field(payload, "user_id", kind=str)
    expect_no_field(payload, "provider_id")
    expect_field(payload.get("firebase"), "sign_in_provider", "password")
    expect_equal(payload["firebase"].get("identities"), {"email": [email]}, "firebase.identities")


@it("should ignore displayName and photoUrl for new anon account")
def _(api):
    res = api.post(PATH, {"displayName": "Me", "photoUrl": "http://localhost/my-profile.png"})
    expect_status(200, res)
    expect_no_field(res.body, "displayName")
    expect_no_field(res.body, "photoUrl")
    info = get_account_info_by_id_token(api, res.body.get("idToken"))
    expect_no_field(info, "displayName")
    expect_no_field(info, "photoUrl")


@it("should set displayName but ignore photoUrl for new password account")
def _(api):
    user = {"email": "me@example.com", "password": "notasecret", "displayName": "Me",
            "photoUrl": "http://localhost/my-profile.png"}
    res = api.post(PATH, user)
    expect_status(200, res)
    expect_equal(res.body.get("displayName"), "Me", "displayName")
    expect_no_field(res.body, "photoUrl")
    info = get_account_info_by_id_token(api, res.body.get("idToken"))
    expect_equal(info.get("displayName"), "Me", "displayName")
    expect_no_field(info, "photoUrl")


@it("should disallow duplicate email signUp")
def _(api):
    register_user(api, {"email": "bob@example.com", "password": "notasecret"})
    expect_error(api.post(PATH, {"email": "bob@example.com", "password": "notasecret"}), 400, "EMAIL_EXISTS")
    # Case variants of one address are duplicates too.
    expect_error(api.post(PATH, {"email": "BOB@example.com", "password": "notasecret"}), 400, "EMAIL_EXISTS")


@it("should error if another account exists with same email from IDP")
def _(api):
    email = "alice@example.com"
    sign_in_with_fake_claims(api, "google.com", {"sub": "123", "email": email})
    expect_error(api.post(PATH, {"email": email, "password": "notasecret"}), 400, "EMAIL_EXISTS")


@it("should error when email format is invalid")
def _(api):
    res = api.post(PATH, {"email": "not.an.email.address.at.all", "password": "notasecret"})
    expect_error(res, 400, "INVALID_EMAIL")


@it("should normalize email address to all lowercase")
def _(api):
    res = api.post(PATH, {"email": "AlIcE@exAMPle.COM", "password": "notasecret"})
    expect_status(200, res)
    expect_equal(res.body.get("email"), "alice@example.com", "email")


@it("should error when password is too short")
def _(api):
    res = api.post(PATH, {"email": "me@example.com", "password": "short"})
    expect_error(res, 400, "WEAK_PASSWORD", prefix=True)


@it("should error when idToken is provided but email / password is not")
def _(api):
    token = register_anon_user(api)["idToken"]
    expect_error(api.post(PATH, {"idToken": token}), 400, "MISSING_EMAIL")
    expect_error(api.post(PATH, {"idToken": token, "email": "alice@example.com"}), 400, "MISSING_PASSWORD")


@it("should link email and password to anon user if idToken is provided")
def _(api):
    anon = register_anon_user(api)
    res = api.post(PATH, {"idToken": anon["idToken"], "email": "alice@example.com", "password": "notasecret"})
    expect_status(200, res)
    expect_equal(res.body.get("localId"), anon["localId"], "localId")
    payload = decode_jwt_payload(res.body.get("idToken"))
    expect_field(payload.get("firebase"), "sign_in_provider", "password")


@it("should link email and password to phone sign-in user")
def _(api):
    email = "alice@example.com"
    user = sign_in_with_phone_number(api, TEST_PHONE_NUMBER)
    res = api.post(PATH, {"idToken": user["idToken"], "email": email, "password": "notasecret"})
    expect_status(200, res)
    expect_equal(res.body.get("localId"), user["localId"], "localId")
    _expect_unsigned(res.body.get("idToken"))
    firebase = decode_jwt_payload(res.body["idToken"]).get("firebase") or {}
    expect_field(firebase, "sign_in_provider", "password")
    # The account has both the phone and the email.
    expect_equal(firebase.get("identities"), {"phone": [TEST_PHONE_NUMBER], "email": [email]}, "firebase.identities")


@it("should error if account to be linked is disabled")
def _(api):
    anon = register_anon_user(api)
    update_account_by_local_id(api, anon["localId"], {"disableUser": True})
    res = api.post(PATH, {"idToken": anon["idToken"], "email": "alice@example.com", "password": "notasecret"})
    expect_error(res, 400, "USER_DISABLED")


@it("should replace existing email / password in linked account")
def _(api):
    old_email, new_email = "alice@example.com", "bob@example.com"
    user = register_user(api, {"email": old_email, "password": "notasecret"})
    res = api.post(PATH, {"idToken": user["idToken"], "email": new_email, "password": "notasecret2"})
    expect_status(200, res)
    expect_equal(res.body.get("localId"), user["localId"], "localId")
    expect_equal(res.body.get("email"), new_email, "email")
    payload = decode_jwt_payload(res.body.get("idToken"))
    expect_equal(payload.get("email"), new_email, "token email")
    expect_equal((payload.get("firebase") or {}).get("identities"), {"email": [new_email]}, "firebase.identities")
    _expect_empty(get_signin_methods(api, old_email), f"sign-in methods of {old_email}")


@it("should create new account with phone number when authenticated")
def _(api):
    res = api.post(PATH, {"phoneNumber": TEST_PHONE_NUMBER, "displayName": "Alice"}, key=None, owner=True)
    expect_status(200, res)
    # No tokens for an administrator's sign-up.
    expect_no_field(res.body, "idToken")
    expect_no_field(res.body, "refreshToken")
    expect_equal(res.body.get("displayName"), "Alice", "displayName")
    local_id = res.body.get("localId")
    expect_true(isinstance(local_id, str) and local_id, "localId")
    # The number signs in to the same user, whose name is already set.
    signed_in = sign_in_with_phone_number(api, TEST_PHONE_NUMBER)
    expect_equal(signed_in.get("localId"), local_id, "localId signed in")
    expect_equal(get_account_info_by_id_token(api, signed_in["idToken"]).get("displayName"), "Alice", "displayName")


@it("should error when extra localId parameter is provided")
def _(api):
    expect_error(api.post(PATH, {"localId": "anything"}), 400, "UNEXPECTED_PARAMETER : User ID")
    anon = register_anon_user(api)
    res = api.post(PATH, {"idToken": anon["idToken"], "localId": anon["localId"]}, key=None, owner=True)
    expect_error(res, 400, "UNEXPECTED_PARAMETER : User ID")


@it("should create new account with specified localId when authenticated")
def _(api):
    res = api.post(PATH, {"localId": "haha"}, key=None, owner=True)
    expect_status(200, res)
    expect_no_field(res.body, "idToken")
    expect_no_field(res.body, "refreshToken")
    expect_equal(res.body.get("localId"), "haha", "localId")


@it("should error when creating new user with duplicate localId")
def _(api):
    local_id = register_anon_user(api)["localId"]
    expect_error(api.post(PATH, {"localId": local_id}, key=None, owner=True), 400, "DUPLICATE_LOCAL_ID")


@it("should error if phone number is invalid")
def _(api):
    res = api.post(PATH, {"phoneNumber": "5555550100"}, key=None, owner=True)
    expect_error(res, 400, "INVALID_PHONE_NUMBER : Invalid format.")


def _factors_of_new_user(api, mfa_info, email="alice@example.com"):
    local_id = register_user(api, {"email": email, "password": "notasecret", "mfaInfo": mfa_info})["localId"]
    return get_account_info_by_local_id(api, local_id).get("mfaInfo") or []


def _expect_enrollment_id(factor):
    expect_true(isinstance(factor.get("mfaEnrollmentId"), str) and factor["mfaEnrollmentId"],
                f"expected a non-empty mfaEnrollmentId in {factor!r}")


def _expect_two_factors(factors):
    """TEST_MFA_INFO and one with TEST_PHONE_NUMBER_2, in any order."""
    expect_equal(len(factors), 2, "number of factors")
    for factor in factors:
        if factor.get("phoneInfo") != TEST_MFA_INFO["phoneInfo"]:
            expect_equal(factor.get("phoneInfo"), TEST_PHONE_NUMBER_2, "phoneInfo")
        else:
            expect_includes(factor, TEST_MFA_INFO, "factor")
        _expect_enrollment_id(factor)


@it("should create new account with multi factor info")
def _(api):
    factors = _factors_of_new_user(api, [TEST_MFA_INFO])
    expect_equal(len(factors), 1, "number of factors")
    expect_includes(factors[0], TEST_MFA_INFO, "factor")
    _expect_enrollment_id(factors[0])


@it("should create new account with two MFA factors")
def _(api):
    _expect_two_factors(_factors_of_new_user(api, [TEST_MFA_INFO, {**TEST_MFA_INFO, "phoneInfo": TEST_PHONE_NUMBER_2}]))


@it("should de-duplicate factors with the same info on create")
def _(api):
    alice = _factors_of_new_user(api, [TEST_MFA_INFO, TEST_MFA_INFO, TEST_MFA_INFO])
    expect_equal(len(alice), 1, "number of alice's factors")
    expect_includes(alice[0], TEST_MFA_INFO, "factor")
    _expect_enrollment_id(alice[0])
    bob = _factors_of_new_user(api, [TEST_MFA_INFO, TEST_MFA_INFO, TEST_MFA_INFO,
                                     {**TEST_MFA_INFO, "phoneInfo": TEST_PHONE_NUMBER_2}], "bob@example.com")
    _expect_two_factors(bob)


@it("does not require a display name for multi factor info")
def _(api):
    factors = _factors_of_new_user(api, [{"phoneInfo": TEST_PHONE_NUMBER}])
    expect_equal(len(factors), 1, "number of factors")
    expect_includes(factors[0], {"phoneInfo": TEST_PHONE_NUMBER}, "factor")
    _expect_enrollment_id(factors[0])
    expect_no_field(factors[0], "displayName")


@it("should error if multi factor phone number is invalid")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret", "mfaInfo": [{"phoneInfo": TEST_INVALID_PHONE_NUMBER}]}
    expect_error(api.post(PATH, user, key=None, owner=True), 400, "INVALID_MFA_PHONE_NUMBER : Invalid format.")


@it("should ignore if multi factor enrollment ID is specified on create")
def _(api):
    given = ["thisShouldBeIgnored1", "thisShouldBeIgnored2"]
    factors = _factors_of_new_user(api, [{**TEST_MFA_INFO, "mfaEnrollmentId": id} for id in given])
    expect_equal(len(factors), 1, "number of factors")
    expect_includes(factors[0], TEST_MFA_INFO, "factor")
    _expect_enrollment_id(factors[0])
    expect_true(factors[0]["mfaEnrollmentId"] not in given, "an enrollment ID of the emulator's")


@it("should error if auth is disabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": True})
    expect_error(api.post(PATH, {"tenantId": tenant.get("tenantId")}), 400, "PROJECT_DISABLED", prefix=True)


@it("should error if password sign up is not allowed")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"allowPasswordSignup": False})
    res = api.post(PATH, {"tenantId": tenant.get("tenantId"), "email": "me@example.com", "password": "notasecret"})
    expect_error(res, 400, "OPERATION_NOT_ALLOWED", prefix=True)


@it("should error if anonymous user is disabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"enableAnonymousUser": False})
    res = api.post(PATH, {"tenantId": tenant.get("tenantId"), "returnSecureToken": True})
    expect_error(res, 400, "ADMIN_ONLY_OPERATION", prefix=True)


@it("should create new account with tenant info")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"allowPasswordSignup": True})
    tenant_id = tenant.get("tenantId")
    res = api.post(PATH, {"tenantId": tenant_id, "email": "alice@example.com", "password": "notasecret"})
    expect_status(200, res)
    info = get_account_info_by_local_id(api, res.body.get("localId"), tenant_id)
    expect_equal(info.get("tenantId"), tenant_id, "tenantId")


it.skip("should update modifiable fields with beforeCreate response for a new email/password user", BLOCKING)
it.skip("should update modifiable fields with beforeSignIn response for a new email/password user", BLOCKING)
it.skip("beforeSignIn fields should overwrite beforeCreate fields", BLOCKING)
it.skip("should disable new user if set", BLOCKING)
it.skip("should not trigger blocking functions for privileged requests", BLOCKING)
