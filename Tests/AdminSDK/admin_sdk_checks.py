"""Google's firebase-admin (Python) against KeyringAuth's emulator, one check per Admin API endpoint.

Run by Tests/EmulatorTests/AdminSDKTests.swift as `python admin_sdk_checks.py CHECK` with
FIREBASE_AUTH_EMULATOR_HOST and GOOGLE_CLOUD_PROJECT set, against an emulator of its own: each check uses
the SDK as a backend would, asserts what the SDK hands back, prints `ok CHECK` and exits 0; a failed
assertion exits 1 with its traceback. `python admin_sdk_checks.py` lists the checks; `act ACTION UID [CLAIMS]`
does one thing a backend does to a user (disable, enable, revoke, delete, claims).
"""

import html.parser
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import firebase_admin
from firebase_admin import auth

HOST = os.environ.get("FIREBASE_AUTH_EMULATOR_HOST", "")
PROJECT = os.environ.get("GOOGLE_CLOUD_PROJECT", "")
TOOLKIT = f"http://{HOST}/identitytoolkit.googleapis.com"


def call(method, path, body=None, headers=None, raw=None):
    """A request as an app or a script sends it: (status, JSON reply)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(f"http://{HOST}{path}", data=data, method=method, headers=headers or {})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def app_call(operation, body):
    """An app's call with an API key (no administrator)."""
    return call("POST", f"/identitytoolkit.googleapis.com/v1/accounts:{operation}?key=fake-api-key", body)


