"""firebase-tools src/emulator/auth/batch.spec.ts: accounts:batchGet, accounts:batchCreate, accounts:batchDelete
(and their legacy v3 forms downloadAccount / uploadAccount)."""

from specs import (IDENTITY, PROJECT_ID, expect_equal, expect_error, expect_field, expect_members, expect_no_field,
                   expect_status, expect_true, get_account_info_by_local_id, get_signin_methods, register_anon_user,
                   register_tenant, register_user, sign_in_with_email_link, sign_in_with_fake_claims,
                   sign_in_with_password, spec, update_account_by_local_id)

it = spec("batch.spec.ts")
BATCH_GET = f"{IDENTITY}/projects/{PROJECT_ID}/accounts:batchGet"
BATCH_CREATE = f"{IDENTITY}/projects/{PROJECT_ID}/accounts:batchCreate"
BATCH_DELETE = f"{IDENTITY}/projects/{PROJECT_ID}/accounts:batchDelete"
DOWNLOAD_ACCOUNT = "/www.googleapis.com/identitytoolkit/v3/relyingparty/downloadAccount"
TEST_PHONE_NUMBER = "+15555550100"
PHONE = "phone sign-in is not offered by this emulator"


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


it.skip("should return MFA info", PHONE)


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

it.skip("should create specified accounts", PHONE)
it.skip("should create specified accounts via legacy endpoint", PHONE)


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


it.skip("should overwrite users with matching localIds if allowOverwrite", PHONE)


@it("should import identity provider info")
def _(api):
    email, provider_id, raw_id = "foo@example.com", "google.com", "0123456"
    user1 = {"localId": "foo", "email": email,
             "providerUserInfo": [{"providerId": provider_id, "rawId": raw_id, "displayName": "Foo", "email": email}]}
    _expect_no_entry_errors(_admin_post(api, BATCH_CREATE, {"users": [user1]}))
    expect_equal(get_signin_methods(api, email), [provider_id], "signinMethods")
    signed_in = sign_in_with_fake_claims(api, provider_id, {"sub": raw_id})
    expect_equal(signed_in.get("localId"), user1["localId"], "localId signed in")


it.skip("should import MFA info", PHONE)


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
