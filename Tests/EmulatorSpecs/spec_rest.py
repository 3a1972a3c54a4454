"""firebase-tools src/emulator/auth/rest.spec.ts: the REST mapping (status, CORS, enums, types) and authentication
(API key, Bearer owner, target project, tenant IDs that disagree)."""


from specs import (IDENTITY, PROJECT_ID, SpecFailure, expect_equal, expect_error, expect_field, expect_members,
                   expect_no_field, expect_status, expect_true, register_tenant, register_user, spec)

it = spec("rest.spec.ts")
SIGN_UP = IDENTITY + "/accounts:signUp"
ONE_PROJECT = ("one project per emulator process: ours refuses the spec's project-id (INVALID_PROJECT_ID), "
               "so the case is made on the emulator's project, example")
# Not an actual token: the emulator only checks that it looks like a Google OAuth 2 access token.
SERVICE_ACCOUNT_TOKEN = "ya" + "29.AHES0ZZZZZ0fff" + "ff0XXXX0mmmm0wwwww0-LL_l-0bb0b0bbbbbb"


def _expect_permission_denied(res):
    expect_status(403, res)
    error = res.body.get("error") if isinstance(res.body, dict) else None
    expect_field(error, "status", "PERMISSION_DENIED")


def _expect_no_error(res):
    expect_status(200, res)
    expect_no_field(res.body, "error")


# MARK: REST API mapping


@it("should respond to status checks")
def _(api):
    res = api.get("/", key=None)
    expect_status(200, res)
    expect_true(isinstance((res.body or {}).get("authEmulator"), dict),
                f"expected authEmulator to be an object in {res.text[:300]}")


@it("should allow cross-origin requests",
    differs="no cross-origin access: it serves desktop apps, and a web page open in the user's browser must not read "
            "its accounts, tokens and email-action links (firebase-tools allows every origin, for web apps)")
def _(api):
    res = api.request("OPTIONS", "/", key=None, headers={
        "Origin": "example.com",
        "Access-Control-Request-Headers": "Authorization,X-Client-Version,X-Whatever-Header",
        "Access-Control-Request-Private-Network": "true",
    })
    if res.status == 204:
        raise SpecFailure("expected the preflight refused, got 204")
    expect_equal(res.headers.get("access-control-allow-origin"), None, "access-control-allow-origin")
    expect_equal(res.headers.get("access-control-allow-private-network"), None, "access-control-allow-private-network")


@it("should handle integer values for enums")
def _(api):
    # 6 is the proto value of EMAIL_SIGNIN, as Android's SDK sends it.
    res = api.post(IDENTITY + "/accounts:sendOobCode",
                   {"email": "bob@example.com", "requestType": 6, "returnOobLink": True}, key=None, owner=True)
    expect_status(200, res)
    link = res.body.get("oobLink")
    expect_true(isinstance(link, str) and "mode=signIn" in link, f"expected oobLink to include mode=signIn: {link!r}")


@it("should handle integer values for enums (legacy API path)")
def _(api):
    res = api.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/getOobConfirmationCode",
                   {"email": "bob@example.com", "requestType": 6, "returnOobLink": True}, key=None, owner=True)
    expect_status(200, res)
    link = res.body.get("oobLink")
    expect_true(isinstance(link, str) and "mode=signIn" in link, f"expected oobLink to include mode=signIn: {link!r}")


@it("should convert numbers to strings for type:string fields")
def _(api):
    # validSince is an int64 string, which the Node.js Admin SDK sends as a bare number.
    res = api.post(IDENTITY + "/accounts:update", {"localId": "nosuch", "validSince": 1611780718},
                   key=None, owner=True)
    expect_error(res, 400, "USER_NOT_FOUND")


# MARK: authentication


@it("should throw 403 if API key is not provided")
def _(api):
    _expect_permission_denied(api.post(SIGN_UP, {"returnSecureToken": True}, key=None))


@it("should accept API key as a query parameter")
def _(api):
    _expect_no_error(api.post(SIGN_UP, {}))


@it("should accept API key in HTTP Header x-goog-api-key")
def _(api):
    _expect_no_error(api.post(SIGN_UP, {}, key=None, headers={"x-goog-api-key": "fake-api-key"}))


@it("should ignore non-Bearer Authorization headers")
def _(api):
    res = api.post(SIGN_UP, {"returnSecureToken": True}, key=None,
                   headers={"Authorization": "Basic YWxhZGRpbjpvcGVuc2VzYW1l"})
    _expect_permission_denied(res)


@it("should treat Bearer owner as authenticated to project")
def _(api):
    _expect_no_error(api.post(SIGN_UP, {"targetProjectId": "example2"}, key=None, owner=True))


@it("should ignore casing of Bearer / owner in Authorization header")
def _(api):
    res = api.post(SIGN_UP, {"targetProjectId": "example2"}, key=None, headers={"Authorization": "bEArEr OWNER"})
    _expect_no_error(res)


@it("should treat production service account as authenticated to project")
def _(api):
    res = api.post(SIGN_UP, {"targetProjectId": "example2"}, key=None,
                   headers={"Authorization": "Bearer " + SERVICE_ACCOUNT_TOKEN})
    _expect_no_error(res)


@it("should deny requests with targetProjectId but without OAuth 2")
def _(api):
    expect_error(api.post(SIGN_UP, {"targetProjectId": "example2"}), 400,
                 "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")


@it("should deny requests where tenant IDs do not match in the request body and path", differs=ONE_PROJECT)
def _(api):
    body = {"localId": "local-id", "tenantId": "mismatching-tenant-id"}
    res = api.post(IDENTITY + "/projects/project-id/tenants/tenant-id/accounts:delete", body, key=None, owner=True)
    expect_error(res, 400, "INVALID_PROJECT_ID", prefix=True)
    res = api.post(f"{IDENTITY}/projects/{PROJECT_ID}/tenants/tenant-id/accounts:delete", body, key=None, owner=True)
    expect_error(res, 400, "TENANT_ID_MISMATCH")


def _tenant_user_token(api):
    tenant = register_tenant(api, PROJECT_ID, {"disableAuth": False, "allowPasswordSignup": True})
    return register_user(api, {"email": "alice@example.com", "password": "notasecret",
                               "tenantId": tenant.get("tenantId")})["idToken"]


@it("should deny requests where tenant IDs do not match in the ID token and path")
def _(api):
    id_token = _tenant_user_token(api)
    res = api.post(f"{IDENTITY}/projects/{PROJECT_ID}/tenants/not-matching-tenant-id/accounts:lookup",
                   {"idToken": id_token}, key=None, owner=True)
    expect_error(res, 400, "TENANT_ID_MISMATCH")


@it("should deny requests where tenant IDs do not match in the ID token and request body")
def _(api):
    id_token = _tenant_user_token(api)
    res = api.post(f"{IDENTITY}/projects/{PROJECT_ID}/accounts:lookup",
                   {"idToken": id_token, "tenantId": "not-matching-tenant-id"}, key=None, owner=True)
    expect_error(res, 400, "TENANT_ID_MISMATCH")
