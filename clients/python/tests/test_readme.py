"""README.md's examples run as written: each Python block, in a working directory holding the options file it names,
against the broker and the emulator the app itself names (FIREBASE_AUTH_EMULATOR_HOST, or the block's own
connect_auth_emulator with the test's emulator's address). The article "Signing in from any language" shows the same
first app. The App Check example runs offline, on a stand-in broker that records what its call carries."""
from __future__ import annotations

import http.server
import json
import os
import threading
from typing import Any

import pytest

import keyringauth
from conftest import StandInBroker, phone_number, sms_code
from keyringauth import Auth, FirebaseOptions, app_check

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(PACKAGE, "README.md")
ARTICLE = os.path.join(PACKAGE, "..", "..", "Sources", "KeyringAuth", "KeyringAuth.docc", "SigningInFromAnyLanguage.md")

#: What tells each of the README's Python blocks apart, and so the test that runs it.
FIRST_APP, OPTIONS, LIFETIME, EMULATOR = "sign_in_with_email_and_password(", 'from_file("google-services.json", app_id=', "stop()", "connect_auth_emulator("
POPUP = "sign_in_with_popup("
PHONE = "sign_in_with_phone_number("
APP_CHECK = "initialize_app_check("


def python_blocks(path: str) -> list[str]:
    with open(path, encoding="utf-8") as file:
        return [block.split("```")[0] for block in file.read().split("```python\n")[1:]]


def example(marker: str) -> str:
    [block] = [block for block in python_blocks(README) if marker in block]
    return block


def run(block: str, **names: Any) -> dict[str, Any]:
    namespace = dict(names)
    exec(compile(block, README, "exec"), namespace)  # noqa: S102
    return namespace


def google_services(directory: Any, apps: list[FirebaseOptions]) -> None:
    """A google-services.json of ``apps``, as the Firebase console writes one, in ``directory``."""
    (directory / "google-services.json").write_text(json.dumps({
        "project_info": {"project_id": apps[0].project_id, "project_number": "1234567890"},
        "client": [{"client_info": {"mobilesdk_app_id": app.app_id, "android_client_info": {"package_name": "com.example.notes"}},
                    "api_key": [{"current_key": app.api_key}]} for app in apps],
    }))


@pytest.mark.offline
def test_every_python_block_is_run_by_a_test() -> None:
    for block in python_blocks(README):
        assert sum(marker in block for marker in (FIRST_APP, OPTIONS, LIFETIME, EMULATOR, POPUP, PHONE, APP_CHECK)) == 1, block


@pytest.mark.offline
def test_the_article_shows_the_readmes_first_app() -> None:
    if not os.path.exists(ARTICLE):
        pytest.skip("the article is KeyringAuth's, beside the package in its repository")
    assert example(FIRST_APP) in python_blocks(ARTICLE)


@pytest.mark.offline
def test_the_options_example_picks_one_app_of_several(tmp_path: Any, monkeypatch: Any, capsys: Any) -> None:
    chosen = FirebaseOptions("AIza-chosen", "1:1234567890:android:0a1b2c3d4e5f", "demo-notes")
    google_services(tmp_path, [FirebaseOptions("AIza-other", "1:1234567890:android:ffff", "demo-notes"), chosen])
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GOOGLE_APP_ID", raising=False)
    assert run(example(OPTIONS))["options"] == chosen
    assert capsys.readouterr().out == "demo-notes 1:1234567890:android:0a1b2c3d4e5f\n"
    with pytest.raises(keyringauth.AuthError) as several:
        FirebaseOptions.from_file("google-services.json")
    assert several.value.code == "auth/invalid-app-options" and "app_id" in several.value.message
    monkeypatch.setenv("GOOGLE_APP_ID", chosen.app_id)
    assert FirebaseOptions.from_file("google-services.json") == chosen, "$GOOGLE_APP_ID chooses when app_id is not given"


