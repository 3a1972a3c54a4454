"""firebase-tools src/emulator/auth/idp.spec.ts: accounts:signInWithIdp (sign-up, sign-in, linking, SAML)."""

import json
import urllib.parse

from specs import decode_jwt_header, stringify, unsigned_jwt
from specs import (IDENTITY, PROJECT_ID, TEST_PHONE_NUMBER, SpecFailure, decode_jwt_payload, enroll_phone_mfa,
                   expect_equal, expect_error, expect_field, expect_members, expect_no_field, expect_status, expect_true,
                   fake_claims, get_account_info_by_id_token, get_account_info_by_local_id, get_signin_methods,
                   pass_a_second_boundary, register_anon_user, register_tenant, register_user, sign_in_with_email_link,
                   sign_in_with_fake_claims, sign_in_with_phone_number, spec, update_account_by_local_id,
                   update_project_config)

it = spec("idp.spec.ts")
PATH = IDENTITY + "/accounts:signInWithIdp"

BLOCKING = "blocking functions are not run by this emulator"
GOOGLE_SCOPES = ["openid", "https://www.googleapis.com/auth/userinfo.profile",
                 "https://www.googleapis.com/auth/userinfo.email"]


def _encode(text):
    """encodeURIComponent."""
    return urllib.parse.quote(text, safe="!~*'()")


_GOOGLE_CLIENT = "22874682844-b0s8s75b3iedb2md4hls2voq6sllbsm3.apps.googleusercontent.com"

# helpers.ts' FAKE_GOOGLE_ACCOUNT: an unsigned token of Google's payload format.
_FAKE_GOOGLE = {
    "email": "example@gmail.com",
    "emailVerified": True,
    "rawId": "123456789012345678901",
    "idToken": unsigned_jwt({
        "iss": "accounts.google.com", "azp": _GOOGLE_CLIENT, "aud": _GOOGLE_CLIENT, "sub": "123456789012345678901",
        "email": "example@gmail.com", "email_verified": True, "at_hash": "0000000000000000000000",
        "iat": 1597882681, "exp": 1597886281}),
}

# helpers.ts' REAL_GOOGLE_ACCOUNT: a real (long expired) Google ID token, its RS256 signature zeroed.
_REAL_GOOGLE = {
    "email": "oberynbaelish.331826@gmail.com",
    "emailVerified": True,
    "rawId": "115113236566683398301",
    "idToken": (
        "eyJhbGciOiJSUzI1NiIsImtpZCI6IjZiYzYzZTlmMThkNTYxYjM0ZjU2NjhmODhhZTI3ZDQ4ODc2ZDgwNzMiLCJ0eXAiOiJKV1QifQ."
        "eyJpc3MiOiJhY2NvdW50cy5nb29nbGUuY29tIiwiYXpwIjoiMjI4NzQ2ODI4NDQtYjBzOHM3NWIzaWVkYjJtZDRobHMydm9xNnNsbGJz"
        "bTMuYXBwcy5nb29nbGV1c2VyY29udGVudC5jb20iLCJhdWQiOiIyMjg3NDY4Mjg0NC1iMHM4czc1YjNpZWRiMm1kNGhsczJ2b3E2c2xs"
        "YnNtMy5hcHBzLmdvb2dsZXVzZXJjb250ZW50LmNvbSIsInN1YiI6IjExNTExMzIzNjU2NjY4MzM5ODMwMSIsImVtYWlsIjoib2Jlcnlu"
        "YmFlbGlzaC4zMzE4MjZAZ21haWwuY29tIiwiZW1haWxfdmVyaWZpZWQiOnRydWUsImF0X2hhc2giOiJXNTlTOEs4Y3g0Y3hYYmh0YmFX"
        "YndBIiwiaWF0IjoxNTk3ODgyNjgxLCJleHAiOjE1OTc4ODYyODF9." + "0" * 342),
}


def _expect_firebase_token(token, identities, provider):
    """The checks of the emulator's ID token the spec repeats: unsigned, no `provider_id`, the identities and
    the sign-in provider under `firebase`."""
    expect_true(isinstance(token, str) and token.count(".") == 2, f"expected a JWT, got {token!r}")
    expect_equal(decode_jwt_header(token).get("alg"), "none", "header alg")
    payload = decode_jwt_payload(token)
    expect_no_field(payload, "provider_id")
    firebase = payload.get("firebase")
    expect_field(firebase, "identities", identities)
    expect_field(firebase, "sign_in_provider", provider)
    return payload


