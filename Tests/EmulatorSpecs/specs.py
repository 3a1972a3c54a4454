"""Firebase-tools' own tests of its Auth emulator, replayed against ours.

Each module `spec_*.py` here holds the cases of one of firebase-tools' `src/emulator/auth/*.spec.ts` files,
written anew in Python: the same requests, asserting what the spec asserts (status, error message, the
fields it checks). A case carries the spec's `it(...)` title, so a difference can be traced to the original.
A case where our emulator differs on purpose is marked `differs=` with the reason, and asserts what ours does.

Every case runs against an emulator of its own (`keyring-auth-emulator --port 0 --project-id example`),
as firebase-tools starts each case from a clean state. Only the standard library is used.
"""

from __future__ import annotations

import base64
import json
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable

PROJECT_ID = "example"
API_KEY = "fake-api-key"
READY_PREFIX = "export FIREBASE_AUTH_EMULATOR_HOST="


class SpecFailure(AssertionError):
    """A case's assertion that did not hold."""


@dataclass
class Case:
    spec: str
    title: str
    run: Callable[["Api"], None] | None
    differs: str | None = None
    skip: str | None = None


@dataclass
class Registry:
    cases: list[Case] = field(default_factory=list)


REGISTRY = Registry()


def spec(file: str) -> Callable[..., Callable[[Callable[["Api"], None]], Callable[["Api"], None]]]:
    """`it = spec("createAuthUri.spec.ts")`, then `@it("title")` registers a case of that file;
    `@it("title", differs="why")` one where ours differs on purpose (the body asserts what ours does); and
    `it.skip("title", "why")` one not replayed here (outside the areas we claim, such as blocking functions, or one
    that needs firebase-tools' fake clock), so that every `it(...)` of the file is accounted for."""

    def it(title: str, differs: str | None = None) -> Callable[[Callable[["Api"], None]], Callable[["Api"], None]]:
        def register(body: Callable[["Api"], None]) -> Callable[["Api"], None]:
            REGISTRY.cases.append(Case(file, title, body, differs))
            return body

        return register

    def skip(title: str, reason: str) -> None:
        REGISTRY.cases.append(Case(file, title, None, skip=reason))

    it.skip = skip  # type: ignore[attr-defined]
    return it


# MARK: HTTP


@dataclass
class Response:
    status: int
    body: Any
    text: str
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def error_message(self) -> str | None:
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return self.body["error"].get("message")
        return None


class Api:
    """supertest's `authApi()`: requests to one emulator."""

    def __init__(self, address: str):
        self.base = "http://" + address

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        key: str | None = API_KEY,
        owner: bool = False,
        query: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
    ) -> Response:
        """`body` is sent as JSON (leaving out None, as JSON.stringify leaves out undefined); `raw` as it is."""
        params = dict(query or {})
        if key is not None:
            params.setdefault("key", key)
        params = {k: v for k, v in params.items() if v is not None}
        url = self.base + path + ("?" + urllib.parse.urlencode(params) if params else "")
        data = raw
        all_headers = dict(headers or {})
        if body is not None:
            data = json.dumps(drop_none(body)).encode()
        if data is not None:
            all_headers.setdefault("Content-Type", "application/json")
        if owner:
            all_headers["Authorization"] = "Bearer owner"
        req = urllib.request.Request(url, data=data, method=method, headers=all_headers)
        try:
            with urllib.request.urlopen(req, timeout=30) as answer:
                status, answered, received = answer.status, answer.read(), answer.headers
        except urllib.error.HTTPError as error:
            status, answered, received = error.code, error.read(), error.headers
        text = answered.decode("utf-8", "replace")
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = None
        return Response(status, parsed, text, {k.lower(): v for k, v in received.items()})

    def post(self, path: str, body: Any = None, **options: Any) -> Response:
        return self.request("POST", path, body if body is not None else {}, **options)

    def post_form(self, path: str, fields: dict[str, Any], **options: Any) -> Response:
        """supertest's `.type("form").send(fields)`: an x-www-form-urlencoded POST."""
        return self.request("POST", path, raw=urllib.parse.urlencode(fields).encode(),
                            headers={"Content-Type": "application/x-www-form-urlencoded"}, **options)

    def post_text(self, path: str, text: str, **options: Any) -> Response:
        """A JSON body sent as written (`post` leaves out null fields, which JSON.stringify keeps)."""
        return self.request("POST", path, raw=text.encode(), **options)

    def get(self, path: str, **options: Any) -> Response:
        return self.request("GET", path, **options)

    def patch(self, path: str, body: Any = None, **options: Any) -> Response:
        return self.request("PATCH", path, body if body is not None else {}, **options)

    def delete(self, path: str, **options: Any) -> Response:
        return self.request("DELETE", path, **options)


