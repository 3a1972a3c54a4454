"""A password checked against a policy as the JavaScript SDK checks it (its password_policy_impl tests' cases), without
a broker."""
from __future__ import annotations

from typing import Any

import pytest

from keyringauth import AuthError, PasswordPolicy, PasswordPolicyCustomStrengthOptions

pytestmark = pytest.mark.offline

REQUIRE_ALL: dict[str, Any] = {
    "minPasswordLength": 6, "maxPasswordLength": 12, "containsLowercaseCharacter": True, "containsUppercaseCharacter": True,
    "containsNumericCharacter": True, "containsNonAlphanumericCharacter": True, "allowedNonAlphanumericCharacters": "!()@",
    "enforcementState": "ENFORCE", "forceUpgradeOnSignin": True, "schemaVersion": 1,
}


def test_a_policy_is_read_as_javascript_reads_it() -> None:
    policy = PasswordPolicy._from_broker(REQUIRE_ALL)
    assert policy.custom_strength_options == PasswordPolicyCustomStrengthOptions(6, 12, True, True, True, True)
    assert [policy.allowed_non_alphanumeric_characters, policy.enforcement_state, policy.force_upgrade_on_signin] == ["!()@", "ENFORCE", True]
    unset = PasswordPolicy._from_broker({"enforcementState": "ENFORCEMENT_STATE_UNSPECIFIED", "schemaVersion": 1})
    assert unset.custom_strength_options == PasswordPolicyCustomStrengthOptions(min_password_length=6), "Firebase's least length"
    assert [unset.enforcement_state, unset.allowed_non_alphanumeric_characters, unset.force_upgrade_on_signin] == ["OFF", "", False]


def test_a_password_meets_each_requirement_or_not() -> None:
    policy = PasswordPolicy._from_broker(REQUIRE_ALL)
    valid = policy.validate_password("Passw0rd!")
    assert valid.is_valid and valid.password_policy is policy
    assert [valid.meets_min_password_length, valid.meets_max_password_length, valid.contains_lowercase_letter,
            valid.contains_uppercase_letter, valid.contains_numeric_character, valid.contains_non_alphanumeric_character] == [True] * 6
    weak = policy.validate_password("password#too-long")
    assert not weak.is_valid
    assert [weak.meets_min_password_length, weak.meets_max_password_length, weak.contains_lowercase_letter,
            weak.contains_uppercase_letter, weak.contains_numeric_character, weak.contains_non_alphanumeric_character] == [
        True, False, True, False, False, False], "# is not among the policy's non-alphanumeric characters"
    empty = policy.validate_password("")
    assert not empty.is_valid and empty.contains_lowercase_letter is False and empty.meets_min_password_length is False


def test_what_a_policy_does_not_ask_is_none() -> None:
    policy = PasswordPolicy._from_broker({"maxPasswordLength": 8, "containsNumericCharacter": False, "schemaVersion": 1})
    status = policy.validate_password("abcdefgh")
    assert status.is_valid and status.meets_min_password_length and status.meets_max_password_length
    assert [status.contains_lowercase_letter, status.contains_numeric_character] == [None, None]
    assert not policy.validate_password("abcde").is_valid, "Firebase's six at least"
    # Lengths in UTF-16 code units, as JavaScript counts them: an emoji is two.
    assert policy.validate_password("abcdef\U0001F600").meets_max_password_length
    assert not policy.validate_password("abcdefg\U0001F600").meets_max_password_length


def test_a_policy_of_another_schema_is_refused() -> None:
    with pytest.raises(AuthError) as refused:
        PasswordPolicy._from_broker({"schemaVersion": 2})._check_schema()
    assert refused.value.code == "auth/unsupported-password-policy-schema-version"
