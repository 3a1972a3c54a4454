"""App Check, as Firebase's JavaScript SDK's ``firebase/app-check`` has it in Python's style: ``initialize_app_check``,
``get_token``, ``get_limited_use_token``, ``set_token_auto_refresh_enabled``, ``on_token_changed`` and
``CustomProvider``; and ``DebugProvider``, KeyringAuth's name for the debug mode JavaScript turns on with
``self.FIREBASE_APPCHECK_DEBUG_TOKEN``.

A project may enforce App Check on Authentication: then Firebase refuses every call that carries no valid token. Once
``initialize_app_check`` is called for an app, each call of its Auths (those made before and after) carries the app's
token to the broker, which sends it with that call's requests to Firebase (``X-Firebase-AppCheck``) and keeps it for
no other call. The app obtains its tokens itself, as the broker never does for an app: a desktop has no attestation,
so the providers are the app's own backend minting tokens with the Admin SDK (``CustomProvider``) and, for development
and CI, a debug secret registered in the Firebase console (``DebugProvider``).

The token is kept in memory and used while more than five minutes of it are left (the Swift package's rule: the
JavaScript SDK uses a token to its last millisecond), one fetch at a time for the app whatever the threads; with
``is_token_auto_refresh_enabled`` a thread of the App Check refreshes it ahead of expiry as the JavaScript SDK does.
When the provider fails, a call carries the JavaScript SDK's placeholder token and the error is logged on the
``keyringauth`` logger.

Beside auth: it imports neither auth nor anything above it, and auth does not import it; the Auths' calls find the
app's App Check in _binding."""
from __future__ import annotations

import base64
import hmac
import http.client
import json
import math
import os
import threading
import time
import urllib.error
import urllib.request
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol, TypedDict, Union

from . import _binding, emulator
from ._log import logger, name_of, run_logged
from ._variants import strings
from .emulator import EmulatorConfig
from .errors import AppCheckError
from .options import FirebaseOptions

if TYPE_CHECKING:  # typing.Self is Python 3.11's; mypy brings typing_extensions, which the package does not need
    from typing_extensions import Self

#: The token a call carries when the app's provider failed: the JavaScript SDK's and Apple's, base64 of
#: ``{"error":"UNKNOWN_ERROR"}``. A project enforcing App Check refuses it; one that does not, ignores it.
PLACEHOLDER_TOKEN = "eyJlcnJvciI6IlVOS05PV05fRVJST1IifQ=="

#: The environment variables ``DebugProvider()`` reads its secret from, the first set first: Apple's SDK's two and the
#: C++ SDK's, in the Swift package's order.
DEBUG_TOKEN_VARIABLES = ("AppCheckDebugToken", "FIRAAppCheckDebugToken", "APP_CHECK_DEBUG_TOKEN")

#: Firebase's App Check service; the emulator serves the same paths under ``http://HOST:PORT/firebaseappcheck.googleapis.com/v1``.
_PRODUCTION = "https://firebaseappcheck.googleapis.com/v1"
#: A token with less than this left counts as expired (the Swift package's rule), in milliseconds; also the JavaScript
#: SDK's offset of a refresh before expiry.
EXPIRY_MARGIN_MILLIS = 5 * 60 * 1000
#: The first wait after a failed refresh, doubled after each failure in a row up to RETRIAL_MAX_WAIT (seconds).
RETRIAL_MIN_WAIT = 30.0
RETRIAL_MAX_WAIT = 16 * 60.0
#: The soonest a refresh follows one that succeeded (seconds): a token that lives less than ten minutes is not fetched
#: again and again (the Swift package's floor; the JavaScript SDK has none).
MINIMUM_REFRESH_WAIT = 60.0
#: The longest an exchange waits for App Check's answer (seconds), and the longest answer read.
EXCHANGE_TIMEOUT = 10.0
_MAXIMUM_ANSWER = 64 * 1024
#: The longest token sent: the broker's bound (Firebase's are about 800 bytes).
_MAXIMUM_TOKEN = 8192
_MAXIMUM_SECRET = 1024


def _wall_clock_millis() -> float:
    return time.time() * 1000


@dataclass(frozen=True)
class AppCheckToken:
    """A token as a provider answers it, as the JavaScript SDK's ``AppCheckToken``: ``token`` (a JWT) and
    ``expire_time_millis``, when it expires in milliseconds since the epoch (``time.time() * 1000 + ttl_millis``). Its
    ``repr`` leaves the token out."""

    token: str = field(repr=False)
    expire_time_millis: float


@dataclass(frozen=True)
class AppCheckTokenResult:
    """What ``get_token`` answers and ``on_token_changed`` tells, as the JavaScript SDK's: ``token``, the JWT the app
    sends to its own backend or to Firebase's other services. Its ``repr`` leaves the token out."""

    token: str = field(repr=False)


