"""firebase-tools src/emulator/auth/batch.spec.ts: accounts:batchGet, accounts:batchCreate, accounts:batchDelete
(and their legacy v3 forms downloadAccount / uploadAccount)."""

from specs import (IDENTITY, PROJECT_ID, SpecFailure, TEST_PHONE_NUMBER, decode_jwt_payload, enroll_phone_mfa,
                   expect_equal, expect_error, expect_field, expect_includes, expect_members, expect_no_field,
                   expect_status, expect_true, get_account_info_by_id_token, get_account_info_by_local_id,
                   get_signin_methods, register_anon_user, register_tenant, register_user, sign_in_with_email_link,
                   sign_in_with_fake_claims, sign_in_with_password, sign_in_with_phone_number, spec,
                   update_account_by_local_id)

it = spec("batch.spec.ts")
BATCH_GET = f"{IDENTITY}/projects/{PROJECT_ID}/accounts:batchGet"
BATCH_CREATE = f"{IDENTITY}/projects/{PROJECT_ID}/accounts:batchCreate"
BATCH_DELETE = f"{IDENTITY}/projects/{PROJECT_ID}/accounts:batchDelete"
DOWNLOAD_ACCOUNT = "/www.googleapis.com/identitytoolkit/v3/relyingparty/downloadAccount"


def _admin_post(api, path, body):
    return api.post(path, body, key=None, owner=True)


def _batch_get(api, query=None, path=BATCH_GET):
    return api.get(path, key=None, owner=True, query=query)


def _expect_users(res, count):
    users = res.body.get("users") if isinstance(res.body, dict) else None
    expect_true(isinstance(users, list) and len(users) == count, f"expected {count} users, got {res.text[:400]}")
    return users


def _expect_no_entry_errors(res, name="error"):
    """`expect(res.body.error || []).to.have.length(0)` with a 200."""
    expect_status(200, res)
    entries = res.body.get(name) if isinstance(res.body, dict) else None
    expect_true(not entries or entries == [], f"expected no {name} entries, got {entries!r}")


def _two_users(api):
    user1 = register_anon_user(api)
    user2 = register_user(api, {"email": "foo@example.com", "password": "foobar"})
    return user1, user2


# MARK: accounts:batchGet


@it("should allow listing all accounts")
def _(api):
    user1, user2 = _two_users(api)
    res = _batch_get(api)
    expect_status(200, res)
    users = _expect_users(res, 2)
    expect_members([u.get("localId") for u in users], [user1["localId"], user2["localId"]], "localIds")
    expect_no_field(res.body, "nextPageToken")


@it("should return MFA info")
def _(api):
    user1 = sign_in_with_email_link(api, "test@example.com")
    enroll_phone_mfa(api, user1["idToken"], TEST_PHONE_NUMBER)
    res = _batch_get(api)
    expect_status(200, res)
    factor = (_expect_users(res, 1)[0].get("mfaInfo") or [None])[0]
    # The spec's fake clock stands at 0 (1970-01-01T00:00:00.000Z); here enrolledAt is the real time, in that form.
    enrolled_at = factor.get("enrolledAt") if isinstance(factor, dict) else None
    if not (isinstance(enrolled_at, str) and len(enrolled_at) == 24 and enrolled_at.endswith("Z") and enrolled_at[19] == "."):
        raise SpecFailure(f"expected enrolledAt as YYYY-MM-DDTHH:MM:SS.sssZ, got {enrolled_at!r}")
    expect_includes(factor, {"phoneInfo": TEST_PHONE_NUMBER, "unobfuscatedPhoneInfo": TEST_PHONE_NUMBER}, "mfaInfo[0]")


@it("should allow listing all accounts using legacy endpoint")
def _(api):
    user1, user2 = _two_users(api)
    res = _admin_post(api, DOWNLOAD_ACCOUNT, {"targetProjectId": PROJECT_ID})
    expect_status(200, res)
    users = _expect_users(res, 2)
    expect_members([u.get("localId") for u in users], [user1["localId"], user2["localId"]], "localIds")
    expect_no_field(res.body, "nextPageToken")


