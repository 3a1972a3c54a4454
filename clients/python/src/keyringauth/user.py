"""The signed-in user, as Firebase's JavaScript SDK shapes it, in Python's style."""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from . import errors
from ._binding import Binding
from .credentials import AuthCredential

if TYPE_CHECKING:  # pragma: no cover
    from .auth import ActionCodeSettings, UserCredential
    from .multifactor import MultiFactorUser

#: ``update_profile``'s "leave this field as it is".
KEEP: Any = object()


def _seconds(value: Any) -> datetime:
    return datetime.fromtimestamp(int(value), tz=timezone.utc)


@dataclass(frozen=True)
class IdTokenResult:
    """An ID token and what it says (``get_id_token_result``)."""

    token: str
    claims: Dict[str, Any]
    auth_time: datetime
    issued_at_time: datetime
    expiration_time: datetime
    sign_in_provider: str
    sign_in_second_factor: Optional[str]

    def __repr__(self) -> str:  # the token is a secret
        return "IdTokenResult(sign_in_provider=%r, expiration_time=%r)" % (self.sign_in_provider, self.expiration_time)


@dataclass(frozen=True)
class MultiFactorInfo:
    """A second factor of the account: its uid, display name, kind (``totp``) and when it was enrolled."""

    uid: str
    display_name: Optional[str]
    factor_id: str
    enrollment_time: datetime

    @classmethod
    def from_dictionary(cls, values: Dict[str, Any]) -> "MultiFactorInfo":
        return cls(uid=str(values.get("uid", "")), display_name=values.get("displayName"), factor_id=str(values.get("factorID", "")),
                   enrollment_time=_seconds(values.get("enrollmentDate", 0)))


class User:
    """The user signed in to an app and group, as it was when this object was read (``reload`` reads it again).

    Its methods act on the user signed in to that app and group now; when another app has signed out meanwhile,
    they raise NoCurrentUserError.
    """

    def __init__(self, binding: Binding, values: Dict[str, Any]) -> None:
        self._binding = binding
        self._values = values

    # The fields, as the JavaScript SDK names them.
    @property
    def uid(self) -> str:
        return str(self._values.get("uid", ""))

    @property
    def email(self) -> Optional[str]:
        return self._values.get("email")

    @property
    def email_verified(self) -> bool:
        return bool(self._values.get("emailVerified", False))

    @property
    def display_name(self) -> Optional[str]:
        return self._values.get("displayName")

    @property
    def photo_url(self) -> Optional[str]:
        return self._values.get("photoURL")

    @property
    def phone_number(self) -> Optional[str]:
        return self._values.get("phoneNumber")

    @property
    def is_anonymous(self) -> bool:
        return bool(self._values.get("isAnonymous", False))

    @property
    def provider_id(self) -> str:
        return str(self._values.get("providerID", "firebase"))

    @property
    def tenant_id(self) -> Optional[str]:
        return self._values.get("tenantID")

    @property
    def provider_data(self) -> List[str]:
        """The IDs of the sign-in methods linked to the account (``password``, ``google.com``, …)."""
        providers = self._values.get("providers", "")
        return [provider for provider in str(providers).split(",") if provider]

    @property
    def multi_factor(self) -> "MultiFactorUser":
        from .multifactor import MultiFactorUser

        return MultiFactorUser(self)

    @property
    def enrolled_factors(self) -> List[MultiFactorInfo]:
        return [MultiFactorInfo.from_dictionary(factor) for factor in self._values.get("secondFactors", [])]

    # Tokens.
    def get_id_token(self, force_refresh: bool = False) -> str:
        """The user's ID token, refreshed when it has expired or ``force_refresh`` asks."""
        return str(self._binding.call("GetIDToken", "b", force_refresh)[0])

    def get_id_token_result(self, force_refresh: bool = False) -> IdTokenResult:
        values = self._binding.call("GetIDTokenResult", "b", force_refresh)[0]
        return IdTokenResult(
            token=values["token"], claims=json.loads(values.get("claims", "{}")), auth_time=_seconds(values["authDate"]),
            issued_at_time=_seconds(values["issuedAtDate"]), expiration_time=_seconds(values["expirationDate"]),
            sign_in_provider=values.get("signInProvider", ""), sign_in_second_factor=values.get("signInSecondFactor"))

    # The account.
    def reload(self) -> None:
        """Reads the user again from Firebase, and updates this object."""
        self._refresh(self._binding.user("Reload"))

    def update_profile(self, display_name: Any = KEEP, photo_url: Any = KEEP) -> None:
        """Sets the display name and photo URL; ``None`` removes one, a field not given is kept."""
        profile = {}
        if display_name is not KEEP:
            profile["displayName"] = display_name or ""
        if photo_url is not KEEP:
            profile["photoURL"] = photo_url or ""
        self._refresh(self._binding.user("UpdateProfile", "a{sv}", {key: ("s", value) for key, value in profile.items()}))

    def update_password(self, new_password: str) -> None:
        self._binding.call("UpdatePassword", "s", new_password)

    def verify_before_update_email(self, new_email: str, action_code_settings: Optional["ActionCodeSettings"] = None) -> None:
        """Sends a link to ``new_email``; the address changes once it is followed."""
        self._binding.call("VerifyBeforeUpdateEmail", "sa{sv}", new_email, _settings(action_code_settings))

    def send_email_verification(self, action_code_settings: Optional["ActionCodeSettings"] = None) -> None:
        self._binding.call("SendEmailVerification", "a{sv}", _settings(action_code_settings))

    def reauthenticate_with_credential(self, credential: AuthCredential) -> "UserCredential":
        from .auth import UserCredential

        user = self._binding.user("Reauthenticate", "a{sv}", _credential(credential))
        self._refresh(user)
        return UserCredential(self, credential.provider_id, "reauthenticate")

    def link_with_credential(self, credential: AuthCredential) -> "UserCredential":
        from .auth import UserCredential

        self._refresh(self._binding.user("Link", "a{sv}", _credential(credential)))
        return UserCredential(self, credential.provider_id, "link")

    def unlink(self, provider_id: str) -> "User":
        self._refresh(self._binding.user("Unlink", "s", provider_id))
        return self

    def delete(self) -> None:
        """Deletes the account; nobody is signed in to the group after it."""
        self._binding.call("Delete")

    def _refresh(self, user: Optional["User"]) -> None:
        if user is None:
            raise errors.NoCurrentUserError("auth/null-user", "ERROR_NULL_USER", "Nobody is signed in any more.")
        self._values = user._values

    def to_dict(self) -> Dict[str, Any]:
        """The user's fields as the broker sends them (never a token)."""
        return dict(self._values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, User) and other._values == self._values

    def __hash__(self) -> int:
        return hash(self.uid)

    def __repr__(self) -> str:
        return "User(uid=%r, email=%r, is_anonymous=%r)" % (self.uid, self.email, self.is_anonymous)


def _settings(settings: Optional["ActionCodeSettings"]) -> Dict[str, Any]:
    return settings.dictionary() if settings is not None else {}


def _credential(credential: AuthCredential) -> Dict[str, Any]:
    return {key: ("s", value) for key, value in credential.dictionary().items()}