@dataclass(frozen=True)
class _Held:
    """A token as the App Check keeps it: with when it was issued, from which its refresh is scheduled."""

    token: str = field(repr=False)
    expire_time_millis: float
    issued_at_time_millis: float


class CustomProviderOptions(TypedDict):
    """``CustomProvider``'s options, as the JavaScript SDK's ``CustomProviderOptions``: ``get_token``, a function
    answering an ``AppCheckToken``."""

    get_token: Callable[[], AppCheckToken]


class AppCheckProvider:
    """What ``initialize_app_check`` takes as ``provider``: ``CustomProvider`` or ``DebugProvider``."""

    def _fetch(self, app_check: AppCheck, limited_use: bool) -> _Held:
        raise NotImplementedError

    def _is_equal(self, other: AppCheckProvider) -> bool:
        return other is self


class CustomProvider(AppCheckProvider):
    """A provider whose tokens come from the app's own function, as the JavaScript SDK's ``CustomProvider``:
    ``CustomProvider(get_token=fetch)`` (or ``CustomProvider({"get_token": fetch})``), ``fetch()`` answering an
    ``AppCheckToken``. On a desktop, the app's backend attests the app its own way (the person's account with it, a
    licence) and mints the token with the Admin SDK (``app_check.create_token(app_id)`` in Python's, ``createToken`` in
    Node's), answering the token and its ``ttl_millis``: ``AppCheckToken(token, time.time() * 1000 + ttl_millis)``.

    ``get_token`` is called on the thread that needs the token (an Auth's call, ``get_token``, the refresh thread), one
    call at a time for the app; what it raises is what ``get_token(app_check)`` raises (an Auth's call then carries the
    placeholder token, and the error is logged). It may call the app's Auths, as for ``user.get_id_token()`` to show the
    backend who asks: those calls carry the token kept, or the placeholder while there is none, without waiting for
    the fetch they are part of (App Check does not protect an ID token's refresh). The token's issue time, from which its refresh is scheduled, is its
    ``iat`` claim when it is a JWT with a sensible one, else the time it came.
    """

    def __init__(self, options: CustomProviderOptions | None = None, *,
                 get_token: Callable[[], AppCheckToken] | None = None) -> None:
        function = get_token if get_token is not None else options.get("get_token") if options is not None else None
        if not callable(function):
            raise AppCheckError("appCheck/argument-error", (
                f"CustomProvider takes get_token, a function answering an AppCheckToken, not {function!r}: "
                "CustomProvider(get_token=fetch_token)."))
        self._get_token: Callable[[], AppCheckToken] = function

    def _fetch(self, app_check: AppCheck, limited_use: bool) -> _Held:
        given = self._get_token()
        if not isinstance(given, AppCheckToken):
            raise AppCheckError("appCheck/fetch-parse-error", (
                f"CustomProvider's get_token {name_of(self._get_token)} answered {type(given).__name__}, not an AppCheckToken; "
                "answer AppCheckToken(token, expire_time_millis) of the token the app's backend minted."))
        expires = given.expire_time_millis
        if isinstance(expires, bool) or not isinstance(expires, (int, float)) or not math.isfinite(expires):
            raise AppCheckError("appCheck/fetch-parse-error", (
                f"CustomProvider's get_token {name_of(self._get_token)} answered an AppCheckToken whose expire_time_millis is "
                "not a number of milliseconds since the epoch; give time.time() * 1000 + ttl_millis."))
        if not _sendable(given.token):
            raise AppCheckError("appCheck/fetch-parse-error", (
                f"CustomProvider's get_token {name_of(self._get_token)} answered an AppCheckToken whose token is no App Check "
                f"token (1 to {_MAXIMUM_TOKEN} characters of visible ASCII, a JWT); give the token the app's backend minted."))
        now = app_check._clock()
        issued = _issued_at_seconds(given.token)
        issued_at = issued * 1000 if issued is not None and 0 < issued * 1000 < now else now
        return _Held(given.token, float(expires), issued_at)

    def _is_equal(self, other: AppCheckProvider) -> bool:
        return isinstance(other, CustomProvider) and other._get_token == self._get_token

    def __repr__(self) -> str:
        return f"CustomProvider(get_token={name_of(self._get_token)})"


