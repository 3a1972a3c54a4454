"""A project's password policy and a password checked against it, as Firebase's JavaScript SDK shapes and checks them
(``validatePassword``): PasswordPolicy, made from the broker's answer as the JavaScript SDK makes it from Identity
Toolkit's, and PasswordValidationStatus. It imports only errors."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import errors

#: The least length Firebase's backend takes, which the JavaScript SDK checks where a policy sets none.
MINIMUM_MIN_PASSWORD_LENGTH = 6
#: The schema of the policies the JavaScript SDK (and this package) reads.
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class PasswordPolicyCustomStrengthOptions:
    """What a password must have (``PasswordPolicy.custom_strength_options``), as the JavaScript SDK's
    ``customStrengthOptions``: each ``None`` where the policy says nothing, but ``min_password_length``, which is
    Firebase's own six then."""

    min_password_length: int | None = MINIMUM_MIN_PASSWORD_LENGTH
    max_password_length: int | None = None
    contains_lowercase_letter: bool | None = None
    contains_uppercase_letter: bool | None = None
    contains_numeric_character: bool | None = None
    contains_non_alphanumeric_character: bool | None = None


@dataclass(frozen=True)
class PasswordPolicy:
    """The password policy of a project or a tenant, as the JavaScript SDK's ``PasswordPolicy``: what a password must
    have, the characters that count as non-alphanumeric, whether the policy is enforced (``OFF``, ``ENFORCE``), and
    whether existing passwords must meet it at sign-in."""

    custom_strength_options: PasswordPolicyCustomStrengthOptions
    allowed_non_alphanumeric_characters: str
    enforcement_state: str
    force_upgrade_on_signin: bool
    #: The policy's schema (the JavaScript SDK's internal ``schemaVersion``).
    schema_version: int = field(default=SCHEMA_VERSION, repr=False)

    @classmethod
    def _from_broker(cls, values: dict[str, Any]) -> PasswordPolicy:
        """The policy of the broker's answer (Identity Toolkit's fields), read as the JavaScript SDK reads the service's:
        no least length is Firebase's six, an unspecified enforcement is ``OFF``."""
        def flag(key: str) -> bool | None:
            value = values.get(key)
            return bool(value) if value is not None else None

        options = PasswordPolicyCustomStrengthOptions(
            min_password_length=int(values.get("minPasswordLength", MINIMUM_MIN_PASSWORD_LENGTH)),
            max_password_length=int(values["maxPasswordLength"]) if values.get("maxPasswordLength") else None,
            contains_lowercase_letter=flag("containsLowercaseCharacter"),
            contains_uppercase_letter=flag("containsUppercaseCharacter"),
            contains_numeric_character=flag("containsNumericCharacter"),
            contains_non_alphanumeric_character=flag("containsNonAlphanumericCharacter"))
        state = str(values.get("enforcementState", ""))
        return cls(options, str(values.get("allowedNonAlphanumericCharacters", "")),
                   "OFF" if state == "ENFORCEMENT_STATE_UNSPECIFIED" else state, bool(values.get("forceUpgradeOnSignin", False)),
                   int(values.get("schemaVersion", 0)))

    def validate_password(self, password: str) -> PasswordValidationStatus:
        """``password`` checked against this policy, as the JavaScript SDK checks it: its length in UTF-16 code units (as
        JavaScript counts), and each kind of character the policy asks for (ASCII letters and digits, and the policy's
        non-alphanumeric characters); a requirement the policy lacks is ``None``."""
        options = self.custom_strength_options
        length = len(password.encode("utf-16-le")) // 2
        minimum, maximum = options.min_password_length, options.max_password_length

        def contains(required: bool | None, test: Any) -> bool | None:
            return any(test(character) for character in password) if required else None

        checks = (
            length >= minimum if minimum else None,
            length <= maximum if maximum else None,
            contains(options.contains_lowercase_letter, lambda character: "a" <= character <= "z"),
            contains(options.contains_uppercase_letter, lambda character: "A" <= character <= "Z"),
            contains(options.contains_numeric_character, lambda character: "0" <= character <= "9"),
            contains(options.contains_non_alphanumeric_character, lambda character: character in self.allowed_non_alphanumeric_characters),
        )
        return PasswordValidationStatus(all(check is not False for check in checks), *checks, password_policy=self)

    def _check_schema(self) -> None:
        """Raises AuthError (``auth/unsupported-password-policy-schema-version``) for a policy of a schema the JavaScript
        SDK does not read either."""
        if self.schema_version != SCHEMA_VERSION:
            raise errors.AuthError(
                "auth/unsupported-password-policy-schema-version", "ERROR_UNSUPPORTED_PASSWORD_POLICY_SCHEMA_VERSION",
                f"The project's password policy is of schema {self.schema_version}, which this package does not read (it reads "
                f"{SCHEMA_VERSION}); update keyringauth.")


@dataclass(frozen=True)
class PasswordValidationStatus:
    """Which of the policy's requirements a password meets (``validate_password``), as the JavaScript SDK's
    ``PasswordValidationStatus``: ``is_valid`` when it meets all of them; each other field ``None`` where the policy does
    not ask for it."""

    is_valid: bool
    meets_min_password_length: bool | None
    meets_max_password_length: bool | None
    contains_lowercase_letter: bool | None
    contains_uppercase_letter: bool | None
    contains_numeric_character: bool | None
    contains_non_alphanumeric_character: bool | None
    password_policy: PasswordPolicy