def _raw_user_info(body):
    """`JSON.parse(res.body.rawUserInfo)`."""
    try:
        return json.loads(body.get("rawUserInfo"))
    except (TypeError, ValueError):
        raise SpecFailure(f"expected rawUserInfo to be JSON text, got {body.get('rawUserInfo')!r}") from None


def _expect_google_sign_up(res, account):
    expect_status(200, res)
    body = res.body
    expect_equal(body.get("isNewUser"), True, "isNewUser")
    expect_equal(body.get("email"), account["email"], "email")
    expect_equal(body.get("emailVerified"), account["emailVerified"], "emailVerified")
    expect_equal(body.get("federatedId"), "https://accounts.google.com/" + account["rawId"], "federatedId")
    expect_equal(body.get("oauthIdToken"), account["idToken"], "oauthIdToken")
    expect_equal(body.get("providerId"), "google.com", "providerId")
    expect_field(body, "refreshToken", kind=str)
    expect_no_field(body, "displayName")
    expect_no_field(body, "photoUrl")
    raw = _raw_user_info(body)
    expect_equal(raw.get("id"), account["rawId"], "rawUserInfo.id")
    expect_equal(raw.get("email"), account["email"], "rawUserInfo.email")
    expect_equal(raw.get("verified_email"), True, "rawUserInfo.verified_email")
    expect_equal(raw.get("locale"), "en", "rawUserInfo.locale")
    scopes = expect_field(raw, "granted_scopes", kind=str)
    expect_members(scopes.split(" "), GOOGLE_SCOPES, "rawUserInfo.granted_scopes")
    _expect_firebase_token(body.get("idToken"), {"google.com": [account["rawId"]], "email": [account["email"]]},
                           "google.com")


def _idp_body(provider_id, id_token, **fields):
    """A signInWithIdp request whose postBody carries `id_token` encoded (encodeURIComponent)."""
    return {"postBody": f"providerId={provider_id}&id_token={_encode(id_token)}", "requestUri": "http://localhost",
            **fields}


@it("should create new account with IDP from unsigned ID token")
def _(api):
    res = api.post(PATH, {"postBody": "providerId=google.com&id_token=" + _FAKE_GOOGLE["idToken"],
                          "requestUri": "http://localhost", "returnIdpCredential": True, "returnSecureToken": True})
    _expect_google_sign_up(res, _FAKE_GOOGLE)


@it("should create new account with IDP from production ID token")
def _(api):
    res = api.post(PATH, {"postBody": "providerId=google.com&id_token=" + _REAL_GOOGLE["idToken"],
                          "requestUri": "http://localhost", "returnIdpCredential": True, "returnSecureToken": True})
    _expect_google_sign_up(res, _REAL_GOOGLE)


@it("should create new account with IDP from unencoded JSON claims")
def _(api):
    claims = fake_claims({"sub": "123456789012345678901", "name": "Ada Lovelace", "given_name": "Ada",
                          "family_name": "Lovelace", "picture": "http://localhost/fake-picture-url.png"})
    fake_id_token = stringify(claims)
    res = api.post(PATH, _idp_body("google.com", fake_id_token, returnIdpCredential=True, returnSecureToken=True))
    expect_status(200, res)
    body = res.body
    expect_equal(body.get("isNewUser"), True, "isNewUser")
    expect_equal(body.get("federatedId"), "https://accounts.google.com/" + claims["sub"], "federatedId")
    expect_equal(body.get("oauthIdToken"), fake_id_token, "oauthIdToken")
    expect_equal(body.get("providerId"), "google.com", "providerId")
    expect_equal(body.get("displayName"), claims["name"], "displayName")
    expect_equal(body.get("fullName"), claims["name"], "fullName")
    expect_equal(body.get("firstName"), claims["given_name"], "firstName")
    expect_equal(body.get("lastName"), claims["family_name"], "lastName")
    expect_equal(body.get("photoUrl"), claims["picture"], "photoUrl")
    expect_field(body, "refreshToken", kind=str)
    raw = _raw_user_info(body)
    expect_equal(raw.get("id"), claims["sub"], "rawUserInfo.id")
    expect_equal(raw.get("name"), claims["name"], "rawUserInfo.name")
    expect_equal(raw.get("given_name"), claims["given_name"], "rawUserInfo.given_name")
    expect_equal(raw.get("family_name"), claims["family_name"], "rawUserInfo.family_name")
    expect_equal(raw.get("picture"), claims["picture"], "rawUserInfo.picture")
    scopes = expect_field(raw, "granted_scopes", kind=str)
    expect_true("https://www.googleapis.com/auth/userinfo.email" not in scopes.split(" "),
                f"expected granted_scopes without userinfo.email, got {scopes!r}")
    _expect_firebase_token(body.get("idToken"), {"google.com": [claims["sub"]]}, "google.com")


