"""`mad-local`'s server is known by its process, not by a timed probe: a busy server is reused,
never doubled; it is proved by one completion before anyone is told it started; it is shared by
its users and stops when the last one ends; an eval using it is stopped, with the server's log and
how it ended, when it dies. A stub stands in for llama.cpp's server (tests/slow_server_stub.py),
so these run without the `local` extra."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mad_tasks.models import local, local_server

TESTS = Path(__file__).parent
STUB = "slow_server_stub"


def stubs() -> list[int]:
    """The pids of the stub servers running now (zombies, which have ended, left out)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and STUB.encode() in (entry / "cmdline").read_bytes()
                and (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
            ):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.fixture
def slow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    if not Path("/proc").is_dir():
        pytest.skip("needs /proc to tell the stub's processes apart")
    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    )
    monkeypatch.setattr(local_server, "SERVER_MODULE", STUB)
    monkeypatch.setattr(local_server, "gguf_path", lambda: tmp_path / "model.gguf")
    before = set(stubs())
    yield
    for pid in set(stubs()) - before:
        local_server.stop_process(pid)


@pytest.fixture
def users():
    """Stand-ins for demo processes: each a live pid until the test ends it."""
    procs: list[subprocess.Popen] = []

    def new() -> subprocess.Popen:
        procs.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]))
        return procs[-1]

    yield new
    for proc in procs:
        proc.kill()
        proc.wait()


def test_a_busy_server_is_reused_and_stop_stops_it(slow) -> None:
    first = local_server.serve()
    assert first.started and first.pinned
    again = local_server.serve()  # the stub now answers only after 3 s, as while it generates
    assert (again.pid, again.port, again.started) == (first.pid, first.port, False)
    assert stubs() == [first.pid]
    assert local_server.stop() is True
    assert stubs() == []
    assert local_server.stop() is False  # nothing left to stop, and it says so


def test_two_serves_at_once_leave_one_server(slow) -> None:
    got: list[local_server.Server] = []
    threads = [threading.Thread(target=lambda: got.append(local_server.serve())) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({s.pid for s in got}) == 1 and sorted(s.started for s in got) == [False, True]
    assert stubs() == [got[0].pid]
    local_server.stop()


def test_two_demos_share_one_server_that_stops_when_the_last_ends(slow, users) -> None:
    a, b = users(), users()
    first = local_server.acquire(a.pid)
    second = local_server.acquire(b.pid)
    assert first.started and not second.started and first.pid == second.pid
    assert stubs() == [first.pid]
    assert local_server.running() == local_server.Server(
        first.pid, first.port, "transcript", first.log, [a.pid, b.pid], pinned=False
    )
    assert local_server.release(first, a.pid) is False  # the second demo still uses it
    assert stubs() == [first.pid]
    assert local_server.release(second, b.pid) is True
    assert stubs() == [] and local_server.running() is None


def test_a_user_that_died_without_leaving_does_not_keep_the_server(slow, users) -> None:
    a, b = users(), users()
    server = local_server.acquire(a.pid)
    local_server.acquire(b.pid)
    a.kill()
    a.wait()
    assert local_server.release(server, b.pid) is True
    assert stubs() == []


def test_a_served_server_outlives_its_last_demo(slow, users) -> None:
    demo = users()
    server = local_server.acquire(demo.pid)
    assert local_server.serve().pid == server.pid  # `mad-local serve` keeps it
    assert local_server.release(server, demo.pid) is False
    assert stubs() == [server.pid]
    assert "kept until `mad-local stop`" in local_server.status()
    local_server.stop()
    assert local_server.status() == "no server is running"


def test_a_server_that_dies_at_its_first_completion_is_never_said_to_have_started(
    slow, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("STUB_CRASH", "1")
    with pytest.raises(local_server.ServerError) as failed:
        local_server.serve()
    message = str(failed.value)
    assert (
        "ended with signal SIGSEGV (11) (Fatal Python error: Segmentation fault) at its first"
        in message
    )
    assert f"its log: {tmp_path / 'local' / 'server-'}" in message
    assert "Fatal Python error: Segmentation fault" in message  # the log's end
    assert stubs() == [] and local_server.running() is None
    assert local.main(["serve"]) == 1  # the command says so, without a traceback


INTERRUPTIBLE = (
    "import signal, sys, time\n"
    "def stop(*_):\n"
    "    open(sys.argv[1], 'w').write('interrupted'); sys.exit(130)\n"
    "signal.signal(signal.SIGINT, stop)\n"
    "time.sleep(120)\n"
)  # an eval that writes its log when interrupted, as Inspect does


@pytest.mark.parametrize("child", [True, False], ids=["started-here", "started-elsewhere"])
def test_an_eval_is_stopped_with_the_log_path_when_its_server_dies(
    slow, users, tmp_path: Path, child: bool
) -> None:
    server = local_server.acquire(users().pid)
    if not child:  # as a second demo sees it: no exit status, only the log's fault line
        local_server._children.pop(server.pid)
    marker = tmp_path / "eval.log"
    kill = signal.SIGKILL if child else signal.SIGSEGV
    threading.Timer(1.0, os.kill, (server.pid, kill)).start()
    with pytest.raises(local_server.ServerError) as failed:
        local_server.watch([sys.executable, "-c", INTERRUPTIBLE, str(marker)], server)
    assert marker.read_text() == "interrupted"  # the eval was stopped, its log written
    how = "signal SIGKILL (9)" if child else "Fatal Python error: Segmentation fault"
    assert how in str(failed.value)
    assert f"its log: {server.log}" in str(failed.value)
    assert "while the eval ran" in str(failed.value)


def test_the_demo_bounds_its_calls_and_leaves_the_server_when_it_dies(
    slow, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    seen: list[list[str]] = []

    def dies(cmd, server, env=None):
        seen.append(list(cmd))
        raise local_server.ServerError(f"the llama.cpp server died; its log: {server.log}")

    monkeypatch.setattr(local, "watch", dies)
    assert local.main(["demo", "--log-dir", str(tmp_path / "logs"), "--limit", "1"]) == 1
    [cmd] = seen
    at = {arg: cmd[i + 1] for i, arg in enumerate(cmd[:-1]) if arg.startswith("--")}
    assert (at["--max-retries"], at["--timeout"], at["--stop-seqs"]) == ("3", "600", "\n---")
    assert "its log:" in capsys.readouterr().err
    assert stubs() == [] and local_server.running() is None  # its last user left: stopped


@pytest.mark.parametrize(("unparseable", "unread"), [(0.0, 0), (1.0, 12)])
def test_the_demo_counts_the_unreadable_answers_of_its_log(run, unparseable, unread) -> None:
    from testdata import STRATEGYQA

    from mad_tasks.solvers import du_debate
    from mad_tasks.tasks.strategyqa import strategyqa

    log = run(strategyqa(data_path=str(STRATEGYQA)), solver=du_debate(retries=0),
              model="madsim/x", model_args={"unparseable": unparseable}, limit=2)  # fmt: skip
    assert local.unreadable(Path(log.location)) == (unread, 12)  # 2 questions x 3 agents x 2 rounds
