"""`mad-local`'s server is known by its process, not by a timed probe: a busy server is reused,
never doubled, and stopped exactly by the command that owns it. A slow stub stands in for
llama.cpp's server, so these run without the `local` extra."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from mad_tasks.models import local

TESTS = Path(__file__).parent
STUB = "slow_server_stub"


def stubs() -> list[int]:
    """The pids of the stub servers running now."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and STUB.encode() in (entry / "cmdline").read_bytes():
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
    monkeypatch.setattr(local, "SERVER_MODULE", STUB)
    monkeypatch.setattr(local, "gguf_path", lambda: tmp_path / "model.gguf")
    before = set(stubs())
    yield
    for pid in set(stubs()) - before:
        local.stop_process(pid)


def test_a_busy_server_is_reused_and_stop_stops_it(slow) -> None:
    first = local.serve()
    assert first.started
    again = local.serve()  # the stub now answers only after 3 s, as while it generates
    assert (again.pid, again.port, again.started) == (first.pid, first.port, False)
    assert stubs() == [first.pid]
    assert local.stop() is True
    assert stubs() == []
    assert local.stop() is False  # nothing left to stop, and it says so


def test_two_serves_at_once_leave_one_server(slow) -> None:
    got: list[local.Server] = []
    threads = [threading.Thread(target=lambda: got.append(local.serve())) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({s.pid for s in got}) == 1 and sorted(s.started for s in got) == [False, True]
    assert stubs() == [got[0].pid]
    local.stop()


def test_a_demo_stops_its_own_server_and_never_the_recorded_one(slow) -> None:
    shared = local.serve()
    port = local.free_port()
    own = local.Server(local.start_server(port).pid, port, "transcript", started=True)
    assert sorted(stubs()) == sorted([shared.pid, own.pid])
    assert local.stop(only=own) is True  # the demo's, which the record does not name
    assert stubs() == [shared.pid]
    assert local.running() == local.Server(shared.pid, shared.port, shared.chat_format)
    assert local.stop(only=own) is False  # already gone: the shared one stays
    assert stubs() == [shared.pid]
    local.stop()


@pytest.mark.parametrize(("unparseable", "unread"), [(0.0, 0), (1.0, 12)])
def test_the_demo_counts_the_unreadable_answers_of_its_log(run, unparseable, unread) -> None:
    from testdata import STRATEGYQA

    from mad_tasks.solvers import du_debate
    from mad_tasks.tasks.strategyqa import strategyqa

    log = run(strategyqa(data_path=str(STRATEGYQA)), solver=du_debate(retries=0),
              model="madsim/x", model_args={"unparseable": unparseable}, limit=2)  # fmt: skip
    assert local.unreadable(Path(log.location)) == (unread, 12)  # 2 questions x 3 agents x 2 rounds
