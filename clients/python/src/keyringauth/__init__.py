"""Firebase Authentication for Linux desktop apps in Python: one sign-in shared by every app of an access group,
kept in the session's keyring by KeyringAuth's broker (io.github.keyringauth.Broker1)."""
from . import app_check
from .action_code import (
    ActionCodeInfo,
    ActionCodeInfoData,
    ActionCodeOperation,
    ActionCodeSettings,
    ActionCodeURL,
    parse_action_code_url,
)
from .auth import (
    Auth,
    GitHubDeviceAuthorization,
    connect_auth_emulator,
    get_multi_factor_resolver,
    sign_in_with_popup,
    validate_password,
)
from .credentials import (
    AuthCredential,
    EmailAuthProvider,
    FacebookAuthProvider,
    FederatedAuthProvider,
    GithubAuthProvider,
    GoogleAuthProvider,
    OAuthProvider,
    PhoneAuthCredential,
    ProviderId,
    SignInMethod,
    TwitterAuthProvider,
)
from .emulator import EmulatorConfig, EmulatorOptions
from .error_codes import AuthErrorCodes
from .errors import (
    AccessDeniedError,
    AuthError,
    BrokerUnavailableError,
    EmailAlreadyInUseError,
    InvalidCredentialError,
    KeyringUnavailableError,
    NoCurrentUserError,
    UserNotFoundError,
    WrongPasswordError,
)
from .glib import glib_dispatch
from .multifactor import (
    FactorId,
    MultiFactorInfo,
    MultiFactorSession,
    MultiFactorUser,
    PhoneMultiFactorAssertion,
    PhoneMultiFactorGenerator,
    PhoneMultiFactorInfo,
    TotpMultiFactorAssertion,
    TotpMultiFactorGenerator,
    TotpSecret,
)
from .options import FirebaseOptions
from .password_policy import PasswordPolicy, PasswordPolicyCustomStrengthOptions, PasswordValidationStatus
from .phone import (
    ConfirmationResult,
    PhoneAuthProvider,
    VerificationPage,
    link_with_phone_number,
    reauthenticate_with_phone_number,
    sign_in_with_phone_number,
    update_phone_number,
)
from .user import (
    AdditionalUserInfo,
    IdTokenResult,
    MultiFactorResolver,
    OperationType,
    SecondFactorRequiredError,
    User,
    UserCredential,
    UserInfo,
    UserMetadata,
    get_additional_user_info,
    link_with_popup,
    multi_factor,
    reauthenticate_with_popup,
)

__all__ = [
    "AccessDeniedError", "ActionCodeInfo", "ActionCodeInfoData", "ActionCodeOperation", "ActionCodeSettings", "ActionCodeURL",
    "AdditionalUserInfo", "Auth", "AuthCredential", "AuthError", "AuthErrorCodes", "BrokerUnavailableError", "ConfirmationResult",
    "EmailAlreadyInUseError", "EmailAuthProvider", "EmulatorConfig", "EmulatorOptions", "FacebookAuthProvider", "FactorId", "FederatedAuthProvider", "FirebaseOptions",
    "GitHubDeviceAuthorization", "GithubAuthProvider", "GoogleAuthProvider", "IdTokenResult", "InvalidCredentialError",
    "KeyringUnavailableError", "MultiFactorInfo", "MultiFactorResolver", "MultiFactorSession", "MultiFactorUser",
    "NoCurrentUserError", "OAuthProvider", "OperationType", "PasswordPolicy", "PasswordPolicyCustomStrengthOptions",
    "PasswordValidationStatus", "PhoneAuthCredential", "PhoneAuthProvider", "PhoneMultiFactorAssertion", "PhoneMultiFactorGenerator",
    "PhoneMultiFactorInfo", "ProviderId", "SecondFactorRequiredError", "SignInMethod", "TotpMultiFactorAssertion", "TotpMultiFactorGenerator",
    "TotpSecret", "TwitterAuthProvider", "User", "UserCredential", "UserInfo", "UserMetadata", "UserNotFoundError", "VerificationPage",
    "WrongPasswordError",
    "app_check", "connect_auth_emulator", "get_additional_user_info", "get_multi_factor_resolver", "glib_dispatch", "link_with_phone_number",
    "link_with_popup", "multi_factor", "parse_action_code_url", "reauthenticate_with_phone_number", "reauthenticate_with_popup",
    "sign_in_with_phone_number", "sign_in_with_popup", "update_phone_number", "validate_password",
]
