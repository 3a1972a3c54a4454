"""firebase-tools src/emulator/auth/misc.spec.ts: token refresh (securetoken), createSessionCookie, the Admin API's
accounts:lookup and accounts:query, and the emulator's own /emulator/v1 utility endpoints."""

import base64
import json
import time

from specs import TEST_PHONE_NUMBER, decode_jwt_header, pass_a_second_boundary, sign_in_with_phone_number
from specs import (IDENTITY, PROJECT_ID, decode_jwt_payload, delete_account, expect_equal,
                   expect_error, expect_field, expect_no_field, expect_status, expect_true,
                   expect_user_not_exists_for_id_token, get_account_info_by_id_token, register_anon_user,
                   register_tenant, register_user, spec, update_account_by_local_id)

it = spec("misc.spec.ts")
TOKEN = "/securetoken.googleapis.com/v1/token"
SESSION_COOKIE = f"{IDENTITY}/projects/{PROJECT_ID}:createSessionCookie"
LOOKUP = f"{IDENTITY}/projects/{PROJECT_ID}/accounts:lookup"
QUERY = f"{IDENTITY}/projects/{PROJECT_ID}/accounts:query"
CONFIG = f"/emulator/v1/projects/{PROJECT_ID}/config"
SESSION_COOKIE_MAX_VALID_DURATION = 14 * 24 * 60 * 60
ONE_PROJECT = "one project per emulator process"


def _refresh(api, refresh_token, **extra):
    return api.post_form(TOKEN, {"refresh_token": refresh_token, **extra})


def _encode_refresh_token(record):
    """state.ts `encodeRefreshToken`: base64 of the record's JSON."""
    return base64.b64encode(json.dumps(record, separators=(",", ":")).encode()).decode()


def _decode_refresh_token(token):
    record = json.loads(base64.b64decode(token + "=" * (-len(token) % 4)).decode())
    expect_true(isinstance(record, dict) and record.get("_AuthEmulatorRefreshToken"),
                f"not an Auth Emulator refresh token record: {record!r}")
    return record


def _expect_message_contains(res, status, text):
    """`expect(res.body.error.message).to.contain(text)` / `.includes(text)`."""
    expect_status(status, res)
    expect_true(text in (res.error_message or ""), f"expected an error message containing {text!r}, "
                f"got {res.error_message!r}")


def _expect_refreshed(res, local_id):
    expect_status(200, res)
    id_token = expect_field(res.body, "id_token", kind=str)
    expect_field(res.body, "access_token", id_token)
    expect_field(res.body, "refresh_token", kind=str)
    expires_in = expect_field(res.body, "expires_in", kind=str)
    expect_true(any(c.isdigit() for c in expires_in), f"expected expires_in to match /[0-9]+/, got {expires_in!r}")
    expect_field(res.body, "project_id", "12345")
    expect_field(res.body, "token_type", "Bearer")
    expect_field(res.body, "user_id", local_id)


def _users(res, count):
    users = res.body.get("users") if isinstance(res.body, dict) else None
    expect_true(isinstance(users, list) and len(users) == count, f"expected {count} users, got {res.text[:400]}")
    return users


def _password_tenant(api):
    return register_tenant(api, PROJECT_ID, {"disableAuth": False, "allowPasswordSignup": True})


# MARK: token refresh


@it("should exchange refresh token for new tokens")
def _(api):
    user = register_anon_user(api)
    _expect_refreshed(_refresh(api, user["refreshToken"], grantType="refresh_token"), user["localId"])


@it("should exchange refresh tokens for new tokens in a tenant project")
def _(api):
    tenant = _password_tenant(api)
    user = register_user(api, {"email": "alice@example.com", "password": "notasecret",
                               "tenantId": tenant.get("tenantId")})
    res = _refresh(api, user["refreshToken"], grantType="refresh_token")
    _expect_refreshed(res, user["localId"])
    record = _decode_refresh_token(res.body["refresh_token"])
    expect_equal(record.get("tenantId"), tenant.get("tenantId"), "the refresh token's tenantId")


@it("should populate auth_time to match lastLoginAt (in seconds since epoch)")
def _(api):
    # The spec ticks its fake clock 2s between sign-up and refresh; here the real clock does.
    user = register_user(api, {"email": "alice@example.com", "password": "notasecret"})
    pass_a_second_boundary()
    res = _refresh(api, user["refreshToken"], grantType="refresh_token")
    id_token = res.body.get("id_token") if isinstance(res.body, dict) else None
    expect_true(isinstance(id_token, str), f"expected an id_token, got {res.text[:400]}")
    info = get_account_info_by_id_token(api, id_token)
    expect_true(info.get("lastLoginAt") is not None, "expected lastLoginAt")
    last_login_seconds = int(info["lastLoginAt"]) // 1000
    expect_equal(decode_jwt_header(id_token).get("alg"), "none", "JWT alg")
    expect_equal(decode_jwt_payload(id_token).get("auth_time"), last_login_seconds, "auth_time")


