"""An OpenAI-compatible chat-completions endpoint on 127.0.0.1 for tests that run real clients.

`OpenAIStub` answers every POST to `/v1/chat/completions` with what its `reply` function returns
for the request body: text, or a `Reply` with token usage and log-probabilities. It records every
request body in arrival order (`requests`), and fails a request with HTTP `fail_status` when its
`fail` function says so (`fail_after(n)`: every request after the first n). Usage:

    with OpenAIStub(reply=lambda body: "ANSWER: yes") as stub:
        model = get_model("openai-api/stub/m", base_url=stub.base_url, api_key="k")
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Body = dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """A reply's text, its usage, and optionally its `choices[0].logprobs` content, as the OpenAI
    API shapes it: `[{"token": "yes", "logprob": -0.1, "top_logprobs": [...]}, ...]`."""

    text: str
    prompt_tokens: int = 10
    completion_tokens: int = 5
    logprobs: list[dict[str, Any]] | None = None


def fail_after(n: int) -> Callable[[int, Body], bool]:
    """Fail every request after the first `n` (the index counts from 0)."""
    return lambda index, body: index >= n


def first_user_text(body: Body) -> str:
    """The text of the request's first user message (a string or a list of text parts)."""
    for message in body.get("messages", []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return "".join(p.get("text", "") for p in content or [] if isinstance(p, dict))
    return ""


@dataclass
class OpenAIStub:
    reply: Callable[[Body], str | Reply]
    fail: Callable[[int, Body], bool] = lambda index, body: False
    fail_status: int = 400  # a client error: no client retries it
    requests: list[Body] = field(default_factory=list)  # every request, failed ones included
    failed: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the stub first (with OpenAIStub(...) as stub)"
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def reset(self) -> None:
        """Forget the requests so far and fail none from now on."""
        with self._lock:
            self.requests.clear()
            self.failed = 0
        self.fail = lambda index, body: False

    def respond(self, body: Body) -> tuple[int, Body]:
        with self._lock:
            index = len(self.requests)
            self.requests.append(body)
            failing = self.fail(index, body)
            self.failed += failing
        if failing:
            error = {"message": "the stub was told to fail", "type": "invalid_request_error"}
            return self.fail_status, {"error": error}
        got = self.reply(body)
        reply = got if isinstance(got, Reply) else Reply(got)
        choice: Body = {
            "index": 0,
            "message": {"role": "assistant", "content": reply.text},
            "finish_reason": "stop",
        }
        if reply.logprobs is not None:
            choice["logprobs"] = {"content": reply.logprobs}
        usage = {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        }
        return 200, {
            "id": f"stub-{index}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "stub"),
            "choices": [choice],
            "usage": usage,
        }

    def post(self, path: str, content_type: str, raw: bytes) -> tuple[int, Body | bytes]:
        """A POST: every path is the chat-completions endpoint here."""
        return self.respond(json.loads(raw))

    def get(self, path: str) -> tuple[int, Body | bytes]:
        return 404, {"error": {"message": f"no {path} here", "type": "not_found"}}

    def __enter__(self) -> OpenAIStub:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                self.answer(*stub.post(self.path, self.headers.get("Content-Type", ""), raw))

            def do_GET(self) -> None:
                self.answer(*stub.get(self.path))

            def answer(self, status: int, answer: Body | bytes) -> None:
                data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:  # quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
        self._server = None
