"""firebase-tools src/emulator/auth/customToken.spec.ts: accounts:signInWithCustomToken."""

import json
import time

from specs import decode_jwt_header, unsigned_jwt
from specs import (IDENTITY, PROJECT_ID, SpecFailure, decode_jwt_payload, expect_equal,
                   expect_error, expect_field, expect_no_field, expect_status, get_account_info_by_id_token,
                   register_tenant, sign_in_with_email_link, spec, update_account_by_local_id)

it = spec("customToken.spec.ts")
PATH = IDENTITY + "/accounts:signInWithCustomToken"
CUSTOM_TOKEN_AUDIENCE = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
SERVICE_ACCOUNT = "fake-service-account@example.com"
CLAIMS = {"abc": "def", "ultimate": {"answer": 42}}


def _unsigned_custom_token(payload, audience=CUSTOM_TOKEN_AUDIENCE):
    """jsonwebtoken's `sign(payload, secret, {algorithm: "none", expiresIn: 3600, subject, issuer, audience})`:
    an unsigned JWT (empty signature). The spec runs on a fake clock; `iat`/`exp` here are taken from the real one,
    as the emulator under test runs on it."""
    now = int(time.time())
    claims = {**payload, "iat": now, "exp": now + 3600, "aud": audience, "iss": SERVICE_ACCOUNT,
              "sub": SERVICE_ACCOUNT}
    return unsigned_jwt(claims)


def _expect_deep_include(payload, expected, what="ID token claims"):
    """chai's `deep.include(object)`: every key of `expected` is in `payload` with a deeply equal value."""
    for key, value in expected.items():
        if key not in payload or payload[key] != value:
            raise SpecFailure(f"expected {what} to include {key}={value!r}, got {payload.get(key, '(absent)')!r}")


def _expect_custom_sign_in(token):
    """The checks every successful custom-token sign-in of the spec makes of its ID token."""
    expect_equal(decode_jwt_header(token).get("alg"), "none", "JWT header alg")
    payload = decode_jwt_payload(token)
    expect_no_field(payload, "provider_id")
    expect_field(payload.get("firebase"), "sign_in_provider", "custom")
    return payload


@it("should create new account from custom token (unsigned)")
def _(api):
    token = _unsigned_custom_token({"uid": "someuid", "claims": CLAIMS})
    res = api.post(PATH, {"token": token})
    expect_status(200, res)
    expect_equal(res.body.get("isNewUser"), True, "isNewUser")
    expect_field(res.body, "refreshToken", kind=str)
    id_token = res.body.get("idToken")
    _expect_deep_include(_expect_custom_sign_in(id_token), CLAIMS)
    expect_equal(get_account_info_by_id_token(api, id_token).get("localId"), "someuid", "localId")


@it("should sign into existing account and merge claims")
def _(api):
    email = "alice@example.com"
    local_id = sign_in_with_email_link(api, email)["localId"]
    custom_claims = {"abc": "abc", "foo": "bar"}
    update_account_by_local_id(api, local_id, {"customAttributes": json.dumps(custom_claims)})
    res = api.post(PATH, {"token": json.dumps({"uid": local_id, "claims": CLAIMS})})
    expect_status(200, res)
    expect_equal(res.body.get("isNewUser"), False, "isNewUser")
    refresh_token = expect_field(res.body, "refreshToken", kind=str)
    payload = _expect_custom_sign_in(res.body.get("idToken"))
    expect_equal(payload["firebase"].get("identities"), {"email": [email]}, "firebase.identities")
    merged = {**custom_claims, **CLAIMS}  # the custom token's claims win over the account's
    _expect_deep_include(payload, merged)

    refreshed = api.post_form("/securetoken.googleapis.com/v1/token",
                           {"refreshToken": refresh_token, "grantType": "refresh_token"})
    expect_status(200, refreshed)
    id_token = expect_field(refreshed.body, "id_token", kind=str)
    _expect_deep_include(decode_jwt_payload(id_token), merged, "refreshed ID token claims")


@it("should error if custom token is missing")
def _(api):
    expect_error(api.post(PATH, {}), 400, "MISSING_CUSTOM_TOKEN")


@it("should error if custom token is invalid")
def _(api):
    expect_error(api.post(PATH, {"token": "{not+Json,That's=>For@Sure}"}), 400, "INVALID_CUSTOM_TOKEN", prefix=True)
    res = api.post(PATH, {"token": "ThisMayLookLikeAJWT.ButItWontDecode.ToJsonObjects"})
    expect_error(res, 400, "INVALID_CUSTOM_TOKEN", prefix=True)


@it("should error if custom token addresses the wrong audience")
def _(api):
    token = _unsigned_custom_token({"uid": "foo"}, audience="http://localhost/not-the-firebase-auth-audience")
    expect_error(api.post(PATH, {"token": token}), 400, "INVALID_CUSTOM_TOKEN", prefix=True)


@it("should error if custom token contains no uid")
def _(api):
    expect_error(api.post(PATH, {"token": _unsigned_custom_token({})}), 400, "MISSING_IDENTIFIER", prefix=True)
    expect_error(api.post(PATH, {"token": '{"look": "I do not have uid"}'}), 400, "MISSING_IDENTIFIER", prefix=True)


@it("should error if custom token contains forbidden claims")
def _(api):
    res = api.post(PATH, {"token": '{"uid": "wow", "claims": {"firebase": "awesome"}}'})
    expect_error(res, 400, "FORBIDDEN_CLAIM : firebase", prefix=True)


@it("should error if user is disabled")
def _(api):
    local_id = sign_in_with_email_link(api, "alice@example.com")["localId"]
    update_account_by_local_id(api, local_id, {"disableUser": True})
    res = api.post(PATH, {"token": json.dumps({"uid": local_id, "claims": CLAIMS})})
    expect_error(res, 400, "USER_DISABLED")


@it("should error if auth is disabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": True})
    expect_error(api.post(PATH, {"tenantId": tenant.get("tenantId")}), 400, "PROJECT_DISABLED")


@it("should error if custom token tenantId does not match")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": False})
    token = _unsigned_custom_token({"uid": "someuid", "claims": CLAIMS, "tenant_id": "not-matching-tenant-id"})
    res = api.post(PATH, {"token": token, "tenantId": tenant.get("tenantId")})
    expect_error(res, 400, "TENANT_ID_MISMATCH", prefix=True)


@it("should create a new account from custom token with tenantId")
def _(api):
    tenant_id = register_tenant(api, PROJECT_ID, {"disableAuth": False}).get("tenantId")
    token = _unsigned_custom_token({"uid": "someuid", "claims": CLAIMS, "tenant_id": tenant_id})
    res = api.post(PATH, {"token": token, "tenantId": tenant_id})
    expect_status(200, res)
    expect_equal(res.body.get("isNewUser"), True, "isNewUser")
    expect_field(res.body, "refreshToken", kind=str)
    info = get_account_info_by_id_token(api, res.body.get("idToken"), tenant_id)
    expect_equal(info.get("tenantId"), tenant_id, "tenantId")