@it("should error if grant type is missing")
def _(api):
    user = register_anon_user(api)
    _expect_message_contains(_refresh(api, user["refreshToken"]), 400, "MISSING_GRANT_TYPE")


@it("should error if grant type is not refresh_token")
def _(api):
    user = register_anon_user(api)
    _expect_message_contains(_refresh(api, user["refreshToken"], grantType="other_grant_type"), 400,
                             "INVALID_GRANT_TYPE")


@it("should error if refresh token is missing")
def _(api):
    _expect_message_contains(api.post_form(TOKEN, {"grantType": "refresh_token"}), 400, "MISSING_REFRESH_TOKEN")


@it("should error on malformed refresh tokens")
def _(api):
    _expect_message_contains(_refresh(api, "malformedToken", grantType="refresh_token"), 400, "INVALID_REFRESH_TOKEN")


@it("should error if user is disabled")
def _(api):
    user = register_anon_user(api)
    update_account_by_local_id(api, user["localId"], {"disableUser": True})
    res = api.post_form(TOKEN, {"refreshToken": user["refreshToken"], "grantType": "refresh_token"})
    expect_error(res, 400, "USER_DISABLED")


@it("should error when refresh tokens are from a different project")
def _(api):
    token = _encode_refresh_token({"_AuthEmulatorRefreshToken": "DO NOT MODIFY", "localId": "localId",
                                   "provider": "provider", "extraClaims": {}, "projectId": "notMatchingProjectId"})
    expect_error(_refresh(api, token, grantType="refresh_token"), 400, "INVALID_REFRESH_TOKEN")


@it("should error on refresh tokens without required fields")
def _(api):
    token = _encode_refresh_token({"localId": "localId", "provider": "provider", "extraClaims": {},
                                   "projectId": "notMatchingProjectId"})
    expect_error(_refresh(api, token, grantType="refresh_token"), 400, "INVALID_REFRESH_TOKEN")


@it("should error if the refresh token is for a user that does not exist",
    differs="a deleted user's refresh answers USER_NOT_FOUND, as Firebase's service does (firebase-tools: "
            "INVALID_REFRESH_TOKEN): apps sign the user out with Firebase's userNotFound")
def _(api):
    user = register_anon_user(api)
    delete_account(api, {"idToken": user["idToken"]})
    _expect_message_contains(_refresh(api, user["refreshToken"], grantType="refresh_token"), 400, "USER_NOT_FOUND")


# MARK: createSessionCookie


def _session_cookie(api, body):
    """POSTs createSessionCookie; answers the response and the Unix seconds just before and after it (the spec's
    fake clock stands still at `new Date()`; a real clock moves during the request)."""
    before = int(time.time())
    res = api.post(SESSION_COOKIE, body, key=None, owner=True)
    return res, before, int(time.time())


def _expect_cookie(res):
    expect_status(200, res)
    cookie = expect_field(res.body, "sessionCookie", kind=str)
    expect_equal(decode_jwt_header(cookie).get("alg"), "none", "session cookie alg")
    return decode_jwt_payload(cookie)


@it("should return a valid sessionCookie")
def _(api):
    id_token = register_anon_user(api)["idToken"]
    valid_duration = 7777
    res, before, after = _session_cookie(api, {"idToken": id_token, "validDuration": str(valid_duration)})
    payload = _expect_cookie(res)
    iat, exp = payload.get("iat"), payload.get("exp")
    expect_true(isinstance(iat, int) and before <= iat <= after, f"expected iat = now ({before}..{after}), got {iat!r}")
    expect_true(isinstance(exp, int) and before + valid_duration <= exp <= after + valid_duration,
                f"expected exp = now + {valid_duration} ({before + valid_duration}..{after + valid_duration}), "
                f"got {exp!r}")
    expect_equal(payload.get("iss"), f"https://session.firebase.google.com/{PROJECT_ID}", "iss")
    id_token_props = {k: v for k, v in decode_jwt_payload(id_token).items() if k not in ("iss", "iat", "exp")}
    for name, value in id_token_props.items():
        expect_equal(payload.get(name, ...), value, f"session cookie claim {name!r} (as in the ID token)")


