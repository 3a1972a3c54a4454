"""Auth: Firebase Authentication for one app and access group, through KeyringAuth's broker, with the names of
Firebase's JavaScript SDK in Python's style; and ``connect_auth_emulator``. The package's top layer: it imports the
others, and none of them imports it."""
from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable

from . import emulator, errors
from ._binding import Binding
from ._broker import Broker
from ._language import device_language
from ._log import name_of, run_logged
from ._variants import strings
from .action_code import ActionCodeInfo, ActionCodeInfoData, ActionCodeSettings, settings_dictionary
from .credentials import AuthCredential, EmailAuthProvider, FederatedAuthProvider, OAuthProvider, PhoneAuthCredential
from .emulator import EmulatorConfig, EmulatorOptions
from .options import FirebaseOptions
from .password_policy import PasswordPolicy, PasswordValidationStatus
from .user import (
    MultiFactorResolver,
    SecondFactorRequiredError,
    User,
    UserCredential,
    answer,
    credential_dictionary,
    federated,
    sign_in,
)

if TYPE_CHECKING:  # typing.Self is Python 3.11's; mypy brings typing_extensions, which the package does not need
    from typing_extensions import Self

Dispatch = Callable[[Callable[[], None]], None]


@dataclass(frozen=True)
class GitHubDeviceAuthorization:
    """What the person does to let the app in (``Auth.start_github_sign_in``): enter ``user_code`` at
    ``verification_uri`` within ``expires_in`` seconds."""

    user_code: str
    verification_uri: str
    expires_in: int
    _handle: str = field(repr=False, default="")


def _told(kind: str, callback: Callable[[User | None], None], user: User | None) -> Callable[[], None]:
    """The call that tells ``callback``, a listener of ``kind`` (``on_auth_state_changed``, …), of ``user``: one that
    raises is logged, naming the listener, and the Auth's other listeners and ``current_user`` go on."""
    def tell() -> None:
        run_logged(callback, user, what=f"The {kind} listener {name_of(callback)}",
                   then="this Auth's other listeners, and current_user, go on following the group's changes.")
    return tell


def _uid(user: User | None) -> object:
    return user.uid if user else None


def _uid_and_token(user: User | None) -> object:
    return (user.uid, user._id_token) if user else None


def _fields(user: User | None) -> object:
    return user.to_dict() if user else None


class _Listener:
    """A listener and what of the user it is told of (``key``: the uid, the uid and ID token, every field), with the
    key it was last told: each change reaches it once, whether it came before or after it was added."""

    def __init__(self, kind: str, callback: Callable[[User | None], None], key: Callable[[User | None], object],
                 user: User | None) -> None:
        self.kind = kind
        self.callback = callback
        self.key = key
        self.told = key(user)

    def changed(self, user: User | None) -> bool:
        """Whether ``user`` is news to this listener, which is then told of it."""
        key = self.key(user)
        if key == self.told:
            return False
        self.told = key
        return True