@it("should accept params (e.g. providerId, id_token) in requestUri")
def _(api):
    fake_id_token = stringify(fake_claims({"sub": "123456789012345678901"}))
    res = api.post(PATH, {"requestUri": "http://localhost?providerId=google.com&id_token=" + _encode(fake_id_token),
                          "returnIdpCredential": True})
    expect_status(200, res)
    expect_equal(res.body.get("providerId"), "google.com", "providerId")


@it("should copy attributes to user on IDP sign-up")
def _(api):
    claims = fake_claims({"sub": "123456789012345678901", "screen_name": "turingcomplete", "name": "Alan Turing",
                          "picture": "http://localhost/turing.png"})
    id_token = sign_in_with_fake_claims(api, "google.com", claims)["idToken"]
    user = get_account_info_by_id_token(api, id_token)
    expect_equal(user.get("photoUrl"), claims["picture"], "photoUrl")
    expect_equal(user.get("displayName"), claims["name"], "displayName")
    expect_equal(user.get("screenName"), claims["screen_name"], "screenName")


@it("should allow duplicate emails if set in project config")
def _(api):
    update_project_config(api, {"signIn": {"allowDuplicateEmails": True}})
    email = "alice@example.com"
    user1 = register_user(api, {"email": email, "password": "notasecret"})
    user2 = sign_in_with_fake_claims(api, "google.com", {"sub": "123456789012345678901", "email": email})
    expect_true(user2["localId"] != user1["localId"], f"expected a new account, got localId {user2['localId']!r} again")


@it("should sign-up new users without copying email when allowing duplicate emails")
def _(api):
    update_project_config(api, {"signIn": {"allowDuplicateEmails": True}})
    user1 = sign_in_with_fake_claims(api, "google.com", {"sub": "123456789012345678901", "email": "alice@example.com"})
    info = get_account_info_by_id_token(api, user1["idToken"])
    expect_no_field(info, "email")


@it("should allow multiple providers with same email when allowing duplicate emails")
def _(api):
    update_project_config(api, {"signIn": {"allowDuplicateEmails": True}})
    email = "alice@example.com"
    user1 = sign_in_with_fake_claims(api, "google.com", {"sub": "123456789012345678901", "email": email})
    user2 = sign_in_with_fake_claims(api, "facebook.com", {"sub": "123456789012345678901", "email": email})
    expect_true(user2["localId"] != user1["localId"], f"expected a new account, got localId {user2['localId']!r} again")


@it("should sign in existing account if (providerId, sub) is the same")
def _(api):
    user1 = sign_in_with_fake_claims(api, "google.com", {"sub": "123456789012345678901"})
    user2 = sign_in_with_fake_claims(api, "google.com", {"sub": "123456789012345678901"})
    expect_equal(user2["localId"], user1["localId"], "localId for the same sub")
    user3 = sign_in_with_fake_claims(api, "google.com", {"sub": "000000000000000000000"})
    expect_true(user3["localId"] != user1["localId"], "expected another account for another sub")
    user4 = sign_in_with_fake_claims(api, "apple.com", {"sub": "123456789012345678901"})
    expect_true(user4["localId"] != user1["localId"], "expected another account for another providerId")


@it("should error if user is disabled")
def _(api):
    user = sign_in_with_fake_claims(api, "google.com", {"sub": "123456789012345678901"})
    update_account_by_local_id(api, user["localId"], {"disableUser": True})
    fake_id_token = stringify(fake_claims({"sub": "123456789012345678901", "name": "Foo"}))
    res = api.post(PATH, _idp_body("google.com", fake_id_token, idToken=user["idToken"], returnIdpCredential=True))
    expect_error(res, 400, "USER_DISABLED")


