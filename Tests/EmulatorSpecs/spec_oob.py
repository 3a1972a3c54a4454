"""firebase-tools src/emulator/auth/oob.spec.ts: accounts:sendOobCode, and accounts:resetPassword's code lookup."""

from specs import expect_id_token_expired, pass_a_second_boundary
from specs import (IDENTITY, PROJECT_ID, expect_equal, expect_error, expect_field, expect_no_field, expect_status,
                   inspect_oobs, register_anon_user, register_tenant, register_user, spec, update_account_by_local_id,
                   update_config)

it = spec("oob.spec.ts")
PATH = IDENTITY + "/accounts:sendOobCode"
RESET_PASSWORD = IDENTITY + "/accounts:resetPassword"
UPDATE = IDENTITY + "/accounts:update"
OOB_KIND = "identitytoolkit#GetOobConfirmationCodeResponse"


def _expect_no_oobs(api):
    expect_equal(len(inspect_oobs(api)), 0, "number of oob codes")


def _expect_code_and_link(res, email):
    """An answer to a request with `returnOobLink`: the address, the code and the link."""
    expect_status(200, res)
    expect_equal(res.body.get("email"), email, "email")
    expect_field(res.body, "oobCode", kind=str)
    expect_field(res.body, "oobLink", kind=str)


@it("should generate OOB code for verify email")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret"}
    registered = register_user(api, user)
    res = api.post(PATH, {"idToken": registered["idToken"], "requestType": "VERIFY_EMAIL"})
    expect_status(200, res)
    expect_equal(res.body.get("email"), user["email"], "email")
    expect_no_field(res.body, "oobCode")
    expect_no_field(res.body, "oobLink")

    oobs = inspect_oobs(api)
    expect_equal(len(oobs), 1, "number of oob codes")
    expect_equal(oobs[0].get("email"), user["email"], "oob email")
    expect_equal(oobs[0].get("requestType"), "VERIFY_EMAIL", "oob requestType")

    res = api.post(UPDATE, {"oobCode": oobs[0].get("oobCode")})
    expect_status(200, res)
    expect_equal(res.body.get("localId"), registered["localId"], "localId")
    expect_equal(res.body.get("email"), user["email"], "email")
    expect_equal(res.body.get("emailVerified"), True, "emailVerified")

    _expect_no_oobs(api)


@it("should return OOB code directly for requests with OAuth 2")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret"}
    register_user(api, user)
    for request_type in ("PASSWORD_RESET", "VERIFY_EMAIL"):
        res = api.post(PATH, {"email": user["email"], "requestType": request_type, "returnOobLink": True},
                       key=None, owner=True)
        _expect_code_and_link(res, user["email"])
    res = api.post(PATH, {"email": user["email"], "newEmail": "bob@example.com",
                          "requestType": "VERIFY_AND_CHANGE_EMAIL", "returnOobLink": True}, key=None, owner=True)
    _expect_code_and_link(res, user["email"])


@it("should return OOB code by idToken for OAuth 2 requests as well")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret"}
    id_token = register_user(api, user)["idToken"]
    res = api.post(PATH, {"idToken": id_token, "requestType": "VERIFY_EMAIL", "returnOobLink": True},
                   key=None, owner=True)
    _expect_code_and_link(res, user["email"])
    res = api.post(PATH, {"email": user["email"], "newEmail": "bob@example.com", "idToken": id_token,
                          "requestType": "VERIFY_AND_CHANGE_EMAIL", "returnOobLink": True}, key=None, owner=True)
    _expect_code_and_link(res, user["email"])


@it("should error when trying to verify email without idToken or email")
def _(api):
    register_user(api, {"email": "alice@example.com", "password": "notasecret"})
    expect_error(api.post(PATH, {"idToken": "hoge", "requestType": "VERIFY_EMAIL"}), 400, "INVALID_ID_TOKEN")
    res = api.post(PATH, {"returnOobLink": True, "requestType": "VERIFY_EMAIL"}, key=None, owner=True)
    expect_error(res, 400, "MISSING_EMAIL")
    _expect_no_oobs(api)


@it("should error when trying to verify email without idToken if not returnOobLink")
def _(api):
    user = register_user(api, {"email": "alice@example.com", "password": "notasecret"})
    # The address is not looked at without returnOobLink.
    expect_error(api.post(PATH, {"email": user["email"], "requestType": "VERIFY_EMAIL"}), 400, "INVALID_ID_TOKEN")
    _expect_no_oobs(api)


@it("should error when trying to verify email not associated with any user")
def _(api):
    res = api.post(PATH, {"email": "nosuchuser@example.com", "returnOobLink": True, "requestType": "VERIFY_EMAIL"},
                   key=None, owner=True)
    expect_error(res, 400, "USER_NOT_FOUND")
    _expect_no_oobs(api)


