"""The project's own providers from Python, as the JavaScript SDK's popups: ``sign_in_with_popup(auth, provider)`` with
``OAuthProvider("microsoft.com")``, its scopes and custom parameters, run by the broker's SignInWithBrowser in the
person's browser; ``link_with_popup`` and ``reauthenticate_with_popup`` by its LinkWithBrowser and
ReauthenticateWithBrowser. Offline, the D-Bus requests the package sends (on the listeners' stand-in broker); against
the broker, its browser being the Swift test's stand-in one, which signs in at the emulator's provider page."""
from __future__ import annotations

import os
import queue
from typing import Any, Callable

import pytest
from jeepney import new_method_call  # type: ignore[import-untyped]
from jeepney.low_level import Parser  # type: ignore[import-untyped]

import keyringauth
from conftest import StandInBroker
from keyringauth import (
    Auth,
    AuthError,
    EmailAuthProvider,
    FederatedAuthProvider,
    FirebaseOptions,
    GithubAuthProvider,
    GoogleAuthProvider,
    OAuthProvider,
    User,
    get_additional_user_info,
    link_with_popup,
    reauthenticate_with_popup,
    sign_in_with_popup,
)
from keyringauth._broker import ADDRESS

MICROSOFT_USER = {"uid": "ms-ada", "idToken": "token-ms", "email": "ada@contoso.example", "providers": "microsoft.com"}
ANONYMOUS_USER = {"uid": "anon-1", "idToken": "token-anon", "isAnonymous": True, "providers": ""}
LINKED_USER = {"uid": "anon-1", "idToken": "token-linked", "email": "ada@contoso.example", "isAnonymous": False, "providers": "microsoft.com"}
MakeAuth = Callable[..., "tuple[Auth, StandInBroker]"]


def browser_requests(broker: StandInBroker) -> list[tuple[str, dict[str, Any]]]:
    """The SignInWithBrowser calls made, each with its signature after app and group, and its provider argument."""
    return [(signature, arguments[0]) for method, _, _, signature, arguments in broker.calls if method == "SignInWithBrowser"]


@pytest.mark.offline
def test_oauth_provider_keeps_scopes_and_custom_parameters_as_the_javascript_sdk() -> None:
    provider = OAuthProvider("microsoft.com")
    assert provider.add_scope("Mail.Read") is provider, "answers the provider, for a chain"
    provider.add_scope("offline_access").add_scope("Mail.Read")
    assert provider.get_scopes() == ["Mail.Read", "offline_access"], "each scope once, in the order added"
    provider.get_scopes().append("changed")
    assert provider.get_scopes() == ["Mail.Read", "offline_access"], "a copy"
    assert provider.set_custom_parameters({"tenant": "organizations", "prompt": "consent"}) is provider
    assert provider.set_custom_parameters({"login_hint": "ada@contoso.example"}).get_custom_parameters() == {"login_hint": "ada@contoso.example"}, \
        "replaced, not merged"
    for provider_class, provider_id in [(GoogleAuthProvider, "google.com"), (GithubAuthProvider, "github.com")]:
        made = provider_class()
        assert isinstance(made, FederatedAuthProvider) and made.provider_id == provider_id and made.add_scope("x").get_scopes() == ["x"]
    assert GoogleAuthProvider.credential(id_token="id").provider_id == "google.com", "the credential is still the class's"
    assert OAuthProvider("oidc.example").credential(id_token="id").dictionary() == {"providerID": "oidc.example", "idToken": "id"}
    wrongs: list[Callable[[], object]] = [
        lambda: provider.add_scope("two scopes"), lambda: provider.add_scope(""),
        lambda: provider.set_custom_parameters({"tenant": 1}),  # type: ignore[dict-item]
        lambda: provider.set_custom_parameters({"": "x"}), lambda: OAuthProvider("")]
    for wrong in wrongs:
        with pytest.raises(AuthError) as refused:
            wrong()
        assert refused.value.code == "auth/argument-error"


