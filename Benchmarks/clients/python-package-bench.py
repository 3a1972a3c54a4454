#!/usr/bin/env python3
"""The Python package (clients/python, keyringauth) as an app sees it: `current_user` reads per second, a value the
package holds, beside a `GetUser` call to the broker (what reading the user costs when it is asked for); and the delay
from another app's change to this app's `on_user_changed` listener: another process (this script with --changer, an
Auth of its own) changes the user's display name, one change at a time, and each delay is timed from its change's call
starting to the listener's call, on CLOCK_MONOTONIC, which both processes share. Prints Markdown.

    python-package-bench.py OPTIONS_JSON GROUP [--reads N] [--changes N]   (keyringauth and jeepney importable)
"""
import argparse
import json
import queue
import statistics
import subprocess
import sys
import time

from keyringauth import Auth, FirebaseOptions
from latency_table import row

ROUNDS = 7
WARM_UP = 5


def per_second(function, count):
    """Calls per second of ``function`` (which makes ``count`` calls): the median of ROUNDS rounds."""
    rates = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        function(count)
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates)


def changer(options, group):
    """The other app: signs in, says `ready`, then for each line N of its input changes the display name to N and
    prints the change's start (CLOCK_MONOTONIC nanoseconds)."""
    with Auth(options, access_group=group) as auth:
        user = auth.sign_in_anonymously().user
        print("ready", flush=True)
        for line in sys.stdin:
            started = time.monotonic_ns()
            user.update_profile(display_name=line.strip())
            print(started, flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("options")
    parser.add_argument("group")
    parser.add_argument("--changer", action="store_true")
    parser.add_argument("--reads", type=int, default=1_000_000)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--changes", type=int, default=200)
    arguments = parser.parse_args()
    options = FirebaseOptions(**json.loads(arguments.options))
    if arguments.changer:
        return changer(options, arguments.group)

    other = subprocess.Popen([sys.executable, __file__, arguments.options, arguments.group, "--changer"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert other.stdout.readline().strip() == "ready"
    with Auth(options, access_group=arguments.group) as auth:
        heard = queue.Queue()
        auth.on_user_changed(lambda user: heard.put((time.monotonic_ns(), user.display_name if user else None)))
        heard.get(timeout=30)

        def reads(count):
            for _ in range(count):
                auth.current_user  # noqa: B018

        def calls(count):
            for _ in range(count):
                auth._broker.call("GetUser", auth._binding.app, auth._binding.group)

        read_rate = per_second(reads, arguments.reads)
        call_rate = per_second(calls, arguments.calls)
        assert auth.current_user is not None, "the other app's sign-in reached this one"

        delays = []
        for index in range(WARM_UP + arguments.changes):
            name = f"change-{index}"
            other.stdin.write(name + "\n")
            other.stdin.flush()
            started = int(other.stdout.readline())
            while True:
                at, display_name = heard.get(timeout=30)
                if display_name == name:
                    break
            if index >= WARM_UP:
                delays.append((at - started) / 1e9)
        other.stdin.close()
        other.wait(timeout=30)

    print("| reading the user | calls per second (median of %d rounds) |" % ROUNDS)
    print("|---|---:|")
    print("| `auth.current_user` (%s reads a round) | %s |" % (f"{arguments.reads:,}", f"{read_rate:,.0f}"))
    print("| `GetUser` through the broker (%s calls a round) | %s |" % (f"{arguments.calls:,}", f"{call_rate:,.0f}"))
    print()
    print("| another app's change to `on_user_changed` (ms) | samples | median | p90 | p99 | max |")
    print("|---|---:|---:|---:|---:|---:|")
    print(row("a display name changed by another process", delays))


if __name__ == "__main__":
    main()
