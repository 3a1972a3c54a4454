"""Credentials of identity providers, as Firebase's JavaScript SDK makes them (``GoogleAuthProvider.credential``),
for ``sign_in_with_credential``, ``link_with_credential`` and ``reauthenticate_with_credential``; and the providers
themselves, as the JavaScript SDK's ``new OAuthProvider("microsoft.com")`` with its scopes and custom parameters, for
``sign_in_with_popup``, ``link_with_popup`` and ``reauthenticate_with_popup``."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import errors
from ._variants import Variant, strings

if TYPE_CHECKING:  # typing.Self is Python 3.11's; mypy brings typing_extensions, which the package does not need
    from typing_extensions import Self


@dataclass(frozen=True)
class AuthCredential:
    """A provider's proof of the person: its provider ID and tokens (never printed)."""

    provider_id: str
    _fields: dict[str, str] = field(default_factory=dict, repr=False)

    def dictionary(self) -> dict[str, str]:
        """The ``credential`` argument of the broker's methods."""
        return dict(self._fields, providerID=self.provider_id)


@dataclass(frozen=True)
class PhoneAuthCredential(AuthCredential):
    """The SMS code sent by a phone verification (``PhoneAuthProvider.credential``), as the JavaScript SDK's: its
    verification ID is the broker's handle of the verification, good on the Auth that started it for five minutes."""

    verification_id: str = ""
    verification_code: str = field(default="", repr=False)

    @classmethod
    def _of(cls, verification_id: str, verification_code: str) -> PhoneAuthCredential:
        return cls("phone", verification_id=verification_id, verification_code=verification_code)


class ProviderId:
    """The providers' IDs, as the JavaScript SDK's ``ProviderId`` (``UserInfo.provider_id``, ``UserCredential.provider_id``)."""

    FACEBOOK = "facebook.com"
    GITHUB = "github.com"
    GOOGLE = "google.com"
    PASSWORD = "password"
    PHONE = "phone"
    TWITTER = "twitter.com"


class SignInMethod:
    """The sign-in methods, as the JavaScript SDK's ``SignInMethod``."""

    EMAIL_LINK = "emailLink"
    EMAIL_PASSWORD = "password"
    FACEBOOK = "facebook.com"
    GITHUB = "github.com"
    GOOGLE = "google.com"
    PHONE = "phone"
    TWITTER = "twitter.com"


def _credential(provider_id: str, **tokens: str | None) -> AuthCredential:
    return AuthCredential(provider_id, {key: value for key, value in tokens.items() if value})


class FederatedAuthProvider:
    """A provider the person signs in with in their browser, run by Firebase with the project's own registration with
    the provider (``sign_in_with_popup``, ``link_with_popup``, ``reauthenticate_with_popup``), as the JavaScript SDK's
    ``OAuthProvider``, ``GoogleAuthProvider``, …: its ID, more OAuth scopes to ask for (``add_scope``), and the
    provider's own parameters (``set_custom_parameters``)."""

    def __init__(self, provider_id: str) -> None:
        if not isinstance(provider_id, str) or not provider_id:
            raise errors.invalid_argument(f"A provider's ID is a string such as \"microsoft.com\", not {provider_id!r}.")
        self.provider_id = provider_id
        self._scopes: list[str] = []
        self._custom_parameters: dict[str, str] = {}

    def add_scope(self, scope: str) -> Self:
        """Asks the provider for ``scope`` too (Microsoft's ``Mail.Read``, Yahoo's ``mail-r``), once however often it is
        added; answers the provider, as the JavaScript SDK's ``addScope``."""
        if not isinstance(scope, str) or not scope or any(character.isspace() for character in scope):
            raise errors.invalid_argument(f"An OAuth scope is a non-empty string without spaces (add each with its own add_scope), not {scope!r}.")
        if scope not in self._scopes:
            self._scopes.append(scope)
        return self

    def get_scopes(self) -> list[str]:
        """The scopes added, in order (a copy)."""
        return list(self._scopes)

    def set_custom_parameters(self, custom_oauth_parameters: Mapping[str, str]) -> Self:
        """Sets the provider's own parameters of its sign-in page, replacing those set before, as the JavaScript SDK's
        ``setCustomParameters``: Microsoft's ``tenant``, ``prompt`` or ``login_hint``, … Firebase sets ``client_id``,
        ``redirect_uri``, ``response_type``, ``scope`` and ``state`` itself, and ignores them here. Answers the provider."""
        parameters = dict(custom_oauth_parameters)
        wrong = [key for key, value in parameters.items() if not isinstance(key, str) or not key or not isinstance(value, str)]
        if wrong:
            raise errors.invalid_argument(f"Custom parameters map non-empty names to strings ({{\"tenant\": \"organizations\"}}); {wrong!r} do not.")
        self._custom_parameters = parameters
        return self

    def get_custom_parameters(self) -> dict[str, str]:
        """The custom parameters set (a copy)."""
        return dict(self._custom_parameters)

    def _browser_dictionary(self) -> dict[str, Variant]:
        """The broker's ``provider`` argument of its browser calls for the project's own provider: the ID, the scopes
        (space-separated) and the custom parameters, each where set."""
        provider = strings({"providerID": self.provider_id, "scope": " ".join(self._scopes) or None})
        if self._custom_parameters:
            provider["customParameters"] = ("a{ss}", dict(self._custom_parameters))
        return provider

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.provider_id!r})"


