"""The package's tests run against KeyringAuth's broker on a private session bus with a real keyring and the Auth
emulator, as KeyringAuth's integration tests set them up (its PythonPackageTests runs pytest): the bus is
DBUS_SESSION_BUS_ADDRESS, where the broker is D-Bus-activated; the emulator is at FIREBASE_AUTH_EMULATOR_HOST, which
every Auth the tests make reads, as an app's own does (the broker heeds the emulator each app names); and
KEYRING_AUTH_RUN_AS_FLATPAK names dbus/run-as-flatpak. Without them the tests are skipped, saying why: they never touch
the keyring of the person running them. Tests marked ``offline`` need none of it, and always run."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import queue
import struct
import subprocess
import time
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any, Callable, ClassVar

import pytest

import keyringauth
from keyringauth import Auth, FirebaseOptions

REQUIRED = ("DBUS_SESSION_BUS_ADDRESS", "FIREBASE_AUTH_EMULATOR_HOST", "KEYRING_AUTH_HARNESS_ROOT", "KEYRING_AUTH_RUN_AS_FLATPAK")
PROJECT = "demo-keyring-auth"


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    missing = [name for name in REQUIRED if not os.environ.get(name)]
    if missing:
        skip = pytest.mark.skip(reason="run by KeyringAuth's integration tests (swift test under dbus/with-keyring); unset: "
                                + ", ".join(missing))
        for item in items:
            if item.get_closest_marker("offline") is None:
                item.add_marker(skip)


@pytest.fixture
def options() -> FirebaseOptions:
    """An app of the test's own: a Firebase app ID no other test uses."""
    return FirebaseOptions(api_key="AIza-python-" + uuid.uuid4().hex[:8], app_id="1:42:linux:py-" + uuid.uuid4().hex[:8],
                           project_id=PROJECT)


@pytest.fixture
def group() -> str:
    return "TEAMID.com.example.python" + uuid.uuid4().hex[:6]


@pytest.fixture
def auth(options: FirebaseOptions, group: str) -> Any:
    with Auth(options, access_group=group) as auth:
        yield auth


def unique_email(name: str = "ada") -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}@example.com"


def oob_code(request_type: str, email: str, link: bool = False) -> str:
    """The latest email action code of ``request_type`` for ``email`` the emulator made (it mails nothing)."""
    url = "http://{}/emulator/v1/projects/{}/oobCodes".format(os.environ["FIREBASE_AUTH_EMULATOR_HOST"], PROJECT)
    with urllib.request.urlopen(url, timeout=30) as answer:
        codes = json.load(answer)["oobCodes"]
    matching = [code for code in codes if code["requestType"] == request_type and email in (code.get("email"), code.get("newEmail"))]
    assert matching, f"no {request_type} code for {email} among {codes}"
    return str(matching[-1]["oobLink" if link else "oobCode"])


def verified_user(auth: Auth, name: str) -> keyringauth.User:
    """A new account of ``name``-…@example.com, password ``a-password``, its address verified (as a second factor needs)."""
    email = unique_email(name)
    user = auth.create_user_with_email_and_password(email, "a-password").user
    user.send_email_verification()
    auth.apply_action_code(oob_code("VERIFY_EMAIL", email))
    user.reload()
    return user


def sms_code(phone_number: str | None = None) -> str:
    """The latest SMS code the emulator made (for ``phone_number``, when given; an SMS factor's number is masked)."""
    url = "http://{}/emulator/v1/projects/{}/verificationCodes".format(os.environ["FIREBASE_AUTH_EMULATOR_HOST"], PROJECT)
    with urllib.request.urlopen(url, timeout=30) as answer:
        codes = json.load(answer)["verificationCodes"]
    matching = [code for code in codes if phone_number in (None, code.get("phoneNumber"))]
    assert matching, f"no code for {phone_number} among {codes}"
    return str(matching[-1]["code"])


def account_with_phone_number(email: str, number: str) -> None:
    """An account of ``email`` (password ``a-password``) and the phone number ``number``, made by the emulator's Admin API
    (no code is sent: the number counts against no bound)."""
    url = "http://{}/identitytoolkit.googleapis.com/v1/projects/{}/accounts".format(os.environ["FIREBASE_AUTH_EMULATOR_HOST"], PROJECT)
    body = json.dumps({"email": email, "password": "a-password", "phoneNumber": number}).encode()
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Authorization": "Bearer owner", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 200


