"""Every method of the issue's list under each of Inspect's token, cost and time limits, set to
half of what its full run takes on madsim: every sample is scored, the record names the limit and
where it stopped, the method's own rule decided, and no figure is NaN (engine/limits.py)."""

from __future__ import annotations

import gc
import math
from collections.abc import Callable, Iterator

import pytest
from inspect_ai import Task
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ModelCost, ModelInfo, get_model, set_model_info
from testdata import FIXTURES, MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks import solvers
from mad_tasks.engine.protocols.d3 import judge_gap, side_of
from mad_tasks.engine.records import DebateResult
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.paper_compare import paper_compare
from mad_tasks.tasks.project_dedup import project_dedup
from mad_tasks.tasks.strategyqa import strategyqa

TASKS: dict[str, Callable[[], Task]] = {
    "du_debate": lambda: strategyqa(data_path=str(STRATEGYQA)),
    "voting": lambda: strategyqa(data_path=str(STRATEGYQA)),
    "consensus": lambda: strategyqa(data_path=str(STRATEGYQA)),
    "cortex": lambda: strategyqa(data_path=str(STRATEGYQA)),
    "more": lambda: mt_bench_judge(data_path=str(MT_BENCH_PAIRS)),
    "samre": lambda: mt_bench_judge(data_path=str(MT_BENCH_PAIRS)),
    "tree_of_debate": lambda: paper_compare(
        data_path=str(FIXTURES / "paper_compare" / "pairs.tsv")
    ),
    "pd3": lambda: project_dedup(data_path=str(FIXTURES / "pd3")),
}
# long enough a debate for a limit to fall inside it
OPTIONS: dict[str, dict[str, object]] = {"du_debate": {"rounds": 4}, "samre": {"max_rounds": 4}}
PRICED = "madsim/priced"
LATENCY = 0.4  # seconds per call in the time-limit runs


@pytest.fixture(scope="module")
def priced() -> Iterator[None]:
    set_model_info(PRICED, ModelInfo(cost=ModelCost(
        input=1.0, output=2.0, input_cache_write=1.0, input_cache_read=0.5)))  # fmt: skip
    yield


def record(sample: EvalSample) -> DebateResult:
    return DebateResult.from_dict(sample.store["mad_tasks:debate"])


def one(run, method: str, model: object, **limits: object) -> tuple[EvalLog, EvalSample]:
    solver = getattr(solvers, method)(**OPTIONS.get(method, {}))
    log = run(TASKS[method](), solver=solver, model=model, limit=1, **limits)
    [sample] = log.samples
    return log, sample


def assert_decided_from_what_was_complete(
    log: EvalLog, sample: EvalSample, method: str, kind: str, full: DebateResult
) -> DebateResult:
    assert sample.error is None and sample.limit is None  # the sample went on to be scored
    result = record(sample)
    assert result.stopped is not None, method
    assert result.stopped.kind == kind and result.stopped.where and result.stopped.decided
    assert len(result.calls) < len(full.calls)
    assert sample.scores["calls"].value == len(result.calls)
    assert sample.scores["calls"].metadata["stopped"]["kind"] == kind
    # the sample's label says what cut it, and how many rounds ran, for `tag` and `report`
    label, rounds = sample.scores["mad_tasks/method"], sample.scores["rounds"].value
    assert label.metadata == {"stopped": kind, "rounds": rounds} and rounds == result.rounds
    ran = f"{rounds} round{'' if rounds == 1 else 's'} ran"
    assert str(label.value).endswith(f" (cut by {kind} limit: {ran})"), label.value
    assert log.results is not None
    for score in log.results.scores:  # every figure scored (the cost too: the model is priced)
        for metric in score.metrics.values():
            assert not math.isnan(metric.value), (method, score.name)
    if method == "samre":  # the judge's scores of the complete rounds, no jury
        [hearing] = result.record.hearings
        assert hearing.jury == []
        assert (hearing.stop_reason == "limit") == (result.stopped.where != "the jury")
        assert result.final == side_of(judge_gap([e.scores for e in hearing.evaluations]))
    if method == "tree_of_debate":  # the summary is a call: no answer, the tree so far kept
        assert result.final is None and result.record.nodes
    if method == "pd3" and result.final is not None:  # the finished groups voted
        assert 0 < len(result.record.groups) < len(full.record.groups)
    return result


@pytest.mark.parametrize("method", list(TASKS))
@pytest.mark.parametrize("kind", ["token", "cost"])
def test_a_spending_limit_ends_the_debate_not_the_sample(run, priced, method, kind) -> None:
    _, sample = one(run, method, PRICED)
    full = record(sample)
    assert full.stopped is None
    spent = sum(u.total_tokens for u in sample.model_usage.values())
    dollars = sum(u.total_cost or 0 for u in sample.model_usage.values())
    limit = {"token_limit": spent // 2} if kind == "token" else {"cost_limit": dollars / 2}
    log, cut = one(run, method, PRICED, **limit)
    result = assert_decided_from_what_was_complete(log, cut, method, kind, full)
    # the record's tokens and dollars are Inspect's: the reply that passed the limit included
    assert sum(c.tokens or 0 for c in result.calls) == sum(
        u.total_tokens for u in cut.model_usage.values()
    )
    assert cut.scores["cost"].value == pytest.approx(
        sum(u.total_cost or 0 for u in cut.model_usage.values())
    )


@pytest.mark.slow
@pytest.mark.parametrize("method", list(TASKS))
def test_a_time_limit_ends_the_debate_not_the_sample(run, priced, method) -> None:
    model = get_model(PRICED, latency=LATENCY)
    _, sample = one(run, method, model)
    full = record(sample)
    assert sample.total_time is not None
    limit = max(1, int(sample.total_time / 2))
    # the suite's earlier objects out of the collector's way: late in the suite a full collection
    # over them is a pause of the test process longer than a 1 s limit's 0.3 s reserve
    gc.collect()
    gc.freeze()
    try:
        log, cut = one(run, method, model, time_limit=limit)
    finally:
        gc.unfreeze()
    # Inspect's own deadline would set `cut.limit`: the debate stopped before it (checked there)
    assert_decided_from_what_was_complete(log, cut, method, "time", full)


@pytest.mark.parametrize(
    ("limit", "kind"),
    [
        # round 2's calls send 3 messages (the question, the agent's answer, the others'): refused
        ({"message_limit": 3}, "message"),
        # the 4th generation passes 3 turns: round 2 is cut as it began
        ({"turn_limit": 3}, "turn"),
    ],
)
def test_a_message_or_turn_limit_ends_du_debate_at_its_first_round(run, limit, kind) -> None:
    _, sample = one(run, "du_debate", "madsim/x", **limit)
    assert sample.error is None and sample.limit is None
    result = record(sample)
    assert result.stopped is not None and result.stopped.kind == kind
    assert (result.stopped.where, result.stopped.decided) == ("round 2", "the vote of round 1")
    assert result.rounds == 1 and result.final is not None


@pytest.mark.slow
def test_a_working_limit_ends_the_debate_while_a_call_is_in_flight(run) -> None:
    """Working time is looked at while calls are in flight: du_debate's round 2 (1.2 s a call)
    is cut, 0.3 s before the 2 s working limit, before Inspect's own limit would cancel the sample."""
    model = get_model("madsim/x", latency=1.2)
    _, sample = one(run, "du_debate", model, working_limit=2)
    assert sample.error is None and sample.limit is None
    result = record(sample)
    assert result.stopped is not None and result.stopped.kind == "working"
    assert (result.stopped.where, result.stopped.decided) == ("round 2", "the vote of round 1")
