"""The custom metrics under `--epochs`: they see the scores the way an eval hands them over.

`run_metrics` and `assert_agreeing_epochs_change_nothing` (pytest-inspect-evals) replay per-epoch
scores through a real eval, the real epoch reducer and the metric registration. Inspect's reducer
keeps only the first epoch's metadata and averages the value, so the metrics that read a verdict
from the metadata or bin a turn see every epoch instead, each sample counting once with its epochs
sharing that weight: the golden values below are worked by hand in the comments, beside what the
first epoch alone and the raw epochs pooled would give.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import pytest_inspect_evals.metrics as replay
from inspect_ai import Task
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import CORRECT, INCORRECT, Metric, Score, accuracy, mean, stderr
from pytest_inspect_evals.metrics import assert_agreeing_epochs_change_nothing, run_metrics
from testdata import MT_BENCH_PAIRS
from testdata import STRATEGYQA as STRATEGYQA_DEV

from mad_tasks.engine.protocols.d3 import cohen_kappa as kappa
from mad_tasks.scorers.cortex_stats import NO_USAGE, cortex_stats
from mad_tasks.scorers.decision_stats import FIGURES as DECISION_FIGURES
from mad_tasks.scorers.decision_stats import ended_in_turn
from mad_tasks.scorers.judge_metrics import cohen_kappa, judgments, verbosity
from mad_tasks.scorers.judges import METRICS as DEBATE_JUDGE_METRICS
from mad_tasks.scorers.squad import by_split
from mad_tasks.solvers import cortex, more, single_judge
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.strategyqa import strategyqa

# judge_agreement's metrics, in its order
JUDGE_METRICS = [accuracy(), stderr(), cohen_kappa(), verbosity()]


def figure_metrics(name: str) -> list[Metric]:
    """A decision figure's metrics, as its scorer declares them: the mean, then its own."""
    [figure] = [f for f in DECISION_FIGURES if f.name == name]
    return [mean(), *figure.metrics]


@pytest.fixture(autouse=True)
def offline_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """The helpers run their eval on mockllm, whose default reply counts its tokens with tiktoken,
    which downloads its encoding: give the reply its usage, so nothing leaves the machine."""
    real = replay.inspect_eval

    def reply(*_: Any) -> ModelOutput:
        out = ModelOutput.from_content("mockllm", "-")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    def offline(task: Task, *, model: str, **kwargs: Any) -> list[EvalLog]:
        return real(task, model=get_model(model, custom_outputs=reply), **kwargs)

    monkeypatch.setattr(replay, "inspect_eval", offline)


def judged(verdict: str | None, gold: str, longer: str | None = "A", **stats: Any) -> Score:
    """A judge_agreement score as the scorer writes it: correct when the verdict is the label."""
    return Score(
        value=CORRECT if verdict == gold else INCORRECT,
        answer=verdict or "",
        metadata={"verdict": verdict, "abstained": verdict is None, "gold": gold, "longer": longer}
        | stats,
    )


def decided(turns: int, ties: int = 0, invalid_ballots: int = 0) -> dict[str, Score]:
    """The decision figures' scores of one debate that voted once per turn from turn 1, with three
    ballots per vote."""
    return {
        "turns": Score(value=turns, metadata={"max_turns": 3}),
        "ties": Score(value=ties, metadata={"votes": turns}),
        "invalid_ballots": Score(value=invalid_ballots, metadata={"ballots": 3 * turns}),
    }


def approx(values: dict[str, Any]) -> dict[str, Any]:
    return {k: pytest.approx(v) for k, v in values.items()}


# -- agreeing epochs change nothing -----------------------------------------------------------------

FIVE_JUDGMENTS = [
    judged("A", "A", "A", court_rounds=2, early_stop=1.0, court_tokens=100, position_consistent=True),
    judged("tie", "A", "B", court_rounds=3, early_stop=0.0, court_tokens=200, position_consistent=False),
    judged(None, "B", "B", court_rounds=1, early_stop=0.5, court_tokens=None, position_consistent=None),
    judged("A", "B", "A", court_rounds=2, early_stop=1.0, court_tokens=300, position_consistent=True),
    judged("tie", "tie", None, court_rounds=2, early_stop=None, court_tokens=400, position_consistent=True),
]  # fmt: skip


