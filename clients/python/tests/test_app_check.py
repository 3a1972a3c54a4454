"""App Check offline: the providers (a custom provider's tokens, the debug provider's exchange at a server of the test's
on loopback standing in for App Check and the emulator), the token kept and fetched once for threads, the refresh's
schedule and backoff on a clock and timer the tests drive, the placeholder when the provider fails, the debug secret in
no repr, log or error, and the Auths' calls carrying the token (a stand-in broker records them)."""
from __future__ import annotations

import base64
import http.server
import json
import logging
import threading
import urllib.request
from collections.abc import Iterator
from typing import Any, Callable, ClassVar

import pytest

from conftest import StandInBroker
from keyringauth import Auth, FirebaseOptions, app_check, connect_auth_emulator
from keyringauth.app_check import (
    PLACEHOLDER_TOKEN,
    AppCheckError,
    AppCheckToken,
    AppCheckTokenResult,
    CustomProvider,
    DebugProvider,
    get_limited_use_token,
    get_token,
    initialize_app_check,
    on_token_changed,
    set_token_auto_refresh_enabled,
)

pytestmark = pytest.mark.offline

MakeAuth = Callable[..., "tuple[Auth, StandInBroker]"]
SECRET = "3BA09C8C-8A0D-4030-ACD5-B96D99DB73F9"
MINUTE = 60 * 1000
#: The stand-in broker's app (conftest's stand_in fixture).
OFFLINE = FirebaseOptions(api_key="AIza-offline", app_id="1:42:linux:offline", project_id="demo-offline")
OTHER = FirebaseOptions(api_key="AIza-other", app_id="1:42:linux:other", project_id="demo-offline")


ANONYMOUS_USER = {"uid": "anon-1", "idToken": "token-anon", "isAnonymous": True, "providers": ""}


def made(stand_in: MakeAuth) -> tuple[Auth, StandInBroker]:
    """An Auth of the stand-in broker's app, whose anonymous sign-ins the stand-in answers."""
    auth, broker = stand_in()
    broker.answers["SignInAnonymously"] = [ANONYMOUS_USER]
    return auth, broker


class Clock:
    """Milliseconds since the epoch, moved by the test."""

    def __init__(self) -> None:
        self.now = 1_800_000_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds * 1000


class FakeTimer:
    """The refresh's timer, driven by the test: it records each scheduled delay; ``fire()`` runs the pending function."""

    made: ClassVar[list[FakeTimer]] = []

    def __init__(self, name: str) -> None:
        self.delays: list[float] = []
        self.pending: Callable[[], None] | None = None
        self.closed = False
        FakeTimer.made.append(self)

    def schedule(self, delay: float, function: Callable[[], None]) -> None:
        self.delays.append(delay)
        self.pending = function

    def cancel(self) -> None:
        self.pending = None

    def close(self) -> None:
        self.closed = True
        self.pending = None

    def fire(self) -> None:
        function, self.pending = self.pending, None
        assert function is not None, "a refresh is scheduled"
        function()


@pytest.fixture(autouse=True)
def controlled(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    """A clock and timers of the test's for each App Check made, every App Check closed at the test's end."""
    clock = Clock()
    FakeTimer.made.clear()
    monkeypatch.setattr(app_check, "_clock", clock)
    monkeypatch.setattr(app_check, "_make_timer", FakeTimer)
    monkeypatch.setattr(app_check, "_PRODUCTION", "https://production.invalid/v1")  # no test reaches Firebase
    monkeypatch.delenv("FIREBASE_AUTH_EMULATOR_HOST", raising=False)
    yield clock
    for made in list(app_check._instances.values()):
        made.close()


def jwt(claims: dict[str, Any]) -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(claims)}.c2lnbmF0dXJl"


class Backend:
    """A custom provider's backend: each call mints the next token, living ``ttl`` seconds from the clock's now."""

    def __init__(self, clock: Clock, ttl: float = 3600) -> None:
        self.clock = clock
        self.ttl = ttl
        self.calls = 0
        self.failing: Exception | None = None

    def __call__(self) -> AppCheckToken:
        self.calls += 1
        if self.failing is not None:
            raise self.failing
        return AppCheckToken(f"token-{self.calls}", self.clock.now + self.ttl * 1000)