class DebugProvider(AppCheckProvider):
    """App Check's debug provider, for development and CI: exchanges a debug secret registered for the app in the
    Firebase console (App Check, Apps, Manage debug tokens; or ``firebase appcheck:debugtokens:create``) for tokens at
    Firebase's App Check service. KeyringAuth's own name: JavaScript turns debug mode on with
    ``self.FIREBASE_APPCHECK_DEBUG_TOKEN``.

    The secret is ``debug_token``, or else the environment's ``AppCheckDebugToken``, ``FIRAAppCheckDebugToken`` or
    ``APP_CHECK_DEBUG_TOKEN`` (the first set), read when the provider is made; with none, raises AppCheckError
    (``appCheck/argument-error``). It is a secret that lets anyone pass App Check as the app: it goes in the exchange's
    body only, never into a ``repr``, a log or an error's message; keep it out of the app's sources and argv (a CI
    job's secret variables are the place for it).

    The exchange is ``POST .../v1/projects/PROJECT/apps/APP_ID:exchangeDebugToken`` with the app's API key; when an Auth
    of the app uses the emulator (``FIREBASE_AUTH_EMULATOR_HOST`` or ``connect_auth_emulator``), at the emulator, which
    stands in for App Check (``http://HOST:PORT/firebaseappcheck.googleapis.com/v1/...``). Each waits up to
    ``EXCHANGE_TIMEOUT`` seconds.
    """

    def __init__(self, debug_token: str | None = None, *, environment: Mapping[str, str] | None = None) -> None:
        variables = os.environ if environment is None else environment
        secret = debug_token if debug_token is not None else next(
            (variables[name] for name in DEBUG_TOKEN_VARIABLES if variables.get(name)), None)
        if secret is None:
            raise AppCheckError("appCheck/argument-error", (
                "DebugProvider has no debug secret: set APP_CHECK_DEBUG_TOKEN (or AppCheckDebugToken, FIRAAppCheckDebugToken) in "
                "the app's environment to a debug token registered for the app in the Firebase console (App Check, Apps, Manage "
                "debug tokens), or pass DebugProvider(debug_token=…)."))
        if not isinstance(secret, str) or not secret.strip() or len(secret) > _MAXIMUM_SECRET or not secret.isprintable():
            raise AppCheckError("appCheck/argument-error", (
                f"DebugProvider's debug secret is not one: 1 to {_MAXIMUM_SECRET} printable characters, as the Firebase console "
                "makes them (a UUID)."))
        self.__secret = secret

    def _fetch(self, app_check: AppCheck, limited_use: bool) -> _Held:
        return _exchange(app_check, "exchangeDebugToken", {"debug_token": self.__secret, "limited_use": limited_use},
                         secret=self.__secret)

    def _is_equal(self, other: AppCheckProvider) -> bool:
        return isinstance(other, DebugProvider) and hmac.compare_digest(other.__secret.encode(), self.__secret.encode())

    def __repr__(self) -> str:  # the secret is a secret
        return "DebugProvider(debug_token=<secret>)"


class PartialObserver(Protocol):
    """What ``on_token_changed`` takes in the place of its functions, as the JavaScript SDK's ``PartialObserver``: an
    object with ``next`` (and optionally ``error``, told a failed fetch's error)."""

    def next(self, token_result: AppCheckTokenResult) -> None: ...


NextOrObserver = Union[Callable[[AppCheckTokenResult], None], PartialObserver]


@dataclass
class _Observer:
    next: Callable[[AppCheckTokenResult], object]
    error: Callable[[BaseException], object] | None


class _Flight:
    """One fetch from the provider, which the threads that need a token meanwhile wait for."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.token: _Held | None = None
        self.error: BaseException | None = None
        #: The thread that asks the provider: a call the provider makes itself (an Auth call for its backend) must not
        #: wait for its own fetch.
        self.thread = threading.get_ident()


@dataclass(frozen=True)
class _Result:
    """The JavaScript SDK's internal result: the token (the placeholder when there is none), and the fetch's error;
    ``internal`` when a token still valid is answered despite it."""

    token: str = field(repr=False)
    error: BaseException | None = None
    internal: bool = False


class _Timer:
    """Runs one function after a delay on a thread of its own, started at the first ``schedule``; a new ``schedule``
    replaces the pending one. Its clock is ``time.monotonic``; ``close()`` ends the thread (after a run under way)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._condition = threading.Condition()
        self._pending: tuple[float, Callable[[], None]] | None = None
        self._closed = False
        self._running = False
        self.thread: threading.Thread | None = None

    def schedule(self, delay: float, function: Callable[[], None]) -> None:
        with self._condition:
            if self._closed:
                return
            self._pending = (time.monotonic() + max(delay, 0.0), function)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self.thread.start()
            self._condition.notify_all()

    def cancel(self) -> None:
        with self._condition:
            self._pending = None
            self._condition.notify_all()

    def close(self) -> None:
        with self._condition:
            self._closed = True
            self._pending = None
            self._condition.notify_all()
            thread, running = self.thread, self._running
        if thread is not None and thread is not threading.current_thread() and not running:
            thread.join()

    def _run(self) -> None:
        while True:
            with self._condition:
                while not self._closed and (self._pending is None or self._pending[0] > time.monotonic()):
                    self._condition.wait(None if self._pending is None else self._pending[0] - time.monotonic())
                if self._closed or self._pending is None:
                    return
                function, self._pending, self._running = self._pending[1], None, True
            try:
                run_logged(function, what="App Check's refresh", then="the App Check goes on; its next refresh is not scheduled.")
            finally:
                with self._condition:
                    self._running = False


