"""A stand-in for `python -m llama_cpp.server` in tests/test_local_server.py: it takes the same
arguments, answers its first `/v1/models` at once (so it comes up), then every later one only
after BUSY seconds, as a server busy generating does. It answers a chat completion at once, or,
with STUB_CRASH set in its environment, dies of a segmentation fault there, as a llama.cpp build
that cannot run on this CPU does at its first token."""

from __future__ import annotations

import argparse
import json
import os
import signal
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BUSY = 3.0  # longer than the 2-second probe a server was once judged dead by
REPLY = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "yes"}}]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args, _ = parser.parse_known_args()
    answered = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if answered:
                time.sleep(BUSY)
            answered.append(self.path)
            self.reply(b'{"data": []}')

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if os.environ.get("STUB_CRASH"):
                os.kill(os.getpid(), signal.SIGSEGV)
                time.sleep(BUSY)  # the signal ends the process before any reply
            self.reply(json.dumps(REPLY).encode())

        def reply(self, body: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