@it("should error when verifying email for accounts without email")
def _(api):
    id_token = register_anon_user(api)["idToken"]
    expect_error(api.post(PATH, {"idToken": id_token, "requestType": "VERIFY_EMAIL"}), 400, "MISSING_EMAIL")
    _expect_no_oobs(api)


@it("should error if user is disabled")
def _(api):
    user = register_user(api, {"email": "foo@example.com", "password": "foobar"})
    update_account_by_local_id(api, user["localId"], {"disableUser": True})
    res = api.post(PATH, {"email": user["email"], "idToken": user["idToken"], "requestType": "VERIFY_EMAIL"})
    expect_error(res, 400, "USER_DISABLED")


@it("should error when continueUrl is invalid")
def _(api):
    id_token = register_user(api, {"email": "alice@example.com", "password": "notasecret"})["idToken"]
    res = api.post(PATH, {"idToken": id_token, "requestType": "VERIFY_EMAIL", "continueUrl": "noSchemeOrHost"})
    expect_error(res, 400, "INVALID_CONTINUE_URI", prefix=True)
    _expect_no_oobs(api)


@it("should error if auth is disabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": True})
    expect_error(api.post(PATH, {"tenantId": tenant.get("tenantId")}), 400, "PROJECT_DISABLED")


@it("should error for email sign in if not enabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": False, "enableEmailLinkSignin": False})
    res = api.post(PATH, {"tenantId": tenant.get("tenantId"), "email": "bob@example.com",
                          "requestType": "EMAIL_SIGNIN"})
    expect_error(res, 400, "OPERATION_NOT_ALLOWED")


@it("should generate OOB code for reset password")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret"}
    id_token = register_user(api, user)["idToken"]
    pass_a_second_boundary()  # the spec ticks its clock 2 s so that the ID token is issued in the past
    res = api.post(PATH, {"requestType": "PASSWORD_RESET", "email": user["email"]})
    expect_status(200, res)
    expect_equal(res.body.get("email"), user["email"], "email")
    expect_no_field(res.body, "oobCode")
    expect_no_field(res.body, "oobLink")

    oobs = inspect_oobs(api)
    expect_equal(len(oobs), 1, "number of oob codes")
    expect_equal(oobs[0].get("email"), user["email"], "oob email")
    expect_equal(oobs[0].get("requestType"), "PASSWORD_RESET", "oob requestType")

    res = api.post(RESET_PASSWORD, {"oobCode": oobs[0].get("oobCode"), "newPassword": "notasecret2"})
    expect_status(200, res)
    expect_equal(res.body.get("requestType"), "PASSWORD_RESET", "requestType")
    expect_equal(res.body.get("email"), user["email"], "email")
    expect_id_token_expired(api, id_token)


@it("should return purpose of oobCodes via resetPassword endpoint")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret"}
    id_token = register_user(api, user)["idToken"]
    new_email = "bob@example.com"
    for body in ({"requestType": "PASSWORD_RESET", "email": user["email"]},
                 {"requestType": "VERIFY_EMAIL", "idToken": id_token},
                 {"email": new_email, "requestType": "EMAIL_SIGNIN"},
                 {"email": user["email"], "newEmail": new_email, "requestType": "VERIFY_AND_CHANGE_EMAIL",
                  "idToken": id_token}):
        expect_status(200, api.post(PATH, body))

    oobs = inspect_oobs(api)
    expect_equal(len(oobs), 4, "number of oob codes")
    for oob in oobs:
        # Without newPassword, the code's purpose is answered and the code is kept.
        res = api.post(RESET_PASSWORD, {"oobCode": oob.get("oobCode")})
        expect_status(200, res)
        request_type = oob.get("requestType")
        expect_equal(res.body.get("requestType"), request_type, "requestType")
        if request_type == "EMAIL_SIGNIN":
            expect_no_field(res.body, "email")
        else:
            expect_equal(res.body.get("email"), oob.get("email"), f"email for {request_type}")
        if request_type == "VERIFY_AND_CHANGE_EMAIL":
            expect_equal(res.body.get("newEmail"), new_email, "newEmail")

    expect_equal(len(inspect_oobs(api)), 4, "number of oob codes after the lookups")


@it("should error on resetPassword if auth is disabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": True})
    expect_error(api.post(RESET_PASSWORD, {"tenantId": tenant.get("tenantId")}), 400, "PROJECT_DISABLED")


@it("should error on resetPassword if password sign up is disabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": False, "allowPasswordSignup": False})
    expect_error(api.post(RESET_PASSWORD, {"tenantId": tenant.get("tenantId")}), 400, "PASSWORD_LOGIN_DISABLED")