class _Refresher:
    """The JavaScript SDK's proactive refresh: ``operation`` (answering whether it succeeded) after ``wait()`` seconds
    once started and after each success (at least MINIMUM_REFRESH_WAIT then), after RETRIAL_MIN_WAIT doubling up to
    RETRIAL_MAX_WAIT after failures in a row; on ``timer`` (anything with ``schedule(delay, function)`` and ``cancel()``)."""

    def __init__(self, operation: Callable[[], bool], wait: Callable[[], float], timer: Any) -> None:
        self._operation = operation
        self._wait = wait
        self._timer = timer
        self._lock = threading.Lock()
        self._generation = 0
        self._running = False
        self._error_wait = RETRIAL_MIN_WAIT

    @property
    def running(self) -> bool:
        return self._running

    def start(self) -> None:
        delay = max(self._wait(), 0.0)
        with self._lock:
            if self._running:
                return
            self._running = True
            self._generation += 1
            self._error_wait = RETRIAL_MIN_WAIT
            generation = self._generation
            self._timer.schedule(delay, lambda: self._run(generation))

    def stop(self) -> None:
        with self._lock:
            self._running = False
            self._generation += 1
            self._timer.cancel()

    def _run(self, generation: int) -> None:
        with self._lock:
            if generation != self._generation:
                return
        succeeded = self._operation()
        wait = max(self._wait(), MINIMUM_REFRESH_WAIT) if succeeded else 0.0
        with self._lock:
            if generation != self._generation:
                return
            if succeeded:
                self._error_wait = RETRIAL_MIN_WAIT
                delay = wait
            else:
                delay = self._error_wait
                self._error_wait = min(self._error_wait * 2, RETRIAL_MAX_WAIT)
            self._timer.schedule(delay, lambda: self._run(generation))


class _AuthLike(Protocol):
    """What ``initialize_app_check`` reads of an Auth: its options, and the emulator its calls go to."""

    options: FirebaseOptions
    emulator_config: EmulatorConfig | None


