"""Email actions' settings and codes, as Firebase's JavaScript SDK shapes them: ActionCodeSettings (where a link
leads) and ActionCodeInfo (what a code is for)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
class ActionCodeInfo:
    """What an email action code is for (``check_action_code``): ``operation`` as Firebase names it
    (``PASSWORD_RESET``, ``VERIFY_EMAIL``, ``EMAIL_SIGNIN``, …) and the addresses it concerns."""

    operation: str
    email: str
    previous_email: str | None = None