@it("should throw if idToken is missing")
def _(api):
    res = api.post(SESSION_COOKIE, {"validDuration": "7777"}, key=None, owner=True)
    expect_error(res, 400, "MISSING_ID_TOKEN")


@it("should throw if idToken is invalid")
def _(api):
    res = api.post(SESSION_COOKIE, {"idToken": "invalid", "validDuration": "7777"}, key=None, owner=True)
    expect_error(res, 400, "INVALID_ID_TOKEN")


@it("should use default session cookie validDuration if not specified")
def _(api):
    id_token = register_anon_user(api)["idToken"]
    res, before, after = _session_cookie(api, {"idToken": id_token})
    exp = _expect_cookie(res).get("exp")
    expect_true(isinstance(exp, int)
                and before + SESSION_COOKIE_MAX_VALID_DURATION <= exp <= after + SESSION_COOKIE_MAX_VALID_DURATION,
                f"expected exp = now + {SESSION_COOKIE_MAX_VALID_DURATION}, got {exp!r} (now {before}..{after})")


@it("should throw if validDuration is too short or too long")
def _(api):
    id_token = register_anon_user(api)["idToken"]
    for duration in ("1", "999999999999"):
        res = api.post(SESSION_COOKIE, {"idToken": id_token, "validDuration": duration}, key=None, owner=True)
        expect_error(res, 400, "INVALID_DURATION")


# MARK: accounts:lookup


@it("should return user by email when privileged")
def _(api):
    email = register_user(api, {"email": "bob@example.com", "password": "password"})["email"]
    res = api.post(LOOKUP, {"email": [email]}, key=None, owner=True)
    expect_status(200, res)
    expect_equal(_users(res, 1)[0].get("email"), email, "email")


@it("should return user by email even when uppercased")
def _(api):
    email = register_user(api, {"email": "foo@example.com", "password": "password"})["email"]
    res = api.post(LOOKUP, {"email": [email.upper()]}, key=None, owner=True)
    expect_status(200, res)
    expect_equal(_users(res, 1)[0].get("email"), email, "email")


@it("should return empty result when email is not found")
def _(api):
    res = api.post(LOOKUP, {"email": ["non-existent-email@example.com"]}, key=None, owner=True)
    expect_status(200, res)
    expect_no_field(res.body, "users")


@it("should return user by localId when privileged")
def _(api):
    local_id = register_anon_user(api)["localId"]
    res = api.post(LOOKUP, {"localId": [local_id]}, key=None, owner=True)
    expect_status(200, res)
    expect_equal(_users(res, 1)[0].get("localId"), local_id, "localId")


@it("should deduplicate users")
def _(api):
    local_id = register_anon_user(api)["localId"]
    res = api.post(LOOKUP, {"localId": [local_id, local_id]}, key=None, owner=True)
    expect_status(200, res)
    expect_equal(_users(res, 1)[0].get("localId"), local_id, "localId")


@it("should return providerUserInfo for phone auth users")
def _(api):
    local_id = sign_in_with_phone_number(api, TEST_PHONE_NUMBER)["localId"]
    res = api.post(LOOKUP, {"localId": [local_id]}, key=None, owner=True)
    expect_status(200, res)
    expect_equal(_users(res, 1)[0].get("providerUserInfo"),
                 [{"phoneNumber": TEST_PHONE_NUMBER, "rawId": TEST_PHONE_NUMBER, "providerId": "phone"}], "providerUserInfo")


@it("should return empty result when localId is not found")
def _(api):
    res = api.post(LOOKUP, {"localId": ["noSuchId"]}, key=None, owner=True)
    expect_status(200, res)
    expect_no_field(res.body, "users")


@it("should return user by tenantId in idToken")
def _(api):
    tenant = _password_tenant(api)
    user = register_user(api, {"email": "alice@example.com", "password": "notasecret",
                               "tenantId": tenant.get("tenantId")})
    res = api.post(IDENTITY + "/accounts:lookup", {"idToken": user["idToken"]})
    expect_status(200, res)
    expect_equal(_users(res, 1)[0].get("localId"), user["localId"], "localId")


@it("should error if auth is disabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": True})
    res = api.post(IDENTITY + "/accounts:lookup", {"tenantId": tenant.get("tenantId")}, key=None, owner=True)
    _expect_message_contains(res, 400, "PROJECT_DISABLED")


# MARK: accounts:query


@it("should return count of accounts when returnUserInfo is false")
def _(api):
    register_anon_user(api)
    register_anon_user(api)
    res = api.post(QUERY, {"returnUserInfo": False}, key=None, owner=True)
    expect_status(200, res)
    expect_field(res.body, "recordsCount", "2")
    expect_no_field(res.body, "userInfo")