@it("should allow specifying maxResults and pagination")
def _(api):
    user1, user2 = _two_users(api)
    local_ids = sorted([user1["localId"], user2["localId"]])

    res = _batch_get(api, {"maxResults": 1})
    expect_status(200, res)
    expect_equal(_expect_users(res, 1)[0].get("localId"), local_ids[0], "first page's localId")
    next_page_token = expect_field(res.body, "nextPageToken", kind=str)

    res = _batch_get(api, {"nextPageToken": next_page_token})
    expect_status(200, res)
    expect_equal(_expect_users(res, 1)[0].get("localId"), local_ids[1], "second page's localId")
    expect_no_field(res.body, "nextPageToken")

    res = _admin_post(api, DOWNLOAD_ACCOUNT, {"targetProjectId": PROJECT_ID, "nextPageToken": next_page_token})
    expect_status(200, res)
    expect_equal(_expect_users(res, 1)[0].get("localId"), max(user1["localId"], user2["localId"]),
                 "legacy second page's localId")
    expect_no_field(res.body, "nextPageToken")


@it("should always return a page token if page is full")
def _(api):
    user1, user2 = _two_users(api)
    local_ids = sorted([user1["localId"], user2["localId"]])

    res = _batch_get(api, {"maxResults": 2})
    expect_status(200, res)
    users = _expect_users(res, 2)
    expect_equal([users[0].get("localId"), users[1].get("localId")], local_ids, "localIds in order")
    next_page_token = expect_field(res.body, "nextPageToken", kind=str)

    res = _batch_get(api, {"nextPageToken": next_page_token})
    expect_status(200, res)
    expect_equal(len(res.body.get("users") or []), 0, "number of users on the empty page")
    expect_no_field(res.body, "nextPageToken")


@it("should error if auth is disabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": True})
    res = _batch_get(api, path=f"{IDENTITY}/projects/{PROJECT_ID}/tenants/{tenant.get('tenantId')}/accounts:batchGet")
    expect_status(400, res)
    expect_true("PROJECT_DISABLED" in (res.error_message or ""),
                f"expected an error message including 'PROJECT_DISABLED', got {res.error_message!r}")


# MARK: accounts:batchCreate

@it("should create specified accounts")
def _(api):
    user1 = {"localId": "foo", "email": "foo@example.com", "rawPassword": "notasecret"}
    user2 = {"localId": "bar", "phoneNumber": TEST_PHONE_NUMBER, "customAttributes": '{"hello": "world"}'}
    _expect_no_entry_errors(_admin_post(api, BATCH_CREATE, {"users": [user1, user2]}))
    expect_equal(get_signin_methods(api, user1["email"]), ["password"], "signinMethods")
    signed_in = sign_in_with_phone_number(api, user2["phoneNumber"])
    expect_equal(signed_in.get("localId"), user2["localId"], "localId signed in")
    expect_equal(decode_jwt_payload(signed_in["idToken"]).get("hello"), "world", "custom claim hello")


@it("should create specified accounts via legacy endpoint")
def _(api):
    user1 = {"localId": "foo", "email": "foo@example.com", "rawPassword": "notasecret"}
    user2 = {"localId": "bar", "phoneNumber": TEST_PHONE_NUMBER}
    res = _admin_post(api, "/www.googleapis.com/identitytoolkit/v3/relyingparty/uploadAccount",
                      {"users": [user1, user2], "targetProjectId": PROJECT_ID})
    _expect_no_entry_errors(res)
    expect_equal(get_signin_methods(api, user1["email"]), ["password"], "signinMethods")
    expect_equal(sign_in_with_phone_number(api, user2["phoneNumber"]).get("localId"), user2["localId"], "localId signed in")


@it("should error if users is empty or missing")
def _(api):
    expect_error(_admin_post(api, BATCH_CREATE, {"users": []}), 400, "MISSING_USER_ACCOUNT")
    expect_error(_admin_post(api, BATCH_CREATE, {}), 400, "MISSING_USER_ACCOUNT")


@it("should convert emails to lowercase")
def _(api):
    user = {"localId": "foo", "email": "FOO@EXAMPLE.COM", "rawPassword": "notasecret"}
    _expect_no_entry_errors(_admin_post(api, BATCH_CREATE, {"users": [user]}))
    info = get_account_info_by_local_id(api, user["localId"])
    expect_equal(info.get("email"), "foo@example.com", "email")