class AppCheck:
    """App Check for one Firebase app, as the JavaScript SDK's ``AppCheck``: made by ``initialize_app_check``, one per
    app in the process (``options``: its API key, app ID, project and app name; every tenant). ``close()`` ends it: its
    refresh thread stops, the app's calls carry no token from then on, and ``initialize_app_check`` may make another.
    It is also a context manager."""

    def __init__(self, options: FirebaseOptions, provider: AppCheckProvider, is_token_auto_refresh_enabled: bool,
                 auth: _AuthLike | None, clock: Callable[[], float], timer: Any) -> None:
        #: The app's options (JavaScript's ``app``; there is no FirebaseApp in Python).
        self.options = options
        self._provider = provider
        self._initially_auto = is_token_auto_refresh_enabled
        self._auth = weakref.ref(auth) if auth is not None else None
        self._clock = clock
        self._key = _binding.app_key(strings(options.app_dictionary()))
        self._lock = threading.Lock()
        self._token: _Held | None = None
        self._flight: _Flight | None = None
        self._observers: list[_Observer] = []
        self._closed = False
        #: The emulator of the latest Auth call that needed a token (``host:port``, ``""`` for Firebase), or ``None``
        #: before any.
        self._call_emulator: str | None = None
        self._auto = is_token_auto_refresh_enabled
        self._timer = timer
        self._refresher = _Refresher(self._refresh_once, self._next_refresh_wait, timer)

    @property
    def is_token_auto_refresh_enabled(self) -> bool:
        """Whether a thread of this App Check refreshes the token ahead of expiry (``set_token_auto_refresh_enabled``)."""
        return self._auto

    # The token.
    def _get(self, force_refresh: bool) -> _Result:
        """The JavaScript SDK's internal getToken: the token kept while it is valid (unless ``force_refresh``), else one
        fetch, joined by the threads that need a token meanwhile; never raises but AppCheckError
        ``appCheck/use-before-activation``. The fetching thread tells the listeners."""
        with self._lock:
            self._check_open()
            held = self._token
            if held is not None and not self._valid(held):
                self._token = held = None
            if held is not None and not force_refresh:
                return _Result(held.token)
            if self._flight is not None and self._flight.thread == threading.get_ident():
                return _Result(held.token) if held is not None else _Result(PLACEHOLDER_TOKEN, _fetch_in_progress(self.options))
            flight, mine = self._flight, self._flight is None
            if flight is None:
                flight = self._flight = _Flight()
        if mine:
            try:
                try:
                    flight.token = self._provider._fetch(self, limited_use=False)
                except BaseException as error:  # a provider's failure, whatever it is, is the call's error
                    flight.error = error
                    if not isinstance(error, Exception):
                        raise
            finally:  # the threads waiting go on, whatever happened
                with self._lock:
                    self._flight = None
                    if flight.token is not None and not self._closed:
                        self._token = flight.token
                    held = self._token
                    observers = list(self._observers)
                flight.done.set()
        else:
            flight.done.wait()
            with self._lock:
                held = self._token
            observers = []
        if flight.token is not None:
            result = _Result(flight.token.token)
        elif held is not None and self._valid(held):
            result = _Result(held.token, flight.error, internal=True)
        else:
            result = _Result(PLACEHOLDER_TOKEN, flight.error)
        for observer in observers:
            self._tell(observer, result)
        return result

    def _valid(self, held: _Held) -> bool:
        return held.expire_time_millis - self._clock() >= EXPIRY_MARGIN_MILLIS

    def _tell(self, observer: _Observer, result: _Result) -> None:
        if result.error is None or result.internal:  # as JavaScript's: a token still valid is told despite the error
            run_logged(observer.next, AppCheckTokenResult(result.token), what=f"The on_token_changed listener {name_of(observer.next)}",
                       then="the App Check's other listeners are told, and its token is kept.")
        elif observer.error is not None:
            run_logged(observer.error, result.error, what=f"The on_token_changed error function {name_of(observer.error)}",
                       then="the App Check's other listeners are told.")

    def _token_for_call(self, emulator_host: str | None) -> str:
        """The token an Auth call to ``emulator_host`` (or Firebase) carries: the app's, or the placeholder when the
        provider failed, which is logged (the error's code and message: never a secret)."""
        with self._lock:
            self._call_emulator = emulator_host or ""
        try:
            result = self._get(force_refresh=False)
        except AppCheckError as error:  # closed meanwhile
            logger.warning("App Check was closed: this call carries the placeholder token (%s).", error.code)
            return PLACEHOLDER_TOKEN
        if result.error is not None and not result.internal and getattr(result.error, "code", None) != _FETCH_IN_PROGRESS:
            logger.warning("App Check could not get a token for app %s (%s); this call carries the placeholder token, which a "
                           "project enforcing App Check refuses.", self.options.app_id, _said(result.error))
        return result.token

    def _emulator_host(self) -> str | None:
        """Where the app's exchanges go: the emulator of its Auths' calls (the latest that needed a token), else of the
        Auth given to initialize_app_check, else FIREBASE_AUTH_EMULATOR_HOST's; ``None`` for Firebase."""
        with self._lock:
            seen = self._call_emulator
        if seen is not None:
            return seen or None
        auth = self._auth() if self._auth is not None else None
        if auth is not None:
            return auth.emulator_config.host_and_port if auth.emulator_config is not None else None
        try:
            config = emulator.from_environment()
        except Exception:  # noqa: BLE001 (a malformed variable names no emulator; the Auth says so itself)
            return None
        return config.host_and_port if config is not None else None

    # The refresh.
    def _refresh_once(self) -> bool:
        with self._lock:
            if self._closed:
                return False
            held = self._token
        try:
            result = self._get(force_refresh=held is not None)
        except AppCheckError:
            return False
        if result.error is not None:
            logger.warning("App Check's refresh of app %s's token failed (%s); it is tried again after a wait of 30 s, doubled "
                           "after each failure in a row up to 16 minutes.", self.options.app_id, _said(result.error))
            return False
        return True

    def _next_refresh_wait(self) -> float:
        """Seconds until the token's refresh, as the JavaScript SDK: half its lifetime plus five minutes after it was
        issued, and no later than five minutes before it expires; now when there is none."""
        with self._lock:
            held = self._token
        if held is None:
            return 0.0
        at = min(held.issued_at_time_millis + 0.5 * (held.expire_time_millis - held.issued_at_time_millis) + EXPIRY_MARGIN_MILLIS,
                 held.expire_time_millis - EXPIRY_MARGIN_MILLIS)
        return max(0.0, (at - self._clock()) / 1000)

    def _set_auto_refresh(self, enabled: bool) -> None:
        with self._lock:
            self._check_open()
            self._auto = enabled
        if enabled:
            self._refresher.start()
        else:
            self._refresher.stop()

    def _check_open(self) -> None:
        if self._closed:
            raise _use_before_activation(self.options)

    def _add_observer(self, observer: _Observer) -> Callable[[], None]:
        with self._lock:
            self._check_open()
            self._observers.append(observer)
            held = self._token if self._token is not None and self._valid(self._token) else None
        if held is not None:
            self._tell(observer, _Result(held.token))

        def stop() -> None:
            with self._lock:
                if observer in self._observers:
                    self._observers.remove(observer)
        return stop

    def close(self) -> None:
        """Ends this App Check: stops its refresh thread (after a refresh under way), drops its token and listeners, and
        the app's calls carry no token from then on; its functions raise AppCheckError
        (``appCheck/use-before-activation``). Closing again does nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._token = None
            self._observers.clear()
        self._refresher.stop()
        self._timer.close()
        with _instances_lock:
            if _instances.get(self._key) is self:
                del _instances[self._key]
                _binding.set_app_check(self._key, None)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"AppCheck(app_id={self.options.app_id!r}, provider={self._provider!r}, is_token_auto_refresh_enabled={self._auto})"


#: Each app's App Check, by its key (_binding.app_key).
_instances: dict[tuple[str, str, str, str], AppCheck] = {}
_instances_lock = threading.Lock()
#: What an App Check made from now on reads time with (milliseconds since the epoch), and its refresh timer's maker: the
#: tests put their own in their place.
_clock: Callable[[], float] = _wall_clock_millis
_make_timer: Callable[[str], Any] = _Timer


def initialize_app_check(options_or_auth: FirebaseOptions | _AuthLike, provider: AppCheckProvider,
                         is_token_auto_refresh_enabled: bool = False) -> AppCheck:
    """Turns App Check on for the app of ``options_or_auth`` (an Auth, or its FirebaseOptions), as the JavaScript SDK's
    ``initializeAppCheck(app, {provider, isTokenAutoRefreshEnabled})``: from now on every call of the app's Auths (made
    before or after, of any group or tenant) carries its token, from ``provider`` (``CustomProvider`` or
    ``DebugProvider``). With ``is_token_auto_refresh_enabled``, a thread of the App Check fetches a token at once and
    refreshes it ahead of expiry; else a token is fetched when a call needs one.

    Called again for the same app with an equal provider (the same ``get_token``, the same debug secret) and the same
    ``is_token_auto_refresh_enabled``, answers the App Check made then; otherwise raises AppCheckError
    (``appCheck/already-initialized``). ``close()`` ends it.
    """
    if not isinstance(provider, AppCheckProvider):
        raise AppCheckError("appCheck/argument-error", (
            f"initialize_app_check takes provider=CustomProvider(get_token=…) or DebugProvider(), not {provider!r}; reCAPTCHA's "
            "providers are a web page's."))
    auth = None if isinstance(options_or_auth, FirebaseOptions) else options_or_auth
    options = options_or_auth if isinstance(options_or_auth, FirebaseOptions) else options_or_auth.options
    if not isinstance(options, FirebaseOptions):
        raise AppCheckError("appCheck/argument-error", (
            f"initialize_app_check takes an Auth or its FirebaseOptions, not {options_or_auth!r}."))
    key = _binding.app_key(strings(options.app_dictionary()))
    with _instances_lock:
        existing = _instances.get(key)
        if existing is not None:
            if existing._initially_auto == bool(is_token_auto_refresh_enabled) and existing._provider._is_equal(provider):
                return existing
            raise AppCheckError("appCheck/already-initialized", (
                f"initialize_app_check was called for app {options.app_id} already, with another provider or "
                "is_token_auto_refresh_enabled. Call it with the same ones as the first time (it answers the App Check made "
                "then), or close() that App Check first."))
        app_check = AppCheck(options, provider, bool(is_token_auto_refresh_enabled), auth, _clock,
                             _make_timer("keyringauth-app-check"))
        _instances[key] = app_check
        _binding.set_app_check(key, app_check._token_for_call)
    if app_check._auto:
        app_check._refresher.start()
    return app_check


def get_token(app_check: AppCheck, force_refresh: bool = False) -> AppCheckTokenResult:
    """The app's token, as the JavaScript SDK's ``getToken(appCheck, forceRefresh)``: the one kept while more than five
    minutes of it are left, else (or with ``force_refresh``) a new one from the provider, whose fetch under way, if any,
    it waits for. For the app's calls to its own backend or to Firebase's other services; its Auths' calls carry it
    themselves.

    Raises what the provider raised: AppCheckError (``appCheck/fetch-network-error``, ``appCheck/fetch-status-error``,
    ``appCheck/fetch-parse-error``) for the debug provider's exchange, or what a custom provider's ``get_token``
    raised; AppCheckError ``appCheck/use-before-activation`` after ``close()``.
    """
    result = _app_check(app_check)._get(force_refresh)
    if result.error is not None:
        raise result.error
    return AppCheckTokenResult(result.token)


def get_limited_use_token(app_check: AppCheck) -> AppCheckTokenResult:
    """A new token for one use, as the JavaScript SDK's ``getLimitedUseToken``: for the app's backend that protects an
    endpoint with replay protection. Not kept, not told to listeners, and not sent by Auth calls; the debug provider asks
    App Check for a limited-use token, a custom provider's ``get_token`` is called as it is. Raises as ``get_token``."""
    checked = _app_check(app_check)
    with checked._lock:
        checked._check_open()
    return AppCheckTokenResult(checked._provider._fetch(checked, limited_use=True).token)


