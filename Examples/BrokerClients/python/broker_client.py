#!/usr/bin/python3
"""Signs in through KeyringAuth's broker from Python, with Gio (Debian's python3-gi).

    broker_client.py APP_JSON GROUP

APP_JSON holds apiKey, appID and projectID; GROUP is an access group, or "" for the app's private scope.
With FIREBASE_AUTH_EMULATOR_HOST set (127.0.0.1:9099) and no emulatorHost in APP_JSON, the broker sends the calls
to that Auth emulator (a sandboxed app needs --share=network for it).
Reads commands from standard input, one a line, and answers each on standard output:

    anonymous | email EMAIL PASSWORD | custom-token TOKEN | user | token [force] | sign-out | watch | unwatch

    user {...}            the user as JSON ({} when nobody is signed in), each token as its length ("N characters")
    token N               an ID token of N characters (the token itself is not printed)
    ok                    sign-out, watch, unwatch
    error NAME MESSAGE    the broker's D-Bus error
    changed {...}         UserChanged, whenever the group's user changes (after watch)
"""
import json
import os
import sys

from gi.repository import Gio, GLib

NAME = "io.github.keyringauth.Broker1"
PATH = "/io/github/keyringauth/Broker1"


class Broker:
    """The broker's methods, each a blocking call with a timeout."""

    def __init__(self, app, group, on_change=None):
        self.bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        self.app = {key: GLib.Variant("s", value) for key, value in app.items()}
        self.group = group
        if on_change:
            # Unicast: the broker sends UserChanged to this connection only, after Watch.
            self.bus.signal_subscribe(NAME, NAME, "UserChanged", PATH, None, Gio.DBusSignalFlags.NONE,
                                      lambda *args: on_change(args[5].unpack()[2]))

    def call(self, method, signature="", *args, timeout_ms=30000):
        types = "(a{sv}s" + signature + ")"
        reply = self.bus.call_sync(NAME, PATH, NAME, method, GLib.Variant(types, (self.app, self.group) + args),
                                   None, Gio.DBusCallFlags.NONE, timeout_ms, None)
        return reply.unpack()

    def sign_in_anonymously(self):
        return self.call("SignInAnonymously")[0]

    def sign_in_with_email(self, email, password):
        return self.call("SignInWithEmail", "ss", email, password)[0]

    def sign_in_with_custom_token(self, token):
        return self.call("SignInWithCustomToken", "s", token)[0]

    def user(self):
        return self.call("GetUser")[0]

    def id_token(self, force_refresh=False):
        return self.call("GetIDToken", "b", force_refresh)[0]

    def sign_out(self):
        self.call("SignOut")

    def watch(self):
        self.call("Watch")

    def unwatch(self):
        self.call("Unwatch")


def say(line):
    print(line, flush=True)


def shown(user):
    """The user as JSON, with each token (refreshToken) replaced by its length: a script never prints a token."""
    return json.dumps({key: "%d characters" % len(value) if key.endswith("Token") else value for key, value in user.items()},
                      sort_keys=True)


def main():
    app, group = json.loads(sys.argv[1]), sys.argv[2]
    if os.environ.get("FIREBASE_AUTH_EMULATOR_HOST") and "emulatorHost" not in app:
        app["emulatorHost"] = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
    broker = Broker(app, group, on_change=lambda user: say("changed " + shown(user)))
    loop = GLib.MainLoop()

    def handle(line):
        words = line.split()
        if not words:
            return
        command, rest = words[0], words[1:]
        try:
            if command == "anonymous":
                say("user " + shown(broker.sign_in_anonymously()))
            elif command == "email":
                say("user " + shown(broker.sign_in_with_email(rest[0], rest[1])))
            elif command == "custom-token":
                say("user " + shown(broker.sign_in_with_custom_token(rest[0])))
            elif command == "user":
                say("user " + shown(broker.user()))
            elif command == "token":
                say("token %d" % len(broker.id_token(rest == ["force"])))
            elif command in ("sign-out", "watch", "unwatch"):
                {"sign-out": broker.sign_out, "watch": broker.watch, "unwatch": broker.unwatch}[command]()
                say("ok")
            else:
                say("error usage unknown command " + command)
        except GLib.Error as error:
            name = Gio.DBusError.get_remote_error(error) or "unknown"
            message = error.message.split(": ", 1)[-1] if error.message.startswith("GDBus.Error:") else error.message
            say("error %s %s" % (name.rsplit(".", 1)[-1], message))

    def on_input(channel, condition):
        line = channel.readline()
        if not line:
            loop.quit()
            return False
        handle(line)
        return True

    GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP,
                      on_input)
    say("ready")
    loop.run()


if __name__ == "__main__":
    main()
