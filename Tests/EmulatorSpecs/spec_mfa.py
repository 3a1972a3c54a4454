"""firebase-tools src/emulator/auth/mfa.spec.ts: multi-factor enrollment, sign-in and withdrawal (v2 `accounts/mfa*`).

The spec's second factors are phones, which this emulator does not offer: the cases that enroll or verify one
are skipped, and those that need no phone factor (a missing enrollment, an unverified email, a tenant with auth
or MFA disabled) are replayed."""

from specs import (IDENTITY_V2, PROJECT_ID, expect_error, register_tenant, register_user, sign_in_with_email_link,
                   spec)

it = spec("mfa.spec.ts")
MFA = IDENTITY_V2 + "/accounts/"
TEST_PHONE_NUMBER = "+15555550100"
PHONE = "phone sign-in is not offered by this emulator"
BLOCKING = "blocking functions are not run by this emulator"
MFA_DISABLED = {"disableAuth": False, "mfaConfig": {"state": "DISABLED"}}
SMS_NOT_ENABLED = {"disableAuth": False, "mfaConfig": {"state": "ENABLED", "enabledProviders": ["PROVIDER_UNSPECIFIED"]}}


def _tenant_request(api, operation, tenant):
    """`operation` (e.g. `mfaEnrollment:start`) with only the ID of a tenant made with the settings `tenant`."""
    tenant_id = register_tenant(api, PROJECT_ID, tenant).get("tenantId")
    return api.post(MFA + operation, {"tenantId": tenant_id})


@it("should error if account does not have email verified")
def _(api):
    id_token = register_user(api, {"email": "unverified@example.com", "password": "testing"})["idToken"]
    res = api.post(MFA + "mfaEnrollment:start",
                   {"idToken": id_token, "phoneEnrollmentInfo": {"phoneNumber": TEST_PHONE_NUMBER}})
    expect_error(res, 400, "UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors.")


it.skip("should allow phone enrollment for an existing account", PHONE)


@it("should error if phoneEnrollmentInfo is not specified")
def _(api):
    id_token = sign_in_with_email_link(api, "foo@example.com")["idToken"]
    expect_error(api.post(MFA + "mfaEnrollment:start", {"idToken": id_token}), 400, "INVALID_ARGUMENT", prefix=True)


it.skip("should error if phoneNumber is invalid", PHONE)
it.skip("should error if phoneNumber is a duplicate", PHONE)
it.skip("should error if sign-in method of idToken is ineligible for MFA", PHONE)


@it("should error on mfaEnrollment:start if auth is disabled")
def _(api):
    expect_error(_tenant_request(api, "mfaEnrollment:start", {"disableAuth": True}), 400, "PROJECT_DISABLED")


@it("should error on mfaEnrollment:start if MFA is disabled")
def _(api):
    expect_error(_tenant_request(api, "mfaEnrollment:start", MFA_DISABLED), 400, "OPERATION_NOT_ALLOWED", prefix=True)


@it("should error on mfaEnrollment:start if phone SMS is not an enabled provider")
def _(api):
    res = _tenant_request(api, "mfaEnrollment:start", SMS_NOT_ENABLED)
    expect_error(res, 400, "OPERATION_NOT_ALLOWED", prefix=True)


@it("should error on mfaEnrollment:finalize if auth is disabled")
def _(api):
    expect_error(_tenant_request(api, "mfaEnrollment:finalize", {"disableAuth": True}), 400, "PROJECT_DISABLED")


@it("should error on mfaEnrollment:finalize if MFA is disabled")
def _(api):
    res = _tenant_request(api, "mfaEnrollment:finalize", MFA_DISABLED)
    expect_error(res, 400, "OPERATION_NOT_ALLOWED", prefix=True)


@it("should error on mfaEnrollment:finalize if phone SMS is not an enabled provider")
def _(api):
    res = _tenant_request(api, "mfaEnrollment:finalize", SMS_NOT_ENABLED)
    expect_error(res, 400, "OPERATION_NOT_ALLOWED", prefix=True)


it.skip("should allow sign-in with pending credential for MFA-enabled user",
        PHONE + " (and the case needs firebase-tools' fake clock)")


@it("should error on mfaSignIn:start if auth is disabled")
def _(api):
    expect_error(_tenant_request(api, "mfaSignIn:start", {"disableAuth": True}), 400, "PROJECT_DISABLED")


@it("should error on mfaSignIn:start if MFA is disabled")
def _(api):
    expect_error(_tenant_request(api, "mfaSignIn:start", MFA_DISABLED), 400, "OPERATION_NOT_ALLOWED", prefix=True)


@it("should error on mfaSignIn:start if phone SMS is not an enabled provider")
def _(api):
    expect_error(_tenant_request(api, "mfaSignIn:start", SMS_NOT_ENABLED), 400, "OPERATION_NOT_ALLOWED", prefix=True)


@it("should error on mfaSignIn:finalize if auth is disabled")
def _(api):
    expect_error(_tenant_request(api, "mfaSignIn:finalize", {"disableAuth": True}), 400, "PROJECT_DISABLED")


@it("should error on mfaSignIn:finalize if MFA is disabled")
def _(api):
    expect_error(_tenant_request(api, "mfaSignIn:finalize", MFA_DISABLED), 400, "OPERATION_NOT_ALLOWED", prefix=True)


@it("should error on mfaSignIn:finalize if phone SMS is not an enabled provider")
def _(api):
    res = _tenant_request(api, "mfaSignIn:finalize", SMS_NOT_ENABLED)
    expect_error(res, 400, "OPERATION_NOT_ALLOWED", prefix=True)


it.skip("should allow withdrawing MFA for a user", PHONE + " (the case enrolls a phone second factor)")


@it("should error on mfaEnrollment:withdraw if auth is disabled")
def _(api):
    expect_error(_tenant_request(api, "mfaEnrollment:withdraw", {"disableAuth": True}), 400, "PROJECT_DISABLED")


# when blocking functions are present
it.skip("mfaSignIn:finalize should update modifiable fields before sign in", BLOCKING)
it.skip("mfaSignIn:finalize should disable user if set", BLOCKING)