def test_judge_metrics_on_one_epoch() -> None:
    """The reference the agreeing-epochs check compares with, worked by hand."""
    found = run_metrics(JUDGE_METRICS, [[s] for s in FIVE_JUDGMENTS])
    assert found == approx(
        {
            "accuracy": 2 / 5,  # samples 1 and 5
            "stderr": math.sqrt(0.3 / 5),  # values 1 0 0 0 1: sample variance 0.3, n = 5
            # gold A A B B tie, verdicts A tie None A tie: p_o = 2/5; p_e = P(A)P(A) + P(tie)P(tie)
            # = 0.4 * 0.4 + 0.2 * 0.4 = 0.24 (no verdict is a class of its own, with no gold)
            "cohen_kappa": (0.4 - 0.24) / (1 - 0.24),
            # the pairs with a longer answer and a side won (samples 1 to 4): longer A B B A,
            # gold A A B B, verdicts A tie None A; people chose the shorter one in 2 and 4
            "judge_longer": 2 / 4,
            "human_longer": 2 / 4,
            "flip_rate": 1 / 2,  # 4 picked the longer answer, 2 did not
            "accuracy_longer_won": 1 / 2,  # 1 right, 3 abstained
            "accuracy_shorter_won": 0.0,
        }
    )


def test_agreeing_epochs_change_no_judge_metric() -> None:
    assert_agreeing_epochs_change_nothing(JUDGE_METRICS, FIVE_JUDGMENTS)


def test_agreeing_epochs_change_no_debate_judge_metric() -> None:
    """more_judge and samre_judge: a win 1, a tie 0.5, a loss or an abstention 0."""
    won = {"A": 1.0, "tie": 0.5, "B": 0.0, None: 0.0}
    scores = [s.model_copy(update={"value": won[s.answer or None]}) for s in FIVE_JUDGMENTS]
    found = run_metrics(DEBATE_JUDGE_METRICS, [[s] for s in scores])
    assert found == approx(
        {
            "mean": 3 / 5,
            "stderr": math.sqrt(0.175 / 5),  # values 1 .5 0 1 .5: sample variance 0.175
            "tie": 2 / 5,
            "abstained": 1 / 5,
            "position_consistent": 3 / 4,  # the abstention's is unknown
            "early_stop": 2.5 / 4,  # the fifth had no round limit
            "court_rounds": 10 / 5,
            "court_tokens": 1000 / 4,  # the third reported no usage
        }
    )
    assert_agreeing_epochs_change_nothing(DEBATE_JUDGE_METRICS, scores)


THREE_DEBATES = [decided(1), decided(3, ties=1, invalid_ballots=1), decided(3, 2, 2)]
# each decision figure with metrics of its own: its golden values over THREE_DEBATES
DECISION_GOLDEN = {
    "turns": {"mean": 7 / 3, "turn_1": 1 / 3, "turn_2": 0.0, "turn_3": 2 / 3},
    "ties": {"mean": 1.0, "tie_rate": 3 / 7},  # ties over votes: (0 + 1 + 2) / (1 + 3 + 3)
    "invalid_ballots": {"mean": 1.0, "invalid_ballot_rate": 3 / 21},
}


@pytest.mark.parametrize("figure", DECISION_GOLDEN)
def test_decision_metrics_on_one_epoch(figure: str) -> None:
    found = run_metrics(figure_metrics(figure), [[d[figure]] for d in THREE_DEBATES])
    assert found == approx(DECISION_GOLDEN[figure])


@pytest.mark.parametrize("figure", DECISION_GOLDEN)
def test_agreeing_epochs_change_no_decision_metric(figure: str) -> None:
    assert_agreeing_epochs_change_nothing(
        figure_metrics(figure), [d[figure] for d in THREE_DEBATES]
    )


# -- disagreeing epochs: each sample counts once -----------------------------------------------------


