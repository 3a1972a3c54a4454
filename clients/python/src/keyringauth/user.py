"""The signed-in user as Firebase's JavaScript SDK shapes it, in Python's style, and what signing in answers: a
UserCredential, or SecondFactorRequiredError with the resolver that finishes the sign-in. Above the transport and the
second factors; Auth, on top, makes its users here."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import formatdate
from typing import Any

from . import errors
from ._binding import Binding
from .action_code import ActionCodeSettings, settings_dictionary
from .credentials import AuthCredential, FederatedAuthProvider, PhoneAuthCredential
from .multifactor import (
    MultiFactorInfo,
    MultiFactorSession,
    MultiFactorUser,
    PhoneMultiFactorAssertion,
    TotpMultiFactorAssertion,
    seconds,
)

#: ``update_profile``'s "leave this field as it is".
KEEP: Any = object()


@dataclass(frozen=True)
class IdTokenResult:
    """An ID token and what it says (``get_id_token_result``)."""

    token: str
    claims: dict[str, Any]
    auth_time: datetime
    issued_at_time: datetime
    expiration_time: datetime
    sign_in_provider: str
    sign_in_second_factor: str | None

    def __repr__(self) -> str:  # the token is a secret
        return f"IdTokenResult(sign_in_provider={self.sign_in_provider!r}, expiration_time={self.expiration_time!r})"


@dataclass(frozen=True)
class UserInfo:
    """A sign-in method of the account, as the JavaScript SDK's ``UserInfo``: its provider's ID and what the
    provider says of the person."""

    uid: str
    display_name: str | None
    email: str | None
    phone_number: str | None
    photo_url: str | None
    provider_id: str

    def to_json(self) -> dict[str, Any]:
        return {"uid": self.uid, "displayName": self.display_name, "email": self.email, "phoneNumber": self.phone_number,
                "photoURL": self.photo_url, "providerId": self.provider_id}


@dataclass(frozen=True)
class UserMetadata:
    """When the account was made and last signed in (``User.metadata``), as the JavaScript SDK's ``UserMetadata`` writes
    them: UTC strings such as ``Tue, 01 Jan 2030 00:00:00 GMT`` (``email.utils.parsedate_to_datetime`` reads one), to
    the second, or ``None`` where the account's record has none."""

    creation_time: str | None = None
    last_sign_in_time: str | None = None

    @classmethod
    def _of(cls, values: dict[str, Any]) -> UserMetadata:
        def utc(key: str) -> str | None:
            return formatdate(values[key], usegmt=True) if isinstance(values.get(key), int) else None
        return cls(utc("creationDate"), utc("lastSignInDate"))


