#!/usr/bin/python3
"""A malicious sandboxed app doing its worst to the broker, for Benchmarks/broker-under-attack. Runs until killed.

    broker-attacker.py APP_JSON

Each attack on a thread and connections of its own, in a loop: Firebase apps without end in its private scope
(GetUser), sixteen watched scopes held and one more asked for, watches on connections that leave at once, a provider
it names without the network permission (SignInWithBrowser), the emulator the well-behaved app names (emulatorHost,
refused to an app without the network), an app dictionary of 50,000 entries, strings with control characters, a group
of another developer's domain. The other attacks name no emulator, so that each reaches what it attacks. Prints one
line a second: how many calls it made.
"""
import json
import sys
import threading
import time

from gi.repository import Gio, GLib

NAME, PATH = "io.github.keyringauth.Broker1", "/io/github/keyringauth/Broker1"
calls = [0]


def connection():
    address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None)
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    return Gio.DBusConnection.new_for_address_sync(address, flags, None, None)


def variant_app(app):
    return {key: GLib.Variant("s", value) for key, value in app.items()}


def call(bus, method, signature, args, flags=Gio.DBusCallFlags.NONE):
    calls[0] += 1
    try:
        bus.call_sync(NAME, PATH, NAME, method, GLib.Variant(signature, args), None, flags, 30000, None)
    except GLib.Error:
        pass


def forever(attack):
    def run():
        bus = connection()
        while True:
            attack(bus)
    threading.Thread(target=run, daemon=True).start()


def main():
    base = json.loads(sys.argv[1])
    emulator = base.pop("emulatorHost", "127.0.0.1:9099")
    counter = iter(range(10**9))

    forever(lambda bus: call(bus, "GetUser", "(a{sv}s)", (variant_app(dict(base, appID="1:9:linux:evil%d" % next(counter))), "")))

    def hold(bus):
        for index in range(17):
            call(bus, "Watch", "(a{sv}s)", (variant_app(dict(base, appID="1:9:linux:held%d" % index)), ""))
        time.sleep(3600)
    forever(hold)

    def churn(_):
        bus = connection()
        call(bus, "Watch", "(a{sv}s)", (variant_app(base), ""), Gio.DBusCallFlags.NO_AUTO_START)
        bus.close_sync(None)
    forever(churn)

    provider = {"providerID": GLib.Variant("s", "oidc.evil"), "issuer": GLib.Variant("s", "http://127.0.0.1:1"),
                "clientID": GLib.Variant("s", "x")}
    forever(lambda bus: call(bus, "SignInWithBrowser", "(a{sv}sa{sv})", (variant_app(base), "", provider)))

    forever(lambda bus: call(bus, "GetIDToken", "(a{sv}sb)", (variant_app(dict(base, emulatorHost=emulator)), "", False)))

    huge = {"k%d" % index: GLib.Variant("s", "v") for index in range(50000)}
    forever(lambda bus: call(bus, "GetUser", "(a{sv}s)", (huge, "")))

    forged = variant_app(dict(base, appName="x\nlevel=critical forged line"))
    forever(lambda bus: call(bus, "GetUser", "(a{sv}s)", (forged, "")))
    forever(lambda bus: call(bus, "GetUser", "(a{sv}s)", (variant_app(base), "TEAMID.com.example.bench")))

    while True:
        time.sleep(1)
        print("calls %d" % calls[0], flush=True)


if __name__ == "__main__":
    main()
