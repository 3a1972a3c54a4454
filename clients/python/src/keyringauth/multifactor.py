"""Second factors (authenticator apps, TOTP, and SMS codes), as Firebase's JavaScript SDK shapes them: a user's factors
(``MultiFactorUser``), their secrets and the assertions ``TotpMultiFactorGenerator`` and ``PhoneMultiFactorGenerator``
make. Below the user module,
which holds the user these act on and the resolver that finishes a sign-in with them."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable
from urllib.parse import parse_qs, quote, urlencode, urlparse

from . import errors
from ._binding import Binding
from .credentials import PhoneAuthCredential

TOTP_FACTOR_ID = "totp"
PHONE_FACTOR_ID = "phone"


class FactorId:
    """The kinds of second factor, as the JavaScript SDK's ``FactorId``."""

    PHONE = PHONE_FACTOR_ID
    TOTP = TOTP_FACTOR_ID


def seconds(value: Any) -> datetime:
    """A time the broker sends as seconds since 1970, in UTC."""
    return datetime.fromtimestamp(int(value), tz=timezone.utc)


@dataclass(frozen=True)
class MultiFactorInfo:
    """A second factor of the account: its uid, display name, kind (``totp``, ``phone``) and when it was enrolled; an
    SMS factor is a ``PhoneMultiFactorInfo``."""

    uid: str
    display_name: str | None
    factor_id: str
    enrollment_time: datetime

    @classmethod
    def from_dictionary(cls, values: dict[str, Any]) -> MultiFactorInfo:
        fields: dict[str, Any] = {
            "uid": str(values.get("uid", "")), "display_name": values.get("displayName"), "factor_id": str(values.get("factorID", "")),
            "enrollment_time": seconds(values.get("enrollmentDate", 0))}
        if fields["factor_id"] == PHONE_FACTOR_ID:
            return PhoneMultiFactorInfo(**fields, phone_number=str(values.get("phoneNumber", "")))
        return cls(**fields)


@dataclass(frozen=True)
class PhoneMultiFactorInfo(MultiFactorInfo):
    """An SMS second factor, as the JavaScript SDK's: its number, masked in a sign-in's hints (``+*******0100``)."""

    phone_number: str = ""


@dataclass(frozen=True)
class PhoneMultiFactorAssertion:
    """Proof of an SMS factor (``PhoneMultiFactorGenerator.assertion``): the code of a verification started for an
    enrollment or for a sign-in's hint."""

    credential: PhoneAuthCredential
    factor_id: str = PHONE_FACTOR_ID


class PhoneMultiFactorGenerator:
    """Makes SMS factors' assertions, as the JavaScript SDK's."""

    FACTOR_ID = PHONE_FACTOR_ID

    @staticmethod
    def assertion(credential: PhoneAuthCredential) -> PhoneMultiFactorAssertion:
        if not isinstance(credential, PhoneAuthCredential):
            raise errors.invalid_argument("PhoneMultiFactorGenerator.assertion takes PhoneAuthProvider.credential(verification_id, code).")
        return PhoneMultiFactorAssertion(credential)


def confirm_phone(binding: Binding, credential: PhoneAuthCredential, purpose: str = "", display_name: str | None = None,
                  timeout: float | None = None) -> list[Any]:
    """Uses the code of ``credential``'s verification as ``purpose`` says (its start's when empty)."""
    options: dict[str, Any] = {}
    if purpose:
        options["purpose"] = ("s", purpose)
    if display_name:
        options["displayName"] = ("s", display_name)
    return binding.call("ConfirmPhoneVerification", "ssa{sv}", credential.verification_id, credential.verification_code, options,
                        timeout=timeout)