class EmailAuthProvider:
    PROVIDER_ID = "password"

    @staticmethod
    def credential(email: str, password: str) -> AuthCredential:
        """An address and password, to reauthenticate or to link to another sign-in method."""
        return _credential("password", email=email, password=password)


class GoogleAuthProvider(FederatedAuthProvider):
    """Google: ``GoogleAuthProvider()`` for ``sign_in_with_popup``, or a credential of Google's tokens."""

    PROVIDER_ID = "google.com"

    def __init__(self) -> None:
        super().__init__(self.PROVIDER_ID)

    @staticmethod
    def credential(id_token: str | None = None, access_token: str | None = None) -> AuthCredential:
        return _credential("google.com", idToken=id_token, accessToken=access_token)


class GithubAuthProvider(FederatedAuthProvider):
    """GitHub: ``GithubAuthProvider()`` for ``sign_in_with_popup``, or a credential of GitHub's access token."""

    PROVIDER_ID = "github.com"

    def __init__(self) -> None:
        super().__init__(self.PROVIDER_ID)

    @staticmethod
    def credential(access_token: str) -> AuthCredential:
        return _credential("github.com", accessToken=access_token)


class FacebookAuthProvider(FederatedAuthProvider):
    """Facebook: ``FacebookAuthProvider()`` for ``sign_in_with_popup``, or a credential of Facebook's access token."""

    PROVIDER_ID = "facebook.com"

    def __init__(self) -> None:
        super().__init__(self.PROVIDER_ID)

    @staticmethod
    def credential(access_token: str) -> AuthCredential:
        return _credential("facebook.com", accessToken=access_token)


class TwitterAuthProvider(FederatedAuthProvider):
    """X (Twitter): ``TwitterAuthProvider()`` for ``sign_in_with_popup``, or a credential of its token and secret."""

    PROVIDER_ID = "twitter.com"

    def __init__(self) -> None:
        super().__init__(self.PROVIDER_ID)

    @staticmethod
    def credential(token: str, secret: str) -> AuthCredential:
        return _credential("twitter.com", accessToken=token, secret=secret)


class OAuthProvider(FederatedAuthProvider):
    """Any provider by its Firebase ID: ``microsoft.com``, ``yahoo.com``, ``apple.com``, ``oidc.<name>``,
    ``saml.<name>``. ``OAuthProvider("microsoft.com")`` signs in with ``sign_in_with_popup``, as Firebase set the
    provider up in the project; ``credential`` makes a credential of tokens the app got from the provider itself."""

    def credential(self, id_token: str | None = None, access_token: str | None = None,
                   raw_nonce: str | None = None) -> AuthCredential:
        return _credential(self.provider_id, idToken=id_token, accessToken=access_token, rawNonce=raw_nonce)
