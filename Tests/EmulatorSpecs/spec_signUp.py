"""firebase-tools src/emulator/auth/signUp.spec.ts: accounts:signUp."""


from specs import decode_jwt_header
from specs import (IDENTITY, PROJECT_ID, SpecFailure, decode_jwt_payload, expect_equal, expect_error, expect_field,
                   expect_no_field, expect_status, get_account_info_by_id_token, get_account_info_by_local_id,
                   get_signin_methods, register_anon_user, register_tenant, register_user, sign_in_with_fake_claims,
                   spec, update_account_by_local_id)

it = spec("signUp.spec.ts")
PATH = IDENTITY + "/accounts:signUp"

PHONE_SIGN_IN = "phone sign-in is not offered by this emulator"
PHONE_FACTORS = "phone second factors are not offered by this emulator (the spec's mfaInfo is a phone factor)"
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


it.skip("should link email and password to phone sign-in user", PHONE_SIGN_IN)


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


it.skip("should create new account with phone number when authenticated", PHONE_SIGN_IN)


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


it.skip("should create new account with multi factor info", PHONE_FACTORS)
it.skip("should create new account with two MFA factors", PHONE_FACTORS)
it.skip("should de-duplicate factors with the same info on create", PHONE_FACTORS)
it.skip("does not require a display name for multi factor info", PHONE_FACTORS)
it.skip("should error if multi factor phone number is invalid", PHONE_FACTORS)
it.skip("should ignore if multi factor enrollment ID is specified on create", PHONE_FACTORS)


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