class User:
    """The user signed in to an app and group, as it was when this object was read (``reload`` reads it again).

    Its methods act on the user signed in to that app and group now; when another app has signed out meanwhile,
    they raise NoCurrentUserError.
    """

    def __init__(self, binding: Binding, values: dict[str, Any]) -> None:
        self._binding = binding
        self._values = values

    # The fields, as the JavaScript SDK names them.
    @property
    def uid(self) -> str:
        return str(self._values.get("uid", ""))

    @property
    def email(self) -> str | None:
        return self._values.get("email")

    @property
    def email_verified(self) -> bool:
        return bool(self._values.get("emailVerified", False))

    @property
    def display_name(self) -> str | None:
        return self._values.get("displayName")

    @property
    def photo_url(self) -> str | None:
        return self._values.get("photoURL")

    @property
    def phone_number(self) -> str | None:
        return self._values.get("phoneNumber")

    @property
    def is_anonymous(self) -> bool:
        return bool(self._values.get("isAnonymous", False))

    @property
    def provider_id(self) -> str:
        """Always ``firebase``, as the JavaScript SDK's (a provider's ID is in ``provider_data``)."""
        return "firebase"

    @property
    def tenant_id(self) -> str | None:
        return self._values.get("tenantID")

    @property
    def provider_data(self) -> list[UserInfo]:
        """The sign-in methods linked to the account (``password``, ``google.com``, …), each as a UserInfo. The broker
        sends each one's provider ID only: a ``password`` entry has the account's address as its uid and email, and
        another provider's entry has an empty uid and no profile."""
        providers = [provider for provider in str(self._values.get("providers", "")).split(",") if provider]
        return [UserInfo(uid=self.email or "", display_name=None, email=self.email, phone_number=None, photo_url=None,
                         provider_id=provider) if provider == "password" else
                UserInfo(uid="", display_name=None, email=None, phone_number=None, photo_url=None, provider_id=provider)
                for provider in providers]

    @property
    def metadata(self) -> UserMetadata:
        """When the account was made and last signed in."""
        return UserMetadata._of(self._values)

    @property
    def refresh_token(self) -> str:
        """The user's refresh token, as the JavaScript SDK's ``refreshToken``: the long-lived secret that gets new ID
        tokens, the group's own (every app of the group reads it from its item), for an app's own uses only; never log
        it. ``get_id_token`` is the way to a fresh ID token. ``repr`` and ``to_json`` leave it out."""
        return str(self._values.get("refreshToken", ""))

    @property
    def _id_token(self) -> str | None:
        """The ID token as the broker last sent it (``get_id_token`` is the way to a fresh one): what tells the Auth
        that the token changed."""
        token = self._values.get("idToken")
        return str(token) if token else None

    @property
    def multi_factor(self) -> MultiFactorUser:
        return MultiFactorUser(self._binding, lambda: self.enrolled_factors, self._took)

    @property
    def enrolled_factors(self) -> list[MultiFactorInfo]:
        return [MultiFactorInfo.from_dictionary(factor) for factor in self._values.get("secondFactors", [])]

    # Tokens.
    def get_id_token(self, force_refresh: bool = False) -> str:
        """The user's ID token, refreshed when it has expired or ``force_refresh`` asks."""
        return str(self._binding.call("GetIDToken", "b", force_refresh)[0])

    def get_id_token_result(self, force_refresh: bool = False) -> IdTokenResult:
        values = self._binding.call("GetIDTokenResult", "b", force_refresh)[0]
        return IdTokenResult(
            token=values["token"], claims=json.loads(values.get("claims", "{}")), auth_time=seconds(values["authDate"]),
            issued_at_time=seconds(values["issuedAtDate"]), expiration_time=seconds(values["expirationDate"]),
            sign_in_provider=values.get("signInProvider", ""), sign_in_second_factor=values.get("signInSecondFactor"))

    # The account.
    def reload(self) -> None:
        """Reads the user again from Firebase, and updates this object."""
        self._refresh(answer(self._binding, "Reload"))

    def update_profile(self, display_name: Any = KEEP, photo_url: Any = KEEP) -> None:
        """Sets the display name and photo URL; ``None`` removes one, a field not given is kept."""
        profile = {}
        if display_name is not KEEP:
            profile["displayName"] = display_name or ""
        if photo_url is not KEEP:
            profile["photoURL"] = photo_url or ""
        self._refresh(answer(self._binding, "UpdateProfile", "a{sv}", {key: ("s", value) for key, value in profile.items()}))

    def update_password(self, new_password: str) -> None:
        self._binding.call("UpdatePassword", "s", new_password)

    def verify_before_update_email(self, new_email: str, action_code_settings: ActionCodeSettings | None = None) -> None:
        """Sends a link to ``new_email``; the address changes once it is followed."""
        self._binding.call("VerifyBeforeUpdateEmail", "sa{sv}", new_email, settings_dictionary(action_code_settings))

    def send_email_verification(self, action_code_settings: ActionCodeSettings | None = None) -> None:
        self._binding.call("SendEmailVerification", "a{sv}", settings_dictionary(action_code_settings))

    def reauthenticate_with_credential(self, credential: AuthCredential) -> UserCredential:
        """Reauthenticates with a provider's credential, a password's, or a phone verification's code
        (``PhoneAuthProvider.credential``)."""
        if isinstance(credential, PhoneAuthCredential):
            self._refresh(phone_answer(self._binding, credential, "reauthenticate"))
        else:
            self._refresh(answer(self._binding, "Reauthenticate", "a{sv}", credential_dictionary(credential)))
        return UserCredential(self, credential.provider_id, "reauthenticate", _is_new_user=False)

    def link_with_credential(self, credential: AuthCredential) -> UserCredential:
        """Links a provider's credential, a password's, or a phone number by its verification's code
        (``PhoneAuthProvider.credential``)."""
        if isinstance(credential, PhoneAuthCredential):
            self._refresh(phone_answer(self._binding, credential, "link"))
        else:
            self._refresh(answer(self._binding, "Link", "a{sv}", credential_dictionary(credential)))
        return UserCredential(self, credential.provider_id, "link", _is_new_user=False)

    def update_phone_number(self, credential: PhoneAuthCredential) -> None:
        """Changes the user's phone number to the one a verification's code proves, as the JavaScript SDK's
        ``updatePhoneNumber``; a wrong code raises and may be corrected (five wrong codes end the verification)."""
        if not isinstance(credential, PhoneAuthCredential):
            raise errors.invalid_argument("update_phone_number takes PhoneAuthProvider.credential(verification_id, code).")
        self._refresh(phone_answer(self._binding, credential, "update"))

    def link_with_popup(self, provider: FederatedAuthProvider) -> UserCredential:
        """Links the provider to this user, the person's own browser standing for the popup, as the JavaScript SDK's
        ``linkWithPopup``: the Firebase project's own provider (``OAuthProvider("microsoft.com")`` with its scopes and
        custom parameters, ``GoogleAuthProvider()``, …), begun by Firebase and run by the broker; waits up to five
        minutes for the person. Raises AuthError: ``auth/argument-error`` for a provider that is not such a provider,
        ``auth/credential-already-in-use`` when the provider's account is another user's, ``auth/web-context-cancelled``
        when the person closed the page or five minutes passed."""
        federated(provider, "user.link_with_popup")
        self._refresh(answer(self._binding, "LinkWithBrowser", "a{sv}", provider._browser_dictionary(), timeout=330.0))
        return UserCredential(self, provider.provider_id, "link", _is_new_user=False)

    def reauthenticate_with_popup(self, provider: FederatedAuthProvider) -> UserCredential:
        """Signs this user in again in the person's browser, as the JavaScript SDK's ``reauthenticateWithPopup``, for a
        call that needs a recent sign-in; the provider as ``link_with_popup``'s. Raises AuthError as it does, and
        ``auth/user-mismatch`` when the person signs in to another account there."""
        federated(provider, "user.reauthenticate_with_popup")
        self._refresh(answer(self._binding, "ReauthenticateWithBrowser", "a{sv}", provider._browser_dictionary(), timeout=330.0))
        return UserCredential(self, provider.provider_id, "reauthenticate", _is_new_user=False)

    def unlink(self, provider_id: str) -> User:
        self._refresh(answer(self._binding, "Unlink", "s", provider_id))
        return self

    def delete(self) -> None:
        """Deletes the account; nobody is signed in to the group after it. The Auth's before_auth_state_changed
        callbacks run first, with ``None``, and one that raises keeps the account (the JavaScript SDK deletes it first,
        then runs them, and leaves a deleted user signed in when one raises, which a group's shared sign-in cannot)."""
        self._binding.before_sign_out()
        self._binding.call("Delete")
        self._binding.answered({})

    def _took(self, values: dict[str, Any] | None) -> None:
        """Takes the user a change of this one answered, and tells the Auth."""
        self._binding.answered(values or {})
        self._refresh(values)

    def _refresh(self, values: dict[str, Any] | None) -> None:
        if not values:
            raise errors.no_current_user("Nobody is signed in any more: another app of the group signed out.")
        self._values = values

    def to_dict(self) -> dict[str, Any]:
        """The user's fields as the broker sends them, its tokens among them."""
        return dict(self._values)

    def to_json(self) -> dict[str, Any]:
        """The user as the JavaScript SDK's ``toJSON()`` writes it, JSON-ready, with ``createdAt`` and ``lastLoginAt``
        (milliseconds, as strings, to the second) but without the tokens (JavaScript's ``stsTokenManager``): a user's
        JSON is often logged, and a token must not be."""
        def milliseconds(key: str) -> str | None:
            return str(self._values[key] * 1000) if isinstance(self._values.get(key), int) else None
        return {
            "uid": self.uid, "email": self.email, "emailVerified": self.email_verified, "displayName": self.display_name,
            "isAnonymous": self.is_anonymous, "photoURL": self.photo_url, "phoneNumber": self.phone_number,
            "tenantId": self.tenant_id, "providerId": self.provider_id,
            "providerData": [info.to_json() for info in self.provider_data],
            "createdAt": milliseconds("creationDate"), "lastLoginAt": milliseconds("lastSignInDate"),
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, User) and other._values == self._values

    def __hash__(self) -> int:
        return hash(self.uid)

    def __repr__(self) -> str:
        return f"User(uid={self.uid!r}, email={self.email!r}, is_anonymous={self.is_anonymous!r})"


