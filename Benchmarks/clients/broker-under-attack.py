#!/usr/bin/python3
"""A well-behaved app's calls to the broker, alone and while a malicious sandboxed app does its worst
(broker-attacker.py, run as the Flatpak app org.evil.App by dbus/run-as-flatpak). Prints Markdown.

    broker-under-attack.py APP_JSON GROUP RUN_AS_FLATPAK [--calls N] [--new-apps N] [--warm-up S]

Measured on the well-behaved app's own connection, each call timed on the monotonic clock: GetIDToken of a fresh
token in its group, and the first call (GetUser) of a Firebase app the broker has not seen, which makes its Auth.
"""
import argparse
import json
import os
import subprocess
import time

from gi.repository import Gio, GLib

from latency_table import row

NAME, PATH = "io.github.keyringauth.Broker1", "/io/github/keyringauth/Broker1"


def timed(bus, app, group, method, signature="", *args):
    parameters = GLib.Variant("(a{sv}s" + signature + ")", (app, group) + args)
    start = time.monotonic()
    bus.call_sync(NAME, PATH, NAME, method, parameters, None, Gio.DBusCallFlags.NONE, 30000, None)
    return time.monotonic() - start


def measure(bus, base, group, options, tag):
    app = {key: GLib.Variant("s", value) for key, value in base.items()}
    tokens = [timed(bus, app, group, "GetIDToken", "b", False) for _ in range(options.calls)]
    fresh = []
    for index in range(options.new_apps):
        other = {key: GLib.Variant("s", value) for key, value in dict(base, appID="1:1:linux:%s%d" % (tag, index)).items()}
        fresh.append(timed(bus, other, "", "GetUser"))
    return tokens, fresh


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("app")
    parser.add_argument("group")
    parser.add_argument("run_as_flatpak")
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--new-apps", type=int, default=40)
    parser.add_argument("--warm-up", type=float, default=3.0)
    options = parser.parse_args()
    base = json.loads(options.app)
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    app = {key: GLib.Variant("s", value) for key, value in base.items()}
    bus.call_sync(NAME, PATH, NAME, "SignInAnonymously", GLib.Variant("(a{sv}s)", (app, options.group)), None,
                  Gio.DBusCallFlags.NONE, 30000, None)
    for _ in range(100):
        timed(bus, app, options.group, "GetIDToken", "b", False)

    alone = measure(bus, base, options.group, options, "alone")

    attacker_script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "broker-attacker.py")
    attacker = subprocess.Popen(
        [options.run_as_flatpak, "--ro", attacker_script, "org.evil.App", "/usr/bin/python3", attacker_script, options.app],
        stdout=subprocess.PIPE, text=True)
    try:
        first = attacker.stdout.readline()
        if not first.startswith("calls "):
            raise SystemExit("broker-under-attack: the attacker did not start")
        time.sleep(options.warm_up)
        before = int(attacker.stdout.readline().split()[1])
        started = time.monotonic()
        attacked = measure(bus, base, options.group, options, "attacked")
        elapsed = time.monotonic() - started
        after = int(attacker.stdout.readline().split()[1])
    finally:
        attacker.kill()
        attacker.wait()

    print("| measurement (ms) | samples | median | p90 | p99 | max |")
    print("|---|---:|---:|---:|---:|---:|")
    print(row("GetIDToken, alone", alone[0], digits=2))
    print(row("GetIDToken, while org.evil.App attacks", attacked[0], digits=2))
    print(row("first call of a new Firebase app, alone", alone[1], digits=2))
    print(row("first call of a new Firebase app, while org.evil.App attacks", attacked[1], digits=2))
    print()
    print("The attacker made about %d calls a second while the well-behaved app was measured (%.1f s)."
          % ((after - before) / max(elapsed, 1e-9), elapsed))


if __name__ == "__main__":
    main()