class Auth:
    """Firebase Authentication for the app of ``options`` (a FirebaseOptions, or the path of its
    ``google-services.json`` or ``GoogleService-Info.plist``) in ``access_group`` (``None``: the app's private scope).

    Every app of the group shares one sign-in, whatever its language; a sandboxed app may use only groups under its
    own app ID's domain. Calls block until the broker answers (at most ``timeout`` seconds, a browser sign-in five
    minutes); listeners are called on a thread of this Auth's, or through ``dispatch`` (``keyringauth.glib_dispatch``
    for a GTK app's main loop). ``close()`` ends the connection; an Auth is also a context manager.

    Making it reaches the broker, checks the app and group, and reads the user (``current_user`` from then on), or
    raises the error that says what to do: BrokerUnavailableError (no bus, no broker), AccessDeniedError (a group the
    app may not use), KeyringUnavailableError (a locked or missing keyring), AuthError (``auth/argument-error``: a
    malformed group or option).

    Its calls go to Firebase, or to the Auth emulator that the app's own ``FIREBASE_AUTH_EMULATOR_HOST`` names
    (``127.0.0.1:9099``) when the Auth is made, or that ``connect_auth_emulator`` names (``emulator_config``); an
    emulator on this machine's loopback only. Raises AuthError (``auth/argument-error``) when the variable names another.
    """

    def __init__(self, options: FirebaseOptions | str, access_group: str | None = None, *,
                 dispatch: Dispatch | None = None, timeout: float = 25.0, bus: str = "SESSION") -> None:
        self.options = options if isinstance(options, FirebaseOptions) else FirebaseOptions.from_file(options)
        self.access_group = access_group
        #: The emulator this Auth's calls go to, or ``None`` for Firebase.
        self.emulator_config: EmulatorConfig | None = emulator.from_environment()
        self._dispatch: Dispatch = dispatch or (lambda function: function())
        self._broker = Broker(bus, timeout)
        self._binding = Binding(self._broker, strings(self.options.app_dictionary()), access_group or "")
        if self.emulator_config is not None:
            self._binding.app["emulatorHost"] = ("s", self.emulator_config.host_and_port)
        self._lock = threading.RLock()
        self._state_listeners: list[_Listener] = []
        self._token_listeners: list[_Listener] = []
        self._user_listeners: list[_Listener] = []
        #: The password policy of each tenant (``None``: the project's), fetched at the first validate_password, as the
        #: JavaScript SDK keeps it.
        self._password_policies: dict[str | None, PasswordPolicy] = {}
        self._closed = threading.Event()
        self._ready = threading.Event()
        self._user: User | None = None
        self._binding.answered = self._answered
        self._binding.settle = self._settle
        self._binding.before_sign_out = lambda: self._run_before(None)
        #: before_auth_state_changed's callbacks, each with its on_abort.
        self._before: list[tuple[Callable[[User | None], None], Callable[[], None] | None]] = []
        try:
            self._watch_scope()
        except BaseException:
            self._broker.close()
            raise
        self._watching = threading.Thread(target=self._watch, name="keyringauth-watch", daemon=True)
        self._watching.start()

    # The user.
    @property
    def current_user(self) -> User | None:
        """The user signed in to this app and group (by any app of the group), or ``None``: a value the package holds,
        kept up to date by the broker as the group's apps change it; reading it makes no call and never raises."""
        return self._user

    def auth_state_ready(self, timeout: float | None = None) -> bool:
        """Waits until ``current_user`` holds the broker's first answer (JavaScript's ``authStateReady()``); answers
        whether it does, ``False`` after ``timeout`` seconds. ``Auth(…)`` itself waits for that answer, so this returns
        at once: it is here for code written as JavaScript's is."""
        return self._ready.wait(timeout)

    @property
    def tenant_id(self) -> str | None:
        """The tenant this Auth signs in to (``None``: the project's own users). A group holds one sign-in, of one
        tenant: setting it while another tenant's user is signed in raises AuthError (``auth/tenant-id-mismatch``)
        and keeps the tenant as it was."""
        return self.options.tenant_id

    @tenant_id.setter
    def tenant_id(self, tenant_id: str | None) -> None:
        with self._lock:
            if tenant_id == self.options.tenant_id:
                return
            self._rewatch("tenantID", tenant_id or None)
            self.options = replace(self.options, tenant_id=tenant_id or None)

    @property
    def language_code(self) -> str | None:
        """The language of the emails Firebase sends for this Auth's calls (a password reset, an email verification, a
        sign-in link, ``verify_before_update_email``), a BCP 47 tag such as ``fr`` or ``pt-BR``, as the JavaScript SDK's
        ``languageCode``; ``None`` (the default) for the project's template language. Each call of this Auth and its
        users carries it to Firebase (``X-Firebase-Locale``); the group's other apps keep their own. A value that is not
        a language tag raises AuthError (``auth/argument-error``) at the next call."""
        return self._binding.language_code

    @language_code.setter
    def language_code(self, language_code: str | None) -> None:
        self._binding.language_code = language_code or None

    def use_device_language(self) -> None:
        """Sets ``language_code`` to the process's language, as the JavaScript SDK's ``useDeviceLanguage`` takes the
        browser's: the first of ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set (``pt_BR.UTF-8`` is ``pt-BR``), or
        ``None`` for the ``C`` or ``POSIX`` locale or none."""
        self.language_code = device_language()

    def _watch_scope(self) -> None:
        """Watches this app and group, which checks them (the group, the keyring, the emulator), and takes the user."""
        self._broker.call("Watch", self._binding.app, self._binding.group)
        values = self._broker.call("GetUser", self._binding.app, self._binding.group)[0]
        self._answered(values or {})
        self._ready.set()

    def _answered(self, values: dict[str, Any]) -> User | None:
        """Takes the user the broker answered or signalled: the same object, updated, while the uid is the same."""
        with self._lock:
            if not values:
                self._user = None
            elif self._user is not None and self._user.uid == str(values.get("uid", "")):
                self._user._refresh(values)
            else:
                self._user = User(self._binding, values)
            return self._user

    def _sign_in(self, provider_id: str | None, method: str, signature: str = "", *arguments: Any,
                 timeout: float | None = None, is_new_user: bool | None = None) -> UserCredential:
        """A sign-in's credential, its user the one this Auth holds (``current_user``) while it is signed in. Its
        listeners hear of it by the broker's UserChanged, which every sign-in sends (a new ID token at least)."""
        credential = sign_in(self._binding, provider_id, method, signature, *arguments, timeout=timeout, is_new_user=is_new_user)
        with self._lock:
            held = self._user
        return replace(credential, user=held) if held is not None and held.uid == credential.user.uid else credential

    # Signing in.
    def sign_in_anonymously(self) -> UserCredential:
        return self._sign_in(None, "SignInAnonymously", is_new_user=True)

    def sign_in_with_email_and_password(self, email: str, password: str) -> UserCredential:
        with self._password_policy_checked():
            return self._sign_in("password", "SignInWithEmail", "ss", email, password, is_new_user=False)

    def create_user_with_email_and_password(self, email: str, password: str) -> UserCredential:
        with self._password_policy_checked():
            return self._sign_in("password", "CreateUserWithEmail", "ss", email, password, is_new_user=True)

    def sign_in_with_custom_token(self, token: str) -> UserCredential:
        return self._sign_in(None, "SignInWithCustomToken", "s", token)

    def sign_in_with_email_link(self, email: str, email_link: str) -> UserCredential:
        return self._sign_in("password", "SignInWithEmailLink", "ss", email, email_link)

    def sign_in_with_credential(self, credential: AuthCredential) -> UserCredential:
        """Signs in with a provider's credential, with an address and password (``EmailAuthProvider.credential``), or
        with a phone verification's code (``PhoneAuthProvider.credential``)."""
        if isinstance(credential, PhoneAuthCredential):
            return self._sign_in("phone", "ConfirmPhoneVerification", "ssa{sv}", credential.verification_id, credential.verification_code,
                                 {"purpose": ("s", "sign-in")})
        if credential.provider_id == EmailAuthProvider.PROVIDER_ID:
            fields = credential.dictionary()
            return self.sign_in_with_email_and_password(fields.get("email", ""), fields.get("password", ""))
        return self._sign_in(credential.provider_id, "SignInWithCredential", "a{sv}", credential_dictionary(credential))

    def sign_in_with_popup(self, provider: FederatedAuthProvider) -> UserCredential:
        """Signs in with the Firebase project's own provider, as the JavaScript SDK's ``signInWithPopup``, the person's
        own browser standing for the popup: ``OAuthProvider("microsoft.com")`` (or ``yahoo.com``, ``apple.com``, an
        ``oidc.`` or ``saml.`` provider, ``GoogleAuthProvider()``, …) with its ``add_scope`` scopes and
        ``set_custom_parameters`` parameters, as Firebase has the provider set up in the project (Firebase begins the
        sign-in; the provider's registration needs ``http://localhost`` among its redirect URIs). Waits up to five
        minutes for the person; the broker runs it, so a sandboxed app needs no more than the broker.

        Raises AuthError: ``auth/argument-error`` for a provider that is not such a provider (a password signs in with
        ``sign_in_with_email_and_password``), ``auth/web-context-cancelled`` when the person closed the page or five
        minutes passed, ``auth/operation-not-allowed`` when the provider is not enabled in the project."""
        federated(provider, "auth.sign_in_with_popup")
        return self.sign_in_with_browser(provider.provider_id, scopes=provider.get_scopes(),
                                         custom_parameters=provider.get_custom_parameters())

    def sign_in_with_browser(self, provider_id: str, client_id: str | None = None, issuer: str | None = None,
                             client_secret: str | None = None, *, scopes: Sequence[str] | None = None,
                             custom_parameters: Mapping[str, str] | None = None) -> UserCredential:
        """Signs in in the person's browser; waits up to five minutes for them. KeyringAuth's own (Firebase's
        JavaScript SDK signs in with a popup or a redirect instead; ``sign_in_with_popup`` is its shape of it).

        Without ``client_id``, with the Firebase project's own provider ``provider_id`` (``microsoft.com``,
        ``yahoo.com``, …), begun by Firebase, with more ``scopes`` and the provider's ``custom_parameters`` if given,
        as ``sign_in_with_popup``. With ``client_id``, the app's own desktop OAuth client: Google (``google.com``),
        GitHub's web flow (``github.com``, with ``client_secret``) or an OpenID Connect provider (its ``oidc.`` ID and
        ``issuer``, and ``client_secret`` where the client has one). Raises AuthError (``auth/argument-error``) for an
        ``issuer`` or ``client_secret`` without ``client_id``, or ``scopes`` or ``custom_parameters`` with one."""
        if not client_id and (issuer or client_secret):
            raise errors.invalid_argument(
                "issuer and client_secret go with client_id, the app's own OAuth client; without one, Firebase begins the "
                f"sign-in with the project's own provider: auth.sign_in_with_browser({provider_id!r}) alone.")
        if client_id and (scopes or custom_parameters):
            raise errors.invalid_argument(
                "scopes and custom_parameters go with the Firebase project's own provider, without client_id "
                f"(auth.sign_in_with_popup(OAuthProvider({provider_id!r}).add_scope(…))); the app's own OAuth client asks for "
                "its own scopes.")
        checked = OAuthProvider(provider_id)
        for scope in scopes or []:
            checked.add_scope(scope)
        checked.set_custom_parameters(custom_parameters or {})
        # The project's own provider's ID, scopes and parameters; or the ID alone, with the app's own client's fields.
        provider = checked._browser_dictionary()
        provider.update(strings({"clientID": client_id, "issuer": issuer, "clientSecret": client_secret}))
        return self._sign_in(provider_id, "SignInWithBrowser", "a{sv}", provider, timeout=330.0)

    def start_github_sign_in(self, client_id: str, scopes: list[str] | None = None) -> GitHubDeviceAuthorization:
        """GitHub's device flow, run by the broker: asks GitHub for a code to show the person with its address.
        KeyringAuth's own (the JavaScript SDK signs in to GitHub with a popup). ``client_id`` is a GitHub OAuth app's,
        its device flow enabled."""
        github = strings({"clientID": client_id, "scope": " ".join(scopes) if scopes else None})
        handle, user_code, uri, expires_in = self._binding.call("StartGitHubSignIn", "a{sv}", github)
        return GitHubDeviceAuthorization(str(user_code), str(uri), int(expires_in), str(handle))

    def finish_github_sign_in(self, authorization: GitHubDeviceAuthorization) -> UserCredential:
        """Waits until the person has entered the code (at most its ``expires_in``), then signs in with GitHub; the
        person declining raises ``auth/web-user-interaction-failure``, the code expiring ``auth/web-context-cancelled``."""
        return self._sign_in("github.com", "FinishGitHubSignIn", "s", authorization._handle,
                       timeout=authorization.expires_in + 30.0)

    def is_sign_in_with_email_link(self, email_link: str) -> bool:
        return "mode=signIn" in email_link and "oobCode=" in email_link

    def sign_out(self) -> None:
        """Signs out every app of the group; before_auth_state_changed's callbacks run first, with ``None``."""
        self._run_before(None)
        self._binding.call("SignOut")
        self._answered({})

    def update_current_user(self, user: User | None) -> None:
        """Makes ``user``, the user of another Auth of this process (another app, or another access group, which this
        app may use too), this Auth's, as the JavaScript SDK's ``updateCurrentUser``: the broker stores it for this
        Auth's app and group, so every app of the group is signed in to it; the other Auth keeps it. ``current_user``
        is then a User of this Auth's. ``None`` signs out, as ``sign_out``.

        Raises AuthError: ``auth/invalid-user-token`` for a user of another project (another API key),
        ``auth/tenant-id-mismatch`` for a user of another tenant; NoCurrentUserError when ``user`` is no longer signed
        in to its Auth's app and group; AccessDeniedError when this app may not use its group."""
        if user is None:
            self.sign_out()
            return
        source = user._binding
        if source.app.get("apiKey") != self._binding.app.get("apiKey"):
            raise errors.AuthError("auth/invalid-user-token", "ERROR_INVALID_USER_TOKEN", (
                "The user is of another Firebase project (its Auth has another api_key), so this Auth cannot take it; sign "
                "it in to this Auth with its credential instead."))
        self._run_before(User(self._binding, user.to_dict()))
        answer(self._binding, "UpdateCurrentUser", "a{sv}ss", source.app, source.group, user.uid)

    # Email actions.
    def send_password_reset_email(self, email: str, action_code_settings: ActionCodeSettings | None = None) -> None:
        self._binding.call("SendPasswordReset", "sa{sv}", email, settings_dictionary(action_code_settings))

    def send_sign_in_link_to_email(self, email: str, action_code_settings: ActionCodeSettings) -> None:
        self._binding.call("SendSignInLink", "sa{sv}", email, action_code_settings.dictionary())

    def fetch_sign_in_methods_for_email(self, email: str) -> list[str]:
        """How the account of ``email`` signs in, as the JavaScript SDK's ``fetchSignInMethodsForEmail`` (which Firebase
        deprecated): ``password`` and ``emailLink`` (``SignInMethod``'s values) or a provider's ID (``google.com``); an
        empty list for an address of no account. A project that protects against email enumeration (Firebase's default
        for new projects) answers an empty list for every address, as the emulator does with that protection on: an app
        that must know signs in, and handles ``UserNotFoundError`` and ``InvalidCredentialError``."""
        return [str(method) for method in self._binding.call("FetchSignInMethods", "s", email)[0]]

    def verify_password_reset_code(self, code: str) -> str:
        """The address whose password the code resets."""
        return str(self._binding.call("VerifyPasswordResetCode", "s", code)[0])

    def confirm_password_reset(self, code: str, new_password: str) -> None:
        with self._password_policy_checked():
            self._binding.call("ConfirmPasswordReset", "ss", code, new_password)

    # The password policy.
    def validate_password(self, password: str) -> PasswordValidationStatus:
        """``password`` checked against the project's password policy (the tenant's, with ``tenant_id``), as the
        JavaScript SDK's ``validatePassword``: which requirements it meets, before it is sent. The policy is fetched at
        the first call and kept by this Auth (fetched again after Firebase refuses a password for not meeting it). An
        emulator serves no policy (neither Firebase's nor KeyringAuth's): there, a project's without one, against which
        the JavaScript SDK checks Firebase's own least length, six characters.

        Raises AuthError: ``auth/unsupported-password-policy-schema-version`` for a policy this package cannot read, or
        the network's error."""
        tenant = self.options.tenant_id
        with self._lock:
            policy = self._password_policies.get(tenant)
        if policy is None:
            policy = PasswordPolicy._from_broker(self._binding.call("GetPasswordPolicy")[0])
            with self._lock:
                self._password_policies[tenant] = policy
        policy._check_schema()
        return policy.validate_password(password)

    @contextlib.contextmanager
    def _password_policy_checked(self) -> Iterator[None]:
        """Forgets the kept password policy when Firebase refuses a password for not meeting it: the policy changed,
        and the next validate_password fetches it, as the JavaScript SDK does."""
        try:
            yield
        except errors.AuthError as error:
            if error.code == "auth/password-does-not-meet-requirements":
                with self._lock:
                    self._password_policies.pop(self.options.tenant_id, None)
            raise

    def check_action_code(self, code: str) -> ActionCodeInfo:
        """What ``code`` is for and which addresses it concerns (``info.data.email``)."""
        values = self._binding.call("CheckActionCode", "s", code)[0]
        return ActionCodeInfo(values.get("operation", ""), ActionCodeInfoData(values.get("email"), values.get("previousEmail")))

    def apply_action_code(self, code: str) -> None:
        self._binding.call("ApplyActionCode", "s", code)

    # Listeners.
    def on_auth_state_changed(self, callback: Callable[[User | None], None]) -> Callable[[], None]:
        """Calls ``callback`` with the user now, then whenever another user (or nobody) is signed in to this app and
        group, by any app of the group. Answers a function that stops it.

        A listener that raises is logged (the ``keyringauth`` logger, naming the listener, with its traceback), as the
        JavaScript SDK logs an observer's error; the Auth's other listeners and ``current_user`` go on, and so does
        this one, at the next change. The same holds for ``on_id_token_changed`` and ``on_user_changed``."""
        return self._listen(self._state_listeners, "on_auth_state_changed", callback, _uid)

    def on_id_token_changed(self, callback: Callable[[User | None], None]) -> Callable[[], None]:
        """Calls ``callback`` with the user now, then whenever its ID token is another, as the JavaScript SDK's: a
        sign-in or sign-out by any app of the group, and each refresh of the token, whoever made it (the broker ahead of
        expiry, ``get_id_token(force_refresh=True)``, another app of the group). What keeps a backend's copy of the
        token fresh: ``user.get_id_token()`` in the callback. Answers a function that stops it."""
        return self._listen(self._token_listeners, "on_id_token_changed", callback, _uid_and_token)

    def on_user_changed(self, callback: Callable[[User | None], None]) -> Callable[[], None]:
        """Calls ``callback`` with the user now, then whenever the user or what it holds (its profile, address,
        providers, factors) changes. KeyringAuth's own, beside Firebase's ``on_auth_state_changed``."""
        return self._listen(self._user_listeners, "on_user_changed", callback, _fields)

    def before_auth_state_changed(self, callback: Callable[[User | None], None],
                                  on_abort: Callable[[], None] | None = None) -> Callable[[], None]:
        """Calls ``callback`` with the user about to be signed in (or ``None``) before this Auth's own sign-in, sign-out,
        ``update_current_user`` or ``user.delete()`` changes the group's user, as the JavaScript SDK's
        ``beforeAuthStateChanged``: one that raises stops the change, which raises AuthError (``auth/login-blocked``,
        saying the callback's error) with nothing stored, and the ``on_abort`` of the callbacks that ran before it are
        called, the latest first. Callbacks run in order, in the thread of the call that makes the change.

        While one is registered, this Auth's sign-ins ask the broker to hold the signed-in user (five minutes at most)
        until the callbacks have passed: no app of the group sees it before. A sign-in's second factor, if any, comes
        first, then the callbacks. The group's other apps (and other Auths) change the user without asking this Auth:
        their changes are not this Auth's to block, and its listeners hear of them. Answers a function that removes
        the callback."""
        entry = (callback, on_abort)
        with self._lock:
            self._before.append(entry)
            self._binding.hold_sign_ins = True

        def remove() -> None:
            with self._lock:
                if entry in self._before:
                    self._before.remove(entry)
                self._binding.hold_sign_ins = bool(self._before)
        return remove

    def _run_before(self, user: User | None) -> None:
        """Runs before_auth_state_changed's callbacks for a change to ``user``, or raises ``auth/login-blocked`` when one
        raises, after the ``on_abort`` of those that ran. Nothing to run when there is no change (nobody signed out)."""
        with self._lock:
            callbacks = list(self._before)
            unchanged = user is None and self._user is None
        if unchanged:
            return
        ran: list[Callable[[], None]] = []
        try:
            for callback, on_abort in callbacks:
                callback(user)
                if on_abort is not None:
                    ran.append(on_abort)
        except Exception as error:
            for on_abort in reversed(ran):  # as the JavaScript SDK: one that raises does not stop the next (and is logged)
                run_logged(on_abort, what=f"The before_auth_state_changed on_abort {name_of(on_abort)}",
                           then="the other on_abort functions still run, and the change is refused (auth/login-blocked).")
            raise errors.AuthError("auth/login-blocked", "ERROR_LOGIN_BLOCKED", (
                f"A before_auth_state_changed callback raised {type(error).__name__}: {error}; the change was not made (nothing "
                "was stored, and the group's apps saw nothing).")) from error

    def _settle(self, values: dict[str, Any]) -> dict[str, Any]:
        """A held sign-in (``values`` with its ``heldSignIn`` handle): stored once the callbacks pass, and the user stored
        answered; else dropped, and ``auth/login-blocked`` raised."""
        values = dict(values)
        handle = str(values.pop("heldSignIn"))
        user = User(self._binding, values)
        try:
            self._run_before(user)
        except errors.AuthError:
            try:
                self._binding.call("DropSignIn", "s", handle)
            except errors.AuthError:  # it ends with its five minutes, or with this connection, in any case
                pass
            raise
        stored: dict[str, Any] = self._binding.call("CommitSignIn", "s", handle)[0] or {}
        with self._lock:  # the callbacks' user is the one signed in, as the JavaScript SDK's
            if stored and (self._user is None or self._user.uid != user.uid):
                self._user = user
        return stored

    def _listen(self, listeners: list[_Listener], kind: str, callback: Callable[[User | None], None],
                key: Callable[[User | None], object]) -> Callable[[], None]:
        with self._lock:
            user = self._user
            listener = _Listener(kind, callback, key, user)
            listeners.append(listener)
        self._dispatch(_told(kind, callback, user))

        def stop() -> None:
            with self._lock:
                if listener in listeners:
                    listeners.remove(listener)
        return stop

    def _watch(self) -> None:
        """Takes each UserChanged of this app and group, and tells the listeners, until the Auth is closed. Nothing of
        one signal ends it: a listener that raises is logged (``_told``), and so is anything else that fails."""
        while not self._closed.is_set():
            arguments = self._broker.next_signal(timeout=None)
            if arguments is None:
                continue
            run_logged(self._take, arguments, what="Taking a UserChanged signal of the broker",
                       then="this Auth goes on following the group's changes.")

    def _take(self, arguments: list[Any]) -> None:
        """Takes one UserChanged: ``current_user`` and each listener it is news to, through the dispatch."""
        app, group, values = arguments
        ours = self._binding.app
        if group != self._binding.group or any(app.get(key) != (ours[key][1] if key in ours else None)
                                               for key in ("appID", "appName", "tenantID", "emulatorHost")):
            return
        with self._lock:
            user = self._answered(values)
            told = [_told(listener.kind, listener.callback, user)
                    for listener in self._state_listeners + self._token_listeners + self._user_listeners if listener.changed(user)]
        for tell in told:
            self._hand(tell)

    def _hand(self, tell: Callable[[], None]) -> None:
        """Hands a listener's call to the dispatch; a dispatch that raises is logged, and the next call is handed on."""
        run_logged(self._dispatch, tell, what=f"This Auth's dispatch {name_of(self._dispatch)}, handed a listener's call,",
                   then="that listener missed this change; the others, and current_user, go on.")

    def _use_emulator(self, config: EmulatorConfig) -> None:
        """``connect_auth_emulator``'s part: the emulator for every call from now on, before the first call only."""
        with self._lock:
            if self._binding.used:
                if self.emulator_config is None or self.emulator_config.host_and_port != config.host_and_port:
                    raise errors.AuthError(
                        "auth/emulator-config-failed", "ERROR_EMULATOR_CONFIG_FAILED",
                        "This Auth has made calls to {} already, so it cannot change to the emulator at {}; call "
                        "connect_auth_emulator before the Auth's first call.".format(
                            "the emulator at " + self.emulator_config.host_and_port if self.emulator_config else "Firebase",
                            config.host_and_port))
                return
            self._rewatch("emulatorHost", config.host_and_port)
            self.emulator_config = config

    def _rewatch(self, key: str, value: str | None) -> None:
        """Sets ``key`` of the app dictionary, and watches the scope it makes instead of the one before (under the lock)."""
        try:
            self._broker.call("Unwatch", self._binding.app, self._binding.group)
        except errors.AuthError:
            pass
        before = self._binding.app.get(key)
        if value is None:
            self._binding.app.pop(key, None)
        else:
            self._binding.app[key] = ("s", value)
        try:
            self._watch_scope()
        except errors.AuthError:  # the scope before stays
            if before is None:
                self._binding.app.pop(key, None)
            else:
                self._binding.app[key] = before
            self._watch_scope()
            raise

    def close(self) -> None:
        """Ends this Auth's connection to the broker and its listeners; the sign-in stays, for the group's apps and for
        the next Auth. Its calls, and its users', raise AuthError (``auth/app-deleted``) from then on. Closing again
        does nothing; ``with Auth(…) as auth:`` closes it at the block's end."""
        if self._closed.is_set():
            return
        self._closed.set()
        try:  # frees the broker's watch at once, rather than when it sees the connection end
            self._broker.call("Unwatch", self._binding.app, self._binding.group, timeout=5.0)
        except errors.AuthError:
            pass
        self._broker.wake()
        self._broker.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()