def sign_in(email, password):
    status, reply = app_call("signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})
    return status, reply


def refresh(refresh_token):
    return call("POST", "/securetoken.googleapis.com/v1/token?key=fake-api-key",
                {"grant_type": "refresh_token", "refresh_token": refresh_token})


def raises(kind, function, *arguments, **keywords):
    try:
        function(*arguments, **keywords)
    except kind as error:
        return error
    raise AssertionError(f"{function.__name__} did not raise {kind.__name__}")


def check_create_user():
    user = auth.create_user(uid="ada", email="Ada@Example.com", password="analytical-1", display_name="Ada Lovelace",
                            photo_url="https://example.com/ada.png", phone_number="+15555550100", email_verified=True)
    assert user.uid == "ada" and user.email == "ada@example.com" and user.email_verified
    assert user.display_name == "Ada Lovelace" and user.photo_url == "https://example.com/ada.png"
    assert user.phone_number == "+15555550100" and not user.disabled
    assert sorted(p.provider_id for p in user.provider_data) == ["password", "phone"]
    assert user.user_metadata.creation_timestamp > 0 and user.tokens_valid_after_timestamp > 0
    generated = auth.create_user(disabled=True)
    assert len(generated.uid) == 28 and generated.disabled and generated.email is None
    raises(auth.UidAlreadyExistsError, auth.create_user, uid="ada")
    raises(auth.EmailAlreadyExistsError, auth.create_user, email="ada@example.com")
    raises(auth.PhoneNumberAlreadyExistsError, auth.create_user, phone_number="+15555550100")
    # The created password signs in, as an app signs in.
    status, reply = sign_in("ada@example.com", "analytical-1")
    assert status == 200 and reply["localId"] == "ada", reply
    # Without the SDK's own checks: the service's rules.
    admin = {"Authorization": "Bearer owner"}
    status, reply = call("POST", f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts",
                         {"password": "short"}, admin)
    assert status == 400 and reply["error"]["message"].startswith("WEAK_PASSWORD"), reply
    status, reply = call("POST", f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts",
                         {"phoneNumber": "555-0100"}, admin)
    assert status == 400 and reply["error"]["message"] == "INVALID_PHONE_NUMBER : Invalid format.", reply


def check_lookup():
    auth.create_user(uid="grace", email="grace@example.com", phone_number="+15555550101")
    auth.import_users([auth.ImportUserRecord(uid="linus", provider_data=[
        auth.UserProvider(uid="gh-linus", provider_id="github.com", email="linus@example.com")])])
    assert auth.get_user("grace").email == "grace@example.com"
    assert auth.get_user_by_email("GRACE@example.com").uid == "grace"
    assert auth.get_user_by_phone_number("+15555550101").uid == "grace"
    result = auth.get_users([auth.UidIdentifier("grace"), auth.EmailIdentifier("grace@example.com"),
                             auth.ProviderIdentifier("github.com", "gh-linus"), auth.UidIdentifier("nobody"),
                             auth.PhoneIdentifier("+15555550199")])
    assert sorted(u.uid for u in result.users) == ["grace", "linus"]
    assert sorted(type(i).__name__ for i in result.not_found) == ["PhoneIdentifier", "UidIdentifier"]
    raises(auth.UserNotFoundError, auth.get_user, "nobody")
    raises(auth.UserNotFoundError, auth.get_user_by_email, "nobody@example.com")


def check_update_user():
    auth.create_user(uid="kay", email="kay@example.com", password="smalltalk-1", display_name="Kay",
                     photo_url="https://example.com/k.png", phone_number="+15555550102")
    user = auth.update_user("kay", email="alan@example.com", display_name=auth.DELETE_ATTRIBUTE,
                            photo_url=auth.DELETE_ATTRIBUTE, phone_number=auth.DELETE_ATTRIBUTE, email_verified=True,
                            disabled=True, custom_claims={"role": "admin"})
    assert user.email == "alan@example.com" and user.email_verified and user.disabled
    assert user.display_name is None and user.photo_url is None and user.phone_number is None
    assert user.custom_claims == {"role": "admin"}
    status, reply = sign_in("alan@example.com", "smalltalk-1")
    assert status == 400 and reply["error"]["message"] == "USER_DISABLED", reply
    auth.update_user("kay", disabled=False, password="new-password-1")
    assert sign_in("alan@example.com", "new-password-1")[0] == 200
    assert sign_in("alan@example.com", "smalltalk-1")[0] == 400
    user = auth.update_user("kay", providers_to_delete=["password"])
    assert user.email is None and [p.provider_id for p in user.provider_data] == []
    raises(auth.UserNotFoundError, auth.update_user, "nobody", display_name="x")
    # The service's claim rules, and linking an identity, as the Node SDK's providerToLink sends it.
    admin = {"Authorization": "Bearer owner"}
    path = f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:update"
    for claims, message in [('{"sub": "x"}', "FORBIDDEN_CLAIM : sub"), ("[1]", "INVALID_CLAIMS"),
                            (json.dumps({"k": "x" * 1000}), "CLAIMS_TOO_LARGE")]:
        status, reply = call("POST", path, {"localId": "kay", "customAttributes": claims}, admin)
        assert status == 400 and reply["error"]["message"] == message, reply
    status, reply = call("POST", path, {"localId": "kay", "linkProviderUserInfo": {
        "providerId": "google.com", "rawId": "g-kay", "email": "kay@gmail.com"}}, admin)
    assert status == 200, reply
    assert [u.uid for u in auth.get_users([auth.ProviderIdentifier("google.com", "g-kay")]).users] == ["kay"]
    status, reply = app_call("update", {"localId": "kay", "customAttributes": "{}"})
    assert status == 400, reply


def check_delete_user():
    auth.create_user(uid="gone", email="gone@example.com")
    auth.delete_user("gone")
    raises(auth.UserNotFoundError, auth.get_user, "gone")
    raises(auth.UserNotFoundError, auth.delete_user, "gone")
    # The address is free again.
    assert auth.create_user(email="gone@example.com").email == "gone@example.com"


def check_list_users():
    for index in range(25):
        auth.create_user(uid=f"user-{index:02}", email=f"user{index}@example.com", password="listed-1")
    page = auth.list_users(max_results=10)
    assert [u.uid for u in page.users] == [f"user-{i:02}" for i in range(10)] and page.has_next_page
    assert page.users[0].password_hash is None, "a password hash is never handed out"
    second = page.get_next_page()
    assert [u.uid for u in second.users] == [f"user-{i:02}" for i in range(10, 20)]
    everyone = [u.uid for u in auth.list_users(max_results=7).iterate_all()]
    assert everyone == [f"user-{i:02}" for i in range(25)], everyone


def check_import_users():
    result = auth.import_users([
        auth.ImportUserRecord(uid="imported-1", email="one@example.com", display_name="One", email_verified=True,
                              custom_claims={"plan": "pro"}, user_metadata=auth.UserMetadata(1600000000000, 1600000001000),
                              provider_data=[auth.UserProvider(uid="g-one", provider_id="google.com")]),
        auth.ImportUserRecord(uid="imported-2", email="two@example.com", phone_number="+15555550103", disabled=True),
    ])
    assert result.success_count == 2 and result.failure_count == 0
    one = auth.get_user("imported-1")
    assert one.display_name == "One" and one.email_verified and one.custom_claims == {"plan": "pro"}
    assert one.user_metadata.creation_timestamp == 1600000000000
    assert [p.provider_id for p in one.provider_data] == ["google.com"]
    assert auth.get_user("imported-2").disabled
    # Hashed passwords: imported, kept, and not a password that signs in (no hash is computed here).
    hashed = auth.import_users([auth.ImportUserRecord(uid="hashed", email="hashed@example.com", password_hash=b"digest",
                                                      password_salt=b"salt")],
                               hash_alg=auth.UserImportHash.hmac_sha256(key=b"secret"))
    assert hashed.success_count == 1
    assert [p.provider_id for p in auth.get_user("hashed").provider_data] == ["password"]
    assert sign_in("hashed@example.com", "digest")[0] == 400
    # Firebase's emulator's own hash form carries its password.
    fake = auth.import_users([auth.ImportUserRecord(uid="fake", email="fake@example.com",
                                                    password_hash=b"fakeHash:salt=s1:password=imported-pw",
                                                    password_salt=b"s1")],
                             hash_alg=auth.UserImportHash.standard_scrypt(memory_cost=1024, parallelization=1, block_size=8, derived_key_length=64))
    assert fake.success_count == 1 and sign_in("fake@example.com", "imported-pw")[0] == 200
    # One bad user fails alone, by index.
    partial = auth.import_users([auth.ImportUserRecord(uid="fine"), auth.ImportUserRecord(uid="imported-1")])
    assert partial.success_count == 1 and partial.failure_count == 1
    assert partial.errors[0].index == 1 and "existing account" in partial.errors[0].reason
    admin = {"Authorization": "Bearer owner"}
    status, reply = call("POST", f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchCreate",
                         {"users": [{"localId": "x", "passwordHash": "aGFzaA=="}], "hashAlgorithm": "ROT13"}, admin)
    assert status == 400 and reply["error"]["message"] == "INVALID_HASH_ALGORITHM", reply


def check_delete_users():
    for uid in ["a1", "a2", "a3"]:
        auth.create_user(uid=uid)
    result = auth.delete_users(["a1", "a2", "never-there"])
    assert result.success_count == 3 and result.failure_count == 0
    assert [u.uid for u in auth.list_users().users] == ["a3"]
    # Without force, only disabled accounts go.
    admin = {"Authorization": "Bearer owner"}
    auth.create_user(uid="a4", disabled=True)
    status, reply = call("POST", f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchDelete",
                         {"localIds": ["a3", "a4"]}, admin)
    assert status == 200 and reply == {"errors": [
        {"index": 0, "localId": "a3", "message": "NOT_DISABLED : Disable the account before batch deletion."}]}, reply
    assert [u.uid for u in auth.list_users().users] == ["a3"]


def check_query():
    for uid, email in [("q1", "zed@example.com"), ("q2", "amy@example.com"), ("q3", "bob@example.com")]:
        auth.create_user(uid=uid, email=email)
    admin = {"Authorization": "Bearer owner"}
    path = f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:query"
    status, reply = call("POST", path, {}, admin)
    assert status == 200 and reply["recordsCount"] == "3" and [u["localId"] for u in reply["userInfo"]] == ["q1", "q2", "q3"]
    status, reply = call("POST", path, {"sortBy": "USER_EMAIL", "order": "DESC", "limit": "2"}, admin)
    assert [u["email"] for u in reply["userInfo"]] == ["zed@example.com", "bob@example.com"], reply
    status, reply = call("POST", path, {"expression": [{"email": "AMY@example.com"}, {"userId": "q3"}]}, admin)
    assert sorted(u["localId"] for u in reply["userInfo"]) == ["q2", "q3"], reply
    status, reply = call("POST", path, {"returnUserInfo": False}, admin)
    assert reply == {"recordsCount": "3"}, reply


def check_email_action_links():
    auth.create_user(uid="mailer", email="mailer@example.com", password="before-reset-1")
    settings = auth.ActionCodeSettings(url="https://example.com/finish", handle_code_in_app=True)
    link = auth.generate_password_reset_link("mailer@example.com", settings)
    assert "mode=resetPassword" in link and "continueUrl=https%3A%2F%2Fexample.com%2Ffinish" in link, link
    code = link.split("oobCode=")[1].split("&")[0]
    status, reply = app_call("resetPassword", {"oobCode": code, "newPassword": "after-reset-1"})
    assert status == 200 and reply["email"] == "mailer@example.com", reply
    assert sign_in("mailer@example.com", "after-reset-1")[0] == 200
    verify = auth.generate_email_verification_link("mailer@example.com")
    code = verify.split("oobCode=")[1].split("&")[0]
    assert app_call("update", {"oobCode": code})[0] == 200
    assert auth.get_user("mailer").email_verified
    sign_in_link = auth.generate_sign_in_with_email_link("new@example.com", settings)
    assert "mode=signIn" in sign_in_link
    code = sign_in_link.split("oobCode=")[1].split("&")[0]
    status, reply = app_call("signInWithEmailLink", {"oobCode": code, "email": "new@example.com"})
    assert status == 200 and reply["email"] == "new@example.com", reply
    raises(auth.EmailNotFoundError, auth.generate_password_reset_link, "nobody@example.com")
    raises(auth.UserNotFoundError, auth.generate_email_verification_link, "nobody@example.com")
    # An app may not ask for the link.
    status, reply = app_call("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "mailer@example.com",
                                             "returnOobLink": True})
    assert status == 400 and reply["error"]["message"] == "INSUFFICIENT_PERMISSION", reply


