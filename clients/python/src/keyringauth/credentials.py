"""Credentials of identity providers, as Firebase's JavaScript SDK makes them (``GoogleAuthProvider.credential``),
for ``sign_in_with_credential``, ``link_with_credential`` and ``reauthenticate_with_credential``."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class AuthCredential:
    """A provider's proof of the person: its provider ID and tokens (never printed)."""

    provider_id: str
    _fields: dict[str, str] = field(default_factory=dict, repr=False)

    def dictionary(self) -> dict[str, str]:
        """The ``credential`` argument of the broker's methods."""
        return dict(self._fields, providerID=self.provider_id)


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


class EmailAuthProvider:
    PROVIDER_ID = "password"

    @staticmethod
    def credential(email: str, password: str) -> AuthCredential:
        """An address and password, to reauthenticate or to link to another sign-in method."""
        return _credential("password", email=email, password=password)


class GoogleAuthProvider:
    PROVIDER_ID = "google.com"

    @staticmethod
    def credential(id_token: str | None = None, access_token: str | None = None) -> AuthCredential:
        return _credential("google.com", idToken=id_token, accessToken=access_token)


class GithubAuthProvider:
    PROVIDER_ID = "github.com"

    @staticmethod
    def credential(access_token: str) -> AuthCredential:
        return _credential("github.com", accessToken=access_token)


class FacebookAuthProvider:
    PROVIDER_ID = "facebook.com"

    @staticmethod
    def credential(access_token: str) -> AuthCredential:
        return _credential("facebook.com", accessToken=access_token)


class TwitterAuthProvider:
    PROVIDER_ID = "twitter.com"

    @staticmethod
    def credential(token: str, secret: str) -> AuthCredential:
        return _credential("twitter.com", accessToken=token, secret=secret)


class OAuthProvider:
    """Any other provider by its Firebase ID: ``apple.com``, ``oidc.<name>``, ``saml.<name>``."""

    def __init__(self, provider_id: str) -> None:
        self.provider_id = provider_id

    def credential(self, id_token: str | None = None, access_token: str | None = None,
                   raw_nonce: str | None = None) -> AuthCredential:
        return _credential(self.provider_id, idToken=id_token, accessToken=access_token, rawNonce=raw_nonce)
