"""firebase-tools src/emulator/auth/password.spec.ts: accounts:signInWithPassword."""


import time

from specs import decode_jwt_header, expect_true, get_account_info_by_local_id, pass_a_second_boundary
from specs import (IDENTITY, PROJECT_ID, TEST_MFA_INFO, decode_jwt_payload, expect_equal, expect_error, expect_field,
                   expect_no_field, expect_status, register_tenant, register_user, spec, update_account_by_local_id,
                   update_config)

it = spec("password.spec.ts")
PATH = IDENTITY + "/accounts:signInWithPassword"

BLOCKING = "blocking functions are not run by this emulator"


def _improved_email_privacy(api):
    update_config(api, PROJECT_ID, {"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}, "emailPrivacyConfig")


@it("should issue tokens when email and password are valid")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret"}
    local_id = register_user(api, user)["localId"]
    res = api.post(PATH, {"email": user["email"], "password": user["password"]})
    expect_status(200, res)
    expect_equal(res.body.get("localId"), local_id, "localId")
    expect_equal(res.body.get("email"), user["email"], "email")
    expect_field(res.body, "registered", True)
    expect_field(res.body, "refreshToken", kind=str)
    token = res.body.get("idToken")
    expect_equal(decode_jwt_header(token).get("alg"), "none", "JWT header alg")
    payload = decode_jwt_payload(token)
    expect_equal(payload.get("user_id"), local_id, "user_id")
    expect_no_field(payload, "provider_id")
    expect_field(payload.get("firebase"), "sign_in_provider", "password")


@it("should update lastLoginAt on successful login")
def _(api):
    # The spec's fake clock makes lastLoginAt equal Date.now(); on the real clock it is the time of the sign-up,
    # then of the sign-in, 4 s (the spec's tick) later.
    user = {"email": "alice@example.com", "password": "notasecret"}
    local_id = register_user(api, user)["localId"]
    before_login = int(get_account_info_by_local_id(api, local_id).get("lastLoginAt") or 0)
    pass_a_second_boundary(4)
    started = int(time.time() * 1000)
    expect_status(200, api.post(PATH, {"email": user["email"], "password": user["password"]}))
    after_login = int(get_account_info_by_local_id(api, local_id).get("lastLoginAt") or 0)
    expect_true(before_login > 0 and started <= after_login <= int(time.time() * 1000) and after_login >= before_login + 4000,
                f"expected lastLoginAt to move from {before_login} to the sign-in's time, got {after_login}")


@it("should validate email address ignoring case")
def _(api):
    local_id = register_user(api, {"email": "alice@example.com", "password": "notasecret"})["localId"]
    res = api.post(PATH, {"email": "AlIcE@exAMPle.COM", "password": "notasecret"})
    expect_status(200, res)
    expect_equal(res.body.get("localId"), local_id, "localId")


@it("should error if email or password is missing")
def _(api):
    expect_error(api.post(PATH, {"password": "notasecret"}), 400, "MISSING_EMAIL")
    expect_error(api.post(PATH, {"email": "nosuchuser@example.com"}), 400, "MISSING_PASSWORD")


@it("should error if email is invalid")
def _(api):
    expect_error(api.post(PATH, {"email": "ill-formatted-email", "password": "notasecret"}), 400, "INVALID_EMAIL")
    expect_error(api.post(PATH, {"email": "", "password": "notasecret"}), 400, "INVALID_EMAIL")


@it("should error if email is not found")
def _(api):
    res = api.post(PATH, {"email": "nosuchuser@example.com", "password": "notasecret"})
    expect_error(res, 400, "EMAIL_NOT_FOUND")


@it("should error if email is not found with improved email privacy enabled")
def _(api):
    _improved_email_privacy(api)
    res = api.post(PATH, {"email": "nosuchuser@example.com", "password": "notasecret"})
    expect_error(res, 400, "INVALID_LOGIN_CREDENTIALS")


@it("should error if password is wrong")
def _(api):
    register_user(api, {"email": "alice@example.com", "password": "notasecret"})
    # Passwords are case-sensitive.
    expect_error(api.post(PATH, {"email": "alice@example.com", "password": "NOTASECRET"}), 400, "INVALID_PASSWORD")


@it("should error if password is wrong with improved email privacy enabled")
def _(api):
    _improved_email_privacy(api)
    register_user(api, {"email": "alice@example.com", "password": "notasecret"})
    res = api.post(PATH, {"email": "alice@example.com", "password": "NOTASECRET"})
    expect_error(res, 400, "INVALID_LOGIN_CREDENTIALS")


@it("should error if user is disabled")
def _(api):
    local_id = register_user(api, {"email": "alice@example.com", "password": "notasecret"})["localId"]
    update_account_by_local_id(api, local_id, {"disableUser": True})
    expect_error(api.post(PATH, {"email": "alice@example.com", "password": "notasecret"}), 400, "USER_DISABLED")


def _expect_pending_credential(res):
    expect_status(200, res)
    expect_no_field(res.body, "idToken")
    expect_no_field(res.body, "refreshToken")
    expect_field(res.body, "mfaPendingCredential", kind=str)
    expect_equal(len(res.body.get("mfaInfo") or []), 1, "number of mfaInfo entries")


@it("should return pending credential if user has MFA")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret", "mfaInfo": [TEST_MFA_INFO]}
    register_user(api, user)
    _expect_pending_credential(api.post(PATH, {"email": user["email"], "password": user["password"]}))


@it("should error if auth is disabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": True})
    expect_error(api.post(PATH, {"tenantId": tenant.get("tenantId")}), 400, "PROJECT_DISABLED", prefix=True)


@it("should error if password sign up is disabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": False, "allowPasswordSignup": False})
    expect_error(api.post(PATH, {"tenantId": tenant.get("tenantId")}), 400, "PASSWORD_LOGIN_DISABLED", prefix=True)


@it("should return pending credential if user has MFA and enabled on tenant projects")
def _(api):
    tenant_id = register_tenant(api, PROJECT_ID, {"disableAuth": False, "allowPasswordSignup": True,
                                                  "mfaConfig": {"state": "ENABLED"}}).get("tenantId")
    user = {"email": "alice@example.com", "password": "notasecret", "mfaInfo": [TEST_MFA_INFO], "tenantId": tenant_id}
    register_user(api, user)
    _expect_pending_credential(api.post(PATH, {"tenantId": tenant_id, "email": user["email"], "password": user["password"]}))
it.skip("should update modifiable fields before sign in", BLOCKING)
it.skip("should disable user if set", BLOCKING)
it.skip("should not trigger blocking function if user has MFA", BLOCKING)
