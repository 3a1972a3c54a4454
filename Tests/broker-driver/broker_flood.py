#!/usr/bin/python3
"""One app that calls the broker over many connections at once, as the broker's share tests ask: one command a line
on standard input, one answer a line on standard output.

    broker_flood.py APP_JSON

Commands:
    connect N                   open N more connections to the session bus (each its own unique name)
    call METHOD GROUP [ARG]     on every connection at once, in a thread each, call METHOD of the app in GROUP ("-" for
                                the private scope), with ARG as its one more argument: a JSON object is an a{sv} of
                                strings, anything else a string; answers "sent N" at once
    follow PREFIX N             on each connection one after another, Keychain1.Follow of N groups PREFIX.cI.gJ
    store GROUP N SIZE          on the first connection, Keychain1.Store of N items of SIZE bytes in GROUP ("-" for the
                                private scope), each a key of its own, labelled by the caller "forged label"
    storeall GROUP N SIZE       on every connection at once, in a thread each, Keychain1.Store of N items as store does,
                                each connection's keys its own; answers "sent N×connections" at once
    count GROUP                 how many items Keychain1.List shows in GROUP ("-": the private scope)
    burst FOLLOWS WATCHES READS on every connection at once, FOLLOWS Keychain1.Follow of groups of its own, WATCHES Watch
                                and READS GetUser of apps of its own, each sent without waiting; once every call is
                                answered or has waited 90 s, answers {"answered": A, "refused": {error: n},
                                "otherErrors": {error: n}, "unanswered": U}
    labels GROUP                the labels of the items Keychain1.List shows in GROUP ("-": the private scope), as JSON
    results N                   waits until N answers of the calls sent have come (five minutes at most), then
                                answers {"accepted": A, "refused": R, "refusals": [each distinct "Error: message"]}
    close                       closes every connection (the broker sees them leave), answers "closed"
"""
import json
import sys
import threading
import uuid

from gi.repository import Gio, GLib

NAME, PATH = "io.github.keyringauth.Broker1", "/io/github/keyringauth/Broker1"
KEYCHAIN = "io.github.keyringauth.Keychain1"


def variant_dictionary(values):
    return {key: GLib.Variant("s", value) for key, value in values.items()}