class OperationType:
    """What a sign-in was (``UserCredential.operation_type``), as the JavaScript SDK's ``OperationType``."""

    LINK = "link"
    REAUTHENTICATE = "reauthenticate"
    SIGN_IN = "signIn"


@dataclass(frozen=True)
class UserCredential:
    """What a sign-in answers: the user, the provider of the sign-in, and ``operation_type`` (``signIn``, ``link``,
    ``reauthenticate``)."""

    user: User
    provider_id: str | None
    operation_type: str
    #: Whether the account was made by this sign-in, where the broker's answer tells (``get_additional_user_info``).
    _is_new_user: bool | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class AdditionalUserInfo:
    """What a sign-in tells beyond the user (``get_additional_user_info``): whether it made the account, and the
    provider's ID. ``profile`` and ``username`` (the provider's own record of the person) are not sent by the broker,
    so ``None``."""

    is_new_user: bool
    provider_id: str | None
    profile: dict[str, Any] | None = None
    username: str | None = None


def get_additional_user_info(credential: UserCredential) -> AdditionalUserInfo | None:
    """What ``credential``'s sign-in tells beyond the user, or ``None`` where the broker does not tell whether it made
    the account (a provider's, a custom token's or an email link's sign-in). A new account: ``create_user_…`` and
    ``sign_in_anonymously``; not new: a password sign-in, ``link_with_credential``, ``reauthenticate_with_credential``."""
    if credential._is_new_user is None:
        return None
    return AdditionalUserInfo(credential._is_new_user, credential.provider_id)


