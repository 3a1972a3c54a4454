"""The broker's error messages said in Python: its methods and arguments named as the package names them, and for
Firebase's errors the Python call that is the way on. Data and the functions that apply it; it imports nothing of the
package."""

from __future__ import annotations

import re

#: The broker's methods (io.github.keyringauth.Broker1), as an app of the package calls them.
METHODS = {
    "SignInAnonymously": "auth.sign_in_anonymously",
    "SignInWithEmail": "auth.sign_in_with_email_and_password",
    "CreateUserWithEmail": "auth.create_user_with_email_and_password",
    "SignInWithEmailLink": "auth.sign_in_with_email_link",
    "SignInWithCustomToken": "auth.sign_in_with_custom_token",
    "SignInWithCredential": "auth.sign_in_with_credential",
    "SignInWithBrowser": "auth.sign_in_with_browser",
    "ResolveSignInWithTOTP": "e.resolver.resolve_sign_in",
    "StartGitHubSignIn": "auth.start_github_sign_in",
    "FinishGitHubSignIn": "auth.finish_github_sign_in",
    "GetUser": "auth.current_user",
    "GetIDToken": "user.get_id_token",
    "GetIDTokenResult": "user.get_id_token_result",
    "UpdateCurrentUser": "auth.update_current_user",
    "Reload": "user.reload",
    "UpdateProfile": "user.update_profile",
    "UpdatePassword": "user.update_password",
    "VerifyBeforeUpdateEmail": "user.verify_before_update_email",
    "SendEmailVerification": "user.send_email_verification",
    "Reauthenticate": "user.reauthenticate_with_credential",
    "Link": "user.link_with_credential",
    "LinkWithBrowser": "user.link_with_popup",
    "ReauthenticateWithBrowser": "user.reauthenticate_with_popup",
    "Unlink": "user.unlink",
    "Delete": "user.delete",
    "SendPasswordReset": "auth.send_password_reset_email",
    "FetchSignInMethods": "auth.fetch_sign_in_methods_for_email",
    "GetPasswordPolicy": "auth.validate_password",
    "CommitSignIn": "auth.before_auth_state_changed's sign-in",
    "DropSignIn": "auth.before_auth_state_changed's sign-in",
    "VerifyPasswordResetCode": "auth.verify_password_reset_code",
    "ConfirmPasswordReset": "auth.confirm_password_reset",
    "CheckActionCode": "auth.check_action_code",
    "ApplyActionCode": "auth.apply_action_code",
    "SendSignInLink": "auth.send_sign_in_link_to_email",
    "StartTOTPEnrollment": "TotpMultiFactorGenerator.generate_secret",
    "FinishTOTPEnrollment": "user.multi_factor.enroll",
    "Unenroll": "user.multi_factor.unenroll",
    "StartPhoneVerification": "sign_in_with_phone_number",
    "StartPhoneSecondFactor": "PhoneAuthProvider(auth).verify_phone_number",
    "ConfirmPhoneVerification": "confirmation_result.confirm",
    "SignOut": "auth.sign_out",
    "Watch": "auth.on_auth_state_changed",
    "Unwatch": "the function auth.on_auth_state_changed answered",
}

_SIGN_IN = "auth.sign_in_with_email_and_password, or another of auth's sign_in_ methods, signs in"
_RESET = "send a reset with auth.send_password_reset_email(email)"
_NEW_EMAIL = ("auth.send_password_reset_email, user.send_email_verification, auth.send_sign_in_link_to_email and "
              "user.verify_before_update_email send one; pass the oobCode of its link.")
_CUSTOM_TOKEN = ("auth.sign_in_with_custom_token takes the token the app's server mints for this project (an Admin SDK's "
                 "create_custom_token).")
_TOTP_CODE = ("Ask for the authenticator app's code now and call again: e.resolver.resolve_sign_in("
              "TotpMultiFactorGenerator.assertion_for_sign_in(hint.uid, code)) for a sign-in, user.multi_factor.enroll("
              "TotpMultiFactorGenerator.assertion_for_enrollment(secret, code)) for an enrollment; the resolver and the "
              "secret stay good for five minutes.")