@pytest.mark.offline
def test_the_app_check_example_sends_the_token_its_backend_minted(stand_in: Any, tmp_path: Any, monkeypatch: Any, capsys: Any) -> None:
    """As written but for the backend's address (a server of the test's), the broker a stand-in that records the calls."""
    minted = {"token": "header.payload.signature", "ttlMillis": 3600000}

    class Backend(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            answer = json.dumps(minted).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *arguments: Any) -> None:
            pass

    class SigningInBroker(StandInBroker):
        def __init__(self, *arguments: Any, **keywords: Any) -> None:
            super().__init__(*arguments, **keywords)
            self.answers["SignInAnonymously"] = [{"uid": "anon-1", "idToken": "token-anon", "isAnonymous": True, "providers": ""}]

    monkeypatch.setattr(keyringauth.auth, "Broker", SigningInBroker)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Backend)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    options = FirebaseOptions("AIza-readme", "1:42:linux:readme-app-check", "demo-readme")
    google_services(tmp_path, [options])
    monkeypatch.chdir(tmp_path)
    block = example(APP_CHECK)
    assert "https://backend.example.com/app-check-token" in block
    try:
        run(block.replace("https://backend.example.com/app-check-token", f"http://127.0.0.1:{server.server_address[1]}/"))
    finally:
        server.shutdown()
        server.server_close()
        for made in list(app_check._instances.values()):
            made.close()
    assert capsys.readouterr().out == "signed in as anon-1\n"
    [sign_in] = [app for method, app, *_ in StandInBroker.made[-1].calls if method == "SignInAnonymously"]
    assert sign_in["appCheckToken"] == ("s", "header.payload.signature")


def test_the_first_app_runs_as_written_with_a_wrong_password_and_the_right_one(
        options: FirebaseOptions, group: str, tmp_path: Any, monkeypatch: Any, capsys: Any) -> None:
    block = example(FIRST_APP)
    google_services(tmp_path, [options])
    monkeypatch.chdir(tmp_path)
    # Ada's account, made by another app (of another group), with another password than the example's.
    with Auth(options, access_group=group) as other:
        other.create_user_with_email_and_password("ada@example.com", "another password")
        other.sign_out()

    run(block)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "signed in as nobody", printed
    assert ("The password is wrong. Check the password, or send a reset with auth.send_password_reset_email(email). "
            "(INVALID_PASSWORD)") in printed, printed

    with Auth(options, access_group=group) as other:
        ada = other.sign_in_with_email_and_password("ada@example.com", "another password").user
        ada.update_password("a password")
        run(block)
        printed = capsys.readouterr().out.splitlines()
        assert printed[0] == "signed in as nobody", printed
        assert any(line.count(".") == 2 and " " not in line for line in printed), f"an ID token: {printed}"
        ada.delete()
    with Auth(options, access_group="TEAMID.com.example.shared") as shared:
        shared.sign_out()  # the example's sign-in, of an account now gone


def test_the_lifetime_example_runs_and_a_closed_auth_says_so(capsys: Any) -> None:
    auth = run(example(LIFETIME))["auth"]
    assert capsys.readouterr().out == "the user is nobody\n"
    with pytest.raises(keyringauth.AuthError) as closed:
        auth.sign_in_anonymously()
    assert closed.value.code == "auth/app-deleted" and "make a new Auth" in closed.value.message
    auth.close()  # again: nothing happens


def test_the_emulator_example_runs(capsys: Any) -> None:
    """As written but for the emulator's address (the test's own)."""
    block = example(EMULATOR)
    assert "http://127.0.0.1:9099" in block
    run(block.replace("http://127.0.0.1:9099", "http://" + os.environ["FIREBASE_AUTH_EMULATOR_HOST"]))
    printed = capsys.readouterr().out
    assert printed.startswith("signed in as ") and len(printed.strip()) > len("signed in as "), printed


def test_the_popup_example_signs_in_in_the_persons_browser(options: FirebaseOptions, tmp_path: Any, monkeypatch: Any, capsys: Any) -> None:
    """As written, the broker's browser being the test's stand-in, which signs in at the emulator's provider page."""
    email = os.environ.get("KEYRING_AUTH_TEST_BROWSER_EMAIL")
    if not email:
        pytest.skip("the broker's stand-in browser is PythonPackageTests' (KEYRING_AUTH_TEST_BROWSER_EMAIL unset)")
    google_services(tmp_path, [options])
    monkeypatch.chdir(tmp_path)
    run(example(POPUP))
    assert capsys.readouterr().out == f"signed in as {email} with microsoft.com\n"
    with Auth(options, access_group="TEAMID.com.example.shared") as shared:
        assert shared.current_user is not None and shared.current_user.email == email
        shared.sign_out()


def test_the_phone_example_signs_in_with_the_code_the_emulator_made(options: FirebaseOptions, tmp_path: Any, monkeypatch: Any,
                                                                     capsys: Any) -> None:
    """As written but for a number of the test's own, the code typed being the one the emulator lists."""
    google_services(tmp_path, [options])
    monkeypatch.chdir(tmp_path)
    number = phone_number()
    block = example(PHONE)
    assert '"+15555550100"' in block
    run(block.replace('"+15555550100"', repr(number)), input=lambda prompt: sms_code(number))
    assert capsys.readouterr().out == f"signed in as {number}\n"
    with Auth(options, access_group="TEAMID.com.example.shared") as shared:
        assert shared.current_user is not None and shared.current_user.phone_number == number
        shared.sign_out()
