"""firebase-tools src/emulator/auth/phone.spec.ts: phone sign-in (`recaptchaParams`, `accounts:sendVerificationCode`,
`accounts:signInWithPhoneNumber`, the verification code list)."""

from specs import (IDENTITY, PROJECT_ID, TEST_MFA_INFO, TEST_PHONE_NUMBER, TEST_PHONE_NUMBER_2, decode_jwt_header,
                   decode_jwt_payload, enroll_phone_mfa, expect_equal, expect_error, expect_field, expect_no_field,
                   expect_status, expect_true, inspect_verification_codes, register_anon_user, register_tenant,
                   register_user, send_verification_code, sign_in_with_phone_number, spec, update_account_by_local_id)

it = spec("phone.spec.ts")
SEND = IDENTITY + "/accounts:sendVerificationCode"
SIGN_IN = IDENTITY + "/accounts:signInWithPhoneNumber"
BLOCKING = "blocking functions are not run by this emulator"


@it("should return fake recaptcha params")
def _(api):
    res = api.get(IDENTITY + "/recaptchaParams")
    expect_status(200, res)
    expect_field(res.body, "recaptchaStoken", kind=str)
    expect_field(res.body, "recaptchaSiteKey", kind=str)


@it("should pretend to send a verification code via SMS")
def _(api):
    session_info = send_verification_code(api, TEST_PHONE_NUMBER)
    expect_true(isinstance(session_info, str), "sessionInfo is a string")
    codes = inspect_verification_codes(api)
    expect_equal(len(codes), 1, "number of codes")
    expect_equal(codes[0].get("phoneNumber"), TEST_PHONE_NUMBER, "phoneNumber")
    expect_equal(codes[0].get("sessionInfo"), session_info, "sessionInfo")
    expect_true(isinstance(codes[0].get("code"), str), "code is a string")


@it("should error when phone number is missing when calling sendVerificationCode")
def _(api):
    # As production answers: not MISSING_PHONE_NUMBER.
    expect_error(api.post(SEND, {"recaptchaToken": "ignored"}), 400, "INVALID_PHONE_NUMBER : Invalid format.")


@it("should error when phone number is invalid")
def _(api):
    res = api.post(SEND, {"recaptchaToken": "ignored", "phoneNumber": "invalid"})
    expect_error(res, 400, "INVALID_PHONE_NUMBER : Invalid format.")


def _tenant_request(api, path, disable_auth):
    """`path` with only the ID of a new tenant whose `disableAuth` is `disable_auth`."""
    tenant_id = register_tenant(api, PROJECT_ID, {"disableAuth": disable_auth}).get("tenantId")
    return api.post(path, {"tenantId": tenant_id})


@it("should error on sendVerificationCode if auth is disabled")
def _(api):
    expect_error(_tenant_request(api, SEND, True), 400, "PROJECT_DISABLED")


@it("should error on sendVerificationCode for tenant projects")
def _(api):
    expect_error(_tenant_request(api, SEND, False), 400, "UNSUPPORTED_TENANT_OPERATION")


@it("should create new account by verifying phone number")
def _(api):
    session_info = send_verification_code(api, TEST_PHONE_NUMBER)
    code = inspect_verification_codes(api)[0]["code"]
    res = api.post(SIGN_IN, {"sessionInfo": session_info, "code": code})
    expect_status(200, res)
    expect_field(res.body, "isNewUser", True)
    expect_field(res.body, "phoneNumber", TEST_PHONE_NUMBER)
    expect_field(res.body, "refreshToken", kind=str)
    token = res.body.get("idToken")
    expect_equal(decode_jwt_header(token).get("alg"), "none", "JWT header alg")
    payload = decode_jwt_payload(token)
    expect_true(isinstance(payload.get("user_id"), str), "user_id is a string")
    expect_equal(payload.get("phone_number"), TEST_PHONE_NUMBER, "phone_number")
    expect_no_field(payload, "provider_id")
    expect_field(payload.get("firebase"), "sign_in_provider", "phone")
    expect_equal(payload["firebase"].get("identities"), {"phone": [TEST_PHONE_NUMBER]}, "firebase.identities")


@it("should error when sessionInfo or code is missing for signInWithPhoneNumber")
def _(api):
    expect_error(api.post(SIGN_IN, {"code": "123456"}), 400, "MISSING_SESSION_INFO")
    expect_error(api.post(SIGN_IN, {"sessionInfo": "something-something"}), 400, "MISSING_CODE")


