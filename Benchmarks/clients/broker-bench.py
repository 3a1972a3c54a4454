#!/usr/bin/python3
"""The broker measured from Python (Gio), as a client in another language sees it. Prints Markdown.

    broker-bench.py APP_JSON GROUP BROKER_PID [--calls N] [--watchers N] [--changes N]

- GetIDToken of a fresh token: N calls one after another on one connection, each timed on the monotonic clock.
- UserChanged to many watching clients: W connections of their own (each a client of the bus) watch the group;
  another connection signs in and out C times; for each change, the time from the call starting to each
  watcher's signal.
- The broker's memory (VmRSS, VmHWM) and its CPU time over 10 idle seconds (watchers still connected).
"""
import argparse
import json
import time

from gi.repository import Gio, GLib

from latency_table import row
from process_figures import cpu_seconds, status

NAME, PATH = "io.github.keyringauth.Broker1", "/io/github/keyringauth/Broker1"


def connection():
    address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None)
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    return Gio.DBusConnection.new_for_address_sync(address, flags, None, None)


def call(bus, app, group, method, signature="", *args):
    parameters = GLib.Variant("(a{sv}s" + signature + ")", (app, group) + args)
    return bus.call_sync(NAME, PATH, NAME, method, parameters, None, Gio.DBusCallFlags.NONE, 30000, None).unpack()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("app")
    parser.add_argument("group")
    parser.add_argument("pid", type=int)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--watchers", type=int, default=50)
    parser.add_argument("--changes", type=int, default=20)
    options = parser.parse_args()
    app = {key: GLib.Variant("s", value) for key, value in json.loads(options.app).items()}
    group = options.group

    bus = connection()
    call(bus, app, group, "SignInAnonymously")
    for _ in range(100):
        call(bus, app, group, "GetIDToken", "b", False)
    tokens = []
    for _ in range(options.calls):
        start = time.monotonic()
        call(bus, app, group, "GetIDToken", "b", False)
        tokens.append(time.monotonic() - start)

    loop = GLib.MainLoop()
    arrivals = []
    pending = {"count": 0, "start": 0.0}

    def arrived(*_):
        arrivals.append(time.monotonic() - pending["start"])
        pending["count"] -= 1
        if pending["count"] == 0:
            loop.quit()

    watchers = [connection() for _ in range(options.watchers)]
    for watcher in watchers:
        watcher.signal_subscribe(NAME, NAME, "UserChanged", PATH, None, Gio.DBusSignalFlags.NONE, arrived)
        call(watcher, app, group, "Watch")
    timeout = {"hit": False}

    def give_up():
        timeout["hit"] = True
        loop.quit()
        return False

    for change in range(options.changes):
        pending["count"], pending["start"] = options.watchers, time.monotonic()
        call(bus, app, group, "SignOut" if change % 2 == 0 else "SignInAnonymously")
        source = GLib.timeout_add_seconds(30, give_up)
        if pending["count"] > 0:
            loop.run()
        GLib.source_remove(source) if not timeout["hit"] else None
        if timeout["hit"]:
            raise SystemExit("broker-bench: a change did not reach every watcher within 30 s")

    rss, peak = status(options.pid, "VmRSS"), status(options.pid, "VmHWM")
    before = cpu_seconds(options.pid)
    time.sleep(10)  # the measurement itself: ten idle seconds of the broker's CPU time
    idle = cpu_seconds(options.pid) - before

    print("| measurement | samples | median | p90 | p99 | max |")
    print("|---|---:|---:|---:|---:|---:|")
    print(row("GetIDToken, a fresh token (ms)", tokens))
    print(row("UserChanged at %d watchers, from the change starting (ms)" % options.watchers, arrivals))
    print()
    print("The broker after the run: %.1f MiB resident (peak %.1f MiB); %.3f s of CPU in 10 idle seconds, %d watchers connected."
          % (rss / 1024, peak / 1024, idle, options.watchers))


if __name__ == "__main__":
    main()