@it("should add IDP as a sign-in method for email if available")
def _(api):
    email, sub = "foo@example.com", "123456789012345678901"
    sign_in_with_fake_claims(api, "google.com", {"sub": sub, "email": email})
    expect_equal(get_signin_methods(api, email), ["google.com"], f"signinMethods for {email}")
    new_email = "bar@example.com"
    id_token = sign_in_with_fake_claims(api, "google.com", {"sub": sub, "email": new_email})["idToken"]
    expect_equal(get_signin_methods(api, new_email), ["google.com"], f"signinMethods for {new_email}")
    info = get_account_info_by_id_token(api, id_token)
    expect_equal(info.get("email"), email, "account email")


@it("should unlink password and overwite profile attributes if user had unverified email")
def _(api):
    user = register_user(api, {"email": "foo@example.com", "password": "notasecret", "displayName": "Foo"})
    photo_url = "http://localhost/photo-from-idp.png"
    idp = sign_in_with_fake_claims(api, "google.com", {"sub": "123456789012345678901", "email": user["email"],
                                                       "email_verified": True, "picture": photo_url})
    expect_equal(idp["localId"], user["localId"], "localId")
    # (The spec's `not.to.contain(["password"])` compares an array by identity and always holds; eql covers it.)
    expect_equal(get_signin_methods(api, user["email"]), ["google.com"], "signinMethods")
    info = get_account_info_by_id_token(api, idp["idToken"])
    expect_equal(info.get("emailVerified"), True, "emailVerified")
    expect_equal(info.get("photoUrl"), photo_url, "photoUrl")
    expect_no_field(info, "displayName")


@it("should not unlink password if email was already verified")
def _(api):
    user = register_user(api, {"email": "foo@example.com", "password": "notasecret", "displayName": "Foo"})
    sign_in_with_email_link(api, user["email"])
    photo_url = "http://localhost/photo-from-idp.png"
    idp = sign_in_with_fake_claims(api, "google.com", {"sub": "123456789012345678901", "email": user["email"],
                                                       "email_verified": True, "picture": photo_url})
    expect_equal(idp["localId"], user["localId"], "localId")
    expect_members(get_signin_methods(api, user["email"]), ["google.com", "password", "emailLink"], "signinMethods")
    info = get_account_info_by_id_token(api, idp["idToken"])
    expect_equal(info.get("emailVerified"), True, "emailVerified")
    expect_equal(info.get("photoUrl"), photo_url, "photoUrl")
    expect_no_field(info, "displayName")


@it("should return needConfirmation if both account and IDP has unverified email")
def _(api):
    email = "bar@example.com"
    user = sign_in_with_fake_claims(api, "facebook.com", {"sub": "123456789012345678901", "email": email,
                                                          "email_verified": False, "name": "Bar"})
    fake_id_token = stringify(fake_claims({"sub": "123456789012345678901", "email": email, "email_verified": False,
                                            "name": "Foo", "picture": "http://localhost/photo-from-idp.png"}))
    res = api.post(PATH, {"requestUri": "http://localhost?providerId=google.com&id_token=" + _encode(fake_id_token),
                          "returnIdpCredential": True})
    expect_status(200, res)
    expect_equal(res.body.get("needConfirmation"), True, "needConfirmation")
    expect_equal(res.body.get("localId"), user["localId"], "localId")
    expect_no_field(res.body, "idToken")
    expect_equal(res.body.get("verifiedProvider"), ["facebook.com"], "verifiedProvider")
    # (The spec's `not.to.include(["google.com"])` compares an array by identity and always holds.)
    expect_members(get_signin_methods(api, email), ["facebook.com"], "signinMethods")
    info = get_account_info_by_id_token(api, user["idToken"])
    expect_equal(info.get("emailVerified"), False, "emailVerified")
    expect_equal(info.get("displayName"), "Bar", "displayName")
    expect_no_field(info, "photoUrl")


@it("should error when requestUri is missing or invalid")
def _(api):
    post_body = "id_token=" + _FAKE_GOOGLE["idToken"]
    expect_error(api.post(PATH, {"postBody": post_body}), 400, "MISSING_REQUEST_URI")
    expect_error(api.post(PATH, {"postBody": post_body, "requestUri": "notAnAbsoluteUriAndThusInvalid"}),
                 400, "INVALID_REQUEST_URI")


@it("should error when missing providerId is missing")
def _(api):
    res = api.post(PATH, {"postBody": "id_token=" + _FAKE_GOOGLE["idToken"], "requestUri": "http://localhost"})
    expect_error(res, 400, "INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential:", prefix=True)


