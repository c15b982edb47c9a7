"""A stand-in for `python -m llama_cpp.server` in tests/test_local_server.py: it takes the same
arguments, answers its first `/v1/models` at once (so it comes up), then every later request only
after BUSY seconds, as a server busy generating does."""

from __future__ import annotations

import argparse
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BUSY = 3.0  # longer than the 2-second probe a server was once judged dead by


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
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'{"data": []}')

        def log_message(self, *args: object) -> None:
            pass

    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