@it("should accept Auth Emulator fake passwordHash from request",
    differs="lookups never hand out a password or its hash (firebase-tools echoes passwordHash and salt)")
def _(api):
    password, salt = "hawaii", "beach"
    user = {"localId": "foo", "email": "FOO@EXAMPLE.COM", "salt": salt,
            "passwordHash": f"fakeHash:salt={salt}:password={password}"}
    _expect_no_entry_errors(_admin_post(api, BATCH_CREATE, {"users": [user]}))
    info = get_account_info_by_local_id(api, user["localId"])
    expect_no_field(info, "passwordHash")
    expect_no_field(info, "salt")
    signed_in = sign_in_with_password(api, user["email"], password)
    expect_equal(signed_in.get("localId"), user["localId"], "localId signed in")


it.skip("should reject production passwordHash", "skipped in firebase-tools itself (it.skip)")


@it("should error for duplicate emails in payload if sanityCheck is true")
def _(api):
    res = _admin_post(api, BATCH_CREATE, {"sanityCheck": True, "users": [
        {"localId": "test1", "email": "foo@example.com"},
        {"localId": "test2", "email": "foo@example.com"},
    ]})
    expect_error(res, 400, "DUPLICATE_EMAIL : foo@example.com")


@it("should block reusing existing email if sanityCheck is true")
def _(api):
    user = sign_in_with_email_link(api, "bar@example.com")
    res = _admin_post(api, BATCH_CREATE, {"sanityCheck": True, "users": [{"localId": "test1", "email": user["email"]}]})
    expect_status(200, res)
    expect_equal(res.body.get("error"), [{"index": 0, "message": "email exists in other account in database"}], "error")


@it("should error for duplicate providerId+rawIds in payload if sanityCheck is true")
def _(api):
    res = _admin_post(api, BATCH_CREATE, {"sanityCheck": True, "users": [
        {"localId": "test1", "providerUserInfo": [{"providerId": "google.com", "rawId": "dup"}]},
        {"localId": "test2", "providerUserInfo": [{"providerId": "google.com", "rawId": "dup"}]},
    ]})
    expect_error(res, 400, "DUPLICATE_RAW_ID : Provider id(google.com), Raw id(dup)")


@it("should block reusing exisiting providerId+rawIds if sanityCheck is true")
def _(api):
    provider_id, raw_id = "google.com", "0123456"
    sign_in_with_fake_claims(api, provider_id, {"sub": raw_id})
    res = _admin_post(api, BATCH_CREATE, {"sanityCheck": True, "users": [
        {"localId": "test1", "providerUserInfo": [{"providerId": provider_id, "rawId": raw_id}]},
    ]})
    expect_status(200, res)
    expect_equal(res.body.get("error"), [{"index": 0, "message": "raw id exists in other account in database"}], "error")


@it("should block duplicate localIds by default")
def _(api):
    res = _admin_post(api, BATCH_CREATE, {"users": [{"localId": "test1"}, {"localId": "test1"}]})
    expect_error(res, 400, "DUPLICATE_LOCAL_ID : test1")

    local_id = register_anon_user(api)["localId"]
    res = _admin_post(api, BATCH_CREATE, {"users": [{"localId": local_id}]})
    expect_status(200, res)
    expect_equal(res.body.get("error"),
                 [{"index": 0, "message": "localId belongs to an existing account - can not overwrite."}], "error")


@it("should not error for empty MFA info")
def _(api):
    _expect_no_entry_errors(_admin_post(api, BATCH_CREATE, {"users": [{"localId": "test1", "mfaInfo": []}]}))