def drop_none(value: Any) -> Any:
    """JSON.stringify leaves out `undefined`: a field given as None is not sent."""
    if isinstance(value, dict):
        return {k: drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_none(v) for v in value]
    return value


# MARK: Assertions (chai's, as the specs use them)


def expect_status(expected: int, res: Response) -> None:
    if res.status != expected:
        raise SpecFailure(f"expected status {expected}, got {res.status}: {res.text[:600]}")


def expect_error(res: Response, status: int, message: str, *, prefix: bool = False) -> None:
    """The error shape: `expectStatusCode(status)` and `res.body.error.message` equal to (or starting with) `message`."""
    expect_status(status, res)
    actual = res.error_message
    if actual is None or (not actual.startswith(message) if prefix else actual != message):
        raise SpecFailure(f"expected error message {message!r}{' (prefix)' if prefix else ''}, got {actual!r}")


def expect_equal(actual: Any, expected: Any, what: str = "value") -> None:
    if actual != expected:
        raise SpecFailure(f"expected {what} {expected!r}, got {actual!r}")


def expect_true(condition: Any, what: str) -> None:
    if not condition:
        raise SpecFailure(what)


def expect_members(actual: Any, expected: list[Any], what: str = "members") -> None:
    """chai's `to.have.members`: the same elements, in any order."""
    if not isinstance(actual, list) or sorted(map(json.dumps, actual)) != sorted(map(json.dumps, expected)):
        raise SpecFailure(f"expected {what} {expected!r} in any order, got {actual!r}")


def expect_field(body: Any, name: str, expected: Any = ..., *, kind: type | None = None) -> Any:
    """chai's `to.have.property(name)`, optionally `.equals(expected)` / `.that.is.a(kind)`."""
    if not isinstance(body, dict) or name not in body:
        raise SpecFailure(f"expected a field {name!r} in {json.dumps(body)[:400]}")
    value = body[name]
    if expected is not ... and value != expected:
        raise SpecFailure(f"expected {name} = {expected!r}, got {value!r}")
    if kind is not None and not isinstance(value, kind):
        raise SpecFailure(f"expected {name} to be a {kind.__name__}, got {value!r}")
    return value


def expect_no_field(body: Any, name: str) -> None:
    if isinstance(body, dict) and name in body:
        raise SpecFailure(f"expected no field {name!r}, got {body[name]!r}")


def decode_jwt_payload(token: str) -> dict[str, Any]:
    """The claims of a JWT, unverified (the emulator's tokens are unsigned)."""
    return _decode_jwt_part(token, 1)


def decode_jwt_header(token: str) -> dict[str, Any]:
    """The header of a JWT (`alg`, `typ`)."""
    return _decode_jwt_part(token, 0)


def _decode_jwt_part(token: str, index: int) -> dict[str, Any]:
    part = token.split(".")[index]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def stringify(value: Any) -> str:
    """JSON.stringify: compact, keys in insertion order."""
    return json.dumps(value, separators=(",", ":"))


def base64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unsigned_jwt(claims: dict[str, Any]) -> str:
    """A JWT with `alg: none` and an empty signature, as firebase-tools' fake tokens and unsigned custom tokens."""
    return base64url(stringify({"alg": "none", "typ": "JWT"}).encode()) + "." + base64url(stringify(claims).encode()) + "."


# MARK: firebase-tools' helpers (src/emulator/auth/testing/helpers.ts)

IDENTITY = "/identitytoolkit.googleapis.com/v1"
IDENTITY_V2 = "/identitytoolkit.googleapis.com/v2"


def fake_claims(claims: dict[str, Any]) -> dict[str, Any]:
    return {"iss": "example.com", "aud": "example.com", "exp": 1597974008, "iat": 1597970408, **claims}


def register_user(api: Api, user: dict[str, Any]) -> dict[str, Any]:
    res = api.post(IDENTITY + "/accounts:signUp", user)
    expect_status(200, res)
    return {k: res.body.get(k) for k in ("idToken", "localId", "refreshToken", "email")}


def register_anon_user(api: Api) -> dict[str, Any]:
    res = api.post(IDENTITY + "/accounts:signUp", {"returnSecureToken": True})
    expect_status(200, res)
    return {k: res.body.get(k) for k in ("idToken", "localId", "refreshToken")}


def create_email_sign_in_oob(api: Api, email: str, tenant_id: str | None = None) -> dict[str, Any]:
    res = api.post(
        IDENTITY + "/accounts:sendOobCode",
        {"email": email, "requestType": "EMAIL_SIGNIN", "returnOobLink": True, "tenantId": tenant_id},
        key=None, owner=True)
    expect_status(200, res)
    return {"oobCode": res.body.get("oobCode"), "oobLink": res.body.get("oobLink")}