# The custom provider, the token kept, and the calls carrying it.
def test_the_placeholder_is_the_javascript_sdks() -> None:
    assert base64.b64decode(PLACEHOLDER_TOKEN) == b'{"error":"UNKNOWN_ERROR"}'


def test_a_token_is_kept_while_more_than_five_minutes_of_it_are_left(controlled: Clock) -> None:
    backend = Backend(controlled)
    checked = initialize_app_check(OFFLINE, provider=CustomProvider(get_token=backend))
    assert get_token(checked) == AppCheckTokenResult("token-1")
    controlled.advance(55 * 60)
    assert get_token(checked).token == "token-1" and backend.calls == 1, "five minutes left: kept"
    controlled.advance(1)
    assert get_token(checked).token == "token-2", "less than five minutes left count as expired (the Swift package's rule)"
    assert get_token(checked, force_refresh=True).token == "token-3"
    assert get_token(checked).token == "token-3"
    assert "token-3" not in repr(get_token(checked)) and "token-" not in repr(AppCheckToken("token-9", 1.0))


def test_the_custom_providers_options_take_the_javascript_shape_too(controlled: Clock) -> None:
    backend = Backend(controlled)
    checked = initialize_app_check(OFFLINE, provider=CustomProvider({"get_token": backend}))
    assert get_token(checked).token == "token-1"
    with pytest.raises(AppCheckError) as raised:
        CustomProvider()
    assert raised.value.code == "appCheck/argument-error" and "get_token" in raised.value.message


def test_auth_calls_carry_the_apps_token_and_no_other_apps_calls_do(stand_in: MakeAuth, controlled: Clock) -> None:
    auth, broker = made(stand_in)
    backend = Backend(controlled)
    checked = initialize_app_check(auth, provider=CustomProvider(get_token=backend))
    auth.sign_in_anonymously()
    method, app, _, _, _ = broker.calls[-1]
    assert method == "SignInAnonymously" and app["appCheckToken"] == ("s", "token-1")
    assert "appCheckToken" not in auth._binding.app, "the Auth's app (which signals name) holds no token"
    auth.send_password_reset_email("ada@example.com")
    assert broker.calls[-1][1]["appCheckToken"] == ("s", "token-1") and backend.calls == 1

    later, later_broker = made(stand_in)  # the same app's Auth, made after initialize_app_check
    later.sign_in_anonymously()
    assert later_broker.calls[-1][1]["appCheckToken"] == ("s", "token-1")
    assert all("appCheckToken" not in app for method, app, *_ in later_broker.calls if method in ("Watch", "GetUser"))

    auth.sign_out()
    assert broker.calls[-1][0] == "SignOut" and "appCheckToken" not in broker.calls[-1][1], "a keyring-only call needs none"

    with Auth(OTHER, access_group="TEAMID.com.example.offline") as other:
        StandInBroker.made[-1].answers["SignInAnonymously"] = [ANONYMOUS_USER]
        other.sign_in_anonymously()
        assert "appCheckToken" not in StandInBroker.made[-1].calls[-1][1], "another app's calls carry none"

    checked.close()
    auth.sign_in_anonymously()
    assert "appCheckToken" not in broker.calls[-1][1], "after close(), the app's calls carry none"


def test_a_token_for_the_apps_tenant_and_language_is_the_apps(stand_in: MakeAuth, controlled: Clock) -> None:
    auth, broker = made(stand_in)
    initialize_app_check(OFFLINE, provider=CustomProvider(get_token=Backend(controlled)))
    auth.language_code = "fr"
    auth.tenant_id = "tenant-1"
    auth.sign_in_anonymously()
    app = broker.calls[-1][1]
    assert app["appCheckToken"] == ("s", "token-1") and app["languageCode"] == ("s", "fr") and app["tenantID"] == ("s", "tenant-1")


