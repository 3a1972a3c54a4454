#!/usr/bin/python3
"""Drives every kind of broker operation through many cycles, from several threads each with connections of its
own, for the broker's soak test; prints one JSON line when done.

    broker_soak.py APP_JSON GROUP ROUNDS THREADS

Each round of each thread, on its own connection: Keychain1.Follow and Unfollow of the group; Watch and Unwatch;
SignInAnonymously, GetIDToken and SignOut (in the thread's own private app, so that no thread or process signs another out);
then on a connection made for the purpose, StartGitHubSignIn, left unfinished when that connection closes; and on
another, a GetIDToken sent and the connection closed before its answer. Refusals the broker gives by its rules
(a GitHub sign-in already starting for this app, steps over the app's share) are counted apart from errors.

Answers {"calls": N, "errors": N, "refusals": N, "firstError": "..."}.
"""
import json
import os
import sys
import threading

from gi.repository import Gio, GLib

NAME, PATH = "io.github.keyringauth.Broker1", "/io/github/keyringauth/Broker1"
KEYCHAIN = "io.github.keyringauth.Keychain1"
EXPECTED = ("already starting a GitHub sign-in", "Too many steps", "calls in progress")
FLAGS = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION


class Counts:
    def __init__(self):
        self.lock = threading.Lock()
        self.calls = self.errors = self.refusals = 0
        self.first_error = ""

    def add(self, error):
        with self.lock:
            self.calls += 1
            if error is None:
                return
            if any(words in error for words in EXPECTED):
                self.refusals += 1
            else:
                self.errors += 1
                self.first_error = self.first_error or error


def variants(values):
    return {key: GLib.Variant("s", value) for key, value in values.items()}


def run(address, app, private_app, group, rounds, counts):
    connection = Gio.DBusConnection.new_for_address_sync(address, FLAGS, None, None)

    def call(interface, method, signature, arguments, on=connection):
        try:
            on.call_sync(NAME, PATH, interface, method, GLib.Variant(signature, arguments), None, Gio.DBusCallFlags.NONE, 60000, None)
            counts.add(None)
        except GLib.Error as error:
            counts.add("%s: %s" % (method, error.message))

    for _ in range(rounds):
        call(KEYCHAIN, "Follow", "(s)", (group,))
        call(KEYCHAIN, "Unfollow", "(s)", (group,))
        call(NAME, "Watch", "(a{sv}s)", (app, group))
        call(NAME, "Unwatch", "(a{sv}s)", (app, group))
        call(NAME, "SignInAnonymously", "(a{sv}s)", (private_app, ""))
        call(NAME, "GetIDToken", "(a{sv}sb)", (private_app, "", False))
        call(NAME, "SignOut", "(a{sv}s)", (private_app, ""))
        leaving = Gio.DBusConnection.new_for_address_sync(address, FLAGS, None, None)
        call(NAME, "StartGitHubSignIn", "(a{sv}sa{sv})", (private_app, "", {"clientID": GLib.Variant("s", "Iv1.soak")}), on=leaving)
        leaving.close_sync(None)
        leaving = Gio.DBusConnection.new_for_address_sync(address, FLAGS, None, None)
        message = Gio.DBusMessage.new_method_call(NAME, PATH, NAME, "GetIDToken")
        message.set_body(GLib.Variant("(a{sv}sb)", (private_app, "", True)))
        leaving.send_message(message, Gio.DBusSendMessageFlags.NONE)
        leaving.close_sync(None)
        counts.add(None)
    connection.close_sync(None)


def main():
    app, group, rounds, threads = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None)
    counts = Counts()
    workers = []
    for index in range(threads):
        private_app = dict(app, appName="soak-%d-%d" % (os.getpid(), index))
        workers.append(threading.Thread(target=run, args=(address, variants(app), variants(private_app), group, rounds, counts)))
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    print(json.dumps({"calls": counts.calls, "errors": counts.errors, "refusals": counts.refusals, "firstError": counts.first_error}),
          flush=True)


if __name__ == "__main__":
    main()