def phone_number() -> str:
    """A number of the test's own."""
    return "+1555" + str(uuid.uuid4().int % 9_000_000 + 1_000_000)


def totp(secret: str, at: float | None = None) -> str:
    """RFC 6238's code of a base32 ``secret`` (SHA-1, six digits, thirty seconds) at ``at``."""
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    counter = int((time.time() if at is None else at) // 30)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def app_json(options: FirebaseOptions) -> str:
    values: dict[str, str] = options.app_dictionary()
    return json.dumps(values)


def run_sandboxed(script: str, tmp_path: Any, arguments: list[str], network: bool = True) -> subprocess.CompletedProcess[str]:
    """``script`` with its ``arguments`` as the Flatpak app com.example.Notes, with the package on its path and the
    emulator in its environment as a developer's app has it; with the network unless ``network`` is false."""
    import jeepney  # type: ignore[import-untyped]

    path = tmp_path / "sandboxed.py"
    path.write_text(script)
    source = os.path.dirname(os.path.dirname(os.path.abspath(keyringauth.__file__)))
    jeepney_path = os.path.dirname(os.path.dirname(os.path.abspath(jeepney.__file__)))
    return subprocess.run(
        [os.environ["KEYRING_AUTH_RUN_AS_FLATPAK"]] + (["--share=network"] if network else [])
        + ["--ro", source, "--ro", jeepney_path, "--ro", str(tmp_path), "--env", f"PYTHONPATH={source}:{jeepney_path}",
           "--env", "FIREBASE_AUTH_EMULATOR_HOST=" + os.environ["FIREBASE_AUTH_EMULATOR_HOST"],
           "com.example.Notes", "/usr/bin/python3", str(path)] + arguments,
        capture_output=True, text=True, timeout=120, check=False)


class StandInBroker:
    """Answers the Auth's calls as the broker would, records them, and hands its watch thread the UserChanged
    signals the test sends."""

    made: ClassVar[list[StandInBroker]] = []

    def __init__(self, bus: str = "SESSION", timeout: float = 25.0) -> None:
        self.timeout = timeout
        self.closed = False
        self.user: dict[str, Any] = {}
        self.calls: list[tuple[str, dict[str, Any], str, str, tuple[Any, ...]]] = []
        self.answers: dict[str, list[Any]] = {}
        #: Each method's timeout, as last called.
        self.timeouts: dict[str, float | None] = {}
        self._signals: queue.Queue[list[Any] | None] = queue.Queue()
        StandInBroker.made.append(self)

    unique_name = ":1.42"

    def call(self, method: str, app: dict[str, Any], group: str, signature: str = "", *arguments: Any,
             timeout: float | None = None) -> list[Any]:
        self.calls.append((method, app, group, signature, arguments))
        self.timeouts[method] = timeout
        if method == "GetUser":
            return [self.user]
        if method == "SignOut":
            self.user = {}
        return self.answers.get(method, [])

    def send(self, auth: Auth, values: dict[str, Any]) -> None:
        """A UserChanged of ``auth``'s app and group."""
        app = {key: value for key, (_, value) in auth._binding.app.items()}
        self._signals.put([app, auth.access_group or "", values])

    def send_raw(self, arguments: list[Any]) -> None:
        self._signals.put(arguments)

    def next_signal(self, timeout: float | None) -> list[Any] | None:
        return self._signals.get(timeout=timeout)

    def wake(self) -> None:
        self._signals.put(None)

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., tuple[Auth, StandInBroker]]]:
    """Makes Auths on stand-in brokers, closed at the test's end: for offline tests of what an Auth sends and of its
    watch thread."""
    monkeypatch.setattr(keyringauth.auth, "Broker", StandInBroker)
    monkeypatch.delenv("FIREBASE_AUTH_EMULATOR_HOST", raising=False)
    made: list[Auth] = []

    def make(**keywords: Any) -> tuple[Auth, StandInBroker]:
        StandInBroker.made.clear()
        auth = Auth(FirebaseOptions(api_key="AIza-offline", app_id="1:42:linux:offline", project_id="demo-offline"),
                    access_group="TEAMID.com.example.offline", **keywords)
        made.append(auth)
        return auth, StandInBroker.made[-1]
    yield make
    for auth in made:
        auth.close()
