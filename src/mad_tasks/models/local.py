"""The embedded real model: Gemma 3 270M (base, GGUF) served by llama.cpp on 127.0.0.1.

`mad-local path | serve | status | stop | demo` (or `python -m mad_tasks.models.local ...`).
Inspect reaches the server through its built-in `llama-cpp-python` provider, an OpenAI-compatible
client: the server reports token usage with every reply, so Inspect never needs a tokenizer
download, and the whole demo runs offline. The server's life (started, proved, shared, watched,
stopped) is in local_server.py.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from importlib.resources import as_file, files
from pathlib import Path

from . import LOCAL_MODEL
from .local_server import (
    Server,
    ServerError,
    acquire,
    gguf_path,
    release,
    serve,
    status,
    stop,
    watch,
)

MODEL = LOCAL_MODEL  # the Inspect model spec
DEMO_DATA = "demo_yesno.jsonl"
# what the demo's eval may spend on one call before Inspect gives up on it: a dead or wedged
# endpoint ends the run instead of holding it (a call waits behind the others on one server)
DEMO_RETRIES, DEMO_TIMEOUT = 3, 600
# Where a reply ends besides a new turn: the base model, shown its peers' replies as `--- agent_2
# ---` blocks, goes on to write more of them (other agents' replies, more ANSWER lines), and the
# reader rightly abstains on a reply with conflicting answers. Stopping there halved the demo's
# time and cut its unreadable answers from 18 to 12 of 90 over three demos (docs/local-model.md).
DEMO_STOP = "\n---"


def inspect_hint(server: Server) -> str:
    return (
        f"llama.cpp server (pid {server.pid}, chat format {server.chat_format}) "
        f"at {server.base_url}\n"
        f"Point Inspect at it with:\n"
        f"  inspect eval mad_tasks/strategyqa --model {MODEL} "
        f"--model-base-url {server.base_url} --max-tokens 128 --stop-seqs $'\\n---' ...\n"
        f"or: export LLAMA_CPP_PYTHON_BASE_URL={server.base_url}  (then --model {MODEL})"
    )


def demo(
    limit: int = 5,
    solver: str = "du_debate",
    log_dir: str = "logs/demo",
    max_tokens: int = 128,
    extra: list[str] | None = None,
) -> int:
    """A small debate eval on the local model and the project's own yes/no questions, with the
    server watched throughout; prints the time, the accuracy and the unreadable answers."""
    server = acquire()
    started = "started" if server.started else "shared"
    print(f"mad-local: {started} the llama.cpp server: {status()}", flush=True)
    try:
        with as_file(files("mad_tasks") / "data" / DEMO_DATA) as data:
            cmd = [
                sys.executable, "-m", "inspect_ai", "eval", "mad_tasks/strategyqa",
                "--solver", solver, "--model", MODEL, "--model-base-url", server.base_url,
                "-T", f"data_path={data}", "--limit", str(limit), "--log-dir", log_dir,
                "--max-tokens", str(max_tokens), "--temperature", "0.7",
                "--max-retries", str(DEMO_RETRIES), "--timeout", str(DEMO_TIMEOUT),
                "--stop-seqs", DEMO_STOP, *(extra or []),
            ]  # fmt: skip
            print("+", " ".join(cmd[2:]), flush=True)
            start = time.monotonic()
            rc = watch(cmd, server, env={**os.environ, "HF_HUB_OFFLINE": "1"})
            elapsed = time.monotonic() - start
    finally:
        release(server)
    logs = sorted(Path(log_dir).glob("*.eval"), key=lambda p: p.stat().st_mtime)
    print(f"\ninspect eval finished in {elapsed:.0f} s (exit code {rc})")
    if logs:
        print(summary(logs[-1]))
        print(f"Log: {logs[-1]}")
    print(f"Open it with: inspect view --log-dir {log_dir}")
    return rc


def summary(log: Path) -> str:
    """The demo's figures: accuracy, and the agents' answers no reader could read."""
    from inspect_ai.log import read_eval_log

    header = read_eval_log(str(log), header_only=True)
    accuracy = next(
        (
            m.value
            for s in (header.results.scores if header.results else [])
            for name, m in s.metrics.items()
            if name == "accuracy"
        ),
        None,
    )
    unread, total = unreadable(log)
    parts = [f"accuracy {accuracy:.2f}" if accuracy is not None else "no accuracy"]
    if total:
        parts.append(f"agents' answers unreadable: {unread} of {total} ({unread / total:.0%})")
    return "; ".join(parts)


def unreadable(log: Path) -> tuple[int, int]:
    """Of the agents' answers in a log's debate records, how many had no readable answer (after
    the follow-ups), and how many there were."""
    from inspect_ai.log import read_eval_log

    from .._inspect_sample import STORE_KEY
    from ..engine.records import DebateResult

    answers = [
        a
        for sample in read_eval_log(str(log)).samples or []
        if STORE_KEY in sample.store
        for a in DebateResult.from_dict(sample.store[STORE_KEY]).answers
    ]
    return sum(a.answer is None for a in answers), len(answers)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mad-local", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("path", help="assemble the GGUF (once) and print its path")
    p_serve = sub.add_parser(
        "serve", help="start the server in the background, proved by one completion (idempotent)"
    )
    p_serve.add_argument("--port", type=int, help="default: a free port")
    p_serve.add_argument(
        "--chat-format",
        help="transcript (default, suits the base model) or a llama-cpp-python chat format, e.g. gemma",
    )  # fmt: skip
    sub.add_parser("status", help="the running server: pid, URL, users, log")
    sub.add_parser("stop", help="stop the server, whoever uses it")
    p_demo = sub.add_parser(
        "demo", help="serve, run a debate eval offline, stop; extra arguments go to inspect eval"
    )
    p_demo.add_argument("--limit", type=int, default=5)
    p_demo.add_argument("--solver", default="du_debate")
    p_demo.add_argument("--log-dir", default="logs/demo")
    p_demo.add_argument("--max-tokens", type=int, default=128)
    args, extra = parser.parse_known_args(argv)
    if extra and args.command != "demo":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")

    try:
        if args.command == "path":
            print(gguf_path())
        elif args.command == "serve":
            server = serve(args.port, args.chat_format)
            print(("started " if server.started else "already running: ") + inspect_hint(server))
        elif args.command == "status":
            print(status())
        elif args.command == "stop":
            print("stopped" if stop() else "no server was running")
        else:
            return demo(args.limit, args.solver, args.log_dir, args.max_tokens, extra)
    except ServerError as e:  # a server that will not start, died, or conflicts: no traceback
        print(f"mad-local: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
