"""python-client.py: a benchmark client that stores and looks up one Secret Service item through
a Python library, as a reference point for KeyringAuth's own figures.

  LIBRARY = secretstorage   secretstorage on one D-Bus connection (secretstorage.dbus_init()) and
                            the default collection, both made once at start-up. The item: schema
                            org.keyringauth.Bench, attributes {"client": "secretstorage",
                            "xdg:schema": "org.keyringauth.Bench"}, content type text/plain.
  LIBRARY = keyring         keyring.set_password / get_password("org.keyringauth.Bench",
                            "keyring", …) with keyring's own attributes and label, through
                            keyring's Secret Service backend (taken out of the ChainerBackend
                            keyring picks when it also finds its libsecret backend); start-up
                            fails when keyring picked another backend.

Run with Debian's interpreter (packages python3-secretstorage, python3-keyring), always under the
private keyring harness:
  dbus/with-keyring bash -c 'printf "write 200\\nread 200\\nquit\\n" |
      /usr/bin/python3 Benchmarks/clients/python-client.py secretstorage 1400'

Protocol (the same as libsecret-client.c), one line in, one line out, each flushed at once:
  argv: LIBRARY SIZE        SIZE = the secret payload's size in bytes (at least 10)
  start-up                  one write and one read, then "ready <library> <version>"
  "write N"                 N stores of the item, each with the next counter value
  "read N"                  N lookups, each checked against the last payload written
  "fill N"                  not supported here: "error unsupported"
  "quit" or end of input    exit 0
Each command answers "ok <nanoseconds>" (time.monotonic_ns() around the whole loop) or
"error <message>". Payload = 10-digit zero-padded counter + 'x' padding, SIZE ASCII bytes, never
printed.
"""
import importlib.metadata
import sys
import time

SCHEMA = "org.keyringauth.Bench"


def answer(line):
    print(line, flush=True)


def count(word):
    """A positive decimal integer, or None."""
    return int(word) if word.isascii() and word.isdigit() and int(word) > 0 else None


def one_line(error):
    return " ".join(f"{type(error).__name__}: {error}".split())


class SecretStorageClient:
    name = "secretstorage"

    def __init__(self):
        import secretstorage
        self.version = getattr(secretstorage, "__version__", None) or importlib.metadata.version("SecretStorage")
        self.connection = secretstorage.dbus_init()
        self.collection = secretstorage.get_default_collection(self.connection)
        if self.collection.is_locked():
            raise RuntimeError("the default collection is locked")
        self.attributes = {"client": self.name, "xdg:schema": SCHEMA}
        self.label = f"KeyringAuth benchmark ({self.name})"

    def store(self, payload):
        self.collection.create_item(self.label, self.attributes, payload.encode("ascii"),
                                    replace=True, content_type="text/plain")

    def lookup(self):
        item = next(self.collection.search_items(self.attributes), None)
        return None if item is None else item.get_secret()


class KeyringClient:
    name = "keyring"

    def __init__(self):
        import keyring
        self.keyring = keyring
        self.version = importlib.metadata.version("keyring")
        backend = keyring.get_keyring()
        chained = getattr(backend, "backends", None)
        if chained and "SecretService" in type(chained[0]).__module__:
            # With python3-gi installed keyring also finds its libsecret backend and picks a
            # ChainerBackend of both, which tries SecretService first and re-checks every
            # backend's priority (a new D-Bus connection) on each call: use SecretService itself.
            backend = chained[0]
            keyring.set_keyring(backend)
        backend_name = f"{type(backend).__module__}.{type(backend).__qualname__}"
        if "SecretService" not in backend_name:
            answer(f"error keyring backend is {backend_name}, not the Secret Service")
            sys.exit(1)

    def store(self, payload):
        self.keyring.set_password(SCHEMA, self.name, payload)

    def lookup(self):
        secret = self.keyring.get_password(SCHEMA, self.name)
        return None if secret is None else secret.encode("ascii")


def main():
    clients = {"secretstorage": SecretStorageClient, "keyring": KeyringClient}
    if len(sys.argv) != 3 or sys.argv[1] not in clients or (count(sys.argv[2]) or 0) < 10:
        answer("error usage: python-client.py secretstorage|keyring SIZE (SIZE in bytes, 10 or more)")
        return 2
    size = int(sys.argv[2])
    counter = 0
    payload = ""   # the last payload written

    def write():
        nonlocal counter, payload
        next_payload = f"{counter + 1:010d}"[-10:].ljust(size, "x")
        client.store(next_payload)
        counter, payload = counter + 1, next_payload   # a failed store keeps the previous payload

    def read():
        secret = client.lookup()
        if secret is None:
            raise LookupError("lookup found no item")
        if len(secret) != size or secret != payload.encode("ascii"):
            raise ValueError("lookup returned a secret other than the last one written")

    try:
        client = clients[sys.argv[1]]()
        write()
        read()   # warm-up
    except Exception as error:
        answer(f"error start-up failed: {one_line(error)}")
        return 1
    answer(f"ready {client.name} {client.version}")

    steps = {"write": write, "read": read}
    for line in iter(sys.stdin.readline, ""):
        words = line.split()
        if words == ["quit"]:
            break
        if len(words) == 2 and words[0] == "fill":
            answer("error unsupported")
            continue
        if len(words) != 2 or words[0] not in steps or count(words[1]) is None:
            answer("error unknown command (expected write N, read N or quit)")
            continue
        step, n = steps[words[0]], count(words[1])
        try:
            start = time.monotonic_ns()
            for _ in range(n):
                step()
            answer(f"ok {time.monotonic_ns() - start}")
        except Exception as error:
            answer(f"error {words[0]} failed: {one_line(error)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