def check_tenants():
    admin = {"Authorization": "Bearer owner"}
    v2 = f"/identitytoolkit.googleapis.com/v2/projects/{PROJECT}/tenants"
    status, created = call("POST", v2, {"displayName": "team-blue", "allowPasswordSignup": True}, admin)
    assert status == 200 and created["displayName"] == "team-blue" and created["allowPasswordSignup"], created
    tenant_id = created["tenantId"]
    assert created["name"] == f"projects/{PROJECT}/tenants/{tenant_id}"
    status, patched = call("PATCH", f"{v2}/{tenant_id}?updateMask=displayName", {"displayName": "team-green"}, admin)
    assert patched["displayName"] == "team-green" and patched["allowPasswordSignup"], patched
    status, listed = call("GET", v2, None, admin)
    assert [t["tenantId"] for t in listed["tenants"]] == [tenant_id], listed
    # The SDK's tenant-aware client: its users live in the tenant only. (tenant_mgt.auth_for_tenant makes the same
    # client, but first its tenant service, which asks for Google credentials even with the emulator.)
    blue = auth.Client(firebase_admin.get_app(), tenant_id=tenant_id)
    user = blue.create_user(uid="t-user", email="t@example.com", password="tenant-pw-1")
    assert user.tenant_id == tenant_id
    assert blue.get_user("t-user").email == "t@example.com"
    raises(auth.UserNotFoundError, auth.get_user, "t-user")
    assert [u.uid for u in auth.list_users().users] == [], "the project's own users are apart"
    status, reply = app_call("signInWithPassword", {"email": "t@example.com", "password": "tenant-pw-1",
                                                    "tenantId": tenant_id, "returnSecureToken": True})
    assert status == 200, reply
    claims = blue.verify_id_token(reply["idToken"])
    assert claims["firebase"]["tenant"] == tenant_id
    assert [u.uid for u in blue.list_users().users] == ["t-user"]
    status, _ = call("DELETE", f"{v2}/{tenant_id}", None, admin)
    assert status == 200
    raises(auth.UserNotFoundError, blue.get_user, "t-user")


