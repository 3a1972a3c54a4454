#!/usr/bin/python3
"""The broker measured from Python (Gio), as a client in another language sees it. Prints Markdown.

    broker-bench.py APP_JSON GROUP BROKER_PID [--calls N] [--watchers N] [--changes N]

- GetIDToken of a fresh token: N calls one after another on one connection, each timed on the monotonic clock.
- UserChanged to many watching clients: W processes (each an app, broker-watcher.py) watch the group; another
  app signs in and out C times; for each change, the time from the call starting to each watcher's signal, on the
  machine's monotonic clock; each watcher must have had one signal a change.
- The broker's memory (VmRSS, VmHWM) and its CPU time over 10 idle seconds (watchers still connected).
"""
import argparse
import json
import os
import select
import subprocess
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

    # Each watcher a process of its own (an app: the broker bounds the watches of each), timing its signals itself.
    watcher = os.path.join(os.path.dirname(os.path.abspath(__file__)), "broker-watcher.py")
    watchers = [subprocess.Popen(["/usr/bin/python3", watcher, options.app, group], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True) for _ in range(options.watchers)]
    for process in watchers:
        if process.stdout.readline().strip() != "ready":
            raise SystemExit("broker-bench: a watcher did not start")
    arrivals = []
    for change in range(options.changes):
        start = time.monotonic_ns()
        call(bus, app, group, "SignOut" if change % 2 == 0 else "SignInAnonymously")
        for process in watchers:
            if not select.select([process.stdout], [], [], 30)[0]:
                raise SystemExit("broker-bench: a change did not reach every watcher within 30 s")
            arrivals.append((int(process.stdout.readline().split()[1]) - start) / 1e9)

    rss, peak = status(options.pid, "VmRSS"), status(options.pid, "VmHWM")
    before = cpu_seconds(options.pid)
    time.sleep(10)  # the measurement itself: ten idle seconds of the broker's CPU time
    idle = cpu_seconds(options.pid) - before
    for process in watchers:
        counts, _ = process.communicate()
        if counts.strip() != "counts fired=%d" % options.changes:
            raise SystemExit("broker-bench: %d changes, but a watcher reported %s" % (options.changes, counts.strip()))

    print("| measurement | samples | median | p90 | p99 | max |")
    print("|---|---:|---:|---:|---:|---:|")
    print(row("GetIDToken, a fresh token (ms)", tokens))
    print(row("UserChanged at %d watchers, from the change starting (ms)" % options.watchers, arrivals))
    print()
    print("The broker after the run: %.1f MiB resident (peak %.1f MiB); %.3f s of CPU in 10 idle seconds, %d watchers connected."
          % (rss / 1024, peak / 1024, idle, options.watchers))


if __name__ == "__main__":
    main()
