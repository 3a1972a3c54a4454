#!/usr/bin/python3
"""A stand-in for GitHub's device flow on 127.0.0.1, for the broker's benchmarks: POST /login/device/code answers a
device code; POST /login/oauth/access_token answers authorization_pending, always (no sign-in is ever finished).
Prints its address (http://127.0.0.1:PORT), the broker's --github-host, then serves until killed.
"""
import json
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class DeviceFlow(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/login/device/code":
            base = "http://127.0.0.1:%d" % self.server.server_address[1]
            self.answer(200, {"device_code": "device-%s" % uuid.uuid4(), "user_code": "ABCD-1234",
                              "verification_uri": base + "/login/device", "expires_in": 900, "interval": 5})
        elif self.path == "/login/oauth/access_token":
            self.answer(200, {"error": "authorization_pending"})
        else:
            self.answer(404, {"error": "not_found"})

    def answer(self, status, value):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_):
        pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), DeviceFlow)
    print("http://127.0.0.1:%d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
