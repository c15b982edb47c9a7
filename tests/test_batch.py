"""`--batch` runs a debate through a provider's batch API: the concurrent calls of a round across
samples go into one batch, so du_debate over 20 samples takes exactly `rounds` batches, and every
sample is scored (offline, against OpenAI's batch endpoints on 127.0.0.1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import BatchConfig
from openai_batch_stub import OpenAIBatchStub
from testdata import MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks import solvers
from mad_tasks.solvers import du_debate
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.strategyqa import strategyqa

SAMPLES, AGENTS, ROUNDS = 20, 3, 3


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")


def test_du_debate_over_20_samples_takes_one_batch_per_round(tmp_path: Path) -> None:
    with OpenAIBatchStub(reply=lambda body: "Reasoned.\nANSWER: yes") as stub:
        [log] = eval(
            strategyqa(data_path=str(STRATEGYQA)),
            solver=du_debate(agents=AGENTS, rounds=ROUNDS),
            model="openai/gpt-4o-mini",
            model_base_url=stub.base_url,
            model_args={"responses_api": False},
            # a batch goes once a round's calls of every sample are in it (or after 30 s)
            batch=BatchConfig(size=SAMPLES * AGENTS, send_delay=30, tick=0.1),
            max_samples=SAMPLES,
            max_connections=SAMPLES * AGENTS,
            limit=SAMPLES,
            log_dir=str(tmp_path),
            display="none",
        )
        batches, requests = list(stub.batches), len(stub.requests)
    assert log.status == "success", log.error
    assert batches == [SAMPLES * AGENTS] * ROUNDS  # one batch turnaround per round
    assert requests == sum(batches)  # no call went around the batches
    assert len(log.samples or []) == SAMPLES
    for sample in log.samples or []:
        assert sample.error is None
        assert sample.scores["final_answer"].value in ("C", "I")
        assert sample.scores["calls"].value == AGENTS * ROUNDS


JUDGED = lambda: mt_bench_judge(data_path=str(MT_BENCH_PAIRS))  # noqa: E731
ANSWERED = lambda: strategyqa(data_path=str(STRATEGYQA))  # noqa: E731


@pytest.mark.parametrize(
    ("method", "task"),
    [
        ("voting", ANSWERED),
        ("consensus", ANSWERED),
        ("cortex", ANSWERED),
        ("reconcile", ANSWERED),
        ("on_demand", ANSWERED),  # asks for log-probabilities: the stub has none
        ("more", JUDGED),  # the stub's replies are no verdicts: read, followed up, abstained
        ("samre", JUDGED),
    ],
)
def test_every_method_runs_through_the_batches(tmp_path: Path, method: str, task) -> None:
    """A method of many dependent stages waits for one batch per stage; nothing goes around."""
    with OpenAIBatchStub(reply=lambda body: "Reasoned.\nANSWER: yes") as stub:
        [log] = eval(
            task(),
            solver=getattr(solvers, method)(),
            model="openai/gpt-4o-mini",
            model_base_url=stub.base_url,
            model_args={"responses_api": False},
            batch=BatchConfig(size=100, send_delay=0.2, tick=0.05),
            limit=2,
            log_dir=str(tmp_path),
            display="none",
        )
        requests, batched = len(stub.requests), sum(stub.batches)
    assert log.status == "success", log.error
    assert requests == batched > 0
    for sample in log.samples or []:
        assert sample.error is None and sample.scores["calls"].value > 0