def sign_in_with_email_link(api: Api, email: str, id_token_to_link: str | None = None) -> dict[str, Any]:
    oob = create_email_sign_in_oob(api, email)
    res = api.post(IDENTITY + "/accounts:signInWithEmailLink",
                   {"email": email, "oobCode": oob["oobCode"], "idToken": id_token_to_link})
    body = res.body if isinstance(res.body, dict) else {}
    return {"idToken": body.get("idToken"), "localId": body.get("localId"),
            "refreshToken": body.get("refreshToken"), "email": email}


def sign_in_with_password(api: Api, email: str, password: str) -> dict[str, Any]:
    res = api.post(IDENTITY + "/accounts:signInWithPassword", {"email": email, "password": password})
    expect_status(200, res)
    return {k: res.body.get(k) for k in ("idToken", "localId", "refreshToken", "email")}


def sign_in_with_fake_claims(api: Api, provider_id: str, claims: dict[str, Any],
                             tenant_id: str | None = None) -> dict[str, Any]:
    fake_id_token = json.dumps(fake_claims(claims))
    res = api.post(IDENTITY + "/accounts:signInWithIdp", {
        "postBody": "providerId=" + urllib.parse.quote(provider_id, safe="")
        + "&id_token=" + urllib.parse.quote(fake_id_token, safe=""),
        "requestUri": "http://localhost",
        "returnIdpCredential": True,
        "returnSecureToken": True,
        "tenantId": tenant_id,
    })
    expect_status(200, res)
    return {k: res.body.get(k) for k in ("idToken", "localId", "refreshToken", "email")}


def get_account_info_by_id_token(api: Api, id_token: str, tenant_id: str | None = None) -> dict[str, Any]:
    res = api.post(IDENTITY + "/accounts:lookup", {"idToken": id_token, "tenantId": tenant_id})
    expect_status(200, res)
    users = res.body.get("users") or []
    expect_equal(len(users), 1, "number of users")
    return users[0]


def get_account_info_by_local_id(api: Api, local_id: str, tenant_id: str | None = None) -> dict[str, Any]:
    res = api.post(IDENTITY + "/accounts:lookup", {"localId": [local_id], "tenantId": tenant_id}, key=None, owner=True)
    expect_status(200, res)
    users = res.body.get("users") or []
    expect_equal(len(users), 1, "number of users")
    return users[0]


def expect_user_not_exists_for_id_token(api: Api, id_token: str, tenant_id: str | None = None) -> None:
    res = api.post(IDENTITY + "/accounts:lookup", {"idToken": id_token, "tenantId": tenant_id})
    expect_error(res, 400, "USER_NOT_FOUND")


def expect_id_token_expired(api: Api, id_token: str) -> None:
    """firebase-tools' `expectIdTokenExpired`: a lookup with the token answers TOKEN_EXPIRED."""
    expect_error(api.post(IDENTITY + "/accounts:lookup", {"idToken": id_token}), 400, "TOKEN_EXPIRED")


def pass_a_second_boundary(seconds: float = 2) -> None:
    """The spec's `getClock().tick(2000)`, on the real clock: ID tokens and `validSince` count whole seconds, so a
    token issued before this is older than anything after it. Time passing is what the case is about, not waiting
    for an event."""
    time.sleep(seconds)


TEST_PHONE_NUMBER = "+15555550100"
TEST_PHONE_NUMBER_OBFUSCATED = "+*******0100"
TEST_PHONE_NUMBER_2 = "+15555550101"
TEST_PHONE_NUMBER_3 = "+15555550102"
TEST_INVALID_PHONE_NUMBER = "5555550100"  # no country code
TEST_MFA_INFO = {"displayName": "Cell Phone", "phoneInfo": TEST_PHONE_NUMBER}


def inspect_verification_codes(api: Api, tenant_id: str | None = None) -> list[dict[str, Any]]:
    path = (f"/emulator/v1/projects/{PROJECT_ID}/tenants/{tenant_id}/verificationCodes" if tenant_id
            else f"/emulator/v1/projects/{PROJECT_ID}/verificationCodes")
    res = api.get(path, key=None)
    expect_status(200, res)
    return res.body.get("verificationCodes")


def send_verification_code(api: Api, phone_number: str) -> str:
    """`accounts:sendVerificationCode` as the spec sends it (`recaptchaToken: "ignored"`): the `sessionInfo`."""
    res = api.post(IDENTITY + "/accounts:sendVerificationCode", {"phoneNumber": phone_number, "recaptchaToken": "ignored"})
    expect_status(200, res)
    return res.body.get("sessionInfo")


