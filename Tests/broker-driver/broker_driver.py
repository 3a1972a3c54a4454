#!/usr/bin/python3
"""Calls the broker as a test asks: one JSON request a line on standard input, one JSON answer a line on standard
output, for the broker's integration tests.

    broker_driver.py APP_JSON GROUP

A request: {"method": "UpdateProfile", "signature": "a{sv}", "args": [{"displayName": "Ada"}]}; the app and group
come first, as every method takes them (a JSON object argument is an a{sv} of strings, booleans and a{ss} objects). An answer:
{"reply": [...]} or {"error": "SecondFactorRequired", "message": "...", "body": [...]}, where body holds what the
error carries after its message. Errors are read from the reply message itself, so that nothing they carry is lost.
"""
import json
import sys

from gi.repository import Gio, GLib

NAME, PATH = "io.github.keyringauth.Broker1", "/io/github/keyringauth/Broker1"


def dictionary(values):
    return {key: GLib.Variant(value_type(value), value) for key, value in values.items()}


def value_type(value):
    if isinstance(value, bool):
        return "b"
    return "a{ss}" if isinstance(value, dict) else "s"


def argument(value):
    return dictionary(value) if isinstance(value, dict) else value


def main():
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    app, group = dictionary(json.loads(sys.argv[1])), sys.argv[2]
    print(json.dumps({"ready": bus.get_unique_name()}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        message = Gio.DBusMessage.new_method_call(NAME, PATH, NAME, request["method"])
        arguments = (app, request.get("group", group)) + tuple(argument(value) for value in request.get("args", []))
        message.set_body(GLib.Variant("(a{sv}s" + request.get("signature", "") + ")", arguments))
        reply, _ = bus.send_message_with_reply_sync(message, Gio.DBusSendMessageFlags.NONE, 60000, None)
        body = list(reply.get_body().unpack()) if reply.get_body() is not None else []
        if reply.get_message_type() == Gio.DBusMessageType.ERROR:
            answer = {"error": reply.get_error_name().rsplit(".", 1)[-1], "message": body[0] if body else "", "body": body[1:]}
        else:
            answer = {"reply": body}
        print(json.dumps(answer, sort_keys=True), flush=True)


if __name__ == "__main__":
    main()