@it("should return accounts when returnUserInfo is true")
def _(api):
    local_id = register_anon_user(api)["localId"]
    user = {"email": "alice@example.com", "password": "notasecret"}
    local_id2 = register_user(api, user)["localId"]
    res = api.post(QUERY, {}, key=None, owner=True)
    expect_status(200, res)
    expect_field(res.body, "recordsCount", "2")
    users = expect_field(res.body, "userInfo", kind=list)
    expect_equal(len(users), 2, "number of userInfo")
    expect_true(users[0].get("localId") < users[1].get("localId"), "users are not sorted by ID ASC")
    expect_true(any(u.get("localId") == local_id for u in users), "cannot find first registered user")
    email_user = next((u for u in users if u.get("localId") == local_id2), None)
    expect_true(email_user is not None, "cannot find second registered user")
    expect_equal(email_user.get("email"), user["email"], "email")


@it("should error if auth is disabled (2)")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": True})
    res = api.post(QUERY, {"tenantId": tenant.get("tenantId")}, key=None, owner=True)
    expect_error(res, 400, "PROJECT_DISABLED")


# MARK: emulator utility APIs


def _expect_config(res, allow_duplicate_emails, improved_email_privacy):
    expect_status(200, res)
    expect_field(res.body, "signIn", {"allowDuplicateEmails": allow_duplicate_emails})
    expect_field(res.body, "emailPrivacyConfig", {"enableImprovedEmailPrivacy": improved_email_privacy})


@it("should drop all accounts on DELETE /emulator/v1/projects/{PROJECT_ID}/accounts")
def _(api):
    user1 = register_user(api, {"email": "alice@example.com", "password": "notasecret"})
    user2 = register_user(api, {"email": "bob@example.com", "password": "notasecret2"})
    expect_status(200, api.delete(f"/emulator/v1/projects/{PROJECT_ID}/accounts", key=None))
    expect_user_not_exists_for_id_token(api, user1["idToken"])
    expect_user_not_exists_for_id_token(api, user2["idToken"])


@it("should drop all accounts on DELETE /emulator/v1/projects/{PROJECT_ID}/tenants/{TENANT_ID}/accounts")
def _(api):
    tenant_id = _password_tenant(api).get("tenantId")
    user1 = register_user(api, {"email": "alice@example.com", "password": "notasecret", "tenantId": tenant_id})
    user2 = register_user(api, {"email": "bob@example.com", "password": "notasecret2", "tenantId": tenant_id})
    expect_status(200, api.delete(f"/emulator/v1/projects/{PROJECT_ID}/tenants/{tenant_id}/accounts", key=None))
    expect_user_not_exists_for_id_token(api, user1["idToken"], tenant_id)
    expect_user_not_exists_for_id_token(api, user2["idToken"], tenant_id)


@it("should return config on GET /emulator/v1/projects/{PROJECT_ID}/config")
def _(api):
    _expect_config(api.get(CONFIG, key=None), False, False)


it.skip("should not throw an exception on project ID mismatch if singleProjectMode is NO_WARNING", ONE_PROJECT)


@it("should only update allowDuplicateEmails on PATCH /emulator/v1/projects/{PROJECT_ID}/config")
def _(api):
    _expect_config(api.patch(CONFIG, {"signIn": {"allowDuplicateEmails": True}}, key=None), True, False)
    _expect_config(api.patch(CONFIG, {"signIn": {"allowDuplicateEmails": False}}, key=None), False, False)


@it("should only update enableImprovedEmailPrivacy on PATCH /emulator/v1/projects/{PROJECT_ID}/config")
def _(api):
    _expect_config(api.patch(CONFIG, {"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}, key=None),
                   False, True)
    _expect_config(api.patch(CONFIG, {"emailPrivacyConfig": {"enableImprovedEmailPrivacy": False}}, key=None),
                   False, False)


@it("should update both allowDuplicateEmails and enableImprovedEmailPrivacy on PATCH "
    "/emulator/v1/projects/{PROJECT_ID}/config")
def _(api):
    _expect_config(api.patch(CONFIG, {"signIn": {"allowDuplicateEmails": True},
                                      "emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}, key=None),
                   True, True)
    _expect_config(api.patch(CONFIG, {"signIn": {"allowDuplicateEmails": False},
                                      "emailPrivacyConfig": {"enableImprovedEmailPrivacy": False}}, key=None),
                   False, False)


# MARK: emulator utility API; singleProjectMode=ERROR

it.skip("should throw an exception on project ID mismatch if singleProjectMode is ERROR", ONE_PROJECT)
