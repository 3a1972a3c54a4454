#!/usr/bin/python3
"""An app that watches its user through the broker, for broker-bench.py and `keyring-auth-bench fan-out`: watches the
group, prints `ready`, then `fired NANOSECONDS` (CLOCK_MONOTONIC, the machine's one clock) at each UserChanged signal;
when its standard input ends, `counts fired=N` (how many it had), and exits.

    broker-watcher.py APP_JSON GROUP
"""
import json
import sys
import time

from gi.repository import Gio, GLib

NAME, PATH = "io.github.keyringauth.Broker1", "/io/github/keyringauth/Broker1"


def main():
    app = {key: GLib.Variant("s", value) for key, value in json.loads(sys.argv[1]).items()}
    group = sys.argv[2]
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    loop = GLib.MainLoop()
    fired = [0]

    def changed(*_):
        fired[0] += 1
        print("fired %d" % time.monotonic_ns(), flush=True)

    def ended(*_):
        loop.quit()
        return False

    bus.signal_subscribe(NAME, NAME, "UserChanged", PATH, None, Gio.DBusSignalFlags.NONE, changed)
    bus.call_sync(NAME, PATH, NAME, "Watch", GLib.Variant("(a{sv}s)", (app, group)), None, Gio.DBusCallFlags.NONE, 30000, None)
    GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP, ended)
    print("ready", flush=True)
    loop.run()
    print("counts fired=%d" % fired[0], flush=True)


if __name__ == "__main__":
    main()