@it("should error when sessionInfo or code is invalid")
def _(api):
    session_info = send_verification_code(api, TEST_PHONE_NUMBER)
    code = inspect_verification_codes(api)[0]["code"]
    expect_error(api.post(SIGN_IN, {"sessionInfo": "totally-invalid", "code": code}), 400, "INVALID_SESSION_INFO")
    # The code with an extra "1": certainly wrong, as no other code is pending.
    expect_error(api.post(SIGN_IN, {"sessionInfo": session_info, "code": code + "1"}), 400, "INVALID_CODE")


@it("should error if user is disabled")
def _(api):
    local_id = sign_in_with_phone_number(api, TEST_PHONE_NUMBER)["localId"]
    update_account_by_local_id(api, local_id, {"disableUser": True})
    session_info = send_verification_code(api, TEST_PHONE_NUMBER)
    code = inspect_verification_codes(api)[0]["code"]
    expect_error(api.post(SIGN_IN, {"sessionInfo": session_info, "code": code}), 400, "USER_DISABLED")


@it("should link phone number to existing account by idToken")
def _(api):
    anon = register_anon_user(api)
    session_info = send_verification_code(api, TEST_PHONE_NUMBER)
    code = inspect_verification_codes(api)[0]["code"]
    res = api.post(SIGN_IN, {"sessionInfo": session_info, "code": code, "idToken": anon["idToken"]})
    expect_status(200, res)
    expect_field(res.body, "isNewUser", False)
    expect_field(res.body, "phoneNumber", TEST_PHONE_NUMBER)
    expect_equal(res.body.get("localId"), anon["localId"], "localId")


@it("should error if user to be linked is disabled")
def _(api):
    anon = register_anon_user(api)
    update_account_by_local_id(api, anon["localId"], {"disableUser": True})
    session_info = send_verification_code(api, TEST_PHONE_NUMBER)
    code = inspect_verification_codes(api)[0]["code"]
    res = api.post(SIGN_IN, {"sessionInfo": session_info, "code": code, "idToken": anon["idToken"]})
    expect_error(res, 400, "USER_DISABLED")


@it("should error when linking phone number to existing user with MFA")
def _(api):
    user = {"email": "alice@example.com", "password": "notasecret", "mfaInfo": [TEST_MFA_INFO]}
    id_token = register_user(api, user)["idToken"]
    session_info = send_verification_code(api, TEST_PHONE_NUMBER)
    code = inspect_verification_codes(api)[0]["code"]
    res = api.post(SIGN_IN, {"sessionInfo": session_info, "code": code, "idToken": id_token})
    expect_error(res, 400,
                 "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user.")


@it("should error if user has MFA")
def _(api):
    user = register_user(api, {"email": "alice@example.com", "password": "notasecret"})
    update_account_by_local_id(api, user["localId"], {"emailVerified": True, "phoneNumber": TEST_PHONE_NUMBER})
    enroll_phone_mfa(api, user["idToken"], TEST_PHONE_NUMBER_2)
    res = api.post(SEND, {"phoneNumber": TEST_PHONE_NUMBER})
    expect_error(res, 400,
                 "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user.")
    expect_equal(inspect_verification_codes(api), [], "verification codes")


@it("should return temporaryProof if phone number already belongs to another account")
def _(api):
    sign_in_with_phone_number(api, TEST_PHONE_NUMBER)
    id_token = register_anon_user(api)["idToken"]
    session_info = send_verification_code(api, TEST_PHONE_NUMBER)
    code = inspect_verification_codes(api)[0]["code"]
    res = api.post(SIGN_IN, {"sessionInfo": session_info, "code": code, "idToken": id_token})
    # The link fails, but in a 200 answer with a proof, so the app may call again without a new code.
    expect_status(200, res)
    expect_no_field(res.body, "idToken")
    expect_field(res.body, "phoneNumber", TEST_PHONE_NUMBER)
    proof = expect_field(res.body, "temporaryProof", kind=str)
    # Called again with the proof: the real error.
    res = api.post(SIGN_IN, {"idToken": id_token, "phoneNumber": TEST_PHONE_NUMBER, "temporaryProof": proof})
    expect_error(res, 400, "PHONE_NUMBER_EXISTS")


@it("should error if auth is disabled")
def _(api):
    expect_error(_tenant_request(api, SIGN_IN, True), 400, "PROJECT_DISABLED")


@it("should error if called on tenant project")
def _(api):
    expect_error(_tenant_request(api, SIGN_IN, False), 400, "UNSUPPORTED_TENANT_OPERATION")


# when blocking functions are present
it.skip("should update modifiable fields for new users", BLOCKING)
it.skip("should update modifiable fields for existing users", BLOCKING)
it.skip("beforeSignIn fields should overwrite beforeCreate fields", BLOCKING)
it.skip("should disable user if set", BLOCKING)