@pytest.mark.offline
def test_sign_in_with_popup_sends_the_projects_provider_with_its_scopes_and_parameters(stand_in: MakeAuth) -> None:
    auth, broker = stand_in()
    broker.answers["SignInWithBrowser"] = [MICROSOFT_USER]
    provider = OAuthProvider("microsoft.com").add_scope("Mail.Read").add_scope("offline_access")
    provider.set_custom_parameters({"tenant": "organizations", "prompt": "consent"})
    credential = sign_in_with_popup(auth, provider)
    assert credential.provider_id == "microsoft.com" and credential.operation_type == "signIn"
    assert credential.user is auth.current_user and credential.user.email == "ada@contoso.example"
    [(signature, sent)] = browser_requests(broker)
    assert signature == "a{sv}"
    assert sent == {"providerID": ("s", "microsoft.com"), "scope": ("s", "Mail.Read offline_access"),
                    "customParameters": ("a{ss}", {"tenant": "organizations", "prompt": "consent"})}, "no clientID: the project's own"
    # What goes on the bus: the broker's (a{sv} s a{sv}), the parameters an a{ss} in its variant.
    message = new_method_call(ADDRESS, "SignInWithBrowser", "a{sv}s" + signature, (auth._binding.app, auth._binding.group, sent))
    [read] = Parser().feed(message.serialise(serial=1))
    assert read.header.fields[8] == "a{sv}sa{sv}" and read.body[2] == sent  # 8: the body's signature


@pytest.mark.offline
def test_sign_in_with_browser_takes_the_projects_provider_or_the_apps_own_client(stand_in: MakeAuth) -> None:
    auth, broker = stand_in()
    broker.answers["SignInWithBrowser"] = [MICROSOFT_USER]
    auth.sign_in_with_browser("microsoft.com")
    auth.sign_in_with_popup(GoogleAuthProvider())
    auth.sign_in_with_browser("google.com", "the-apps-client")
    auth.sign_in_with_browser("oidc.example", "client", issuer="https://issuer.example", client_secret="secret")
    assert [sent for _, sent in browser_requests(broker)] == [
        {"providerID": ("s", "microsoft.com")},
        {"providerID": ("s", "google.com")},
        {"providerID": ("s", "google.com"), "clientID": ("s", "the-apps-client")},
        {"providerID": ("s", "oidc.example"), "clientID": ("s", "client"), "issuer": ("s", "https://issuer.example"),
         "clientSecret": ("s", "secret")},
    ]
    refusals: dict[str, Callable[[], object]] = {
        "issuer and client_secret go with client_id": lambda: auth.sign_in_with_browser("microsoft.com", issuer="https://issuer.example"),
        "scopes and custom_parameters go with the Firebase project's own provider":
            lambda: auth.sign_in_with_browser("google.com", "client", scopes=["Mail.Read"]),
        "auth.sign_in_with_popup takes a provider the person signs in with in their browser":
            lambda: sign_in_with_popup(auth, EmailAuthProvider()),  # type: ignore[arg-type]
        "not 'microsoft.com'": lambda: auth.sign_in_with_popup("microsoft.com"),  # type: ignore[arg-type]
    }
    for words, refused_call in refusals.items():
        with pytest.raises(AuthError) as refused:
            refused_call()
        assert refused.value.code == "auth/argument-error" and words in refused.value.message, refused.value.message
    assert len(browser_requests(broker)) == 4, "nothing refused reached the broker"