@it("should error when sub is missing or not a string")
def _(api):
    # The spec puts the JSON in postBody as it is, not encoded.
    for token in (stringify({}), stringify({"sub": 12345})):
        res = api.post(PATH, {"postBody": "providerId=google.com&id_token=" + token, "requestUri": "http://localhost"})
        expect_error(res, 400, "INVALID_IDP_RESPONSE", prefix=True)


@it("should link IDP to existing account by idToken")
def _(api):
    user = register_user(api, {"email": "foo@example.com", "password": "notasecret"})
    claims = fake_claims({"sub": "123456789012345678901", "name": "Foo"})
    res = api.post(PATH, _idp_body("google.com", stringify(claims), idToken=user["idToken"],
                                   returnIdpCredential=True))
    expect_status(200, res)
    expect_equal(bool(res.body.get("isNewUser")), False, "isNewUser")
    expect_equal(res.body.get("localId"), user["localId"], "localId")
    expect_field(res.body, "refreshToken", kind=str)
    _expect_firebase_token(res.body.get("idToken"), {"google.com": [claims["sub"]], "email": [user["email"]]},
                           "google.com")
    expect_members(get_signin_methods(api, user["email"]), ["google.com", "password"], "signinMethods")


@it("should copy IDP email to user-level email if not present")
def _(api):
    user = sign_in_with_phone_number(api, TEST_PHONE_NUMBER)
    claims = fake_claims({"sub": "123456789012345678901", "name": "Foo", "email": "example@google.com"})
    res = api.post(PATH, _idp_body("google.com", stringify(claims), idToken=user["idToken"], returnIdpCredential=True))
    expect_status(200, res)
    expect_equal(bool(res.body.get("isNewUser")), False, "isNewUser")
    expect_equal(res.body.get("localId"), user["localId"], "localId")
    expect_field(res.body, "refreshToken", kind=str)
    _expect_firebase_token(res.body.get("idToken"), {"google.com": [claims["sub"]], "email": [claims["email"]],
                                                     "phone": [TEST_PHONE_NUMBER]}, "google.com")
    info = get_account_info_by_id_token(api, res.body["idToken"])
    expect_equal(info.get("email"), claims["email"], "email")
    expect_equal(bool(info.get("emailVerified")), bool(claims.get("email_verified")), "emailVerified")


@it("should error if user to be linked is disabled")
def _(api):
    user = register_user(api, {"email": "foo@example.com", "password": "notasecret"})
    update_account_by_local_id(api, user["localId"], {"disableUser": True})
    fake_id_token = stringify(fake_claims({"sub": "123456789012345678901", "name": "Foo"}))
    res = api.post(PATH, _idp_body("google.com", fake_id_token, idToken=user["idToken"], returnIdpCredential=True))
    expect_error(res, 400, "USER_DISABLED")


def _expect_pending_credential_keeps_login_time(api, claims, tenant_id=None):
    """Signs up with `claims`, enrolls an SMS factor, signs in again a second later (the spec's fake clock's tick): a
    pending credential, and the login and refresh times unchanged until the second factor."""
    user = sign_in_with_fake_claims(api, "google.com", claims, tenant_id)
    enroll_phone_mfa(api, user["idToken"], TEST_PHONE_NUMBER, tenant_id)
    before = get_account_info_by_local_id(api, user["localId"], tenant_id)
    pass_a_second_boundary()
    res = api.post(PATH, _idp_body("google.com", stringify(claims), returnIdpCredential=True, tenantId=tenant_id))
    expect_status(200, res)
    expect_no_field(res.body, "idToken")
    expect_no_field(res.body, "refreshToken")
    expect_field(res.body, "mfaPendingCredential", kind=str)
    expect_equal(len(res.body.get("mfaInfo") or []), 1, "number of mfaInfo entries")
    after = get_account_info_by_local_id(api, user["localId"], tenant_id)
    expect_equal(after.get("lastLoginAt"), before.get("lastLoginAt"), "lastLoginAt after the first factor")
    expect_equal(after.get("lastRefreshAt"), before.get("lastRefreshAt"), "lastRefreshAt after the first factor")


@it("should return pending credential for MFA-enabled user")
def _(api):
    claims = fake_claims({"sub": "123456789012345678901", "name": "Foo", "email": "foo@example.com", "email_verified": True})
    _expect_pending_credential_keeps_login_time(api, claims)


