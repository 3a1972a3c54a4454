"""FirebaseOptions: who the app is to Firebase, read from its google-services.json or GoogleService-Info.plist as
KeyringAuth's Swift package reads them."""
from __future__ import annotations

import json
import os
import plistlib
from dataclasses import dataclass
from typing import Any

from . import errors

_MAXIMUM_FILE_BYTES = 1 << 20


@dataclass(frozen=True)
class FirebaseOptions:
    """The app's Firebase configuration: its API key, app ID and project, and optionally a tenant and an app name
    (to keep two sign-ins of one Firebase app apart)."""

    api_key: str
    app_id: str
    project_id: str
    tenant_id: str | None = None
    app_name: str | None = None

    @classmethod
    def from_file(cls, path: str, app_id: str | None = None) -> FirebaseOptions:
        """The options of a ``google-services.json`` or a ``GoogleService-Info.plist`` (told apart by their content).
        Of a ``google-services.json`` with several apps, the one whose ``mobilesdk_app_id`` is ``app_id`` (by default
        ``$GOOGLE_APP_ID``).

        Raises AuthError (``auth/invalid-app-options``) saying what is wrong with the file.
        """
        def refuse(why: str) -> errors.AuthError:
            return errors.AuthError("auth/invalid-app-options", "ERROR_INVALID_APP_OPTIONS", f"{path}: {why}.")

        try:
            if not os.path.isfile(path):
                raise refuse("not a regular file (download the app's options file from the Firebase console)")
            if os.path.getsize(path) > _MAXIMUM_FILE_BYTES:
                raise refuse("larger than 1 MiB, which no options file is")
            with open(path, "rb") as file:
                data = file.read(_MAXIMUM_FILE_BYTES + 1)
        except OSError as error:
            raise refuse(f"cannot be read ({error.strerror})") from None
        if data.lstrip().startswith(b"{"):
            try:
                root = json.loads(data)
            except ValueError:
                raise refuse("not JSON as google-services.json is") from None
            return cls._from_google_services(root, app_id or os.environ.get("GOOGLE_APP_ID") or None, refuse)
        try:
            values = plistlib.loads(data)
        except Exception:  # noqa: BLE001 (plistlib raises several kinds for what is no property list)
            raise refuse("neither a google-services.json nor a GoogleService-Info.plist") from None
        if not isinstance(values, dict):
            raise refuse("not a dictionary as GoogleService-Info.plist is")
        fields: dict[str, str] = {}
        for key in ("API_KEY", "GOOGLE_APP_ID", "PROJECT_ID"):
            value = values.get(key)
            if not isinstance(value, str) or not value:
                raise refuse(f"its {key} is missing")
            fields[key] = value
        return cls(api_key=fields["API_KEY"], app_id=fields["GOOGLE_APP_ID"], project_id=fields["PROJECT_ID"])

    @classmethod
    def _from_google_services(cls, root: Any, app_id: str | None, refuse: Any) -> FirebaseOptions:
        project = root.get("project_info") if isinstance(root, dict) else None
        clients = root.get("client") if isinstance(root, dict) else None
        if not isinstance(project, dict) or not isinstance(project.get("project_id"), str):
            raise refuse("project_info.project_id is missing")
        if not isinstance(clients, list) or not clients:
            raise refuse("client lists no app")
        apps: dict[str, Any] = {}
        for index, client in enumerate(clients):
            info = client.get("client_info") if isinstance(client, dict) else None
            identifier = info.get("mobilesdk_app_id") if isinstance(info, dict) else None
            if not isinstance(identifier, str) or not identifier:
                raise refuse(f"client[{index}].client_info.mobilesdk_app_id is missing")
            apps[identifier] = client
        if app_id is not None:
            if app_id not in apps:
                raise refuse(f"it has no app with mobilesdk_app_id {app_id!r}; its apps: {', '.join(map(repr, apps))}")
            client = apps[app_id]
        elif len(apps) == 1:
            app_id, client = next(iter(apps.items()))
        else:
            raise refuse(f"it has {len(apps)} apps ({', '.join(map(repr, apps))}); set GOOGLE_APP_ID to the mobilesdk_app_id "
                         "of this one, or pass app_id")
        keys = [key.get("current_key") for key in client.get("api_key", []) if isinstance(key, dict)]
        if not keys or not isinstance(keys[0], str) or not keys[0]:
            raise refuse("the app has no api_key[0].current_key")
        return cls(api_key=keys[0], app_id=app_id, project_id=project["project_id"])

    def app_dictionary(self) -> dict[str, str]:
        """The ``app`` argument of the broker's methods."""
        values = {"apiKey": self.api_key, "appID": self.app_id, "projectID": self.project_id}
        if self.tenant_id:
            values["tenantID"] = self.tenant_id
        if self.app_name:
            values["appName"] = self.app_name
        return values