@pytest.mark.offline
def test_link_and_reauthenticate_with_popup_send_the_projects_provider_for_the_signed_in_user(stand_in: MakeAuth) -> None:
    auth, broker = stand_in()
    broker.answers["SignInAnonymously"] = [ANONYMOUS_USER]
    user = auth.sign_in_anonymously().user
    broker.answers["LinkWithBrowser"] = [LINKED_USER]
    broker.answers["ReauthenticateWithBrowser"] = [dict(LINKED_USER, idToken="token-again")]
    provider = OAuthProvider("microsoft.com").add_scope("Mail.Read").set_custom_parameters({"tenant": "organizations"})

    linked = link_with_popup(user, provider)
    assert linked.user is user and linked.provider_id == "microsoft.com" and linked.operation_type == "link"
    assert not user.is_anonymous and [info.provider_id for info in user.provider_data] == ["microsoft.com"], "the broker's answer"
    assert auth.current_user is not None and auth.current_user.uid == "anon-1" and not auth.current_user.is_anonymous
    additional = get_additional_user_info(linked)
    assert additional is not None and not additional.is_new_user and additional.provider_id == "microsoft.com"
    again = user.reauthenticate_with_popup(provider)
    assert again.user is user and again.provider_id == "microsoft.com" and again.operation_type == "reauthenticate"
    assert user._id_token == "token-again"
    reauthenticate_with_popup(user, GoogleAuthProvider())
    user.link_with_popup(OAuthProvider("yahoo.com"))

    sent = [(method, app, group, signature, arguments) for method, app, group, signature, arguments in broker.calls
            if method.endswith("WithBrowser")]
    microsoft = {"providerID": ("s", "microsoft.com"), "scope": ("s", "Mail.Read"), "customParameters": ("a{ss}", {"tenant": "organizations"})}
    assert [(method, signature, arguments) for method, _, _, signature, arguments in sent] == [
        ("LinkWithBrowser", "a{sv}", (microsoft,)),
        ("ReauthenticateWithBrowser", "a{sv}", (microsoft,)),
        ("ReauthenticateWithBrowser", "a{sv}", ({"providerID": ("s", "google.com")},)),
        ("LinkWithBrowser", "a{sv}", ({"providerID": ("s", "yahoo.com")},)),
    ], "the project's own provider: no clientID"
    assert all(app == auth._binding.app and group == "TEAMID.com.example.offline" for _, app, group, _, _ in sent)
    assert broker.timeouts["LinkWithBrowser"] == broker.timeouts["ReauthenticateWithBrowser"] == 330.0, \
        "the person has five minutes in the browser, not the Auth's timeout"
    # What goes on the bus: the broker's (a{sv} s a{sv}).
    for method in ("LinkWithBrowser", "ReauthenticateWithBrowser"):
        message = new_method_call(ADDRESS, method, "a{sv}sa{sv}", (auth._binding.app, auth._binding.group, microsoft))
        [read] = Parser().feed(message.serialise(serial=1))
        assert read.header.fields[8] == "a{sv}sa{sv}" and read.body[2] == microsoft  # 8: the body's signature

    calls = len(broker.calls)
    wrongs: list[Callable[[], object]] = [lambda: user.link_with_popup(EmailAuthProvider()),  # type: ignore[arg-type]
                                          lambda: reauthenticate_with_popup(user, "microsoft.com")]  # type: ignore[arg-type]
    for wrong in wrongs:
        with pytest.raises(AuthError) as refused:
            wrong()
        assert refused.value.code == "auth/argument-error" and "takes a provider the person signs in with" in refused.value.message
    assert len(broker.calls) == calls, "nothing refused reached the broker"


@pytest.mark.offline
def test_link_with_popup_when_another_app_signed_out_says_so(stand_in: MakeAuth) -> None:
    auth, broker = stand_in()
    broker.answers["SignInAnonymously"] = [ANONYMOUS_USER]
    user = auth.sign_in_anonymously().user
    broker.answers["LinkWithBrowser"] = [{}]  # the broker's answer when nobody is signed in to the group any more
    with pytest.raises(keyringauth.NoCurrentUserError):
        user.link_with_popup(OAuthProvider("microsoft.com"))