def test_a_failing_provider_has_calls_carry_the_placeholder_and_the_error_logged(
        stand_in: MakeAuth, controlled: Clock, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="keyringauth")
    auth, broker = made(stand_in)
    backend = Backend(controlled)
    backend.failing = ConnectionError("the app's backend is down")
    checked = initialize_app_check(auth, provider=CustomProvider(get_token=backend))
    auth.sign_in_anonymously()
    assert broker.calls[-1][1]["appCheckToken"] == ("s", PLACEHOLDER_TOKEN)
    [warning] = [record for record in caplog.records if record.name == "keyringauth"]
    assert warning.levelno == logging.WARNING
    assert "placeholder" in warning.getMessage() and "the app's backend is down" in warning.getMessage()
    assert "1:42:linux:offline" in warning.getMessage()
    with pytest.raises(ConnectionError):
        get_token(checked)
    backend.failing = None
    auth.sign_in_anonymously()
    assert broker.calls[-1][1]["appCheckToken"] == ("s", "token-3"), "the next call asks the provider again"


def test_a_provider_that_calls_the_apps_auth_for_its_backend_does_not_wait_for_itself(
        stand_in: MakeAuth, controlled: Clock, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="keyringauth")
    auth, broker = made(stand_in)
    broker.answers["GetIDToken"] = ["the-users-id-token"]
    auth.sign_in_anonymously()
    user = auth.current_user
    assert user is not None

    def from_backend() -> AppCheckToken:  # the backend mints tokens for signed-in users
        assert user.get_id_token() == "the-users-id-token"
        return AppCheckToken(jwt({"iat": controlled.now / 1000}), controlled.now + 3600_000)

    checked = initialize_app_check(auth, provider=CustomProvider(get_token=from_backend))
    auth.send_password_reset_email("ada@example.com")
    [id_token_call] = [app for method, app, *_ in broker.calls if method == "GetIDToken"]
    assert id_token_call["appCheckToken"] == ("s", PLACEHOLDER_TOKEN), "no token yet: the placeholder, without waiting"
    assert broker.calls[-1][0] == "SendPasswordReset" and broker.calls[-1][1]["appCheckToken"][1].count(".") == 2
    get_token(checked, force_refresh=True)
    assert broker.calls[-1][0] == "GetIDToken" and broker.calls[-1][1]["appCheckToken"][1].count(".") == 2, "the token kept"
    assert not caplog.records, "the provider's own calls are expected, and not logged"


def test_a_custom_providers_answer_that_is_no_token_is_refused(controlled: Clock) -> None:
    answers: list[Any] = [{"token": "t", "expireTimeMillis": 1}, AppCheckToken("a token\n", controlled.now + 3600_000),
                          AppCheckToken("t", float("nan")), AppCheckToken("", controlled.now + 3600_000)]
    checked = initialize_app_check(OFFLINE, provider=CustomProvider(get_token=lambda: answers.pop(0)))
    for _ in range(4):
        with pytest.raises(AppCheckError) as raised:
            get_token(checked)
        assert raised.value.code == "appCheck/fetch-parse-error" and "AppCheckToken" in raised.value.message


