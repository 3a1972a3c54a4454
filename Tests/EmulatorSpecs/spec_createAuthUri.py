"""firebase-tools src/emulator/auth/createAuthUri.spec.ts: accounts:createAuthUri."""

from specs import (IDENTITY, PROJECT_ID, expect_equal, expect_error, expect_field, expect_members, expect_no_field,
                   expect_status, register_tenant, register_user, sign_in_with_email_link, sign_in_with_fake_claims,
                   spec, update_config, update_project_config)

it = spec("createAuthUri.spec.ts")
PATH = IDENTITY + "/accounts:createAuthUri"


def improved_email_privacy(api):
    update_config(api, PROJECT_ID, {"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}, "emailPrivacyConfig")


@it("should report not registered user as not registered")
def _(api):
    res = api.post(PATH, {"continueUri": "http://example.com/", "identifier": "notregistered@example.com"})
    expect_status(200, res)
    expect_field(res.body, "registered", False)
    expect_field(res.body, "sessionId", kind=str)


@it("should not show registered field with improved email privacy enabled")
def _(api):
    improved_email_privacy(api)
    res = api.post(PATH, {"continueUri": "http://example.com/", "identifier": "notregistered@example.com"})
    expect_status(200, res)
    expect_no_field(res.body, "registered")
    expect_field(res.body, "sessionId", kind=str)


@it("should return providers for a registered user")
def _(api):
    register_user(api, {"email": "alice@example.com", "password": "notasecret"})
    res = api.post(PATH, {"continueUri": "http://example.com/", "identifier": "alice@example.com"})
    expect_status(200, res)
    expect_field(res.body, "registered", True)
    expect_field(res.body, "allProviders", ["password"])
    expect_field(res.body, "signinMethods", ["password"])
    expect_field(res.body, "sessionId", kind=str)


@it("should not return providers for a registered user with improved email privacy enabled")
def _(api):
    improved_email_privacy(api)
    register_user(api, {"email": "alice@example.com", "password": "notasecret"})
    res = api.post(PATH, {"continueUri": "http://example.com/", "identifier": "alice@example.com"})
    expect_status(200, res)
    expect_no_field(res.body, "registered")
    # chai's `to.not.have.property(name).eql(value)`: not that value (absent passes too).
    expect_equal(res.body.get("allProviders") == ["password"], False, "allProviders is ['password']")
    expect_equal(res.body.get("signinMethods") == ["password"], False, "signinMethods is ['password']")
    expect_field(res.body, "sessionId", kind=str)


@it("should return existing sessionId if provided")
def _(api):
    res = api.post(PATH, {"continueUri": "http://example.com/", "identifier": "notregistered@example.com",
                          "sessionId": "my-session-1"})
    expect_status(200, res)
    expect_field(res.body, "registered", False)
    expect_field(res.body, "sessionId", "my-session-1")


@it("should find user by email ignoring case")
def _(api):
    register_user(api, {"email": "alice@example.com", "password": "notasecret"})
    res = api.post(PATH, {"continueUri": "http://example.com/", "identifier": "AlIcE@exAMPle.COM"})
    expect_status(200, res)
    expect_equal(res.body.get("registered"), True, "registered")


def idp_and_link_user(api):
    token = sign_in_with_fake_claims(api, "google.com", {"sub": "12345", "email": "alice@example.com"})["idToken"]
    sign_in_with_email_link(api, "bob@example.com", token)


@it("should find user by either IDP email or 'top-level' email")
def _(api):
    idp_and_link_user(api)
    for identifier in ("bob@example.com", "alice@example.com"):
        res = api.post(PATH, {"continueUri": "http://example.com/", "identifier": identifier})
        expect_status(200, res)
        expect_equal(res.body.get("registered"), True, f"registered for {identifier}")
        expect_members(res.body.get("allProviders"), ["password", "google.com"], f"allProviders for {identifier}")
        expect_members(res.body.get("signinMethods"), ["emailLink", "google.com"], f"signinMethods for {identifier}")


@it("should not list IDP sign-in methods when allowDuplicateEmails")
def _(api):
    idp_and_link_user(api)
    update_project_config(api, {"signIn": {"allowDuplicateEmails": True}})
    for identifier in ("bob@example.com", "alice@example.com"):
        res = api.post(PATH, {"continueUri": "http://example.com/", "identifier": identifier})
        expect_status(200, res)
        expect_equal(res.body.get("registered"), True, f"registered for {identifier}")
        expect_members(res.body.get("allProviders"), ["password"], f"allProviders for {identifier}")
        expect_members(res.body.get("signinMethods"), ["emailLink"], f"signinMethods for {identifier}")


@it("should error if identifier or continueUri is not provided")
def _(api):
    expect_error(api.post(PATH, {"continueUri": "http://example.com/"}), 400, "MISSING_IDENTIFIER")
    expect_error(api.post(PATH, {"identifier": "me@example.com"}), 400, "MISSING_CONTINUE_URI")


@it("should error if identifier is invalid")
def _(api):
    expect_error(api.post(PATH, {"identifier": "invalid", "continueUri": "http://localhost/"}), 400, "INVALID_IDENTIFIER")


@it("should error if continueUri is invalid")
def _(api):
    expect_error(api.post(PATH, {"identifier": "me@example.com", "continueUri": "invalid"}), 400, "INVALID_CONTINUE_URI")


@it("should error if auth is disabled")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": True})
    res = api.post(PATH, {"tenantId": tenant.get("tenantId"), "continueUri": "http://example.com/",
                          "identifier": "notregistered@example.com"})
    expect_error(res, 400, "PROJECT_DISABLED")