class MultiFactorResolver:
    """Finishes a sign-in that raised SecondFactorRequiredError, within five minutes, on the same Auth."""

    def __init__(self, binding: Binding, handle: str, hints: list[MultiFactorInfo]) -> None:
        self._binding = binding
        self._handle = handle
        self.hints = hints
        #: The sign-in's second step, for ``PhoneAuthProvider.verify_phone_number`` of an SMS hint.
        self.session = MultiFactorSession(binding, sign_in_handle=handle)

    def resolve_sign_in(self, assertion: TotpMultiFactorAssertion | PhoneMultiFactorAssertion) -> UserCredential:
        """Signs in with the second factor of ``assertion`` (an authenticator app's, or an SMS code of a verification
        started for one of ``hints``); a wrong code raises and may be corrected."""
        if isinstance(assertion, PhoneMultiFactorAssertion):
            return sign_in(self._binding, None, "ConfirmPhoneVerification", "ssa{sv}", assertion.credential.verification_id,
                           assertion.credential.verification_code, {})
        if assertion.enrollment_id is None:
            raise errors.invalid_argument("A sign-in is finished with TotpMultiFactorGenerator.assertion_for_sign_in(factor uid, code).")
        return sign_in(self._binding, None, "ResolveSignInWithTOTP", "sss", self._handle, assertion.enrollment_id,
                       assertion.one_time_password)