@it("should link IDP for existing MFA-enabled user")
def _(api):
    email = "alice@example.com"
    user = sign_in_with_email_link(api, email)
    enroll_phone_mfa(api, user["idToken"], TEST_PHONE_NUMBER)
    claims = fake_claims({"sub": "123456789012345678901", "name": "Foo", "email": email, "email_verified": True})
    res = api.post(PATH, _idp_body("google.com", stringify(claims), returnIdpCredential=True))
    expect_status(200, res)
    expect_no_field(res.body, "idToken")
    expect_no_field(res.body, "refreshToken")
    expect_field(res.body, "mfaPendingCredential", kind=str)
    expect_equal(len(res.body.get("mfaInfo") or []), 1, "number of mfaInfo entries")
    # The provider is linked, and its profile taken, before the second factor.
    expect_members(get_signin_methods(api, email), ["google.com", "emailLink"], "signinMethods")
    expect_equal(get_account_info_by_local_id(api, user["localId"]).get("displayName"), claims["name"], "displayName")


@it("should return error if IDP account is already linked to the same user")
def _(api):
    claims = {"sub": "123456789012345678901", "email": "alice@example.com", "email_verified": False}
    id_token = sign_in_with_fake_claims(api, "google.com", claims)["idToken"]
    fake_id_token = stringify(claims)
    res = api.post(PATH, _idp_body("google.com", fake_id_token, idToken=id_token, returnIdpCredential=True))
    expect_status(200, res)
    expect_no_field(res.body, "localId")
    expect_no_field(res.body, "refreshToken")
    expect_equal(res.body.get("errorMessage"), "FEDERATED_USER_ID_ALREADY_LINKED", "errorMessage")
    expect_equal(res.body.get("oauthIdToken"), fake_id_token, "oauthIdToken")


@it("should return error if IDP account is already linked to another user")
def _(api):
    claims = {"sub": "123456789012345678901", "email": "alice@example.com", "email_verified": False}
    sign_in_with_fake_claims(api, "google.com", claims)
    user = register_user(api, {"email": "foo@example.com", "password": "notasecret"})
    res = api.post(PATH, _idp_body("google.com", stringify(claims), idToken=user["idToken"]))
    expect_error(res, 400, "FEDERATED_USER_ID_ALREADY_LINKED")
    expect_members(get_signin_methods(api, user["email"]), ["password"], f"signinMethods for {user['email']}")
    expect_members(get_signin_methods(api, claims["email"]), ["google.com"], f"signinMethods for {claims['email']}")


@it("should return error if IDP account email already exists if NOT allowDuplicateEmail")
def _(api):
    email = "alice@example.com"
    register_user(api, {"email": email, "password": "notasecret"})
    id_token = register_anon_user(api)["idToken"]
    res = api.post(PATH, _idp_body("google.com", stringify(fake_claims({"sub": "12345", "email": email})),
                                   idToken=id_token))
    expect_error(res, 400, "EMAIL_EXISTS")


@it("should allow linking IDP account with same email to same user")
def _(api):
    email = "alice@example.com"
    user = register_user(api, {"email": email, "password": "notasecret"})
    fake_id_token = stringify(fake_claims({"sub": "12345", "email": email, "email_verified": True}))
    res = api.post(PATH, _idp_body("google.com", fake_id_token, idToken=user["idToken"]))
    expect_status(200, res)
    expect_equal(res.body.get("localId"), user["localId"], "localId")
    info = get_account_info_by_id_token(api, res.body.get("idToken"))
    expect_equal(info.get("emailVerified"), True, "emailVerified")


@it("should allow linking IDP account with same email if allowDuplicateEmail")
def _(api):
    email = "alice@example.com"
    register_user(api, {"email": email, "password": "notasecret"})
    update_project_config(api, {"signIn": {"allowDuplicateEmails": True}})
    anon = register_anon_user(api)
    res = api.post(PATH, _idp_body("google.com", stringify(fake_claims({"sub": "12345", "email": email})),
                                   idToken=anon["idToken"]))
    expect_status(200, res)
    expect_equal(res.body.get("localId"), anon["localId"], "localId")


@it("should error if auth is disabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": True})
    expect_error(api.post(PATH, {"tenantId": tenant.get("tenantId")}), 400, "PROJECT_DISABLED", prefix=True)