def sign_in_with_phone_number(api: Api, phone_number: str) -> dict[str, Any]:
    session_info = send_verification_code(api, phone_number)
    code = inspect_verification_codes(api)[0]["code"]
    res = api.post(IDENTITY + "/accounts:signInWithPhoneNumber", {"sessionInfo": session_info, "code": code})
    expect_status(200, res)
    return {k: res.body.get(k) for k in ("idToken", "localId", "refreshToken")}


def enroll_phone_mfa(api: Api, id_token: str, phone_number: str, tenant_id: str | None = None) -> dict[str, Any]:
    res = api.post(IDENTITY_V2 + "/accounts/mfaEnrollment:start",
                   {"idToken": id_token, "phoneEnrollmentInfo": {"phoneNumber": phone_number}, "tenantId": tenant_id})
    expect_status(200, res)
    session_info = (res.body.get("phoneSessionInfo") or {}).get("sessionInfo")
    expect_true(isinstance(session_info, str), f"expected phoneSessionInfo.sessionInfo to be a string: {res.text[:300]}")
    code = inspect_verification_codes(api, tenant_id)[0]["code"]
    res = api.post(IDENTITY_V2 + "/accounts/mfaEnrollment:finalize",
                   {"idToken": id_token, "phoneVerificationInfo": {"code": code, "sessionInfo": session_info},
                    "tenantId": tenant_id})
    expect_status(200, res)
    expect_field(res.body, "idToken", kind=str)
    expect_field(res.body, "refreshToken", kind=str)
    return {"idToken": res.body["idToken"], "refreshToken": res.body["refreshToken"]}


def expect_includes(actual: Any, expected: dict[str, Any], what: str = "object") -> None:
    """chai's `to.include(object)` / `to.contain(object)`: every field of `expected` is in `actual` with its value."""
    if not isinstance(actual, dict) or any(actual.get(k, ...) != v for k, v in expected.items()):
        raise SpecFailure(f"expected {what} {actual!r} to include {expected!r}")


def inspect_oobs(api: Api, tenant_id: str | None = None) -> list[dict[str, Any]]:
    path = (f"/emulator/v1/projects/{PROJECT_ID}/tenants/{tenant_id}/oobCodes" if tenant_id
            else f"/emulator/v1/projects/{PROJECT_ID}/oobCodes")
    res = api.get(path, key=None)
    expect_status(200, res)
    return res.body.get("oobCodes") or []


def get_signin_methods(api: Api, email: str) -> list[str]:
    res = api.post(IDENTITY + "/accounts:createAuthUri", {"continueUri": "http://example.com/", "identifier": email})
    expect_status(200, res)
    return res.body.get("signinMethods")


def update_project_config(api: Api, config: dict[str, Any]) -> None:
    res = api.patch(f"/emulator/v1/projects/{PROJECT_ID}/config", config, key=None, owner=True)
    expect_status(200, res)


def update_account_by_local_id(api: Api, local_id: str, fields: dict[str, Any]) -> None:
    res = api.post(IDENTITY + "/accounts:update", {"localId": local_id, **fields}, key=None, owner=True)
    expect_status(200, res)


def delete_account(api: Api, body: dict[str, Any]) -> str:
    res = api.post(IDENTITY + "/accounts:delete", body)
    expect_status(200, res)
    expect_no_field(res.body, "error")
    return res.body.get("kind")


def register_tenant(api: Api, project_id: str, tenant: dict[str, Any] | None = None) -> dict[str, Any]:
    res = api.post(f"{IDENTITY_V2}/projects/{project_id}/tenants", tenant or {}, owner=True)
    expect_status(200, res)
    return res.body


def update_config(api: Api, project_id: str, config: dict[str, Any], update_mask: str | None = None) -> None:
    res = api.patch(f"{IDENTITY_V2}/projects/{project_id}/config", config, key=None, owner=True,
                    query={"updateMask": update_mask})
    expect_status(200, res)


# MARK: Running


def start_emulator(binary: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen([binary, "--port", "0", "--project-id", PROJECT_ID],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith(READY_PREFIX):
            return process, line[len(READY_PREFIX):].strip()
    process.kill()
    raise RuntimeError(f"{binary} ended before it was ready")


def run_case(binary: str, case: Case) -> tuple[str, str]:
    if case.run is None:
        return "skip", case.skip or ""
    process, address = start_emulator(binary)
    try:
        case.run(Api(address))
        return ("differs" if case.differs else "pass"), (case.differs or "")
    except SpecFailure as failure:
        return "fail", str(failure)
    except Exception as error:  # a case that cannot even run is a failure of that case, not of the runner
        return "fail", f"{type(error).__name__}: {error}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