class Flood:
    def __init__(self, app):
        self.app = variant_dictionary(app)
        self.connections = []
        self.answers = []
        self.arrived = threading.Condition()
        self.address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None)
        self.tag = uuid.uuid4().hex[:8]

    def connect(self, count):
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        for _ in range(count):
            self.connections.append(Gio.DBusConnection.new_for_address_sync(self.address, flags, None, None))
        return "connected %d" % len(self.connections)

    def answer(self, error):
        with self.arrived:
            self.answers.append(error)
            self.arrived.notify_all()

    def call_on(self, connection, interface, method, signature, arguments):
        try:
            connection.call_sync(NAME, PATH, interface, method, GLib.Variant(signature, arguments), None,
                                 Gio.DBusCallFlags.NONE, 120000, None)
            self.answer(None)
        except GLib.Error as error:
            remote = Gio.DBusError.get_remote_error(error)
            self.answer((remote or "local") + ": " + (error.message.split(": ", 1)[-1] if remote else error.message))

    def call(self, method, group, argument):
        group = "" if group == "-" else group
        if argument is None:
            signature, arguments = "(a{sv}s)", (self.app, group)
        elif argument.startswith("{"):
            signature, arguments = "(a{sv}sa{sv})", (self.app, group, variant_dictionary(json.loads(argument)))
        else:
            signature, arguments = "(a{sv}ss)", (self.app, group, argument)
        for connection in self.connections:
            threading.Thread(target=self.call_on, args=(connection, NAME, method, signature, arguments), daemon=True).start()
        return "sent %d" % len(self.connections)

    def follow(self, prefix, count):
        for index, connection in enumerate(self.connections):
            for number in range(count):
                self.call_on(connection, KEYCHAIN, "Follow", "(s)", ("%s.c%d.g%d" % (prefix, index, number),))
        return "followed"

    def key(self, group, name):
        # A group's items of this process's own API keys: another app's flood in the group replaces none of them.
        return ("AIza-flood-%s-%s" % (self.tag, name), "firebase_auth_firebase_user") if group else \
            ("firebase_auth_1:42:linux:flood", "firebase_auth_1_flood%s_firebase_user" % name)

    def store_on(self, connection, group, names, size):
        secret = GLib.Variant("ay", b"x" * size)
        for name in names:
            service, account = self.key(group, name)
            self.call_on(connection, KEYCHAIN, "Store", "(ssssay)", (group, service, account, "forged label", secret))

    def store(self, group, count, size):
        self.store_on(self.connections[0], "" if group == "-" else group, [str(number) for number in range(count)], size)
        return "stored"

    def store_all(self, group, count, size):
        group = "" if group == "-" else group
        for index, connection in enumerate(self.connections):
            names = ["c%dn%d" % (index, number) for number in range(count)]
            threading.Thread(target=self.store_on, args=(connection, group, names, size), daemon=True).start()
        return "sent %d" % (count * len(self.connections))

    def count(self, group):
        scope, group = ("private", "") if group == "-" else ("group", group)
        reply = self.connections[0].call_sync(NAME, PATH, KEYCHAIN, "List", GLib.Variant("(ss)", (scope, group)), None,
                                              Gio.DBusCallFlags.NONE, 60000, None)
        return str(len(reply.unpack()[0]))

    def burst(self, follows, watches, reads):
        outcome = {"answered": 0, "refused": {}, "otherErrors": {}, "unanswered": 0}
        pending = [0]

        def app(name):
            return {"apiKey": self.app["apiKey"], "appID": GLib.Variant("s", "1:42:linux:" + name),
                    "projectID": GLib.Variant("s", "demo-keyring-auth")}

        def done(connection, result, _):
            try:
                connection.call_finish(result)
                outcome["answered"] += 1
            except GLib.Error as error:
                name = Gio.DBusError.get_remote_error(error) or ""
                if error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.TIMED_OUT):
                    outcome["unanswered"] += 1
                elif name.startswith(NAME + ".Error."):
                    outcome["refused"][name] = outcome["refused"].get(name, 0) + 1
                else:
                    key = name or error.message
                    outcome["otherErrors"][key] = outcome["otherErrors"].get(key, 0) + 1
            pending[0] -= 1

        def call(connection, interface, method, arguments):
            pending[0] += 1
            connection.call(NAME, PATH, interface, method, arguments, None, Gio.DBusCallFlags.NONE, 90000, None, done, None)

        # The connections were made with no context of their own: their answers are dispatched by the default one.
        context = GLib.MainContext.default()
        for c, connection in enumerate(self.connections):
            for g in range(follows):
                call(connection, KEYCHAIN, "Follow", GLib.Variant("(s)", ("TEAMID.com.flood.c%dg%d" % (c, g),)))
            for w in range(watches):
                call(connection, NAME, "Watch",
                     GLib.Variant("(a{sv}s)", (app("watch-%d-%d" % (c, w)), "TEAMID.com.flood.w%dw%d" % (c, w))))
            for r in range(reads):
                call(connection, NAME, "GetUser", GLib.Variant("(a{sv}s)", (app("read-%d-%d" % (c, r)), "")))
        while pending[0] > 0:
            context.iteration(True)
        return json.dumps(outcome, sort_keys=True)

    def labels(self, group):
        scope, group = ("private", "") if group == "-" else ("group", group)
        reply = self.connections[0].call_sync(NAME, PATH, KEYCHAIN, "List", GLib.Variant("(ss)", (scope, group)), None,
                                              Gio.DBusCallFlags.NONE, 60000, None)
        return json.dumps(sorted({item[3] for item in reply.unpack()[0]}))

    def results(self, count):
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.answers) >= count, timeout=300)
            answers, self.answers = self.answers, []
        refusals = sorted({answer for answer in answers if answer is not None})
        accepted = answers.count(None)
        return json.dumps({"accepted": accepted, "refused": len(answers) - accepted, "refusals": refusals})

    def close(self):
        for connection in self.connections:
            connection.close_sync(None)
        self.connections = []
        return "closed"


def main():
    flood = Flood(json.loads(sys.argv[1]))
    print("ready", flush=True)
    for line in sys.stdin:
        words = line.split(" ", 3)
        words[-1] = words[-1].rstrip("\n")
        command = words[0]
        if command == "connect":
            print(flood.connect(int(words[1])), flush=True)
        elif command == "call":
            print(flood.call(words[1], words[2], words[3] if len(words) > 3 else None), flush=True)
        elif command == "follow":
            print(flood.follow(words[1], int(words[2])), flush=True)
        elif command == "store":
            print(flood.store(words[1], int(words[2]), int(words[3])), flush=True)
        elif command == "storeall":
            print(flood.store_all(words[1], int(words[2]), int(words[3])), flush=True)
        elif command == "count":
            print(flood.count(words[1]), flush=True)
        elif command == "burst":
            print(flood.burst(int(words[1]), int(words[2]), int(words[3])), flush=True)
        elif command == "labels":
            print(flood.labels(words[1]), flush=True)
        elif command == "results":
            print(flood.results(int(words[1])), flush=True)
        elif command == "close":
            print(flood.close(), flush=True)
        else:
            print("unknown command " + command, flush=True)


if __name__ == "__main__":
    main()