def set_token_auto_refresh_enabled(app_check: AppCheck, is_token_auto_refresh_enabled: bool) -> None:
    """Starts (``True``) or stops (``False``) the refresh of the token ahead of expiry, as the JavaScript SDK's
    ``setTokenAutoRefreshEnabled``; it overrides ``initialize_app_check``'s. Started, it fetches a token at once when
    none is kept, then half the token's lifetime plus five minutes after it was issued (no later than five minutes
    before it expires), and after a failure 30 seconds later, twice as long after each failure in a row, up to 16
    minutes. The refresh runs on a thread of the App Check, which ``close()`` ends."""
    _app_check(app_check)._set_auto_refresh(bool(is_token_auto_refresh_enabled))


def on_token_changed(app_check: AppCheck, observer_or_next: NextOrObserver,
                     error: Callable[[BaseException], None] | None = None,
                     completion: Callable[[], None] | None = None) -> Callable[[], None]:
    """Calls ``observer_or_next`` (a function, or an object with ``next``) with an AppCheckTokenResult now when a valid
    token is kept, then with each token the provider gives, as the JavaScript SDK's ``onTokenChanged``; ``error`` (or
    the observer's ``error``) is told the error of each fetch that failed. Answers a function that stops it.
    ``completion`` is never called, the tokens never ending (as JavaScript's).

    Listeners are called on the thread that fetched the token (a call's, ``get_token``'s or the refresh thread); one
    that raises is logged on the ``keyringauth`` logger, and the others are told."""
    next_function = getattr(observer_or_next, "next", None)
    if next_function is None and callable(observer_or_next):
        next_function = observer_or_next
    if not callable(next_function):
        raise AppCheckError("appCheck/argument-error", (
            f"on_token_changed takes a function taking an AppCheckTokenResult, or an object with next, not {observer_or_next!r}."))
    error_function = getattr(observer_or_next, "error", None) if next_function is not observer_or_next else None
    error_function = error_function if callable(error_function) else error
    return _app_check(app_check)._add_observer(_Observer(next_function, error_function))