_SMS_CODE = ("An SMS code is given again with the same verification: confirmation_result.confirm(code), or "
             "PhoneAuthProvider.credential(verification_id, code) where it came from verify_phone_number; five wrong codes end "
             "the verification, and sign_in_with_phone_number (or verify_phone_number) starts a new one.")
_SMS_AGAIN = "Start a new verification: sign_in_with_phone_number, link_with_phone_number, or PhoneAuthProvider(auth).verify_phone_number."
_FACTORS = "user.multi_factor.enrolled_factors lists the factors; user.multi_factor.unenroll(factor) removes one."
_ACTION_URL = "Pass ActionCodeSettings(url=…) a URL of a domain the Firebase console authorizes (Authentication, Settings)."

#: The way on in Python, said after the broker's words (which say what happened, and the way on where no Python call
#: is one: the Firebase console, a wait): by the server's code of the message (``INVALID_LOGIN_CREDENTIALS``) where it
#: needs its own, else by Firebase's error name.
WAY_ON = {
    "ERROR_WRONG_PASSWORD": f"Check the password, or {_RESET}.",
    "INVALID_LOGIN_CREDENTIALS": f"Check both, or {_RESET}; auth.create_user_with_email_and_password makes a new account.",
    "ERROR_INVALID_CREDENTIAL": ("A provider's new token goes to the same call in its credential: GoogleAuthProvider.credential"
                                 "(id_token=…), OAuthProvider(provider_id).credential(…), …"),
    "EMAIL_NOT_FOUND": "auth.create_user_with_email_and_password(email, password) creates one.",
    "ERROR_USER_NOT_FOUND": f"{_SIGN_IN}; auth.create_user_with_email_and_password creates an account.",
    "ERROR_EMAIL_ALREADY_IN_USE": ("auth.sign_in_with_email_and_password(email, password) signs in to it; for a forgotten password, "
                                   f"{_RESET}."),
    "ERROR_TOO_MANY_REQUESTS": ("Wait as the message says, then call again; an account locked by failed sign-ins opens at once with a "
                                f"new password: {_RESET}."),
    "ERROR_REQUIRES_RECENT_LOGIN": ("user.reauthenticate_with_credential(EmailAuthProvider.credential(email, password)), or with "
                                    "the provider's credential, signs in again without signing out."),
    "ERROR_USER_TOKEN_EXPIRED": f"{_SIGN_IN} again.",
    "ERROR_INVALID_USER_TOKEN": f"{_SIGN_IN} again.",
    "ERROR_NULL_USER": f"{_SIGN_IN}; auth.on_auth_state_changed(callback) tells the app when an app of the group signs in or out.",
    "ERROR_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL": ("Sign in with the account's own method, then add this credential with "
                                                       "user.link_with_credential(credential)."),
    "ERROR_CREDENTIAL_ALREADY_IN_USE": "auth.sign_in_with_credential(credential) signs in to that account.",
    "ERROR_PROVIDER_ALREADY_LINKED": "user.provider_data lists the account's methods; user.unlink(provider_id) removes one.",
    "ERROR_NO_SUCH_PROVIDER": "user.provider_data lists the account's methods.",
    "ERROR_USER_MISMATCH": "Pass user.reauthenticate_with_credential a credential of this user.",
    "ERROR_INVALID_ACTION_CODE": _NEW_EMAIL,
    "ERROR_EXPIRED_ACTION_CODE": _NEW_EMAIL,
    "ERROR_INVALID_CUSTOM_TOKEN": _CUSTOM_TOKEN,
    "ERROR_CUSTOM_TOKEN_MISMATCH": _CUSTOM_TOKEN,
    "ERROR_MISSING_OR_INVALID_NONCE": "Pass the raw nonce: OAuthProvider(provider_id).credential(id_token=…, raw_nonce=…).",
    "ERROR_INVALID_VERIFICATION_CODE": f"{_TOTP_CODE} {_SMS_CODE}",
    "ERROR_MISSING_VERIFICATION_CODE": _TOTP_CODE,
    "ERROR_INVALID_PHONE_NUMBER": "Pass the number in E.164 form: a +, the country code and the number, such as \"+15555550100\".",
    "ERROR_MISSING_PHONE_NUMBER": "Pass the number in E.164 form, such as \"+15555550100\".",
    "ERROR_SESSION_EXPIRED": _SMS_AGAIN,
    "ERROR_INVALID_VERIFICATION_ID": _SMS_AGAIN,
    "ERROR_MULTI_FACTOR_INFO_NOT_FOUND": "Pass the uid of one of e.resolver.hints (or of user.multi_factor.enrolled_factors).",
    "ERROR_SECOND_FACTOR_ALREADY_ENROLLED": _FACTORS,
    "ERROR_MAXIMUM_SECOND_FACTOR_COUNT_EXCEEDED": _FACTORS,
    "ERROR_UNVERIFIED_EMAIL": ("Verify the address first: user.send_email_verification(), the person follows the link, then "
                               "user.reload()."),
    "ERROR_NETWORK_REQUEST_FAILED": ("Check the network (or that the emulator connect_auth_emulator or FIREBASE_AUTH_EMULATOR_HOST "
                                     "names is running), then call again."),
    "ERROR_INVALID_API_KEY": "Check FirebaseOptions.api_key: FirebaseOptions.from_file reads it from the app's google-services.json.",
    "INVALID_TENANT_ID": "Check FirebaseOptions.tenant_id.",
    "ERROR_TENANT_ID_MISMATCH": "Make the Auth with FirebaseOptions(tenant_id=…) of the user's tenant.",
    "ERROR_WEB_CONTEXT_CANCELLED": ("Start again with the call that was cancelled: auth.sign_in_with_popup, user.link_with_popup, "
                                    "user.reauthenticate_with_popup, auth.sign_in_with_browser or auth.start_github_sign_in."),
    "ERROR_WEB_USER_INTERACTION_FAILURE": ("The person declined; start again with auth.sign_in_with_popup, user.link_with_popup, "
                                           "user.reauthenticate_with_popup, auth.sign_in_with_browser or auth.start_github_sign_in "
                                           "when they want to."),
    "ERROR_WEB_CONTEXT_ALREADY_PRESENTED": "Wait for the sign-in under way to finish, then call again.",
    "ERROR_INVALID_CLIENT_ID": "Check the client_id passed to auth.sign_in_with_browser or auth.start_github_sign_in.",
    "ERROR_MISSING_CONTINUE_URI": _ACTION_URL,
    "ERROR_INVALID_CONTINUE_URI": _ACTION_URL,
    "ERROR_UNAUTHORIZED_DOMAIN": _ACTION_URL,
    "ERROR_KEYCHAIN_ERROR": "The Auth stays usable: call again once the keyring runs and is unlocked.",
}