def test_kappa_is_computed_over_the_reduced_verdicts() -> None:
    """Each sample weighs 1, split among its epochs; kappa's observed agreement is the accuracy."""
    epochs = [
        [judged("A", "A"), judged("A", "A")],
        [judged("A", "A"), judged("B", "A")],
        [judged("B", "B"), judged("tie", "B")],
        [judged("A", "B"), judged("B", "B")],
    ]
    found = run_metrics([accuracy(), cohen_kappa(), judgments()], epochs)
    # per sample, the share of epochs agreeing with people: 1, 1/2, 1/2, 1/2, so p_o = 2.5/4.
    # gold: A 1/2, B 1/2; verdicts: A (1 + 1/2 + 1/2)/4 = 1/2, B (1/2 + 1/2 + 1/2)/4 = 3/8,
    # tie 1/8; p_e = 1/2 * 1/2 + 1/2 * 3/8 = 7/16; kappa = (5/8 - 7/16) / (9/16) = 1/3.
    # The first epoch alone (A A B A): p_o = 3/4, p_e = 1/2, kappa = 1/2; its tie rate 0.
    assert found == approx(
        {"accuracy": 5 / 8, "cohen_kappa": 1 / 3, "tie": 1 / 8, "abstained": 0.0}
    )


def test_kappa_without_a_labelled_pair_is_left_out_not_nan() -> None:
    unlabelled = Score(value=CORRECT, metadata={"verdict": "A", "gold": None})
    assert run_metrics([cohen_kappa()], [[unlabelled]]) == {}


def test_kappa_weighs_each_sample_once_not_each_epoch() -> None:
    """An epoch without a score (it failed) leaves its sample's weight to the others."""
    epochs = [
        [judged("A", "A"), Score.unscored(reason="the sample failed")],
        [judged("B", "B"), judged("A", "B")],
        [judged("B", "B"), judged("B", "B")],
    ]
    found = run_metrics([accuracy(), cohen_kappa()], epochs)
    # reduced: p_o = (1 + 1/2 + 1)/3 = 5/6; gold A 1/3, B 2/3; verdicts A (1 + 1/2)/3 = 1/2,
    # B 1/2; p_e = 1/3 * 1/2 + 2/3 * 1/2 = 1/2; kappa = (5/6 - 1/2) / (1/2) = 2/3.
    # The 5 raw epochs pooled: p_o = 4/5, p_e = 1/5 * 2/5 + 4/5 * 3/5 = 14/25, kappa = 6/11.
    assert found == approx({"accuracy": 5 / 6, "cohen_kappa": 2 / 3})


def test_mean_metrics_average_each_sample_over_its_epochs_first() -> None:
    a, b = "A", "B"
    epochs = [
        [
            judged(a, a, court_rounds=2, court_tokens=100, position_consistent=True),
            judged(None, a, court_rounds=4, court_tokens=None, position_consistent=None),
        ],
        [
            judged(a, b, court_rounds=1, court_tokens=200, position_consistent=False),
            judged(a, b, court_rounds=1, court_tokens=400, position_consistent=True),
        ],
    ]
    found = run_metrics([judgments(), verbosity()], epochs)
    assert found == approx(
        {
            # per sample 1 (the unknown one left out) and 1/2: 3/4. Raw epochs pooled: 2/3;
            # the first epoch alone: 1/2
            "position_consistent": (1 + 1 / 2) / 2,
            "abstained": (1 / 2 + 0) / 2,  # first epoch alone: 0
            "tie": 0.0,
            "court_rounds": (3 + 1) / 2,  # first epoch alone: 3/2
            "court_tokens": (100 + 300) / 2,  # raw pooled: 700/3; first epoch: 150
            # both pairs' longer answer is A; people chose it in the first only
            "judge_longer": (1 / 2 + 1) / 2,  # first epoch alone: 1
            "human_longer": 1 / 2,
            "flip_rate": 1.0,
            "accuracy_longer_won": 1 / 2,
            "accuracy_shorter_won": 0.0,
        }
    )


def test_ended_in_turn_bins_every_epoch() -> None:
    epochs = [[decided(1)["turns"], decided(3)["turns"]], [decided(2)["turns"]] * 2]
    found = run_metrics(figure_metrics("turns"), epochs)
    # the first sample ended in turn 1 once and turn 3 once: half a sample in each. Its mean
    # turn, 2, would put it wholly in turn 2 (and a mean of 2.5 in no turn at all)
    assert found == approx({"turn_1": 1 / 4, "turn_2": 2 / 4, "turn_3": 1 / 4, "mean": 2.0})
    assert run_metrics([ended_in_turn()], epochs) == approx(
        {"turn_1": 1 / 4, "turn_2": 2 / 4, "turn_3": 1 / 4}
    )