@it("should create a new account with tenantId")
def _(api):
    tenant_id = register_tenant(api, PROJECT_ID, {"disableAuth": False}).get("tenantId")
    res = api.post(PATH, {"postBody": "providerId=google.com&id_token=" + _FAKE_GOOGLE["idToken"],
                          "requestUri": "http://localhost", "returnIdpCredential": True, "returnSecureToken": True,
                          "tenantId": tenant_id})
    expect_status(200, res)
    expect_equal(res.body.get("tenantId"), tenant_id, "tenantId")
    user = get_account_info_by_local_id(api, res.body.get("localId"), tenant_id)
    expect_equal(user.get("tenantId"), tenant_id, "user's tenantId")


@it("should return pending credential for MFA-enabled user and enabled on tenant project")
def _(api):
    tenant_id = register_tenant(api, PROJECT_ID, {"disableAuth": False,
                                                  "mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]}}).get("tenantId")
    claims = fake_claims({"sub": "123456789012345678901", "name": "Foo", "email": "foo@example.com", "email_verified": True})
    _expect_pending_credential_keeps_login_time(api, claims, tenant_id)


def _saml_body(saml_response):
    """The spec's SAML request: FAKE_GOOGLE_ACCOUNT's token and, unencoded, the SAMLResponse JSON."""
    post_body = "providerId=saml.saml&id_token=" + _FAKE_GOOGLE["idToken"]
    if saml_response is not None:
        post_body += "&SAMLResponse=" + stringify(saml_response)
    return {"postBody": post_body, "requestUri": "http://localhost", "returnIdpCredential": True,
            "returnSecureToken": True}


@it("should error if SAMLResponse is missing assertion")
def _(api):
    expect_error(api.post(PATH, _saml_body({})), 400, "INVALID_IDP_RESPONSE", prefix=True)


@it("should error if SAMLResponse is missing assertion.subject")
def _(api):
    expect_error(api.post(PATH, _saml_body({"assertion": {}})), 400, "INVALID_IDP_RESPONSE", prefix=True)


@it("should error if SAMLResponse is missing assertion.subject.nameId")
def _(api):
    expect_error(api.post(PATH, _saml_body({"assertion": {"subject": {}}})), 400, "INVALID_IDP_RESPONSE", prefix=True)


@it("should create an account for generic SAML providers")
def _(api):
    res = api.post(PATH, _saml_body(None))
    expect_status(200, res)
    body = res.body
    expect_equal(body.get("isNewUser"), True, "isNewUser")
    expect_equal(body.get("email"), _FAKE_GOOGLE["email"], "email")
    expect_equal(body.get("emailVerified"), True, "emailVerified")
    expect_equal(body.get("federatedId"), _FAKE_GOOGLE["rawId"], "federatedId")
    expect_equal(body.get("oauthIdToken"), _FAKE_GOOGLE["idToken"], "oauthIdToken")
    expect_equal(body.get("providerId"), "saml.saml", "providerId")
    expect_field(body, "refreshToken", kind=str)
    expect_no_field(body, "displayName")
    expect_no_field(body, "photoUrl")
    _expect_firebase_token(body.get("idToken"),
                           {"saml.saml": [_FAKE_GOOGLE["rawId"]], "email": [_FAKE_GOOGLE["email"]]}, "saml.saml")


@it("should include fields in SAMLResponse for SAML providers")
def _(api):
    other_email = "otherEmail@gmail.com"
    attribute_statements = {"name": "Jane Doe", "mail": "otherOtherEmail@gmail.com"}
    res = api.post(PATH, _saml_body({"assertion": {"subject": {"nameId": other_email},
                                                   "attributeStatements": attribute_statements}}))
    expect_status(200, res)
    expect_equal(res.body.get("email"), other_email, "email")
    expect_equal(_raw_user_info(res.body), attribute_statements, "rawUserInfo")
    payload = decode_jwt_payload(res.body.get("idToken"))
    expect_field(payload.get("firebase"), "sign_in_attributes", attribute_statements)


it.skip("should update modifiable fields for new users for beforeCreate", BLOCKING)
it.skip("should update modifiable fields for new users for beforeSignIn", BLOCKING)
it.skip("beforeSignIn fields should overwrite beforeCreate fields for new users", BLOCKING)
it.skip("should update modifiable fields for existing users", BLOCKING)
it.skip("should disable user if set", BLOCKING)