class SecondFactorRequiredError(errors.AuthError):
    """The account has a second factor (``auth/multi-factor-auth-required``): ``resolver`` finishes the sign-in."""

    def __init__(self, code: str, name: str, message: str, resolver: MultiFactorResolver) -> None:
        super().__init__(code, name, message)
        self.resolver = resolver


def federated(provider: object, call: str) -> FederatedAuthProvider:
    """``provider``, checked to be one the person signs in with in their browser, as the JavaScript SDK's popups check."""
    if not isinstance(provider, FederatedAuthProvider):
        raise errors.invalid_argument(
            f"{call} takes a provider the person signs in with in their browser: OAuthProvider(\"microsoft.com\"), "
            f"GoogleAuthProvider(), GithubAuthProvider(), …, not {provider!r}. An address and password sign in with "
            "auth.sign_in_with_email_and_password.")
    return provider


def multi_factor(user: User) -> MultiFactorUser:
    """``user.multi_factor``, as the JavaScript SDK's ``multiFactor(user)``."""
    return user.multi_factor


def link_with_popup(user: User, provider: FederatedAuthProvider) -> UserCredential:
    """``user.link_with_popup(provider)``, as the JavaScript SDK's ``linkWithPopup(user, provider)``."""
    return user.link_with_popup(provider)


def reauthenticate_with_popup(user: User, provider: FederatedAuthProvider) -> UserCredential:
    """``user.reauthenticate_with_popup(provider)``, as the JavaScript SDK's ``reauthenticateWithPopup(user, provider)``."""
    return user.reauthenticate_with_popup(provider)


def answer(binding: Binding, method: str, signature: str = "", *arguments: Any, timeout: float | None = None) -> dict[str, Any] | None:
    """The user a method answers, as the broker's values (``None`` when nobody is signed in); a second factor raises
    SecondFactorRequiredError."""
    try:
        values = binding.call(method, signature, *arguments, timeout=timeout)[0]
    except errors.SecondFactorChallenge as challenge:
        resolver = MultiFactorResolver(binding, challenge.handle, [MultiFactorInfo.from_dictionary(factor) for factor in challenge.factors])
        raise SecondFactorRequiredError(challenge.code, challenge.name, challenge.message, resolver) from None
    if values and "heldSignIn" in values:  # a held sign-in, stored once the Auth's before_auth_state_changed callbacks pass
        values = binding.settle(values)
    binding.answered(values or {})
    return values or None


def sign_in(binding: Binding, provider_id: str | None, method: str, signature: str = "", *arguments: Any,
            timeout: float | None = None, is_new_user: bool | None = None) -> UserCredential:
    """The credential of a sign-in by ``method``."""
    values = answer(binding, method, signature, *arguments, timeout=timeout)
    if not values:
        raise errors.no_current_user("The sign-in was finished, then another app of the group signed out at once.")
    return UserCredential(User(binding, values), provider_id, "signIn", _is_new_user=is_new_user)


def phone_answer(binding: Binding, credential: PhoneAuthCredential, purpose: str) -> dict[str, Any] | None:
    """The user after a phone verification's code was used as ``purpose`` says."""
    return answer(binding, "ConfirmPhoneVerification", "ssa{sv}", credential.verification_id, credential.verification_code,
                  {"purpose": ("s", purpose)})


def credential_dictionary(credential: AuthCredential) -> dict[str, Any]:
    """The ``credential`` argument of the broker's methods."""
    return {key: ("s", value) for key, value in credential.dictionary().items()}
