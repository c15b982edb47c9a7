"""The statistics as the log viewer shows them, asserted on the logs themselves.

The viewer shows a score whose value is a dict as one JSON column in its samples list across logs
(and its counts as decimals on a sample's Scoring tab), a metric named with the `mad_tasks/` prefix
beside Inspect's plain ones, and a NaN metric with nothing but "(0/n)" beside it. So every figure
is a score of its own, an int where it counts, named the same in the results, the samples and
every score's metadata; a figure a sample lacks carries the reason; and no metric row is wider
than a few columns. The logs cover every statistics family on the simulated model: StrategyQA
with `du_debate`, `voting` (+ `decision_stats`) and `cortex` (+ `cortex_stats`), MT-Bench pairs with
`more`, `samre` and `single_judge` with swap, a `samre_judge` grader, a paper pair with
`tree_of_debate` (+ `tree_stats` and the grader's scores), PD³'s retrieval and its feedback on pairs
(+ `pd3_stats`).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai._util.registry import registry_info, registry_lookup
from inspect_ai.log import EvalLog
from testdata import FIXTURES, MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks.engine.records import DEBATE_STATS
from mad_tasks.scorers.cortex_stats import cortex_stats
from mad_tasks.scorers.debate_stats import FIGURES as DEBATE_FIGURES
from mad_tasks.scorers.debate_stats import debate_stats
from mad_tasks.scorers.decision_stats import decision_stats
from mad_tasks.scorers.failures import ROUND_FIGURES, round_name
from mad_tasks.scorers.judge_metrics import judge_stats
from mad_tasks.scorers.judges import samre_judge
from mad_tasks.solvers import (
    cortex,
    du_debate,
    more,
    pd3,
    pd3_feedback,
    samre,
    single,
    single_judge,
    tree_of_debate,
    voting,
)
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.paper_compare import paper_compare
from mad_tasks.tasks.project_dedup import project_dedup
from mad_tasks.tasks.project_dup_pairs import project_dup_pairs
from mad_tasks.tasks.strategyqa import strategyqa

SCORERS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "scorers.md"
PAPER_PAIRS = FIXTURES / "paper_compare" / "pairs.tsv"
PD3 = FIXTURES / "pd3"  # 3 queries x 30 candidates, graded: 3 pairs of different levels
LIMITS = {"tree_of_debate": 1}  # samples per log where 3 would be slow (its judges and baseline)
ROUND_NAMES = {round_name(r, level) for r in range(1, ROUND_FIGURES) for level in ("agent", "vote")}
# the figures that are shares, ratios or means of a sample's parts; every other one counts
NOT_COUNTS = {
    "cost",  # dollars
    "edge_density",
    "context_ratio",
    "input_tokens_per_call",
    "input_tokens_per_agent",
    "answer_cosine",
    "early_stop",
    "evidence_kept",
    "calls_per_group",
    "pd3_score_a",
    "pd3_score_b",
    "correctness_change_per_round",
    *ROUND_NAMES,
}
METHOD = "mad_tasks/method"  # the method's label, a score the solvers write (no metrics)


def with_scorers(task: Task, scorers: list) -> Task:
    return Task(dataset=task.dataset, setup=task.setup, scorer=[*task.scorer, *scorers])


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    """One log per method, three samples each (or its LIMITS)."""
    sqa = lambda: strategyqa(data_path=str(STRATEGYQA))  # noqa: E731
    pairs = lambda: mt_bench_judge(data_path=str(MT_BENCH_PAIRS))  # noqa: E731
    judge = samre_judge(max_rounds=2, jurors=1)
    runs = {
        "du_debate": (sqa(), du_debate()),
        "voting": (with_scorers(sqa(), decision_stats()), voting()),
        "cortex": (with_scorers(sqa(), cortex_stats()), cortex(max_rounds=2)),
        "more": (pairs(), more()),
        "samre": (pairs(), samre()),
        "single_judge": (pairs(), single_judge(swap=True)),
        "samre_judge": (with_scorers(sqa(), [judge]), single()),
        "tree_of_debate": (paper_compare(data_path=str(PAPER_PAIRS)), tree_of_debate()),
        "pd3": (project_dedup(data_path=str(PD3)), pd3()),
        "pd3_feedback": (project_dup_pairs(data_path=str(PD3), pairs=None), pd3_feedback()),
    }
    out = tmp_path_factory.mktemp("logs")
    done = {}
    for name, (task, solver) in runs.items():
        limit = LIMITS.get(name, 3)
        [log] = eval(task, solver=solver, model="madsim/x", limit=limit, log_dir=str(out))
        assert log.status == "success" and log.results is not None, log.error
        done[name] = log
    return done


def figures(log: EvalLog) -> set[str]:
    """The figure scorers of a log: those with a `mean` metric of their own name."""
    assert log.results is not None
    return {s.name for s in log.results.scores if set(s.metrics) == {"mean"}}


def is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def test_no_score_value_is_a_dict_shown_as_one_column(logs: dict[str, EvalLog]) -> None:
    for log in logs.values():
        for sample in log.samples or []:
            for name, score in sample.scores.items():
                assert isinstance(score.value, (int, float, str)), (log.eval.solver, name)


def test_every_figure_that_counts_is_an_int(logs: dict[str, EvalLog]) -> None:
    seen = set()
    for log in logs.values():
        for name in figures(log) - NOT_COUNTS:
            values = [s.scores[name].value for s in log.samples or []]
            assert all(type(v) is int or is_nan(v) for v in values), (name, values)
            seen.add(name)
    assert seen >= {*DEBATE_STATS, "decision_success", "votes", "ties", "tie", "debate_rounds",
                    "nodes", "groups", "kth_votes", "pd3_samples"}  # fmt: skip


def test_every_nan_has_its_reason_in_the_log(logs: dict[str, EvalLog]) -> None:
    """A NaN metric comes from a figure that no sample has, each sample saying why; a metric of
    this package never reports NaN (it leaves out what it cannot compute)."""
    for log in logs.values():
        assert log.results is not None
        for s in log.results.scores:
            for metric, m in s.metrics.items():
                if not math.isnan(m.value):
                    continue
                assert metric == "mean" and s.unscored_samples == len(log.samples or []), (
                    s.name,
                    metric,
                )
                reasons = {sample.scores[s.name].reason for sample in log.samples or []}
                assert all(reasons), (s.name, reasons)
        for sample in log.samples or []:
            for name, score in sample.scores.items():
                assert not is_nan(score.value) or score.reason, (log.eval.solver, name)


def test_an_option_that_was_off_is_named_as_the_reason(logs: dict[str, EvalLog]) -> None:
    more_scores = logs["more"].samples[0].scores
    # a figure of a stage that was off is not listed; the judge's score says why it is not
    assert not {"position_consistent", "early_stop"} & set(more_scores)
    missing = more_scores["judge_agreement"].metadata["not_measured"]
    assert "swap is off" in missing["position_consistent"]
    assert "-S swap=true" in missing["position_consistent"]
    assert "no round limit" in missing["early_stop"]
    swapped = logs["single_judge"].samples[0].scores
    assert swapped["position_consistent"].value in (0, 1)
    # a grader's metric leaves an unmeasured figure out, and each score's metadata says why
    grader = logs["samre_judge"]
    [row] = [s for s in grader.results.scores if s.name == "samre_judge" and "tie" in s.metrics]
    assert "position_consistent" not in row.metrics and "early_stop" in row.metrics
    for sample in grader.samples or []:
        missing = sample.scores["samre_judge"].metadata["not_measured"]
        assert (
            set(missing) == {"position_consistent"}
            and "swap is off" in missing["position_consistent"]
        )


def test_one_name_per_statistic_on_every_screen(logs: dict[str, EvalLog]) -> None:
    """The results, the samples and the registry name each figure alike, with no package prefix;
    a figure's name in a score's metadata holds that figure's value."""
    for log in logs.values():
        assert log.results is not None
        names = {s.name for s in log.results.scores}
        for sample in log.samples or []:
            # a round's figures are absent where the debate ended before that round
            assert names - set(sample.scores) <= ROUND_NAMES
            assert set(sample.scores) - {METHOD} <= names
            for score in sample.scores.values():
                for key, value in (score.metadata or {}).items():
                    if key in figures(log) and value is not None:
                        figure = sample.scores[key].value
                        assert value == figure or (value is True and figure == 1), key
        for s in log.results.scores:
            assert "/" not in s.name and not any("/" in m.name for m in s.metrics.values())
        for name in figures(log):
            scorer = registry_lookup("scorer", f"mad_tasks/{name}")
            assert scorer is not None and registry_info(scorer).name == f"mad_tasks/{name}"


def test_no_row_of_metrics_is_wider_than_six_columns(logs: dict[str, EvalLog]) -> None:
    for log in logs.values():
        assert log.results is not None
        assert max(len(s.metrics) for s in log.results.scores) <= 6


def test_every_figure_says_what_it_counts_and_is_documented(logs: dict[str, EvalLog]) -> None:
    page = SCORERS_PAGE.read_text(encoding="utf-8")
    for log in logs.values():
        for name in figures(log):
            [explanation] = {
                s.scores[name].explanation for s in log.samples or [] if name in s.scores
            }
            assert explanation and explanation.endswith("."), name
            # a round's figure is documented once for every round
            documented = re.sub(r"^round_\d+_", "round_<r>_", name)
            assert f"`{documented}`" in page, name


def test_the_families_cover_their_records() -> None:
    # and `cost`: the host's price of the calls, not a count of the record
    assert sorted(f.name for f in DEBATE_FIGURES) == sorted([*DEBATE_STATS, "cost"])
    names = [registry_info(s).name for s in [*debate_stats(), *judge_stats()]]
    assert len(names) == len(set(names))