def check_verify_id_token():
    auth.create_user(uid="vera", email="vera@example.com", password="verified-1", display_name="Vera")
    auth.set_custom_user_claims("vera", {"role": "editor", "level": 3})
    status, reply = sign_in("vera@example.com", "verified-1")
    assert status == 200, reply
    claims = auth.verify_id_token(reply["idToken"])
    assert claims["uid"] == "vera" and claims["sub"] == "vera" and claims["user_id"] == "vera"
    assert claims["aud"] == PROJECT and claims["iss"] == f"https://securetoken.google.com/{PROJECT}"
    assert claims["email"] == "vera@example.com" and claims["email_verified"] is False and claims["name"] == "Vera"
    assert claims["role"] == "editor" and claims["level"] == 3
    assert claims["firebase"]["sign_in_provider"] == "password"
    assert claims["firebase"]["identities"] == {"email": ["vera@example.com"]}
    assert claims["exp"] > claims["iat"] and claims["auth_time"] <= claims["iat"]
    assert auth.verify_id_token(reply["idToken"], check_revoked=True)["uid"] == "vera"
    # Revoked: the token fails check_revoked, the refresh token no longer refreshes. Revocation counts in whole
    # seconds (validSince), so it is made in the second after the token's.
    time.sleep(max(0.0, claims["iat"] + 1 - time.time()) + 0.02)
    auth.revoke_refresh_tokens("vera")
    raises(auth.RevokedIdTokenError, auth.verify_id_token, reply["idToken"], check_revoked=True)
    status, refused = refresh(reply["refreshToken"])
    assert status == 400 and refused["error"]["message"] == "TOKEN_EXPIRED", refused
    # A custom token minted by the SDK itself signs in.
    custom = auth.create_custom_token("minted", {"tier": "gold"}).decode()
    status, reply = app_call("signInWithCustomToken", {"token": custom, "returnSecureToken": True})
    assert status == 200, reply
    claims = auth.verify_id_token(reply["idToken"])
    assert claims["uid"] == "minted" and claims["tier"] == "gold" and claims["firebase"]["sign_in_provider"] == "custom"
    auth.update_user("minted", disabled=True)
    raises(auth.UserDisabledError, auth.verify_id_token, reply["idToken"], check_revoked=True)