def test_threads_that_need_a_token_meanwhile_wait_for_the_one_fetch(controlled: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    waiting = threading.Semaphore(0)

    class CountedEvent(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            waiting.release()  # a thread joined the fetch under way
            return super().wait(timeout)

    class CountedFlight(app_check._Flight):
        def __init__(self) -> None:
            super().__init__()
            self.done = CountedEvent()

    monkeypatch.setattr(app_check, "_Flight", CountedFlight)
    entered, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def slow() -> AppCheckToken:
        calls.append(1)
        entered.set()
        assert release.wait(30)
        return AppCheckToken("the-one-token", controlled.now + 3600_000)

    checked = initialize_app_check(OFFLINE, provider=CustomProvider(get_token=slow))
    results: list[str] = []
    threads = [threading.Thread(target=lambda: results.append(get_token(checked).token)) for _ in range(8)]
    threads[0].start()
    assert entered.wait(30), "the first thread fetches"
    for thread in threads[1:]:
        thread.start()
    for _ in threads[1:]:
        assert waiting.acquire(timeout=30), "each other thread waits for the fetch under way"
    release.set()
    for thread in threads:
        thread.join(30)
    assert results == ["the-one-token"] * 8 and calls == [1]


# Listeners.
def test_listeners_hear_each_token_and_each_failure(controlled: Clock, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="keyringauth")
    backend = Backend(controlled)
    checked = initialize_app_check(OFFLINE, provider=CustomProvider(get_token=backend))
    heard: list[str] = []
    failures: list[BaseException] = []

    class Observer:
        def __init__(self) -> None:
            self.tokens: list[str] = []
            self.errors: list[BaseException] = []

        def next(self, result: AppCheckTokenResult) -> None:
            self.tokens.append(result.token)

        def error(self, error: BaseException) -> None:
            self.errors.append(error)

    def raising(result: AppCheckTokenResult) -> None:
        raise RuntimeError("a listener's own bug")

    on_token_changed(checked, raising)
    stop = on_token_changed(checked, lambda result: heard.append(result.token), failures.append)
    observer = Observer()
    on_token_changed(checked, observer)
    assert heard == [], "no token yet: nothing now"
    get_token(checked)
    assert heard == ["token-1"] and observer.tokens == ["token-1"]
    late: list[str] = []
    on_token_changed(checked, lambda result: late.append(result.token))
    assert late == ["token-1"], "a listener added while a token is kept hears it now"
    get_token(checked)
    assert heard == ["token-1"], "a kept token is no change"
    backend.failing = AppCheckError("appCheck/fetch-status-error", "refused", http_status=403)
    controlled.advance(3600)
    with pytest.raises(AppCheckError):
        get_token(checked)
    assert [error.code for error in failures if isinstance(error, AppCheckError)] == ["appCheck/fetch-status-error"]
    assert [error.code for error in observer.errors if isinstance(error, AppCheckError)] == ["appCheck/fetch-status-error"]
    stop()
    backend.failing = None
    get_token(checked)
    assert heard == ["token-1"] and observer.tokens == ["token-1", "token-3"] and late == ["token-1", "token-3"]
    logged = [record for record in caplog.records if "on_token_changed listener" in record.getMessage()]
    assert len(logged) == 2 and all(record.exc_info for record in logged), "the raising listener is logged, the others told"


# The refresh, on the test's clock and timer.
def test_the_refresh_comes_at_half_the_lifetime_plus_five_minutes_and_backs_off_when_it_fails(controlled: Clock) -> None:
    backend = Backend(controlled)
    checked = initialize_app_check(OFFLINE, provider=CustomProvider(get_token=backend), is_token_auto_refresh_enabled=True)
    [timer] = FakeTimer.made
    assert timer.delays == [0.0], "no token: fetched at once"
    timer.fire()
    assert backend.calls == 1
    assert timer.delays[-1] == 35 * 60, "an hour's token: refreshed 30 + 5 minutes after it came"
    controlled.advance(35 * 60)
    timer.fire()
    assert backend.calls == 2 and get_token(checked).token == "token-2", "a refresh fetches even a valid token again"
    backend.failing = RuntimeError("the app's backend is down")
    for expected in (30, 60, 120, 240, 480, 960, 960):
        controlled.advance(timer.delays[-1])
        timer.fire()
        assert timer.delays[-1] == expected
    backend.failing = None
    controlled.advance(960)
    timer.fire()
    assert timer.delays[-1] == 35 * 60, "a success ends the backoff"
    backend.failing = RuntimeError("down again")
    controlled.advance(35 * 60)
    timer.fire()
    assert timer.delays[-1] == 30, "and the next failure waits 30 s again"


def test_the_refresh_comes_no_later_than_five_minutes_before_expiry_and_no_sooner_than_a_minute(controlled: Clock) -> None:
    issued = controlled.now / 1000 - 50 * 60  # a token the backend had for 50 minutes: its iat
    tokens = [AppCheckToken(jwt({"iat": issued, "exp": issued + 3600}), (issued + 3600) * 1000),
              AppCheckToken("opaque", controlled.now + 20 * MINUTE),
              AppCheckToken("short", controlled.now + 4 * MINUTE)]
    checked = initialize_app_check(OFFLINE, provider=CustomProvider(get_token=lambda: tokens.pop(0)),
                                   is_token_auto_refresh_enabled=True)
    [timer] = FakeTimer.made
    timer.fire()
    assert timer.delays[-1] == 60, "issued 50 minutes ago with 10 left: due (at most 5 minutes before expiry), a minute at the soonest"
    assert checked._next_refresh_wait() == 0
    timer.fire()
    assert timer.delays[-1] == 15 * 60, "no iat: issued when it came; min(10 + 5, 20 - 5) minutes"
    timer.fire()
    assert timer.delays[-1] == 60, "a token of four minutes is not fetched again and again"


def test_auto_refresh_may_be_turned_on_and_off_and_close_stops_it(controlled: Clock) -> None:
    backend = Backend(controlled)
    checked = initialize_app_check(OFFLINE, provider=CustomProvider(get_token=backend))
    [timer] = FakeTimer.made
    # Lists, not `and`: mypy would keep a property narrowed across the calls that change it.
    assert [timer.delays, checked.is_token_auto_refresh_enabled] == [[], False], "off by default, as JavaScript's"
    get_token(checked)
    set_token_auto_refresh_enabled(checked, True)
    assert [timer.delays, checked.is_token_auto_refresh_enabled] == [[35 * 60], True]
    stale = timer.pending
    set_token_auto_refresh_enabled(checked, False)
    assert timer.pending is None
    assert stale is not None
    stale()  # a refresh that was due as it stopped
    assert backend.calls == 1 and timer.pending is None, "a stopped refresh neither fetches nor schedules"
    set_token_auto_refresh_enabled(checked, True)
    checked.close()
    assert timer.closed and timer.pending is None
    with pytest.raises(AppCheckError) as raised:
        set_token_auto_refresh_enabled(checked, True)
    assert raised.value.code == "appCheck/use-before-activation"


def test_the_timer_runs_on_a_thread_of_its_own_which_close_ends() -> None:
    timer = app_check._Timer("keyringauth-app-check-test")
    ran: list[str] = []
    done = threading.Event()

    def second() -> None:
        ran.append(threading.current_thread().name)
        done.set()

    timer.schedule(3600, lambda: ran.append("replaced"))
    timer.schedule(0, second)
    assert done.wait(30)
    timer.schedule(3600, lambda: ran.append("closed before"))
    timer.close()
    assert timer.thread is not None and not timer.thread.is_alive()
    assert ran == ["keyringauth-app-check-test"]
    timer.schedule(0, lambda: ran.append("after close"))
    assert timer.thread is not None and not timer.thread.is_alive() and len(ran) == 1


# initialize_app_check's rules.
def test_initializing_again_answers_the_same_app_check_or_refuses_other_options(controlled: Clock) -> None:
    backend = Backend(controlled)
    first = initialize_app_check(OFFLINE, provider=CustomProvider(get_token=backend))
    assert initialize_app_check(OFFLINE, provider=CustomProvider(get_token=backend)) is first
    assert initialize_app_check(OFFLINE.__class__(**{**OFFLINE.__dict__, "tenant_id": "t"}), CustomProvider(get_token=backend)) is first
    for provider, auto in ((CustomProvider(get_token=Backend(controlled)), False), (CustomProvider(get_token=backend), True),
                           (DebugProvider(SECRET), False)):
        with pytest.raises(AppCheckError) as raised:
            initialize_app_check(OFFLINE, provider=provider, is_token_auto_refresh_enabled=auto)
        assert raised.value.code == "appCheck/already-initialized" and "1:42:linux:offline" in raised.value.message
    assert initialize_app_check(OTHER, provider=DebugProvider(SECRET)) is not first
    first.close()
    first.close()
    with pytest.raises(AppCheckError) as raised:
        get_token(first)
    assert raised.value.code == "appCheck/use-before-activation"
    again = initialize_app_check(OFFLINE, provider=DebugProvider(SECRET))
    assert again is not first and initialize_app_check(OFFLINE, provider=DebugProvider(SECRET)) is again
    with pytest.raises(AppCheckError) as raised:
        get_token("an app")  # type: ignore[arg-type]
    assert raised.value.code == "appCheck/use-before-activation"
    with pytest.raises(AppCheckError) as raised:
        initialize_app_check(OFFLINE, provider="ReCaptchaV3Provider")  # type: ignore[arg-type]
    assert raised.value.code == "appCheck/argument-error" and "web page" in raised.value.message


# The debug provider, against a server of the test's standing in for App Check.
class AppCheckService:
    """Answers each POST with the next of ``answers`` (status, body), recording each request's path, headers and body."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        self.answers: list[tuple[int, bytes]] = []
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                service.requests.append((self.path, dict(self.headers), body))
                status, answer = service.answers.pop(0) if service.answers else (200, b'{"token": "exchanged", "ttl": "3600s"}')
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *arguments: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.host = f"127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def service(stand_in: MakeAuth, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppCheckService]:
    """The stand-in App Check, named as the emulator by FIREBASE_AUTH_EMULATOR_HOST (after stand_in, which unsets it)."""
    made = AppCheckService()
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", made.host)
    yield made
    made.close()


def test_the_debug_provider_exchanges_its_secret_at_the_emulator(service: AppCheckService, controlled: Clock) -> None:
    checked = initialize_app_check(OFFLINE, provider=DebugProvider(SECRET))
    assert get_token(checked).token == "exchanged"
    [(path, headers, body)] = service.requests
    assert path == "/firebaseappcheck.googleapis.com/v1/projects/demo-offline/apps/1:42:linux:offline:exchangeDebugToken"
    assert headers["X-Goog-Api-Key"] == "AIza-offline" and headers["Content-Type"] == "application/json"
    assert body == {"debug_token": SECRET, "limited_use": False}
    assert checked._token is not None and checked._token.expire_time_millis == controlled.now + 3600 * 1000
    assert get_limited_use_token(checked).token == "exchanged"
    assert service.requests[-1][2] == {"debug_token": SECRET, "limited_use": True}
    assert get_token(checked).token == "exchanged" and len(service.requests) == 2, "a limited-use token is not kept"


def test_the_debug_provider_takes_its_secret_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert DebugProvider(environment={"APP_CHECK_DEBUG_TOKEN": "c", "FIRAAppCheckDebugToken": "b"})._is_equal(DebugProvider("b"))
    assert DebugProvider(environment={"APP_CHECK_DEBUG_TOKEN": "c", "AppCheckDebugToken": "a"})._is_equal(DebugProvider("a"))
    monkeypatch.setenv("APP_CHECK_DEBUG_TOKEN", SECRET)
    assert DebugProvider()._is_equal(DebugProvider(SECRET)) and not DebugProvider()._is_equal(DebugProvider("other"))
    for environment in ({}, {"APP_CHECK_DEBUG_TOKEN": ""}):
        with pytest.raises(AppCheckError) as raised:
            DebugProvider(environment=environment)
        assert raised.value.code == "appCheck/argument-error" and "APP_CHECK_DEBUG_TOKEN" in raised.value.message
    with pytest.raises(AppCheckError) as raised:
        DebugProvider("a secret\n")
    assert "a secret" not in str(raised.value)


def test_the_exchange_goes_where_the_apps_auth_calls_go(service: AppCheckService, stand_in: MakeAuth, controlled: Clock,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FIREBASE_AUTH_EMULATOR_HOST", raising=False)
    auth, broker = made(stand_in)  # made without the variable: for Firebase
    connect_auth_emulator(auth, f"http://{service.host}", {"disable_warnings": True})
    checked = initialize_app_check(auth, provider=DebugProvider(SECRET))
    assert get_token(checked).token == "exchanged", "the emulator of the Auth given"
    auth.sign_in_anonymously()
    assert broker.calls[-1][1]["appCheckToken"] == ("s", "exchanged") and broker.calls[-1][1]["emulatorHost"] == ("s", service.host)


def test_the_exchange_goes_to_firebase_without_an_emulator(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[urllib.request.Request] = []

    class Opener:
        def open(self, request: urllib.request.Request, timeout: float) -> Any:
            sent.append(request)
            assert timeout == app_check.EXCHANGE_TIMEOUT
            raise OSError("no network in this test")

    monkeypatch.setattr(urllib.request, "build_opener", lambda *handlers: Opener())
    monkeypatch.setattr(app_check, "_PRODUCTION", "https://firebaseappcheck.googleapis.com/v1")
    checked = initialize_app_check(OFFLINE, provider=DebugProvider(SECRET))
    with pytest.raises(AppCheckError) as raised:
        get_token(checked)
    assert raised.value.code == "appCheck/fetch-network-error" and "firebaseappcheck.googleapis.com" in raised.value.message
    [request] = sent
    assert request.full_url == ("https://firebaseappcheck.googleapis.com/v1/projects/demo-offline/apps/1:42:linux:offline"
                                ":exchangeDebugToken")


def test_the_exchanges_failures_have_javascripts_codes_and_never_the_secret(
        service: AppCheckService, controlled: Clock, caplog: pytest.LogCaptureFixture, stand_in: MakeAuth,
        monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.DEBUG, logger="keyringauth")
    refusal = json.dumps({"error": {"code": 403, "message": f"App attestation failed for {SECRET}.", "status": "PERMISSION_DENIED"}})
    service.answers = [
        (403, refusal.encode()), (404, b"{}"), (503, b"not json"), (200, b"not json"), (200, b'{"token": "t", "ttl": "an hour"}'),
        (200, b'{"token": "t", "ttl": "0s"}'), (200, b'{"ttl": "3600s"}'), (200, b'{"token": "t\\nX", "ttl": "3600s"}'),
        (200, b'{"token": "t", "ttl": "3600s", "padding": "' + b"x" * 70_000 + b'"}'),
    ]
    checked = initialize_app_check(OFFLINE, provider=DebugProvider(SECRET))
    raised: list[AppCheckError] = []
    for _ in range(len(service.answers)):
        with pytest.raises(AppCheckError) as error:
            get_token(checked)
        raised.append(error.value)
    assert [(error.code, error.http_status) for error in raised[:3]] == [
        ("appCheck/fetch-status-error", 403), ("appCheck/fetch-status-error", 404), ("appCheck/fetch-status-error", 503)]
    assert "register the debug secret" in raised[0].message and "App attestation failed for <secret>." in raised[0].message
    assert "registered with App Check" in raised[1].message and "try again later" in raised[2].message
    assert {error.code for error in raised[3:]} == {"appCheck/fetch-parse-error"}
    assert "Protobuf Duration" in raised[4].message and "KiB" in raised[8].message

    service.close()  # nothing listens there any more
    with pytest.raises(AppCheckError) as error:
        get_token(checked)
    raised.append(error.value)
    assert error.value.code == "appCheck/fetch-network-error" and "the emulator runs" in error.value.message

    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", service.host)
    auth, broker = made(stand_in)  # an Auth of the (silent) emulator
    auth.sign_in_anonymously()
    assert broker.calls[-1][1]["appCheckToken"] == ("s", PLACEHOLDER_TOKEN)
    assert any("placeholder" in record.getMessage() for record in caplog.records)
    for text in [str(error) for error in raised] + [repr(error) for error in raised] + [caplog.text, repr(checked),
                                                                                          repr(DebugProvider(SECRET))]:
        assert SECRET not in text


def test_a_silent_service_fails_the_exchange_within_its_timeout(controlled: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", f"127.0.0.1:{listening.getsockname()[1]}")
    monkeypatch.setattr(app_check, "EXCHANGE_TIMEOUT", 0.5)
    checked = initialize_app_check(OFFLINE, provider=DebugProvider(SECRET))
    try:
        with pytest.raises(AppCheckError) as raised:
            get_token(checked)
        assert raised.value.code == "appCheck/fetch-network-error" and "timed out" in raised.value.message
    finally:
        listening.close()
