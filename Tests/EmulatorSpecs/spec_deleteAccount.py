"""firebase-tools src/emulator/auth/deleteAccount.spec.ts: accounts:delete."""

from specs import (IDENTITY, PROJECT_ID, SpecFailure, expect_error, expect_no_field, expect_status,
                   expect_user_not_exists_for_id_token, get_signin_methods, register_tenant, register_user,
                   sign_in_with_fake_claims, spec)

it = spec("deleteAccount.spec.ts")
PATH = IDENTITY + "/accounts:delete"
ALICE = {"email": "alice@example.com", "password": "notasecret"}


def _expect_deleted(res):
    expect_status(200, res)
    expect_no_field(res.body, "error")


@it("should delete the user of the idToken")
def _(api):
    token = register_user(api, ALICE)["idToken"]
    _expect_deleted(api.post(PATH, {"idToken": token}))
    expect_user_not_exists_for_id_token(api, token)


@it("should error when trying to delete by localId without OAuth")
def _(api):
    local_id = register_user(api, ALICE)["localId"]
    expect_error(api.post(PATH, {"localId": local_id}), 400, "MISSING_ID_TOKEN")


@it("should remove federated accounts for user")
def _(api):
    claims = {"sub": "12345", "email": "alice@example.com"}
    first = sign_in_with_fake_claims(api, "google.com", claims)
    _expect_deleted(api.post(PATH, {"idToken": first["idToken"]}))
    methods = get_signin_methods(api, "alice@example.com")
    if methods != []:  # chai's `to.be.empty` (an absent list is an error too)
        raise SpecFailure(f"expected no sign-in methods for alice@example.com, got {methods!r}")
    again = sign_in_with_fake_claims(api, "google.com", claims)
    if again["localId"] == first["localId"]:
        raise SpecFailure(f"signing in again gave the deleted account's localId {first['localId']!r}")


@it("should delete the user by localId if OAuth credentials are present")
def _(api):
    user = register_user(api, ALICE)
    _expect_deleted(api.post(PATH, {"localId": user["localId"]}, key=None, owner=True))
    expect_user_not_exists_for_id_token(api, user["idToken"])


@it("should error if missing localId when OAuth credentials are present")
def _(api):
    token = register_user(api, ALICE)["idToken"]
    expect_error(api.post(PATH, {"idToken": token}, key=None, owner=True), 400, "MISSING_LOCAL_ID")


# The spec's second case of this title checks a tenant with auth disabled.
@it("should delete the user of the idToken (2)")
def _(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": True})
    expect_error(api.post(PATH, {"tenantId": tenant.get("tenantId")}), 400, "PROJECT_DISABLED", prefix=True)