@it("should error when sending a password reset to non-existent user with improved email privacy disabled")
def _(api):
    res = api.post(PATH, {"email": "alice@example.com", "requestType": "PASSWORD_RESET", "returnOobLink": True},
                   key=None, owner=True)
    expect_error(res, 400, "EMAIL_NOT_FOUND")


@it("should return email address when sending a password reset to non-existent user with improved email privacy enabled")
def _(api):
    email = "alice@example.com"
    update_config(api, PROJECT_ID, {"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}, "emailPrivacyConfig")
    res = api.post(PATH, {"email": email, "requestType": "PASSWORD_RESET", "returnOobLink": True}, key=None, owner=True)
    expect_status(200, res)
    expect_field(res.body, "kind", OOB_KIND)
    expect_field(res.body, "email", email)


@it("should generate OOB code for verify and change email")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret"}
    registered = register_user(api, user)
    res = api.post(PATH, {"email": user["email"], "newEmail": "bob@example.com", "idToken": registered["idToken"],
                          "requestType": "VERIFY_AND_CHANGE_EMAIL"})
    expect_status(200, res)
    expect_field(res.body, "kind", OOB_KIND)
    expect_equal(res.body.get("email"), user["email"], "email")
    expect_no_field(res.body, "oobCode")
    expect_no_field(res.body, "oobLink")

    oobs = inspect_oobs(api)
    expect_equal(len(oobs), 1, "number of oob codes")
    expect_equal(oobs[0].get("email"), user["email"], "oob email")
    expect_equal(oobs[0].get("requestType"), "VERIFY_AND_CHANGE_EMAIL", "oob requestType")

    res = api.post(UPDATE, {"oobCode": oobs[0].get("oobCode")})
    expect_status(200, res)
    expect_equal(res.body.get("localId"), registered["localId"], "localId")
    expect_equal(res.body.get("email"), "bob@example.com", "email")
    expect_equal(res.body.get("emailVerified"), True, "emailVerified")

    _expect_no_oobs(api)


@it("should error when trying to verify and change email without idToken or email or newEmail")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret"}
    register_user(api, user)
    res = api.post(PATH, {"newEmail": "bob@example.com", "requestType": "VERIFY_AND_CHANGE_EMAIL"})
    expect_error(res, 400, "MISSING_ID_TOKEN")
    res = api.post(PATH, {"email": user["email"], "requestType": "VERIFY_AND_CHANGE_EMAIL"})
    expect_error(res, 400, "MISSING_NEW_EMAIL")
    res = api.post(PATH, {"newEmail": "bob@example.com", "returnOobLink": True,
                          "requestType": "VERIFY_AND_CHANGE_EMAIL"}, key=None, owner=True)
    expect_error(res, 400, "MISSING_EMAIL")
    res = api.post(PATH, {"email": user["email"], "returnOobLink": True, "requestType": "VERIFY_AND_CHANGE_EMAIL"},
                   key=None, owner=True)
    expect_error(res, 400, "MISSING_NEW_EMAIL")
    _expect_no_oobs(api)


@it("should error when trying to verify and change email without idToken if not returnOobLink")
def _(api):
    user = register_user(api, {"email": "alice@example.com", "password": "notasecret"})
    res = api.post(PATH, {"email": user["email"], "newEmail": "bob@example.com",
                          "requestType": "VERIFY_AND_CHANGE_EMAIL"})
    expect_error(res, 400, "MISSING_ID_TOKEN")
    _expect_no_oobs(api)


@it("should error when trying to verify and change email not associated with any user")
def _(api):
    res = api.post(PATH, {"email": "nosuchuser@example.com", "newEmail": "bob@example.com", "returnOobLink": True,
                          "requestType": "VERIFY_AND_CHANGE_EMAIL"}, key=None, owner=True)
    expect_error(res, 400, "USER_NOT_FOUND")
    _expect_no_oobs(api)


@it("should error if newEmail is already associated to another user")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret"}
    id_token = register_user(api, user)["idToken"]
    another = register_user(api, {"email": "bob@example.com", "password": "notasecret"})
    res = api.post(PATH, {"idToken": id_token, "email": user["email"], "newEmail": another["email"],
                          "requestType": "VERIFY_AND_CHANGE_EMAIL"})
    expect_error(res, 400, "EMAIL_EXISTS")
    res = api.post(PATH, {"email": user["email"], "newEmail": another["email"], "returnOobLink": True,
                          "requestType": "VERIFY_AND_CHANGE_EMAIL"}, key=None, owner=True)
    expect_error(res, 400, "EMAIL_EXISTS")
    _expect_no_oobs(api)