def connect_auth_emulator(auth: Auth, url: str, options: EmulatorOptions | None = None) -> None:
    """Sends every call of ``auth`` (its users' too) to the Auth emulator at ``url``, ``http://host:port`` on this
    machine's loopback (``http://127.0.0.1:9099``), instead of Firebase; it replaces the one
    ``FIREBASE_AUTH_EMULATOR_HOST`` named. Call it before ``auth``'s first call: afterwards it may only name the
    emulator already in use. Warns (``UserWarning``) that the emulator is for testing, unless
    ``options={"disable_warnings": True}``. A sandboxed app needs the network permission (``--share=network``) to use it.

    Raises AuthError: ``auth/invalid-emulator-scheme`` for a URL that is not ``http://``, ``auth/argument-error`` for a
    URL with a path, a query or a user, without a port, or of a host not on this machine's loopback, and
    ``auth/emulator-config-failed`` after the first call for another emulator.
    """
    given = dict(options or {})
    unknown = sorted(set(given) - {"disable_warnings"})
    if unknown:
        raise emulator.invalid("connect_auth_emulator's options take disable_warnings only, not {}.".format(", ".join(unknown)))
    config = emulator.from_url(url, disable_warnings=bool(given.get("disable_warnings", False)))
    auth._use_emulator(config)
    if not config.disable_warnings:
        warnings.warn(f"You are using the Auth emulator ({config.host_and_port}), which is intended for local testing only. Do not use it with "
                      "production credentials.", stacklevel=2)


def sign_in_with_popup(auth: Auth, provider: FederatedAuthProvider) -> UserCredential:
    """``auth.sign_in_with_popup(provider)``, as the JavaScript SDK's ``signInWithPopup(auth, provider)``: the person's
    own browser stands for the popup."""
    return auth.sign_in_with_popup(provider)


def get_multi_factor_resolver(auth: Auth, error: errors.AuthError) -> MultiFactorResolver:
    """The resolver that finishes the sign-in that raised ``error`` (``error.resolver``), as the JavaScript SDK's."""
    if not isinstance(error, SecondFactorRequiredError):
        raise errors.invalid_argument(
            f"get_multi_factor_resolver takes the SecondFactorRequiredError of a sign-in, not {type(error).__name__} ({error.code}).")
    return error.resolver


def validate_password(auth: Auth, password: str) -> PasswordValidationStatus:
    """``auth.validate_password(password)``, as the JavaScript SDK's ``validatePassword(auth, password)``."""
    return auth.validate_password(password)