#: The broker's words for its arguments, its methods and its errors, each with the package's; applied in order.
_WORDS: list[tuple[re.Pattern[str], str]] = [(re.compile(pattern), replacement) for pattern, replacement in [
    (r"SendSignInLink needs actionCodeSettings with url \(the link's continue URL\) and handleCodeInApp true",
     ("auth.send_sign_in_link_to_email needs ActionCodeSettings(url=…, handle_code_in_app=True), url being the link's "
      "continue URL")),
    (r"\bactionCodeSettings's url\b", "ActionCodeSettings.url"),
    (r"\bprofile's photoURL is not a URL; give one such as (\S+), or \"\" to remove it", r"photo_url is not a URL; give one such as \1, or None to remove it"),
    (r"\bleave emulatorHost out\b", "unset FIREBASE_AUTH_EMULATOR_HOST and leave out connect_auth_emulator"),
    (r"\bapp's emulatorHost\b", "The emulator's address"),
    (r"\bapp's languageCode\b", "Auth.language_code"),
    (r"\bapp's appCheckToken is not an App Check token\b", "The App Check token of keyringauth.app_check's provider is not one"),
    (r"\bapp needs apiKey\b", "FirebaseOptions needs api_key"),
    (r"\bapp needs appID\b", "FirebaseOptions needs app_id"),
    (r"\bapp needs projectID\b", "FirebaseOptions needs project_id"),
    (r"\bapp's appName must not be empty; leave it out\b", "FirebaseOptions.app_name must not be empty; leave it None"),
    (r"or \"\" for the app's private scope", "or access_group=None for the app's private scope"),
    (r"\bcredential needs providerID, for example google\.com", "The credential needs a provider ID, as OAuthProvider(\"google.com\") has"),
    (r"the factors SecondFactorRequired listed", "the factors of e.resolver.hints"),
    (r"\bunwatch one\b", "close one of its Auths (each watches its app and group: auth.close(), or the end of its with block)"),
    (r"^newPassword\b", "new_password"),
    (r"^link\b", "email_link"),
    (r"^displayName\b", "display_name"),
    (r"^accountName\b", "account_name"),
    (r"^factorUID\b", "The factor's uid"),
    (r"^providerID\b", "provider_id"),
    (r"^group\b", "access_group"),
] + [(rf"\b{method}\b", name) for method, name in METHODS.items() if sum(letter.isupper() for letter in method) > 1]]