def test_tie_rate_averages_each_sample_over_its_epochs_first() -> None:
    """An epoch without a score (it failed) leaves its sample's weight to the others."""
    failed = Score.unscored(reason="the sample failed")
    epochs = [[decided(1)["ties"], decided(3, ties=3)["ties"]], [decided(3)["ties"], failed]]
    found = run_metrics(figure_metrics("ties"), epochs)
    # per sample, ties and votes over its epochs: 3/2 of 2, then 0 of 3; so 1.5 / (2 + 3).
    # The raw epochs pooled: 3/7; the first epoch alone: 0
    assert found == approx({"tie_rate": 1.5 / 5, "mean": (1.5 + 0) / 2})


# -- whole evals ----------------------------------------------------------------------------------


def figures(log: EvalLog) -> dict[str, float]:
    """Every figure's mean by its name (`tie`, `calls`), and every other metric by its own."""
    assert log.results is not None
    return {
        s.name if n == "mean" else n: m.value
        for s in log.results.scores
        for n, m in s.metrics.items()
    }


def test_epochs_of_a_judge_that_is_always_right_change_no_metric(run) -> None:
    """madsim draws anew each epoch; at accuracy 1 every draw agrees, so two epochs equal one."""
    task = mt_bench_judge(data_path=str(MT_BENCH_PAIRS), shuffle=True, seed=3, subset=6)
    solver, perfect = more(swap=True), {"accuracy": 1.0}
    once = run(task, solver=solver, model="madsim/x", model_args=perfect)
    twice = run(task, solver=solver, model="madsim/x", model_args=perfect, epochs=2)
    assert len(twice.samples) == 2 * len(once.samples) == 12
    found = figures(twice)
    assert found == figures(once)
    assert (found["accuracy"], found["cohen_kappa"], found["position_consistent"]) == (1, 1, 1)
    # two hearings (swap) of 15 calls: 3 advocates and a merge a side, the judge's feedback and
    # scores, 5 jurors
    assert (found["tie"], found["abstained"], found["calls"]) == (0, 0, 30)


def test_epochs_that_disagree_count_each_sample_once(run) -> None:
    """An erring judge over two epochs: the metrics average each pair's epochs, then the pairs."""
    task = mt_bench_judge(data_path=str(MT_BENCH_PAIRS), subset=6)
    log = run(task, solver=single_judge(swap=True), model="madsim/x", epochs=2, seed=1)
    by_pair: dict[str, list[dict[str, Any]]] = {}
    for sample in log.samples:
        by_pair.setdefault(str(sample.id), []).append(sample.scores["judge_agreement"].metadata)
    assert any(a["verdict"] != b["verdict"] for a, b in by_pair.values())  # the epochs disagree

    def share(hit: Any) -> float:
        return sum(sum(map(hit, epochs)) / 2 for epochs in by_pair.values()) / len(by_pair)

    found = figures(log)
    assert found["accuracy"] == pytest.approx(share(lambda m: m["verdict"] == m["gold"]))
    assert found["tie"] == pytest.approx(share(lambda m: m["verdict"] == "tie"))
    consistent = share(lambda m: m["position_consistent"])  # always known: no abstention here
    assert found["position_consistent"] == pytest.approx(consistent)
    judgments = [m for epochs in by_pair.values() for m in epochs]
    gold, verdicts = [m["gold"] for m in judgments], [str(m["verdict"]) for m in judgments]
    assert found["cohen_kappa"] == pytest.approx(kappa(gold, verdicts, [0.5] * len(judgments)))


