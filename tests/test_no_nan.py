"""Every figure is a number or absent, never NaN: every method of the catalogue on madsim, in a
plain run, at a token limit and at a time limit, has no NaN among the eval's results and no NaN
score in any sample (engine/limits.py: a limit ends a debate, never a sample)."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from inspect_ai import Task
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from testdata import FIXTURES, MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks import solvers
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.methods.d3.court import Pair
from mad_tasks.engine.methods.pd3.feedback import SidePair
from mad_tasks.engine.methods.pd3.query import Retrieval
from mad_tasks.engine.methods.tod.judge import GRADER
from mad_tasks.engine.methods.tod.papers import PaperPair
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.paper_compare import paper_compare
from mad_tasks.tasks.project_dedup import project_dedup
from mad_tasks.tasks.project_dup_pairs import project_dup_pairs
from mad_tasks.tasks.strategyqa import strategyqa

# the project's task for what each kind of method reads
TASKS: dict[type | None, Callable[[], Task]] = {
    None: lambda: strategyqa(data_path=str(STRATEGYQA)),
    Pair: lambda: mt_bench_judge(data_path=str(MT_BENCH_PAIRS)),
    PaperPair: lambda: paper_compare(data_path=str(FIXTURES / "paper_compare" / "pairs.tsv")),
    Retrieval: lambda: project_dedup(data_path=str(FIXTURES / "pd3")),
    SidePair: lambda: project_dup_pairs(data_path=str(FIXTURES / "pd3"), pairs=None),
}
LATENCY = 0.4  # seconds per call of the time-limited runs: a 1 s limit cuts a second stage
# the graders of paper_compare's scores answer at once: a time limit cuts the debate, not them
GRADERS = {GRADER: "madsim/x"}


def nans(log: EvalLog) -> list[str]:
    """Where the log holds a NaN: a metric of its results, a sample's score (a number, or a
    number inside a score's dict)."""
    assert log.results is not None and log.samples
    found = [
        f"results: {score.name} {name}"
        for score in log.results.scores
        for name, metric in score.metrics.items()
        if math.isnan(metric.value)
    ]
    for sample in log.samples:
        for name, score in sample.scores.items():
            value = score.value
            values = value.values() if isinstance(value, dict) else [value]
            if any(isinstance(v, float) and math.isnan(v) for v in values):
                found.append(f"sample {sample.id}: {name} ({score.reason})")
    return found


def one(run, method: str, model: object = "madsim/x", **limits: object) -> EvalLog:
    spec = CATALOGUE[method]
    roles = GRADERS if spec.reads is PaperPair else None
    return run(TASKS[spec.reads](), solver=getattr(solvers, method)(), model=model,
               model_roles=roles, limit=1, **limits)  # fmt: skip


def tokens(log: EvalLog) -> int:
    return sum(u.total_tokens for s in log.samples or [] for u in s.model_usage.values())


# one method of each kind of sample runs in the fast suite; the whole catalogue in the slow one
FAST = {"du_debate", "more", "tree_of_debate", "pd3", "pd3_feedback"}
EVERY_NAME = CATALOGUE.names()
EVERY = [pytest.param(m, marks=() if m in FAST else pytest.mark.slow) for m in EVERY_NAME]


@pytest.mark.parametrize("method", EVERY)
def test_no_figure_is_nan_in_a_plain_run_or_at_a_token_limit(run, method) -> None:
    """Plain, then at half the tokens the plain run spent (the whole sample's: its graders'
    too); a method that calls no model is run at a limit of 1 token."""
    plain = one(run, method)
    assert nans(plain) == []
    cut = one(run, method, token_limit=max(1, tokens(plain) // 2))
    assert nans(cut) == []


# single_stage ends before the limit; paper_compare's pairwise scores then run the two_stage
# baseline on the slow model within Inspect's scoring limit (half the time limit), which refuses
# its calls: no sample has a pairwise grade, and the results list those scorers with no mean
# (scorers/tod.py, `graded_mean`), where Inspect's own mean of no scores is NaN
@pytest.mark.slow
@pytest.mark.parametrize("method", EVERY_NAME)
def test_no_figure_is_nan_at_a_time_limit(run, method) -> None:
    log = one(run, method, get_model("madsim/x", latency=LATENCY), time_limit=1)
    assert nans(log) == []


def test_tree_of_debate_cut_before_its_relevance_filter_has_no_evidence_kept(run) -> None:
    """The two claims calls (about 1,400 tokens each, at once) pass a 2,000-token limit, so no
    segment is judged: `evidence_kept` is absent from the sample and the results (it was an
    unscored NaN), and the debate's other figures are numbers."""
    log = one(run, "tree_of_debate", token_limit=2000)
    [sample] = log.samples or []
    record = sample.store["mad_tasks:debate"]
    assert record["stopped"]["kind"] == "token"
    assert [c["agent"] for c in record["calls"]] == ["author_0", "author_1"]  # their claims
    assert "evidence_kept" not in sample.scores and "mad_tasks/evidence_kept" not in sample.scores
    assert log.results is not None
    assert "evidence_kept" not in {s.name for s in log.results.scores}
    assert sample.scores["nodes"].value == 0
    assert nans(log) == []


def test_a_run_without_a_price_lists_no_cost(run) -> None:
    """madsim/x has no price here: no `cost` in the results or the samples, never NaN."""
    log = one(run, "du_debate")
    assert log.results is not None
    assert "cost" not in {s.name for s in log.results.scores}
    assert all("cost" not in s.scores for s in log.samples or [])
    why = (log.samples or [])[0].scores["calls"].metadata["cost_unknown"]
    assert why.startswith("no price for the model of agent_1")