@it("should return error for individual invalid entries")
def _(api):
    long_string = "x" * 998
    res = _admin_post(api, BATCH_CREATE, {"users": [
        {"email": "foo@example.com"},
        {"localId": "test1"},
        {"localId": "test2", "email": "not#an$email"},
        {"localId": "test3", "phoneNumber": "not#a$phone%number"},
        {"localId": "test4", "customAttributes": "not#a$json%object"},
        {"localId": "test5", "customAttributes": '{"sub": "123"}'},
        {"localId": "test6", "customAttributes": '{"a":"' + long_string + '"}'},
        {"localId": "test7", "providerUserInfo": [{"providerId": "google.com"}]},
        {"localId": "test8", "providerUserInfo": [{"rawId": "012345"}]},
        {"localId": "test9", "providerUserInfo": [{"federatedId": "foo-bar"}]},
        {"localId": "test10", "mfaInfo": [{"phoneInfo": TEST_PHONE_NUMBER}]},
        {"localId": "test11", "email": "someone@example.com", "mfaInfo": [{"phoneInfo": TEST_PHONE_NUMBER}]},
    ]})
    expect_status(200, res)
    expect_equal(res.body.get("error"), [
        {"index": 0, "message": "localId is missing"},
        {"index": 2, "message": "email is invalid"},
        {"index": 3, "message": "phone number format is invalid"},
        {"index": 4, "message": "Invalid custom claims provided."},
        {"index": 5, "message": "Custom claims provided include a reserved claim."},
        {"index": 6, "message": "Custom claims provided are too large."},
        {"index": 7, "message": "federatedId or (providerId & rawId) is required"},
        {"index": 8, "message": "federatedId or (providerId & rawId) is required"},
        {"index": 9, "message": "((Parsing federatedId is not implemented in Auth Emulator; "
                                "please specify providerId AND rawId as a workaround.))"},
        {"index": 10, "message": "Second factor account requires email to be presented."},
        {"index": 11, "message": "Second factor account requires email to be verified."},
    ], "error")


@it("should overwrite users with matching localIds if allowOverwrite")
def _(api):
    old1 = sign_in_with_fake_claims(api, "google.com", {"sub": "doh"})
    old2 = register_user(api, {"email": "bar@example.com", "password": "hawaii", "displayName": "Old Display Name"})
    user1 = {"localId": old1["localId"], "email": "foo@example.com", "rawPassword": "notasecret"}
    user2 = {"localId": old2["localId"], "phoneNumber": TEST_PHONE_NUMBER, "displayName": "New Display Name"}
    _expect_no_entry_errors(_admin_post(api, BATCH_CREATE, {"users": [user1, user2], "allowOverwrite": True}))
    info1 = get_account_info_by_local_id(api, user1["localId"])
    expect_equal(info1.get("email"), user1["email"], "email")
    # The google.com identity is gone: the new user info has none.
    expect_equal(info1.get("providerUserInfo"), [{"providerId": "password", "rawId": "foo@example.com",
                                                  "email": "foo@example.com", "federatedId": "foo@example.com"}],
                 "providerUserInfo")
    signed_in = sign_in_with_phone_number(api, user2["phoneNumber"])
    expect_equal(signed_in.get("localId"), user2["localId"], "localId signed in")
    info2 = get_account_info_by_id_token(api, signed_in["idToken"])
    expect_true(not info2.get("email"), f"expected no email, got {info2.get('email')!r}")
    expect_true(not info2.get("passwordHash"), "expected no passwordHash")
    expect_equal(info2.get("displayName"), user2["displayName"], "displayName")


@it("should import identity provider info")
def _(api):
    email, provider_id, raw_id = "foo@example.com", "google.com", "0123456"
    user1 = {"localId": "foo", "email": email,
             "providerUserInfo": [{"providerId": provider_id, "rawId": raw_id, "displayName": "Foo", "email": email}]}
    _expect_no_entry_errors(_admin_post(api, BATCH_CREATE, {"users": [user1]}))
    expect_equal(get_signin_methods(api, email), [provider_id], "signinMethods")
    signed_in = sign_in_with_fake_claims(api, provider_id, {"sub": raw_id})
    expect_equal(signed_in.get("localId"), user1["localId"], "localId signed in")


@it("should import MFA info")
def _(api):
    enrolled_at = "2123-04-05T06:07:28.990Z"
    user1 = {"localId": "foo", "email": "foo@example.com", "emailVerified": True,
             "mfaInfo": [{"enrolledAt": enrolled_at, "phoneInfo": TEST_PHONE_NUMBER}]}
    _expect_no_entry_errors(_admin_post(api, BATCH_CREATE, {"users": [user1]}))
    mfa_info = get_account_info_by_local_id(api, user1["localId"]).get("mfaInfo") or []
    expect_equal(len(mfa_info), 1, "number of mfaInfo entries")
    expect_includes(mfa_info[0], {"enrolledAt": enrolled_at, "phoneInfo": TEST_PHONE_NUMBER,
                                  "unobfuscatedPhoneInfo": TEST_PHONE_NUMBER}, "mfaInfo[0]")
    # An enrollment ID is made when none is given.
    expect_true(isinstance(mfa_info[0].get("mfaEnrollmentId"), str) and mfa_info[0]["mfaEnrollmentId"], "mfaEnrollmentId")


