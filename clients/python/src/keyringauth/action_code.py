"""Email actions' settings and codes, as Firebase's JavaScript SDK shapes them: ActionCodeSettings (where a link
leads) and ActionCodeInfo (what a code is for)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlparse

from ._variants import strings


@dataclass
class ActionCodeSettings:
    """Where an email action's link leads and how it opens; ``url`` and ``handle_code_in_app=True`` for a sign-in link."""

    url: str | None = None
    handle_code_in_app: bool = False
    link_domain: str | None = None
    ios_bundle_id: str | None = None
    android_package_name: str | None = None
    android_install_app: bool = False
    android_minimum_version: str | None = None

    def dictionary(self) -> dict[str, Any]:
        """The ``actionCodeSettings`` argument of the broker's methods."""
        return strings({
            "url": self.url, "handleCodeInApp": self.handle_code_in_app, "linkDomain": self.link_domain,
            "iOSBundleID": self.ios_bundle_id, "androidPackageName": self.android_package_name,
            "androidInstallIfNotAvailable": self.android_install_app if self.android_package_name else None,
            "androidMinimumVersion": self.android_minimum_version,
        })


def settings_dictionary(settings: ActionCodeSettings | None) -> dict[str, Any]:
    """The ``actionCodeSettings`` argument for ``settings``, empty for none."""
    return settings.dictionary() if settings is not None else {}


@dataclass(frozen=True)
class ActionCodeInfoData:
    """What an email action code concerns (``ActionCodeInfo.data``): ``email``, and ``previous_email`` for a change
    of address; ``multi_factor_info`` is always ``None`` (it is a phone factor's, and the broker has TOTP only)."""

    email: str | None = None
    previous_email: str | None = None
    multi_factor_info: None = None


@dataclass(frozen=True)
class ActionCodeInfo:
    """What an email action code is for (``check_action_code``), as the JavaScript SDK shapes it: ``operation`` as
    ActionCodeOperation names it (``PASSWORD_RESET``, ``VERIFY_EMAIL``, ``EMAIL_SIGNIN``, …) and ``data``."""

    operation: str
    data: ActionCodeInfoData


class ActionCodeOperation:
    """The operations of email action codes (``ActionCodeInfo.operation``, ``ActionCodeURL.operation``)."""

    EMAIL_SIGNIN = "EMAIL_SIGNIN"
    PASSWORD_RESET = "PASSWORD_RESET"
    RECOVER_EMAIL = "RECOVER_EMAIL"
    REVERT_SECOND_FACTOR_ADDITION = "REVERT_SECOND_FACTOR_ADDITION"
    VERIFY_AND_CHANGE_EMAIL = "VERIFY_AND_CHANGE_EMAIL"
    VERIFY_EMAIL = "VERIFY_EMAIL"


_MODES = {"recoverEmail": "RECOVER_EMAIL", "resetPassword": "PASSWORD_RESET", "signIn": "EMAIL_SIGNIN",
          "verifyEmail": "VERIFY_EMAIL", "verifyAndChangeEmail": "VERIFY_AND_CHANGE_EMAIL",
          "revertSecondFactorAddition": "REVERT_SECOND_FACTOR_ADDITION"}


@dataclass(frozen=True)
class ActionCodeURL:
    """An email action link's parts, as the JavaScript SDK parses them (``ActionCodeURL.parse_link``)."""

    api_key: str
    code: str
    continue_url: str | None
    language_code: str | None
    operation: str
    tenant_id: str | None

    @classmethod
    def parse_link(cls, link: str) -> ActionCodeURL | None:
        """The parts of ``link`` (or of the link in its ``link`` or ``deep_link_id`` parameter), or ``None`` when it
        is no email action link (no ``apiKey``, ``oobCode`` or known ``mode``)."""
        query = parse_qs(urlparse(link).query)
        inner = query.get("link", query.get("deep_link_id", [None]))[0]
        if inner:
            query = {**query, **parse_qs(urlparse(inner).query)}

        def first(key: str) -> str | None:
            return query.get(key, [None])[0]

        api_key, code, operation = first("apiKey"), first("oobCode"), _MODES.get(first("mode") or "")
        if not api_key or not code or not operation:
            return None
        return cls(api_key, code, first("continueUrl"), first("lang") or first("languageCode"), operation, first("tenantId"))


def parse_action_code_url(link: str) -> ActionCodeURL | None:
    """``ActionCodeURL.parse_link(link)``, as the JavaScript SDK's ``parseActionCodeURL``."""
    return ActionCodeURL.parse_link(link)