#: Identity Platform's words when a project enforces App Check on Authentication and a call carried no valid token, which
#: begin the broker's message of it (``ERROR_INTERNAL_ERROR: Firebase App Check token is invalid: …``).
APP_CHECK_REFUSAL = "Firebase App Check token is invalid"
#: Where the broker's message of that refusal gives the way on for a Swift app, which the package's replaces.
_SWIFT_APP_CHECK_WAY_ON = " Set an App Check provider factory"
_APP_CHECK_WAY_ON = (
    "Initialize App Check for the app before its calls: keyringauth.app_check.initialize_app_check(auth, "
    "provider=CustomProvider(get_token=…)), get_token answering the token the app's backend mints with the Admin SDK's "
    "app_check.create_token, or provider=DebugProvider() with a debug secret registered for the app in the Firebase console "
    "(App Check, Apps, Manage debug tokens) in APP_CHECK_DEBUG_TOKEN. Once it is initialized, a warning on the keyringauth "
    "logger says why a call had no token.")

#: The server's code and words that end a message from Firebase: ``(WEAK_PASSWORD: Password should be …)``.
_SERVER = re.compile(r"^(?P<text>.*?)\s*\((?P<server>(?P<code>[A-Z][A-Z0-9_]+)(?:: .*)?)\)$", re.DOTALL)


def in_python(message: str) -> str:
    """``message`` of the broker with its methods and arguments named as the package names them."""
    for pattern, replacement in _WORDS:
        message = pattern.sub(replacement, message)
    return message


def app_check_refusal_message(message: str) -> str:
    """The broker's message of Identity Platform's App Check refusal (which begins with APP_CHECK_REFUSAL): what
    happened in the broker's words, then the way on in Python instead of Swift's."""
    what = message.split(_SWIFT_APP_CHECK_WAY_ON, 1)[0].strip()
    what = in_python(what if what.endswith((".", "?", "!")) else what + ".")
    return f"{what} {_APP_CHECK_WAY_ON}"


def firebase_message(name: str, message: str) -> str:
    """The message of Firebase's error ``name`` from the broker's ``message``: what happened, the way on in Python, and
    last, in parentheses, the server's code and words when the server said it."""
    found = _SERVER.match(message)
    text, server, code = (found["text"], found["server"], found["code"]) if found else (message, None, None)
    text = in_python(text)
    parts = [text if text.endswith((".", "?", "!")) else text + "."]
    way_on = WAY_ON.get(code or "") or WAY_ON.get(name)
    if way_on:
        parts.append(way_on)
    if server:
        parts.append(f"({server})")
    return " ".join(parts)