def test_a_debate_without_token_usage_reports_no_tokens_not_zero(run) -> None:
    """A missing figure is unscored (NaN, with its reason), never 0 (nor a ratio of 1): the metrics
    and the epoch reducer leave it out."""
    base = strategyqa(data_path=str(STRATEGYQA_DEV), subset=2)
    scorers = cortex_stats()
    task = Task(dataset=base.dataset, setup=base.setup, solver=cortex(), scorer=scorers)
    log = run(task, model="madsim/x", model_args={"usage": False})
    for name in ("context_ratio", "full_mesh_input_tokens", "input_tokens_per_call"):
        assert all(math.isnan(s.scores[name].value) for s in log.samples)
        assert {s.scores[name].reason for s in log.samples} == {NO_USAGE}
        [found] = [s for s in log.results.scores if s.name == name]
        assert (found.scored_samples, found.unscored_samples) == (0, 2)
    assert figures(log)["debate_rounds"] >= 0


def test_squad_splits_average_their_own_questions_over_reduced_epochs() -> None:
    """HasAns / NoAns read the sample's own `answerable` flag, the same in every epoch."""

    def scored(value: float, answerable: bool) -> Score:
        return Score(value=value, metadata={"answerable": answerable})

    split = [mean(), by_split()]
    # an answerable question right once and wrong once (reduced: 0.5), one always right, an
    # unanswerable one always wrong
    epochs = [
        [scored(1.0, True), scored(0.0, True)],
        [scored(1.0, True)] * 2,
        [scored(0.0, False)] * 2,
    ]
    assert run_metrics(split, epochs) == approx({"mean": 1.5 / 3, "HasAns": 0.75, "NoAns": 0.0})
    assert_agreeing_epochs_change_nothing(
        split, [scored(1.0, True), scored(0.0, True), scored(1.0, False)]
    )


def listed(overlap: int, k: int = 5) -> Score:
    """A retrieval_at_k score: Prec@k, with the overlap and k its metadata holds."""
    return Score(value=overlap / k, metadata={"overlap": overlap, "k": k})


def test_retrieval_metrics_count_each_sample_once() -> None:
    from mad_tasks.scorers.pd3 import hit_rate, match_at_k

    metrics = [mean(), stderr(), hit_rate(), match_at_k()]
    # sample 1: 5 gold ids, then 3 in its second epoch; sample 2: 0; sample 3: 2
    epochs = [[listed(5), listed(3)], [listed(0), listed(0)], [listed(2), listed(2)]]
    found = run_metrics(metrics, epochs)
    assert found["hit_rate"] == pytest.approx(
        2 / 3
    )  # samples 1 and 3 list a gold id in every epoch
    # match_4 and match_5: only sample 1's first epoch, worth half of its weight
    assert [found[f"match_{i}"] for i in range(1, 6)] == pytest.approx(
        [2 / 3, 2 / 3, 1 / 3, 1 / 6, 1 / 6]
    )
    assert found["mean"] == pytest.approx(
        (0.8 + 0.0 + 0.4) / 3
    )  # each sample's mean over its epochs
    assert_agreeing_epochs_change_nothing(metrics, [listed(5), listed(0), listed(2)])


def on(dataset: str, value: float) -> Score:
    """A longbench_score: the dataset's metric, with the dataset its metadata names."""
    return Score(value=value, metadata={"dataset": dataset})


def test_longbench_means_average_each_sample_s_epochs_then_datasets_then_categories() -> None:
    from mad_tasks.scorers.longbench import longbench_means

    metrics = [mean(), longbench_means()]
    # narrativeqa's sample: epochs 1 and 0 -> 0.5; qasper's: 1 -> single-doc QA (0.5 + 1) / 2;
    # gov_report's two samples: 0.2 and 0.4 -> summarization 0.3; M-Avg over the two categories
    epochs = [
        [on("narrativeqa", 1.0), on("narrativeqa", 0.0)],
        [on("qasper", 1.0), on("qasper", 1.0)],
        [on("gov_report", 0.2), on("gov_report", 0.2)],
        [on("gov_report", 0.4), on("gov_report", 0.4)],
    ]
    found = run_metrics(metrics, epochs)
    assert found == approx(
        {
            "mean": (0.5 + 1.0 + 0.2 + 0.4) / 4,
            "single_doc_qa": 0.75,
            "summarization": 0.3,
            "m_avg": (0.75 + 0.3) / 2,
        }
    )
    assert_agreeing_epochs_change_nothing(
        metrics, [on("narrativeqa", 0.5), on("qasper", 1.0), on("gov_report", 0.3)]
    )
