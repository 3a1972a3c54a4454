#!/usr/bin/env bash
# Signs in through KeyringAuth's broker from a shell script, with gdbus (GLib's, in every desktop):
#
#   KEYRING_AUTH_APP="{'apiKey': <'AIza…'>, 'appID': <'1:1234:linux:abcd'>, 'projectID': <'my-project'>}" \
#       broker-client.sh TEAMID.com.example.shared [--follow]
#
# Uses the group's user when one is signed in, else signs in anonymously; prints who, and the length of
# a fresh ID token (a script would send the token itself to its backend, never print it). With --follow,
# then waits until another user (or nobody) is signed in to the group and prints "changed UID" ("changed
# none"). gdbus holds no connection beyond one call, and the broker's UserChanged goes only to the
# connection that called Watch, so a shell script follows by asking again, twice a second.
# With FIREBASE_AUTH_EMULATOR_HOST set (127.0.0.1:9099), the broker sends the calls to that Auth emulator.
set -euo pipefail
group=${1?usage: broker-client.sh GROUP [--follow] (GROUP: an access group, or "" for the private scope)}
follow=${2:-}
app=${KEYRING_AUTH_APP:?set KEYRING_AUTH_APP to the app dictionary: apiKey, appID and projectID}
if [[ -n "${FIREBASE_AUTH_EMULATOR_HOST:-}" && "$app" != *"'emulatorHost'"* ]]; then  # host:port only, so no quote reaches the text
    [[ "$FIREBASE_AUTH_EMULATOR_HOST" =~ ^[][A-Za-z0-9.:-]+$ ]] ||
        { echo "FIREBASE_AUTH_EMULATOR_HOST is not host:port, such as 127.0.0.1:9099" >&2; exit 2; }
    app="${app%\}}, 'emulatorHost': <'$FIREBASE_AUTH_EMULATOR_HOST'>}"
fi

broker() {  # broker METHOD [ARG…]: one call, its answer in GVariant text
    gdbus call --session --dest io.github.keyringauth.Broker1 --object-path /io/github/keyringauth/Broker1 \
        --method "io.github.keyringauth.Broker1.$1" "$app" "$group" "${@:2}"
}

user=$(broker GetUser)
if [[ "$user" == "(@a{sv} {},)" ]]; then
    user=$(broker SignInAnonymously)
fi
uid_of() { sed -n "s/.*'uid': <'\([^']*\)'>.*/\1/p" <<<"$1"; }
uid=$(uid_of "$user")
echo "signed in as $uid"
token=$(broker GetIDToken false | sed -n "s/^('\(.*\)',)$/\1/p")
echo "token of ${#token} characters"

if [[ "$follow" == --follow ]]; then
    while now=$(uid_of "$(broker GetUser)"); [[ "$now" == "$uid" ]]; do sleep 0.5; done
    echo "changed ${now:-none}"
fi
