"""The app names its own emulator: FIREBASE_AUTH_EMULATOR_HOST in its environment, or connect_auth_emulator, carried in
every call to the broker; an emulator off this machine's loopback is refused in Python before any call, and a sandboxed
app without the network is refused the emulator by the broker."""
from __future__ import annotations

import json
import os
import warnings
from typing import Any

import pytest

import keyringauth
from conftest import run_sandboxed, unique_email
from keyringauth import Auth, EmulatorConfig, FirebaseOptions, connect_auth_emulator


def emulator_url() -> str:
    return "http://" + os.environ["FIREBASE_AUTH_EMULATOR_HOST"]


def test_the_apps_own_environment_names_its_emulator(options: FirebaseOptions, group: str) -> None:
    host, _, port = os.environ["FIREBASE_AUTH_EMULATOR_HOST"].rpartition(":")
    with Auth(options, access_group=group) as auth:
        assert auth.emulator_config == EmulatorConfig(host, int(port), disable_warnings=True)
        user = auth.sign_in_anonymously().user
        assert user.get_id_token().count(".") == 2, "the user's calls carry the emulator too"
        auth.sign_out()


def test_connect_auth_emulator_names_it_for_every_call(options: FirebaseOptions, group: str, monkeypatch: Any) -> None:
    url = emulator_url()
    monkeypatch.delenv("FIREBASE_AUTH_EMULATOR_HOST")
    with Auth(options, access_group=group) as auth:
        assert not auth.emulator_config, "Firebase, unless the app names an emulator"
        with pytest.warns(UserWarning, match="Auth emulator"):
            connect_auth_emulator(auth, url + "/")
        config = auth.emulator_config
        assert config is not None and config.protocol == "http" and not config.disable_warnings
        user = auth.create_user_with_email_and_password(unique_email("connect"), "a password").user
        user.update_profile(display_name="Ada")
        assert auth.current_user == user and user.display_name == "Ada"

        # After the first call: the same emulator changes nothing, another is refused.
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            connect_auth_emulator(auth, url, {"disable_warnings": True})
        with pytest.raises(keyringauth.AuthError) as changed:
            connect_auth_emulator(auth, "http://127.0.0.1:1", {"disable_warnings": True})
        assert changed.value.code == "auth/emulator-config-failed" and "before the Auth's first call" in changed.value.message
        assert auth.emulator_config == config
        user.delete()


def test_an_emulator_off_loopback_or_malformed_is_refused_before_any_call(options: FirebaseOptions, monkeypatch: Any) -> None:
    url = emulator_url()
    for value in ("192.0.2.1:9099", "example.com:9099", "http://127.0.0.1:9099", "::1:9099", "127.0.0.1"):
        monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", value)
        with pytest.raises(keyringauth.AuthError) as refused:
            Auth(options)
        assert refused.value.code == "auth/argument-error", value
        assert "FIREBASE_AUTH_EMULATOR_HOST" in refused.value.message and "unset" in refused.value.message, refused.value.message
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", "[::1]:9099")
    with Auth(options) as auth:
        assert auth.emulator_config is not None and auth.emulator_config.host_and_port == "[::1]:9099"
    monkeypatch.delenv("FIREBASE_AUTH_EMULATOR_HOST")

    with Auth(options) as auth:
        for url, code in [
            ("https://127.0.0.1:9099", "auth/invalid-emulator-scheme"), ("127.0.0.1:9099", "auth/invalid-emulator-scheme"),
            ("http://127.0.0.1:9099/path", "auth/argument-error"), ("http://127.0.0.1:9099?x=1", "auth/argument-error"),
            ("http://user@127.0.0.1:9099", "auth/argument-error"), ("http://127.0.0.1", "auth/argument-error"),
            ("http://192.0.2.1:9099", "auth/argument-error"), ("http://example.com:9099", "auth/argument-error"),
            ("http://[2001:db8::1]:9099", "auth/argument-error"), ("http://127.0.0.1:65536", "auth/argument-error"),
        ]:
            with pytest.raises(keyringauth.AuthError) as refused:
                connect_auth_emulator(auth, url)
            assert refused.value.code == code, f"{url}: {refused.value}"
        with pytest.raises(keyringauth.AuthError, match="disable_warnings"):
            connect_auth_emulator(auth, url, {"disableWarnings": True})  # type: ignore[arg-type]
        assert auth.emulator_config is None


def test_the_broker_refuses_an_emulator_off_loopback_whatever_the_client_checks(options: FirebaseOptions) -> None:
    with Auth(options) as auth:
        auth._binding.app["emulatorHost"] = ("s", "192.0.2.1:9099")
        with pytest.raises(keyringauth.AuthError) as refused:
            auth.sign_in_anonymously()
        assert refused.value.code == "auth/argument-error" and "loopback" in refused.value.message


SANDBOXED = """
import json, sys
from keyringauth import AccessDeniedError, Auth, FirebaseOptions
try:
    with Auth(FirebaseOptions(**json.loads(sys.argv[1])), access_group=sys.argv[2]) as auth:  # refused here, when it is made
        print("signed in", auth.sign_in_anonymously().user.is_anonymous)
except AccessDeniedError as error:
    print("refused", error.code, error.message)
"""


def test_a_sandboxed_app_reaches_its_emulator_only_with_the_network(options: FirebaseOptions, tmp_path: Any) -> None:
    fields = json.dumps({"api_key": options.api_key, "app_id": options.app_id, "project_id": options.project_id})
    without = run_sandboxed(SANDBOXED, tmp_path, [fields, "TEAMID.com.example.notes"], network=False)
    assert without.returncode == 0, without.stderr
    assert without.stdout.startswith("refused auth/access-denied ") and "--share=network" in without.stdout, without.stdout
    with_network = run_sandboxed(SANDBOXED, tmp_path, [fields, "TEAMID.com.example.notes"])
    assert with_network.returncode == 0, with_network.stderr
    assert with_network.stdout.splitlines() == ["signed in True"], with_network.stderr
