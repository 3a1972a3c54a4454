"""Second factors (authenticator apps, TOTP), as Firebase's JavaScript SDK shapes them: a resolver finishes a sign-in
that met one; ``TotpMultiFactorGenerator`` makes the assertions."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union
from urllib.parse import parse_qs, quote, urlencode, urlparse

from . import errors
from .user import MultiFactorInfo

if TYPE_CHECKING:  # pragma: no cover
    from ._binding import Binding
    from .auth import UserCredential
    from .user import User

TOTP_FACTOR_ID = "totp"


class MultiFactorResolver:
    """Finishes a sign-in that raised SecondFactorRequiredError, within five minutes, on the same Auth."""

    def __init__(self, handle: str, hints: List[MultiFactorInfo]) -> None:
        self._handle = handle
        self._binding: Optional["Binding"] = None
        self.hints = hints

    def resolve_sign_in(self, assertion: "TotpMultiFactorAssertion") -> "UserCredential":
        """Signs in with the second factor of ``assertion``; a wrong code raises and may be corrected."""
        from .auth import UserCredential

        if self._binding is None or assertion.enrollment_id is None:
            raise errors.AuthError("auth/argument-error", "ERROR_INVALID_ARGUMENT",
                                   "A sign-in is finished with TotpMultiFactorGenerator.assertion_for_sign_in(factor uid, code).")
        user = self._binding.user("ResolveSignInWithTOTP", "sss", self._handle, assertion.enrollment_id, assertion.one_time_password)
        if user is None:
            raise errors.NoCurrentUserError("auth/null-user", "ERROR_NULL_USER", "The sign-in was finished, then signed out at once.")
        return UserCredential(user, None, "signIn")


def resolver_error(message: str, handle: str, factors: List[Dict[str, Any]]) -> errors.SecondFactorRequiredError:
    name, _, rest = message.partition(": ")
    resolver = MultiFactorResolver(handle, [MultiFactorInfo.from_dictionary(factor) for factor in factors])
    return errors.SecondFactorRequiredError(errors.js_code(name), name, rest or message, resolver)


@dataclass(frozen=True)
class TotpMultiFactorAssertion:
    """Proof of an authenticator app: the code, for a sign-in (its factor's uid) or an enrollment (its secret)."""

    one_time_password: str = field(repr=False)
    enrollment_id: Optional[str] = None
    secret: Optional["TotpSecret"] = None
    factor_id: str = TOTP_FACTOR_ID


class TotpSecret:
    """A new authenticator app's secret (``TotpMultiFactorGenerator.generate_secret``): show
    ``generate_qr_code_url()`` as a QR code, then enroll with a code of the app."""

    def __init__(self, handle: str, uri: str) -> None:
        self._handle = handle
        self._uri = uri
        query = parse_qs(urlparse(uri).query)
        self.secret_key = query.get("secret", [""])[0]
        self.hashing_algorithm = query.get("algorithm", ["SHA1"])[0]
        self.code_length = int(query.get("digits", ["6"])[0])
        self.code_interval_seconds = int(query.get("period", ["30"])[0])

    def generate_qr_code_url(self, account_name: Optional[str] = None, issuer: Optional[str] = None) -> str:
        """The ``otpauth://`` URI an authenticator app reads; by default with the user's email and the project."""
        if account_name is None and issuer is None:
            return self._uri
        label = urlparse(self._uri).path.lstrip("/")
        old_issuer, _, old_account = label.partition(":")
        issuer = issuer if issuer is not None else old_issuer
        account_name = account_name if account_name is not None else old_account
        parameters = {"secret": self.secret_key, "issuer": issuer, "algorithm": self.hashing_algorithm,
                      "digits": self.code_length, "period": self.code_interval_seconds}
        return "otpauth://totp/%s:%s?%s" % (quote(issuer), quote(account_name), urlencode(parameters))

    def __repr__(self) -> str:  # the secret is a secret
        return "TotpSecret(%s, %d digits, %d s)" % (self.hashing_algorithm, self.code_length, self.code_interval_seconds)


@dataclass(frozen=True)
class MultiFactorSession:
    """A signed-in user's permission to enroll a factor (``MultiFactorUser.get_session``)."""

    user: "User"


class TotpMultiFactorGenerator:
    FACTOR_ID = TOTP_FACTOR_ID

    @staticmethod
    def generate_secret(session: MultiFactorSession, account_name: str = "", issuer: str = "") -> TotpSecret:
        """A new secret for the session's user (its URI labelled ``account_name``, by default the user's email, and
        ``issuer``, by default the project)."""
        reply = session.user._binding.call("StartTOTPEnrollment", "ss", account_name, issuer)
        return TotpSecret(str(reply[0]), str(reply[1]))

    @staticmethod
    def assertion_for_enrollment(secret: TotpSecret, one_time_password: str) -> TotpMultiFactorAssertion:
        return TotpMultiFactorAssertion(one_time_password=one_time_password, secret=secret)

    @staticmethod
    def assertion_for_sign_in(enrollment_id: str, one_time_password: str) -> TotpMultiFactorAssertion:
        return TotpMultiFactorAssertion(one_time_password=one_time_password, enrollment_id=enrollment_id)


class MultiFactorUser:
    """A user's second factors (``user.multi_factor``)."""

    def __init__(self, user: "User") -> None:
        self._user = user

    @property
    def enrolled_factors(self) -> List[MultiFactorInfo]:
        return self._user.enrolled_factors

    def get_session(self) -> MultiFactorSession:
        return MultiFactorSession(self._user)

    def enroll(self, assertion: TotpMultiFactorAssertion, display_name: Optional[str] = None) -> None:
        """Enrolls the authenticator app of ``assertion`` (``assertion_for_enrollment``); a wrong code raises and the
        same secret may be tried again."""
        if assertion.secret is None:
            raise errors.AuthError("auth/argument-error", "ERROR_INVALID_ARGUMENT",
                                   "A factor is enrolled with TotpMultiFactorGenerator.assertion_for_enrollment(secret, code).")
        self._user._refresh(self._user._binding.user(
            "FinishTOTPEnrollment", "sss", assertion.secret._handle, assertion.one_time_password, display_name or ""))

    def unenroll(self, factor: Union[MultiFactorInfo, str]) -> None:
        uid = factor.uid if isinstance(factor, MultiFactorInfo) else factor
        self._user._refresh(self._user._binding.user("Unenroll", "s", uid))
