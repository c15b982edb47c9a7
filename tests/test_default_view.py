"""What a plain run shows with no scorer added and no re-scoring: whether the debate helped (the
transitions), the method's own figures and its costs, none of another method's, no NaN and, without
a price, no `cost`; and a method score per sample that tells apart runs differing by an option or
a bound role."""

from __future__ import annotations

import json
import math

import pytest
from inspect_ai.log import EvalLog
from testdata import FIXTURES, MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks import _inspect_sample, solvers
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.methods.d3.court import Pair
from mad_tasks.engine.methods.pd3.feedback import SidePair
from mad_tasks.engine.methods.pd3.query import Retrieval
from mad_tasks.engine.methods.tod.papers import PaperPair
from mad_tasks.engine.records import DebateResult
from mad_tasks.scorers.cortex_stats import FIGURES as CORTEX
from mad_tasks.scorers.debate_stats import FIGURES as COSTS
from mad_tasks.scorers.decision_stats import CHALLENGE_FIGURES
from mad_tasks.scorers.decision_stats import FIGURES as DECISION
from mad_tasks.scorers.failures import FLIP_FIGURES, round_name
from mad_tasks.scorers.judge_metrics import FIGURES as JUDGE
from mad_tasks.scorers.on_demand_stats import FIGURES as ON_DEMAND
from mad_tasks.scorers.transitions import FIGURES as TRANSITIONS
from mad_tasks.solvers import cortex, du_debate, more, on_demand, voting
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.paper_compare import paper_compare
from mad_tasks.tasks.project_dedup import project_dedup
from mad_tasks.tasks.project_dup_pairs import project_dup_pairs
from mad_tasks.tasks.strategyqa import strategyqa

METHOD = "mad_tasks/method"
ANSWERING = {f.name for f in TRANSITIONS} - {"first_verdict_correct"}
OWN = {
    "du_debate": set(),
    "voting": {f.name for f in DECISION} - {f.name for f in CHALLENGE_FIGURES},
    "cortex": {f.name for f in CORTEX},
    "on_demand": {f.name for f in ON_DEMAND},
}
EVERY_OWN = set().union(*OWN.values(), {f.name for f in JUDGE}, {f.name for f in CHALLENGE_FIGURES})
SOLVERS = {"du_debate": du_debate, "voting": voting, "cortex": cortex, "on_demand": on_demand}


def failing(rounds: int) -> set[str]:
    """The failure figures of a sample whose record holds `rounds` rounds of answers."""
    debated = {*FLIP_FIGURES, "correctness_change_per_round"} if rounds > 1 else set()
    by_round = {round_name(r, level) for r in range(1, rounds + 1) for level in ("agent", "vote")}
    return {"oracle_gap", *debated, *by_round}


def listed(log: EvalLog) -> set[str]:
    assert log.results is not None
    return {s.name for s in log.results.scores}


def no_nan(log: EvalLog) -> None:
    """No figure's metric is NaN. `madsim/x` has no price here: a sample that called it has no
    `cost` (never 0, never NaN), and its `calls` says why; one without a model call spent $0."""
    assert log.results is not None and log.samples
    for score in log.results.scores:
        for name, metric in score.metrics.items():
            assert not math.isnan(metric.value), (score.name, name)
    for sample in log.samples:
        if "cost" in sample.scores:  # bm25: no model call, nothing spent
            assert sample.scores["cost"].value == 0 == sample.scores["calls"].value
        elif "calls" in sample.scores:  # a sample with a debate record
            why = sample.scores["calls"].metadata["cost_unknown"]
            assert why.startswith("no price for the model of "), why


@pytest.mark.parametrize("method", list(OWN))
def test_a_plain_run_lists_the_transitions_its_own_figures_and_costs_only(run, method) -> None:
    log = run(strategyqa(data_path=str(STRATEGYQA)), solver=SOLVERS[method](), model="madsim/x")
    want = {"final_answer", *ANSWERING, *OWN[method], *(f.name for f in COSTS)} - {"cost"}
    assert log.samples
    # the failure figures of the rounds each sample's record holds (cortex and on_demand stop early)
    failures = {s.id: failing(int(s.scores["rounds"].value)) for s in log.samples}
    assert listed(log) == want.union(*failures.values())
    assert not (listed(log) & (EVERY_OWN - OWN[method]))  # no figure of another method
    no_nan(log)
    for sample in log.samples:  # each sample: the figures of its run, and the run's label
        assert set(sample.scores) == want | failures[sample.id] | {METHOD}
        assert sample.scores[METHOD].value == method


def test_a_judge_run_shows_its_first_and_final_verdicts_and_no_figure_of_what_was_off(run) -> None:
    log = run(mt_bench_judge(data_path=str(MT_BENCH_PAIRS), subset=3), solver=more(),
              model="madsim/x")  # fmt: skip
    names = listed(log)
    assert {
        "judge_agreement",
        "first_verdict_correct",
        "final_correct",
        "tie",
        "abstained",
    } <= names
    # no swap: no position consistency; no round limit: no early stop; no answers: no majority
    assert (
        not {"position_consistent", "early_stop", "first_majority_correct", "agent_fixes"} & names
    )
    no_nan(log)


@pytest.mark.parametrize(
    ("options", "roles", "label"),
    [
        ({"agents": 4}, None, "du_debate agents=4"),
        ({}, {"agent_3": "madsim/y"}, "du_debate agent_3=madsim/y"),
        ({"agents": 3}, None, "du_debate"),  # the default, given: the same run as plain du_debate
    ],
)
def test_runs_that_differ_by_an_option_or_a_role_have_different_method_scores(
    run, options, roles, label
) -> None:
    log = run(strategyqa(data_path=str(STRATEGYQA)), solver=du_debate(**options),
              model="madsim/x", model_roles=roles, limit=2)  # fmt: skip
    assert {s.scores[METHOD].value for s in log.samples or []} == {label}


# the project's task for what each kind of method reads
TASKS = {
    None: lambda: strategyqa(data_path=str(STRATEGYQA)),
    Pair: lambda: mt_bench_judge(data_path=str(MT_BENCH_PAIRS)),
    PaperPair: lambda: paper_compare(data_path=str(FIXTURES / "paper_compare" / "pairs.tsv")),
    Retrieval: lambda: project_dedup(data_path=str(FIXTURES / "pd3")),
    SidePair: lambda: project_dup_pairs(data_path=str(FIXTURES / "pd3"), pairs=None),
}


@pytest.mark.parametrize("method", CATALOGUE.names())
def test_no_method_shows_a_nan_in_a_plain_run_and_its_record_reads_back_as_written(
    run, method, monkeypatch
) -> None:
    """The figures are scored from the record the solver kept in memory (not parsed back from the
    store): that is only right if parsing the stored JSON gives that same record."""
    kept: list[tuple[object, object]] = []
    remember = _inspect_sample._remember
    monkeypatch.setattr(
        _inspect_sample, "_remember", lambda s, r: (kept.append((s, r)), remember(s, r))
    )
    spec = CATALOGUE[method]
    log = run(TASKS[spec.reads](), solver=getattr(solvers, method)(), model="madsim/x", limit=3)
    no_nan(log)
    assert len(kept) >= 3
    for stored, result in kept:
        assert DebateResult.from_dict(json.loads(json.dumps(stored))) == result
