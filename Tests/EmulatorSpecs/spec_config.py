"""firebase-tools src/emulator/auth/config.spec.ts: the Admin API's project config (v2 `projects/{p}/config`).

The blocking-function settings are only stored and checked here; no function is called."""

from specs import (IDENTITY_V2, PROJECT_ID, SpecFailure, expect_equal, expect_error, expect_field, expect_no_field,
                   expect_status, spec)

it = spec("config.spec.ts")
CONFIG = f"{IDENTITY_V2}/projects/{PROJECT_ID}/config"
NON_DEFAULT = {
    "signIn": {"allowDuplicateEmails": True},
    "blockingFunctions": {"forwardInboundCredentials": {"idToken": True}},
}


def _allow_duplicate_emails(body):
    """`res.body.signIn?.allowDuplicateEmails`."""
    sign_in = body.get("signIn") if isinstance(body, dict) else None
    return sign_in.get("allowDuplicateEmails") if isinstance(sign_in, dict) else None


def _expect_non_default(res):
    expect_status(200, res)
    if _allow_duplicate_emails(res.body) is not True:
        raise SpecFailure(f"expected signIn.allowDuplicateEmails to be true in {res.text[:400]}")
    expect_equal(res.body.get("blockingFunctions"), NON_DEFAULT["blockingFunctions"], "blockingFunctions")


# MARK: updateConfig


@it("updates the project level config")
def _(api):
    mask = "signIn.allowDuplicateEmails,blockingFunctions.forwardInboundCredentials.idToken"
    _expect_non_default(api.patch(CONFIG, NON_DEFAULT, key=None, owner=True, query={"updateMask": mask}))


@it("does not update if the field does not exist on the update config")
def _(api):
    res = api.patch(CONFIG, {}, key=None, owner=True, query={"updateMask": "displayName"})
    expect_status(200, res)
    expect_no_field(res.body, "displayName")


@it("performs a full update if the update mask is empty")
def _(api):
    _expect_non_default(api.patch(CONFIG, NON_DEFAULT, key=None, owner=True))


@it("performs a full update with production defaults if the update mask is empty")
def _(api):
    _expect_non_default(api.patch(CONFIG, NON_DEFAULT, key=None, owner=True))
    res = api.patch(CONFIG, {}, key=None, owner=True)
    expect_status(200, res)
    if _allow_duplicate_emails(res.body) is not False:
        raise SpecFailure(f"expected signIn.allowDuplicateEmails to be false in {res.text[:400]}")
    expect_equal(res.body.get("blockingFunctions"), {}, "blockingFunctions")


@it("should error when updating an invalid blocking function event")
def _(api):
    res = api.patch(CONFIG, {"blockingFunctions": {"triggers": {"invalidEventTrigger": {
        "functionUri": "http://localhost"}}}}, key=None, owner=True)
    expect_error(res, 400, "INVALID_BLOCKING_FUNCTION", prefix=True)


@it("should error if functionUri is invalid")
def _(api):
    res = api.patch(CONFIG, {"blockingFunctions": {"triggers": {"beforeCreate": {"functionUri": "invalidUri"}}}},
                    key=None, owner=True)
    expect_error(res, 400, "INVALID_BLOCKING_FUNCTION", prefix=True)


# MARK: getConfig


@it("should return the project level config")
def _(api):
    res = api.get(CONFIG, key=None, owner=True)
    expect_status(200, res)
    expect_field(res.body, "signIn", {"allowDuplicateEmails": False})
    expect_field(res.body, "blockingFunctions", {})


@it("should return updated config fields")
def _(api):
    api.patch(CONFIG, NON_DEFAULT, key=None, owner=True)  # the spec does not check this answer
    res = api.get(CONFIG, key=None, owner=True)
    expect_status(200, res)
    expect_field(res.body, "signIn", {"allowDuplicateEmails": True})
    expect_field(res.body, "blockingFunctions", NON_DEFAULT["blockingFunctions"])