def check_refusals():
    path = f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:lookup"
    status, reply = call("POST", path, {"localId": ["x"]}, {"Authorization": "Bearer not-a-token"})
    assert status == 401 and reply["error"]["status"] == "UNAUTHENTICATED", reply
    status, reply = call("POST", path + "?key=fake-api-key", {"localId": ["x"]})
    assert status == 400 and reply["error"]["message"].startswith("INSUFFICIENT_PERMISSION"), reply
    status, reply = call("POST", path, {"localId": ["x"]})
    assert status == 403, reply
    admin = {"Authorization": "Bearer owner"}
    status, reply = call("POST", "/identitytoolkit.googleapis.com/v1/projects/another-project/accounts:lookup",
                         {"localId": ["x"]}, admin)
    assert status == 400 and "--project-id another-project" in reply["error"]["message"], reply
    status, reply = call("GET", path, None, admin)
    assert status == 405 and "not allowed" in reply["error"]["message"], reply
    status, reply = call("POST", f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:frobnicate", {}, admin)
    assert status == 404 and reply["error"]["status"] == "NOT_FOUND", reply
    status, reply = call("POST", path, raw=b'{"localId": [', headers=admin)
    assert status == 400 and reply["error"]["status"] == "INVALID_ARGUMENT", reply
    status, reply = call("POST", path, {"localId": "not-a-list-but-one"}, admin)
    assert status == 200 and "users" not in reply, reply
    status, reply = call("POST", path, {"localId": [1, 2]}, admin)
    assert status == 400 and reply["error"]["message"].startswith("INVALID_ARGUMENT"), reply


def check_emulator_endpoints():
    auth.create_user(uid="c1")
    base = f"/emulator/v1/projects/{PROJECT}"
    status, config = call("GET", f"{base}/config")
    assert status == 200 and config == {"signIn": {"allowDuplicateEmails": False},
                                        "emailPrivacyConfig": {"enableImprovedEmailPrivacy": False}}, config
    status, config = call("PATCH", f"{base}/config", {"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}})
    assert status == 200 and config["emailPrivacyConfig"]["enableImprovedEmailPrivacy"] is True, config
    status, reply = sign_in("nobody@example.com", "whatever-1")
    assert reply["error"]["message"] == "INVALID_LOGIN_CREDENTIALS", reply
    status, reply = call("PATCH", f"{base}/config", {"signIn": {"allowDuplicateEmails": True}})
    assert status == 200 and reply["signIn"] == {"allowDuplicateEmails": True}, reply
    assert reply["emailPrivacyConfig"]["enableImprovedEmailPrivacy"] is True, "the other setting is left as it was"
    status, reply = call("DELETE", f"{base}/accounts")
    assert status == 200 and reply == {}
    assert auth.list_users().users == []


def factors(user):
    """The SMS second factors of a user record as the SDK received them (`mfaInfo`): Python's firebase-admin has no
    multi-factor API (Node's has: `multiFactor.enrolledFactors`), and keeps the record it got."""
    return user._data.get("mfaInfo")  # pylint: disable=protected-access


def check_sms_factors():
    admin = {"Authorization": "Bearer owner"}
    accounts = f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts"
    # Node's createUser({phoneNumber, multiFactor: {enrolledFactors: [{phoneNumber, displayName, factorId: "phone"}]}}).
    status, reply = call("POST", accounts, {
        "localId": "sms", "email": "sms@example.com", "emailVerified": True, "password": "texted-1",
        "phoneNumber": "+15555550120", "mfaInfo": [{"phoneInfo": "+15555550121", "displayName": "Work phone"}]}, admin)
    assert status == 200, reply
    user = auth.get_user_by_phone_number("+15555550120")
    assert user.uid == "sms" and user.phone_number == "+15555550120"
    assert sorted(p.provider_id for p in user.provider_data) == ["password", "phone"]
    [factor] = factors(user)
    assert factor["phoneInfo"] == factor["unobfuscatedPhoneInfo"] == "+15555550121", factor
    assert factor["displayName"] == "Work phone" and factor["mfaEnrollmentId"] and factor["enrolledAt"].endswith("Z")
    # An app's sign-in asks for the factor, its number hidden; the code sent to it finishes the sign-in.
    status, pending = sign_in("sms@example.com", "texted-1")
    assert status == 200 and "idToken" not in pending and pending["mfaInfo"][0]["phoneInfo"] == "+*******0121", pending
    status, started = call("POST", "/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:start?key=fake-api-key", {
        "mfaPendingCredential": pending["mfaPendingCredential"], "mfaEnrollmentId": factor["mfaEnrollmentId"]})
    assert status == 200, started
    status, codes = call("GET", f"/emulator/v1/projects/{PROJECT}/verificationCodes")
    [code] = codes["verificationCodes"]
    assert code["phoneNumber"] == "+15555550121", code
    status, done = call("POST", "/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize?key=fake-api-key", {
        "mfaPendingCredential": pending["mfaPendingCredential"],
        "phoneVerificationInfo": {"sessionInfo": started["phoneResponseInfo"]["sessionInfo"], "code": code["code"]}})
    assert status == 200, done
    token = auth.verify_id_token(done["idToken"])
    assert token["firebase"]["sign_in_second_factor"] == "phone", token
    assert token["firebase"]["second_factor_identifier"] == factor["mfaEnrollmentId"], token
    assert token["phone_number"] == "+15555550120", token

    # Node's updateUser({multiFactor: {enrolledFactors}}) replaces the factors; the SDK's own updates keep them.
    enrolled = {"mfaEnrollmentId": factor["mfaEnrollmentId"], "phoneInfo": "+15555550122", "displayName": "Home",
                "enrolledAt": "2024-01-02T03:04:05.678Z"}
    status, reply = call("POST", accounts + ":update", {"localId": "sms", "mfa": {"enrollments": [enrolled]}}, admin)
    assert status == 200, reply
    user = auth.update_user("sms", display_name="Texted", phone_number="+15555550129")
    assert user.display_name == "Texted" and user.phone_number == "+15555550129"
    assert [(f["phoneInfo"], f["displayName"], f["enrolledAt"]) for f in factors(user)] == [
        ("+15555550122", "Home", "2024-01-02T03:04:05.678Z")], factors(user)
    raises(auth.UserNotFoundError, auth.get_user_by_phone_number, "+15555550120")
    assert auth.get_user_by_phone_number("+15555550129").uid == "sms"
    status, reply = call("POST", accounts + ":update", {"localId": "sms", "mfa": {"enrollments": [{"phoneInfo": "555"}]}},
                         admin)
    assert status == 400 and reply["error"]["message"] == "INVALID_MFA_PHONE_NUMBER : Invalid format.", reply

    # Imports: the SDK's phone numbers, and Node's importUsers([{multiFactor}]) as batchCreate's mfaInfo.
    result = auth.import_users([auth.ImportUserRecord(uid="imported-phone", phone_number="+15555550123")])
    assert result.success_count == 1 and auth.get_user_by_phone_number("+15555550123").uid == "imported-phone"
    status, reply = call("POST", accounts + ":batchCreate", {"users": [{
        "localId": "imported-sms", "email": "imported@example.com", "emailVerified": True,
        "mfaInfo": [{"mfaEnrollmentId": "f1", "phoneInfo": "+15555550124", "displayName": "Pager",
                     "enrolledAt": "2023-04-05T06:07:08.090Z"}]}]}, admin)
    assert status == 200 and not reply.get("error"), reply

    # Exports: list_users hands every user out with its phone number and factors, as downloadAccount lists them.
    listed = {u.uid: u for u in auth.list_users().iterate_all()}
    assert sorted(listed) == ["imported-phone", "imported-sms", "sms"], sorted(listed)
    assert listed["imported-phone"].phone_number == "+15555550123" and factors(listed["imported-phone"]) is None
    assert factors(listed["imported-sms"]) == [{
        "mfaEnrollmentId": "f1", "phoneInfo": "+15555550124", "unobfuscatedPhoneInfo": "+15555550124",
        "displayName": "Pager", "enrolledAt": "2023-04-05T06:07:08.090Z"}], factors(listed["imported-sms"])

    # Node's enrolledFactors: null, an empty list: no factor left, and the sign-in needs none.
    status, reply = call("POST", accounts + ":update", {"localId": "sms", "mfa": {}}, admin)
    assert status == 200 and factors(auth.get_user("sms")) is None, reply
    status, reply = sign_in("sms@example.com", "texted-1")
    assert status == 200 and "idToken" in reply, reply


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *arguments, **keywords):
        return None


def browse(url):
    """A browser's GET that stops at a redirect instead of following it: (status, Location, page)."""
    try:
        with urllib.request.build_opener(_NoRedirect).open(url, timeout=10) as reply:
            return reply.status, None, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Location"), error.read().decode()


class IdpPage(html.parser.HTMLParser):
    """The emulator's identity provider page as a browser without JavaScript sees it: the accounts' links, the
    new-account form's action and hidden fields."""

    def __init__(self, page):
        super().__init__()
        self.accounts, self.action, self.fields = [], None, {}
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "a" and attributes.get("class") == "account":
            self.accounts.append(attributes["href"])
        elif tag == "form":
            self.action = attributes["action"]
        elif tag == "input" and attributes.get("type") == "hidden":
            self.fields[attributes["name"]] = attributes["value"]


def check_idp_sign_in():
    continue_uri = "http://localhost:54321/callback"  # the app's loopback listener; the browser stops at the redirect
    begin = {"providerId": "microsoft.com", "continueUri": continue_uri}
    status, begun = app_call("createAuthUri", begin)
    assert status == 200 and begun["providerId"] == "microsoft.com" and begun["sessionId"], begun
    status, _, page = browse(begun["authUri"])
    form = IdpPage(page)
    assert status == 200 and form.accounts == [] and "state" in form.fields, page
    answer = urllib.parse.urlencode({**form.fields, "email": "ada@example.com", "displayName": "Ada Lovelace"})
    status, location, _ = browse(urllib.parse.urljoin(begun["authUri"], form.action) + "?" + answer)
    assert status == 302 and location.startswith(continue_uri + "?code="), (status, location)
    status, signed_in = app_call("signInWithIdp", {"requestUri": location, "sessionId": begun["sessionId"], "returnSecureToken": True})
    assert status == 200 and signed_in["isNewUser"] is True, signed_in

    user = auth.get_user(signed_in["localId"])
    assert user.email == "ada@example.com" and user.display_name == "Ada Lovelace" and user.email_verified
    assert [(p.provider_id, p.uid, p.email) for p in user.provider_data] == [
        ("microsoft.com", signed_in["federatedId"], "ada@example.com")], user.provider_data
    found = auth.get_users([auth.ProviderIdentifier("microsoft.com", signed_in["federatedId"])])
    assert [u.uid for u in found.users] == [user.uid]
    token = auth.verify_id_token(signed_in["idToken"])
    assert token["uid"] == user.uid and token["firebase"]["sign_in_provider"] == "microsoft.com", token

    # The next sign-in chooses the listed account and is the same user.
    status, begun = app_call("createAuthUri", begin)
    status, _, page = browse(begun["authUri"])
    listed = IdpPage(page).accounts
    assert len(listed) == 1 and "Ada Lovelace" in page, page
    status, location, _ = browse(urllib.parse.urljoin(begun["authUri"], listed[0]))
    status, again = app_call("signInWithIdp", {"requestUri": location, "sessionId": begun["sessionId"], "returnSecureToken": True})
    assert status == 200 and again["localId"] == user.uid and again["isNewUser"] is False, again
    status, replayed = app_call("signInWithIdp", {"requestUri": location, "sessionId": begun["sessionId"]})
    assert status == 400 and replayed["error"]["message"].startswith("INVALID_IDP_RESPONSE"), replayed
    assert len(auth.list_users().users) == 1


ACTIONS = {
    "disable": lambda uid, _: auth.update_user(uid, disabled=True),
    "enable": lambda uid, _: auth.update_user(uid, disabled=False),
    "revoke": lambda uid, _: auth.revoke_refresh_tokens(uid),
    "delete": lambda uid, _: auth.delete_user(uid),
    "claims": lambda uid, claims: auth.set_custom_user_claims(uid, json.loads(claims)),
}

CHECKS = {name[len("check_"):]: function for name, function in globals().items() if name.startswith("check_")}

if __name__ == "__main__":
    # `act ACTION UID [CLAIMS]`: one thing a backend does to a user, for the tests of what apps then see.
    if len(sys.argv) >= 4 and sys.argv[1] == "act" and sys.argv[2] in ACTIONS:
        firebase_admin.initialize_app(options={"projectId": PROJECT})
        ACTIONS[sys.argv[2]](sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
        print(f"done {sys.argv[2]}")
        sys.exit(0)
    if len(sys.argv) != 2 or sys.argv[1] not in CHECKS:
        print("\n".join(CHECKS))
        sys.exit(0 if len(sys.argv) == 1 else 2)
    assert HOST and PROJECT, "set FIREBASE_AUTH_EMULATOR_HOST and GOOGLE_CLOUD_PROJECT"
    firebase_admin.initialize_app(options={"projectId": PROJECT})
    CHECKS[sys.argv[1]]()
    print(f"ok {sys.argv[1]}")
