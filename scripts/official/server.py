"""A scripted OpenAI-compatible server on 127.0.0.1 for the differential runs: chat completions
(plain and streamed, the OpenAI and the Azure routes) and raw completions, every reply given by
the current `Script` (replies.py), which records the call. Standard library only."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from replies import Script


class Scripted(ThreadingHTTPServer):
    daemon_threads = True
    script: Script | None = None


def _usage(messages: Any, text: str) -> dict[str, int]:
    prompt = len(json.dumps(messages)) // 4 + 1
    completion = len(text) // 4 + 1
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion}  # fmt: skip


class Handler(BaseHTTPRequestHandler):
    server: Scripted

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        script = self.server.script
        if script is None or not (self.path.split("?", 1)[0].endswith("/completions")):
            self.send_error(404, "no script or unknown route")
            return
        if "messages" in body:
            messages = body["messages"]
        else:  # a raw completion: the prompt as one user message
            messages = [{"role": "user", "content": str(body.get("prompt", ""))}]
        text = script.answer(messages)
        usage = _usage(messages, text)
        model = body.get("model", "scripted")
        chat = "messages" in body
        if body.get("stream"):
            # the usage-only chunk (no choices) only when asked for, as the OpenAI API sends it:
            # clients that read choices[0] of every chunk (MALLM) fail on it otherwise; the
            # finishing chunk carries the usage either way
            wants_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            self._stream(text, usage, model, chat, wants_usage)
            return
        choice = {"index": 0, "finish_reason": "stop", "logprobs": None}
        if chat:
            choice["message"] = {"role": "assistant", "content": text}
        else:
            choice["text"] = text
        self._json({
            "id": f"scripted-{time.monotonic_ns()}", "created": int(time.time()), "model": model,
            "object": "chat.completion" if chat else "text_completion",
            "choices": [choice], "usage": usage,
        })  # fmt: skip

    def _json(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(
        self, text: str, usage: dict[str, int], model: str, chat: bool, usage_chunk: bool = True
    ) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        base = {"id": "scripted-stream", "created": int(time.time()), "model": model,
                "object": "chat.completion.chunk"}  # fmt: skip
        for part in (text[: len(text) // 2], text[len(text) // 2 :]):
            delta = {"content": part, "role": "assistant"} if chat else None
            choice: dict[str, Any] = {"index": 0, "finish_reason": None, "logprobs": None}
            choice.update({"delta": delta} if chat else {"text": part})
            self._event({**base, "choices": [choice]})
        finish = {"index": 0, "delta": {}, "finish_reason": "stop"}
        self._event({**base, "choices": [finish], **({} if usage_chunk else {"usage": usage})})
        if usage_chunk:
            self._event({**base, "choices": [], "usage": usage})
        self.wfile.write(b"data: [DONE]\n\n")

    def _event(self, payload: dict[str, Any]) -> None:
        self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")
        self.wfile.flush()


def start() -> Scripted:
    """The server on a free port of 127.0.0.1, serving in a daemon thread."""
    server = Scripted(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def base_url(server: Scripted) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"
