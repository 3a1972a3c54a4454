"""Firebase Authentication for Linux desktop apps in Python: one sign-in shared by every app of an access group,
kept in the session's keyring by KeyringAuth's broker (io.github.keyringauth.Broker1)."""
from .action_code import ActionCodeInfo, ActionCodeSettings
from .auth import Auth, GitHubDeviceAuthorization, connect_auth_emulator
from .credentials import (
    AuthCredential,
    EmailAuthProvider,
    FacebookAuthProvider,
    GithubAuthProvider,
    GoogleAuthProvider,
    OAuthProvider,
    TwitterAuthProvider,
)
from .emulator import EmulatorConfig, EmulatorOptions
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
    MultiFactorInfo,
    MultiFactorSession,
    MultiFactorUser,
    TotpMultiFactorAssertion,
    TotpMultiFactorGenerator,
    TotpSecret,
)
from .options import FirebaseOptions
from .user import IdTokenResult, MultiFactorResolver, SecondFactorRequiredError, User, UserCredential

__all__ = [
    "AccessDeniedError", "ActionCodeInfo", "ActionCodeSettings", "Auth", "AuthCredential", "AuthError", "BrokerUnavailableError",
    "EmailAlreadyInUseError", "EmailAuthProvider", "EmulatorConfig", "EmulatorOptions", "FacebookAuthProvider", "FirebaseOptions",
    "GitHubDeviceAuthorization", "GithubAuthProvider", "GoogleAuthProvider", "IdTokenResult", "InvalidCredentialError",
    "KeyringUnavailableError", "MultiFactorInfo", "MultiFactorResolver", "MultiFactorSession", "MultiFactorUser",
    "NoCurrentUserError", "OAuthProvider", "SecondFactorRequiredError", "TotpMultiFactorAssertion", "TotpMultiFactorGenerator",
    "TotpSecret", "TwitterAuthProvider", "User", "UserCredential", "UserNotFoundError", "WrongPasswordError",
    "connect_auth_emulator", "glib_dispatch",
]