def browser_email() -> str:
    """The address the broker's stand-in browser signs in as at the emulator's provider page; skips without it."""
    email = os.environ.get("KEYRING_AUTH_TEST_BROWSER_EMAIL")
    if not email:
        pytest.skip("the broker's stand-in browser is PythonPackageTests' (KEYRING_AUTH_TEST_BROWSER_EMAIL unset)")
    return email


def test_the_projects_own_provider_signs_in_in_the_persons_browser(auth: Auth, options: FirebaseOptions, group: str) -> None:
    email = browser_email()
    states: queue.Queue[User | None] = queue.Queue()
    auth.on_auth_state_changed(states.put)
    assert states.get(timeout=30) is None
    provider = OAuthProvider("microsoft.com").add_scope("Mail.Read").set_custom_parameters({"tenant": "organizations"})
    credential = sign_in_with_popup(auth, provider)
    user = credential.user
    assert credential.provider_id == "microsoft.com" and credential.operation_type == "signIn"
    assert user.email == email and [info.provider_id for info in user.provider_data] == ["microsoft.com"]
    assert user is auth.current_user and states.get(timeout=30) is user
    with Auth(options, access_group=group) as other:
        assert other.current_user is not None and other.current_user.uid == user.uid, "the group's user"
    assert auth.sign_in_with_browser("microsoft.com").user.uid == user.uid, "the same person again: the same user"
    with pytest.raises(AuthError) as mixed:
        auth.sign_in_with_browser("microsoft.com", client_secret="not without a client")
    assert mixed.value.code == "auth/argument-error"
    auth.sign_out()
    assert states.get(timeout=30) is None


def test_an_anonymous_user_links_the_projects_provider_and_signs_in_again_in_the_persons_browser(
        auth: Auth, options: FirebaseOptions, group: str) -> None:
    email = browser_email()
    # The stand-in browser signs in as the listed account of its address, if there is one: an earlier test's (the
    # sign-in's above) would be another user's, so it is deleted first and the link makes the provider's account anew.
    sign_in_with_popup(auth, OAuthProvider("microsoft.com")).user.delete()
    signed_in = auth.sign_in_anonymously()
    user, uid = signed_in.user, signed_in.user.uid
    assert signed_in.user.is_anonymous and signed_in.user.provider_data == []

    provider = OAuthProvider("microsoft.com").add_scope("Mail.Read").set_custom_parameters({"tenant": "organizations"})
    linked = link_with_popup(user, provider)
    assert linked.user is user and linked.provider_id == "microsoft.com" and linked.operation_type == "link"
    assert user.uid == uid and not user.is_anonymous, "the anonymous user made permanent, its uid kept"
    assert "microsoft.com" in [info.provider_id for info in user.provider_data]
    assert auth.current_user is not None and auth.current_user.uid == uid and not auth.current_user.is_anonymous
    with Auth(options, access_group=group) as other:
        shared = other.current_user
        assert shared is not None and shared.uid == uid and not shared.is_anonymous, "the group's user is the linked one"
        assert "microsoft.com" in [info.provider_id for info in shared.provider_data]
    user.reload()
    assert not user.is_anonymous and "microsoft.com" in [info.provider_id for info in user.provider_data], "Firebase's record"
    assert "microsoft.com" in user.get_id_token_result().claims["firebase"]["identities"]

    again = reauthenticate_with_popup(user, OAuthProvider("microsoft.com"))
    assert again.user is user and again.provider_id == "microsoft.com" and again.operation_type == "reauthenticate"
    assert user.uid == uid and auth.current_user is not None and auth.current_user.uid == uid
    assert user.get_id_token_result().sign_in_provider == "microsoft.com"
    again = user.reauthenticate_with_popup(provider)
    assert again.user.uid == uid and again.operation_type == "reauthenticate"
    assert user.email in (None, email), "the provider's address, if Firebase took it"
    user.delete()  # the provider's account of the browser's address free again, for the tests after this one