def _app_check(app_check: object) -> AppCheck:
    if not isinstance(app_check, AppCheck):
        raise AppCheckError("appCheck/use-before-activation", (
            f"App Check is used before initialize_app_check() made it: {app_check!r} is no AppCheck; pass the AppCheck "
            "initialize_app_check(auth, provider=…) answered."))
    return app_check


#: KeyringAuth's own code: the provider's get_token asked for the token it is fetching (an Auth call it makes for its
#: backend carries the placeholder, unlogged: App Check does not protect an ID token's refresh).
_FETCH_IN_PROGRESS = "appCheck/fetch-in-progress"


def _fetch_in_progress(options: FirebaseOptions) -> AppCheckError:
    return AppCheckError(_FETCH_IN_PROGRESS, (
        f"App Check for app {options.app_id} was asked for its token by its own provider while it fetches one, on the same "
        "thread: the token is not there yet. A custom provider's get_token gets its token from the app's backend, not from "
        "get_token(app_check)."))


def _use_before_activation(options: FirebaseOptions) -> AppCheckError:
    return AppCheckError("appCheck/use-before-activation", (
        f"App Check for app {options.app_id} is closed (close(), or the end of its with block); call "
        "initialize_app_check(auth, provider=…) again to use it."))


def _said(error: BaseException) -> str:
    """An error as a warning names it: an AppCheckError by its code and message (which hold no secret), another by its
    type and message."""
    if isinstance(error, AppCheckError):
        return str(error)
    return f"{name_of(type(error))}: {error}"


def _sendable(token: object) -> bool:
    """Whether ``token`` can go in a header as it is: 1 to 8192 characters of visible ASCII."""
    return isinstance(token, str) and 0 < len(token) <= _MAXIMUM_TOKEN and all("!" <= character <= "~" for character in token)


def _issued_at_seconds(token: str) -> float | None:
    """The ``iat`` claim of ``token`` when it is a JWT with a numeric one, else ``None``."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, TypeError):
        return None
    issued = claims.get("iat") if isinstance(claims, dict) else None
    if isinstance(issued, bool) or not isinstance(issued, (int, float)) or not math.isfinite(issued):
        return None
    return float(issued)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Follows no redirect: the exchange's body holds a secret, for App Check's address only."""

    def redirect_request(self, *arguments: Any) -> None:
        return None