@it("should error if auth is disabled (2)")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": True})
    res = _admin_post(api, BATCH_CREATE, {"tenantId": tenant.get("tenantId")})
    expect_status(400, res)
    expect_true("PROJECT_DISABLED" in (res.error_message or ""),
                f"expected an error message including 'PROJECT_DISABLED', got {res.error_message!r}")


@it("should error if user tenantId does not match state tenantId")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": False})
    res = _admin_post(api, BATCH_CREATE, {"tenantId": tenant.get("tenantId"),
                                          "users": [{"localId": "test1", "tenantId": "not-matching-tenant-id"}]})
    expect_status(200, res)
    expect_equal(res.body.get("error"),
                 [{"index": 0, "message": "Tenant id in userInfo does not match the tenant id in request."}], "error")


@it("should create users with tenantId if present")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": False})
    user = {"localId": "foo", "email": "me@example.com", "rawPassword": "notasecret"}
    _expect_no_entry_errors(_admin_post(api, BATCH_CREATE, {"tenantId": tenant.get("tenantId"), "users": [user]}))
    info = get_account_info_by_local_id(api, user["localId"], tenant.get("tenantId"))
    expect_equal(info.get("tenantId"), tenant.get("tenantId"), "tenantId")


# MARK: accounts:batchDelete


def _two_users_one_disabled(api, disable_both):
    user1 = register_anon_user(api)
    user2 = register_user(api, {"email": "foobar@example.com", "password": "barbaz"})
    if disable_both:
        update_account_by_local_id(api, user1["localId"], {"disableUser": True})
    update_account_by_local_id(api, user2["localId"], {"disableUser": True})
    return user1, user2


@it("should delete specified disabled accounts")
def _(api):
    user1, user2 = _two_users_one_disabled(api, disable_both=True)
    res = _admin_post(api, BATCH_DELETE, {"localIds": [user1["localId"], user2["localId"]]})
    _expect_no_entry_errors(res, "errors")


@it("should error for accounts not disabled")
def _(api):
    user1, user2 = _two_users_one_disabled(api, disable_both=False)
    res = _admin_post(api, BATCH_DELETE, {"localIds": [user1["localId"], user2["localId"]]})
    expect_status(200, res)
    expect_equal(res.body.get("errors"), [{"index": 0, "localId": user1["localId"],
                                           "message": "NOT_DISABLED : Disable the account before batch deletion."}],
                 "errors")


@it("should delete disabled and not disabled accounts with force: true")
def _(api):
    user1, user2 = _two_users_one_disabled(api, disable_both=False)
    res = _admin_post(api, BATCH_DELETE, {"localIds": [user1["localId"], user2["localId"]], "force": True})
    _expect_no_entry_errors(res, "errors")


@it("should not report errors for nonexistent localIds")
def _(api):
    _expect_no_entry_errors(_admin_post(api, BATCH_DELETE, {"localIds": ["nosuch", "nosuch2"]}), "errors")
    _expect_no_entry_errors(_admin_post(api, BATCH_DELETE, {"localIds": ["nosuch", "nosuch2"], "force": True}), "errors")


@it("should error if localIds array is empty")
def _(api):
    expect_error(_admin_post(api, BATCH_DELETE, {"localIds": [], "force": True}), 400, "LOCAL_ID_LIST_EXCEEDS_LIMIT")


@it("should error if localId count is more than limit")
def _(api):
    local_ids = [f"localId-{i}" for i in range(1000)]
    _expect_no_entry_errors(_admin_post(api, BATCH_DELETE, {"localIds": local_ids, "force": True}), "errors")
    local_ids.append("extraOne")
    expect_error(_admin_post(api, BATCH_DELETE, {"localIds": local_ids, "force": True}), 400,
                 "LOCAL_ID_LIST_EXCEEDS_LIMIT")