@dataclass(frozen=True)
class TotpMultiFactorAssertion:
    """Proof of an authenticator app: the code, for a sign-in (its factor's uid) or an enrollment (its secret)."""

    one_time_password: str = field(repr=False)
    enrollment_id: str | None = None
    secret: TotpSecret | None = None
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

    def generate_qr_code_url(self, account_name: str | None = None, issuer: str | None = None) -> str:
        """The ``otpauth://`` URI an authenticator app reads; by default with the user's email and the project."""
        if account_name is None and issuer is None:
            return self._uri
        label = urlparse(self._uri).path.lstrip("/")
        old_issuer, _, old_account = label.partition(":")
        issuer = issuer if issuer is not None else old_issuer
        account_name = account_name if account_name is not None else old_account
        parameters = {"secret": self.secret_key, "issuer": issuer, "algorithm": self.hashing_algorithm,
                      "digits": self.code_length, "period": self.code_interval_seconds}
        return f"otpauth://totp/{quote(issuer)}:{quote(account_name)}?{urlencode(parameters)}"

    def __repr__(self) -> str:  # the secret is a secret
        return f"TotpSecret({self.hashing_algorithm}, {self.code_length} digits, {self.code_interval_seconds} s)"


class MultiFactorSession:
    """A signed-in user's permission to enroll a factor (``MultiFactorUser.get_session``), or a sign-in's second step
    (``MultiFactorResolver.session``), for ``PhoneAuthProvider.verify_phone_number``."""

    def __init__(self, binding: Binding, sign_in_handle: str | None = None) -> None:
        self._binding = binding
        self._sign_in_handle = sign_in_handle


class TotpMultiFactorGenerator:
    FACTOR_ID = TOTP_FACTOR_ID

    @staticmethod
    def generate_secret(session: MultiFactorSession, account_name: str = "", issuer: str = "") -> TotpSecret:
        """A new secret for the session's user (its URI labelled ``account_name``, by default the user's email, and
        ``issuer``, by default the project)."""
        reply = session._binding.call("StartTOTPEnrollment", "ss", account_name, issuer)
        return TotpSecret(str(reply[0]), str(reply[1]))

    @staticmethod
    def assertion_for_enrollment(secret: TotpSecret, one_time_password: str) -> TotpMultiFactorAssertion:
        return TotpMultiFactorAssertion(one_time_password=one_time_password, secret=secret)

    @staticmethod
    def assertion_for_sign_in(enrollment_id: str, one_time_password: str) -> TotpMultiFactorAssertion:
        return TotpMultiFactorAssertion(one_time_password=one_time_password, enrollment_id=enrollment_id)


class MultiFactorUser:
    """A user's second factors (``user.multi_factor``): ``factors`` reads the user's, ``refresh`` takes the user the
    broker answers after a change."""

    def __init__(self, binding: Binding, factors: Callable[[], list[MultiFactorInfo]],
                 refresh: Callable[[dict[str, Any] | None], None]) -> None:
        self._binding = binding
        self._factors = factors
        self._refresh = refresh

    @property
    def enrolled_factors(self) -> list[MultiFactorInfo]:
        return self._factors()

    def get_session(self) -> MultiFactorSession:
        return MultiFactorSession(self._binding)

    def enroll(self, assertion: TotpMultiFactorAssertion | PhoneMultiFactorAssertion, display_name: str | None = None) -> None:
        """Enrolls the authenticator app of ``assertion`` (``assertion_for_enrollment``), or the number of an SMS
        assertion (``PhoneMultiFactorGenerator.assertion``); a wrong code raises and the same secret or verification may
        be tried again (a verification five times)."""
        if isinstance(assertion, PhoneMultiFactorAssertion):
            self._refresh(confirm_phone(self._binding, assertion.credential, display_name=display_name)[0])
            return
        if assertion.secret is None:
            raise errors.invalid_argument("A factor is enrolled with TotpMultiFactorGenerator.assertion_for_enrollment(secret, code).")
        self._refresh(self._binding.call(
            "FinishTOTPEnrollment", "sss", assertion.secret._handle, assertion.one_time_password, display_name or "")[0])

    def unenroll(self, factor: MultiFactorInfo | str) -> None:
        uid = factor.uid if isinstance(factor, MultiFactorInfo) else factor
        self._refresh(self._binding.call("Unenroll", "s", uid)[0])