def _exchange(app_check: AppCheck, method: str, body: dict[str, object], secret: str) -> _Held:
    """One exchange at App Check (or the emulator): ``body`` for ``{"token", "ttl"}``. ``secret`` is named by no error."""
    options = app_check.options
    for name, value in (("project_id", options.project_id), ("app_id", options.app_id)):
        if not value or len(value) > 200 or not all(character.isascii() and (character.isalnum() or character in ":-_.")
                                                    for character in value):
            raise AppCheckError("appCheck/argument-error", (
                f"FirebaseOptions.{name} {value!r} has characters no Firebase ID has; check the app's options file."))
    host = app_check._emulator_host()
    base = f"http://{host}/firebaseappcheck.googleapis.com/v1" if host else _PRODUCTION
    url = f"{base}/projects/{options.project_id}/apps/{options.app_id}:{method}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json", "X-Goog-Api-Key": options.api_key})
    handlers: list[Any] = [_NoRedirects()]
    if host:  # the emulator on loopback: through no proxy
        handlers.append(urllib.request.ProxyHandler({}))
    opener = urllib.request.build_opener(*handlers)
    where = f"the emulator at {host}" if host else "App Check (firebaseappcheck.googleapis.com)"
    try:
        with opener.open(request, timeout=EXCHANGE_TIMEOUT) as answer:
            status, data = answer.status, answer.read(_MAXIMUM_ANSWER + 1)
    except urllib.error.HTTPError as refused:
        status, data = refused.code, _body_of(refused)
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as failure:
        reason = getattr(failure, "reason", failure)
        raise AppCheckError("appCheck/fetch-network-error", (
            f"The exchange could not reach {where} ({reason}); check the network"
            + (", and that the emulator runs." if host else ".")).replace(secret, "<secret>")) from None
    received = app_check._clock()
    if status != 200:
        raise _refusal(status, data, options, secret)
    if len(data) > _MAXIMUM_ANSWER:
        raise AppCheckError("appCheck/fetch-parse-error", f"{where} answered more than {_MAXIMUM_ANSWER // 1024} KiB, which no token is.")
    try:
        answer_object = json.loads(data)
    except ValueError:
        answer_object = None
    token = answer_object.get("token") if isinstance(answer_object, dict) else None
    if not _sendable(token):
        raise AppCheckError("appCheck/fetch-parse-error", f"The answer of {where} has no token field a request can carry; it cannot be read.")
    ttl = answer_object.get("ttl") if isinstance(answer_object, dict) else None
    seconds = _duration(ttl)
    if seconds is None or not 0 < seconds <= 7 * 24 * 3600:
        raise AppCheckError("appCheck/fetch-parse-error", (
            f"The ttl field (timeToLive) of the answer of {where} is not in standard Protobuf Duration format, such as \"3600s\", "
            "of up to seven days."))
    assert isinstance(token, str)
    return _Held(token, received + seconds * 1000, received)


def _body_of(refused: urllib.error.HTTPError) -> bytes:
    """A refusal's body, up to one byte past the longest answer read; empty when it cannot be read."""
    try:
        with refused:
            return bytes(refused.read(_MAXIMUM_ANSWER + 1))
    except (http.client.HTTPException, OSError, ValueError):
        return b""


def _duration(text: object) -> float | None:
    """Seconds of a protobuf Duration in JSON (``"3600s"``, ``"1.5s"``), or ``None``."""
    if not isinstance(text, str) or len(text) > 32 or not text.endswith("s"):
        return None
    number = text[:-1]
    if not number or number.count(".") > 1 or not all(character in "0123456789." for character in number) or number == ".":
        return None
    return float(number)


def _refusal(status: int, data: bytes, options: FirebaseOptions, secret: str) -> AppCheckError:
    """``appCheck/fetch-status-error`` for App Check's answer ``status``, with its message (never the secret, should
    App Check say it) and the way on."""
    try:
        said_object = json.loads(data[:_MAXIMUM_ANSWER])
    except ValueError:
        said_object = None
    message = said_object.get("error", {}).get("message") if isinstance(said_object, dict) and isinstance(said_object.get("error"), dict) else None
    said = ""
    if isinstance(message, str) and message:
        cleaned = "".join(character if character.isprintable() else " " for character in message[:200]).replace(secret, "<secret>")
        said = f" ({cleaned})"
    if status == 403:
        way_on = (f"register the debug secret for app {options.app_id} in the Firebase console (App Check, Apps, Manage debug "
                  "tokens) or with firebase appcheck:debugtokens:create, or give a registered one.")
    elif status in (400, 404):
        way_on = f"check that app {options.app_id} of project {options.project_id} is registered with App Check, and its API key."
    elif status == 429 or status >= 500:
        way_on = "try again later."
    else:
        way_on = "check the app's options."
    return AppCheckError("appCheck/fetch-status-error", f"App Check answered the exchange with HTTP status {status}{said}; {way_on}",
                         http_status=status)


__all__ = [
    "AppCheck", "AppCheckError", "AppCheckProvider", "AppCheckToken", "AppCheckTokenResult", "CustomProvider", "CustomProviderOptions",
    "DebugProvider", "PartialObserver", "get_limited_use_token", "get_token", "initialize_app_check", "on_token_changed",
    "set_token_auto_refresh_enabled",
]
