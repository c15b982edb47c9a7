"""Adaptive stability detection (engine/stability.py, Hu et al. 2025): golden stop rounds on
constructed vote counts (stable early, stable after a change, bouncing, drifting, the paper's batch
form), the two-component fit against an independent brute-force likelihood grid, degenerate inputs,
and the refusal of every option's bad values."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest

from mad_tasks.engine.stability import (
    MixtureFit,
    StabilityOptions,
    StabilityTrace,
    debate_observations,
    fit_mixture,
    histogram,
    ks_statistic,
    trace_debate,
    trace_rounds,
)

DEFAULT = StabilityOptions()


def finite(trace: StabilityTrace) -> bool:
    figures: list[float] = []
    for r in trace.rounds:
        figures += [r.fit.weight, r.fit.low.alpha, r.fit.low.beta, r.fit.high.alpha]
        figures += [r.fit.high.beta, r.fit.log_likelihood, *r.fit.pmf(), *r.fit.cdf()]
        figures += [] if r.statistic is None else [r.statistic]
    return all(math.isfinite(x) for x in figures)


# -- the paper's defaults ------------------------------------------------------------------------


def test_defaults_are_the_papers_and_ours() -> None:
    assert (DEFAULT.threshold, DEFAULT.stable_rounds) == (0.05, 2)  # the paper
    assert DEFAULT.em_tolerance == 1e-6  # the paper's EM tolerance
    assert (DEFAULT.min_rounds, DEFAULT.window, DEFAULT.em_iterations) == (1, 3, 100)  # ours


# -- golden stop rounds inside one debate ----------------------------------------------------------


def test_unanimous_panel_stops_at_the_earliest_round_the_rule_allows() -> None:
    # round 1 has no statistic; rounds 2 and 3 are identical to their predecessors: stop at 3
    trace = trace_debate([5, 5, 5, 5, 5], 5)
    assert trace.stopped_at == 3 and trace.reason == "stable"
    assert trace.statistics == (None, 0.0, 0.0)
    assert [r.stable_streak for r in trace.rounds] == [0, 1, 2]
    assert [r.counts for r in trace.rounds] == [(5,), (5, 5), (5, 5, 5)]


@pytest.mark.parametrize(
    "options, stop",
    [
        (StabilityOptions(stable_rounds=1), 2),
        (StabilityOptions(stable_rounds=3), 4),
        (StabilityOptions(min_rounds=5), 5),
        (StabilityOptions(min_rounds=6), None),  # only five rounds were run
    ],
)
def test_the_earliest_stop_moves_with_the_options(options: StabilityOptions, stop: int) -> None:
    trace = trace_debate([4, 4, 4, 4, 4], 5, options)
    assert trace.stopped_at == stop
    assert trace.reason == ("stable" if stop else "rounds_exhausted")


def test_a_panel_that_settles_after_round_one_stops_once_the_window_forgets_it() -> None:
    # windows: (3) (3,5) (3,5,5) (5,5,5) (5,5,5) (5,5,5): round 4 still moves, 5 and 6 do not
    trace = trace_debate([3, 5, 5, 5, 5, 5, 5, 5, 5, 5], 5)
    assert trace.stopped_at == 6 and len(trace.rounds) == 6
    moved = trace.statistics[1:4]
    assert all(s is not None and s >= DEFAULT.threshold for s in moved)
    assert trace.statistics[4:] == (0.0, 0.0)


def test_a_round_that_moves_again_resets_the_streak() -> None:
    # round 5's window (2,3,3) matches round 4's (3,2,3): stable once; round 6 (3,3,3) moves again,
    # so the two stable rounds needed are 7 and 8 (without the reset the rule would stop at 7)
    trace = trace_debate([2, 3, 2, 3, 3, 3, 3, 3, 3, 3], 5)
    assert [r.stable_streak for r in trace.rounds] == [0, 0, 0, 0, 1, 0, 1, 2]
    assert trace.stopped_at == 8


@pytest.mark.parametrize(
    "counts",
    [
        [1, 4] * 5,  # a bouncing panel: the window never sees the same distribution twice in a row
        [0, 1, 2, 3, 4, 5, 4, 3, 2, 1],  # a drifting panel
    ],
)
def test_an_unstable_panel_never_stops_before_its_rounds_run_out(counts: list[int]) -> None:
    trace = trace_debate(counts, 5)
    assert trace.stopped_at is None and trace.reason == "rounds_exhausted"
    assert len(trace.rounds) == len(counts)
    assert all(r.stable_streak < DEFAULT.stable_rounds for r in trace.rounds)


def test_every_round_so_far_with_window_zero() -> None:
    assert debate_observations([1, 2, 3], 0) == [(1,), (1, 2), (1, 2, 3)]
    assert debate_observations([1, 2, 3], 2) == [(1,), (1, 2), (2, 3)]
    counts = [0, 0] + [5] * 8
    assert trace_debate(counts, 5).stopped_at == 7  # window 3: (5,5,5) from round 5
    # all rounds: the share of zeros falls 1, 2/3, 2/4, ... 2/8, so the statistic is the fall
    trace = trace_debate(counts, 5, StabilityOptions(window=0))
    assert trace.stopped_at == 8
    assert trace.statistics[1] == 0.0
    falls = [1 / 3, 1 / 6, 1 / 10, 1 / 15, 1 / 21, 1 / 28]
    assert trace.statistics[2:] == pytest.approx(falls, abs=1e-3)


# -- the paper's form: one count per sample of a batch, per round -----------------------------------


def test_batch_form_stops_when_the_batch_distribution_repeats() -> None:
    # 12 samples, 5 judges: the batch polarises over rounds 1-3, then holds (in another order)
    rounds = [
        [1, 2, 2, 3, 3, 3, 3, 4, 2, 3, 1, 4],
        [0, 1, 1, 3, 4, 4, 5, 5, 1, 4, 0, 5],
        [0, 0, 0, 5, 5, 5, 5, 5, 0, 5, 0, 5],
        [5, 0, 5, 0, 5, 5, 0, 5, 0, 5, 0, 5],
        [0, 5, 0, 5, 5, 5, 0, 5, 0, 5, 5, 0],
    ]
    trace = trace_rounds(rounds, 5)
    assert trace.stopped_at == 5
    statistics = trace.statistics
    assert statistics[0] is None and statistics[3:] == (0.0, 0.0)
    assert all(s is not None and s >= 0.05 for s in statistics[1:3])
    final = trace.rounds[-1].fit
    assert final.weight == pytest.approx(
        5 / 12, abs=1e-3
    )  # five samples all wrong, seven all right


# -- the fit: two components found, checked against a brute-force likelihood grid --------------------


def bb_pmf(n: int, alpha: float, beta: float) -> list[float]:
    """Beta-Binomial pmf by rising factorials (independent of the module's lgamma form)."""

    def rising(x: float, k: int) -> float:
        return math.prod(x + i for i in range(k))

    return [
        math.comb(n, s) * rising(alpha, s) * rising(beta, n - s) / rising(alpha + beta, n)
        for s in range(n + 1)
    ]


def test_bimodal_counts_give_both_components() -> None:
    n, weight = 8, 0.4
    low, high = bb_pmf(n, 2, 10), bb_pmf(n, 12, 2)
    mixture = [weight * a + (1 - weight) * b for a, b in zip(low, high)]
    counts = [s for s, p in enumerate(mixture) for _ in range(round(4000 * p))]
    shares = histogram(counts, n)
    fit = fit_mixture(counts, n)

    def loglik(w: float, a: list[float], b: list[float]) -> float:
        return sum(p * math.log(w * x + (1 - w) * y) for p, x, y in zip(shares, a, b) if p > 0)

    # brute force: weight, both means on a 0.05 grid, concentrations on a coarse ladder
    means = [i / 20 for i in range(1, 20)]
    components = [(m, bb_pmf(n, m * c, (1 - m) * c)) for m in means for c in (4, 8, 14, 30)]
    best = max(
        (loglik(w, a, b), w, ma, mb)
        for ma, a in components
        for mb, b in components
        if ma < mb
        for w in (i / 20 for i in range(1, 20))
    )
    assert fit.log_likelihood >= best[0] - 1e-9  # EM beats the grid
    assert fit.weight == pytest.approx(best[1], abs=0.05)
    assert fit.low.mean == pytest.approx(best[2], abs=0.05)
    assert fit.high.mean == pytest.approx(best[3], abs=0.05)
    # and lands on the mixture that made the counts
    assert fit.weight == pytest.approx(weight, abs=0.03)
    assert fit.low.mean == pytest.approx(2 / 12, abs=0.03)
    assert fit.high.mean == pytest.approx(12 / 14, abs=0.03)
    assert sum(fit.pmf()) == pytest.approx(1.0)


def test_the_fit_is_deterministic_and_label_free() -> None:
    counts = [0, 1, 0, 7, 6, 7, 7]
    assert fit_mixture(counts, 7) == fit_mixture(list(reversed(counts)), 7)
    fit = fit_mixture(counts, 7)
    assert fit.low.mean < fit.high.mean
    assert trace_debate([1, 4, 1, 4], 5) == trace_debate([1, 4, 1, 4], 5)


def test_ks_is_the_largest_cdf_gap_over_the_counts() -> None:
    none, all_ = fit_mixture([0], 4), fit_mixture([4], 4)
    gap = ks_statistic(none, all_)
    assert gap == max(abs(x - y) for x, y in zip(none.cdf(), all_.cdf()))
    assert 0.99 < gap <= 1.0
    assert ks_statistic(all_, none) == gap
    assert ks_statistic(none, none) == 0.0
    # different panel sizes: the smaller CDF is 1 past its n
    assert 0.0 <= ks_statistic(fit_mixture([3], 3), fit_mixture([5], 5)) <= 1.0


# -- degenerate inputs: no exception, no NaN -------------------------------------------------------


@pytest.mark.parametrize(
    "counts, n",
    [
        ([], 5),  # no rounds
        ([2], 5),  # one round
        ([0, 0, 0, 0], 5),  # all disagree
        ([1, 1, 1], 1),  # a panel of one
        ([0, 1, 0, 1, 0], 1),
        ([0, 0, 0], 0),  # no agents
        ([3, 3], -2),  # a nonsense panel size
        ([9, -3, 12, 2], 3),  # counts outside 0..n (clamped)
        ([True, "x", None, 2.5, 1], 3),  # not counts at all (dropped)
    ],
)
def test_degenerate_inputs(counts: list[Any], n: int) -> None:
    trace = trace_debate(counts, n)
    assert len(trace.rounds) == (trace.stopped_at or len(counts))
    assert finite(trace)
    assert all(s is None or 0.0 <= s <= 1.0 for s in trace.statistics)


def test_an_empty_round_is_the_uninformed_fit() -> None:
    fit = fit_mixture([], 4)
    assert isinstance(fit, MixtureFit) and fit.iterations == 0
    assert fit.pmf() == pytest.approx([0.2] * 5)  # BB(1, 1) is uniform over 0..n
    assert histogram([], 4) == (0.0,) * 5


# -- option refusals -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, name, bad, allowed",
    [
        ("threshold", "stop_threshold", 0, "a number > 0 and <= 1"),
        ("threshold", "stop_threshold", 1.5, "a number > 0 and <= 1"),
        ("threshold", "stop_threshold", float("nan"), "a number > 0 and <= 1"),
        ("stable_rounds", "stop_stable_rounds", 0, "an integer from 1 to 20"),
        ("stable_rounds", "stop_stable_rounds", 2.0, "an integer from 1 to 20"),
        ("min_rounds", "stop_min_rounds", 21, "an integer from 1 to 20"),
        ("min_rounds", "stop_min_rounds", True, "an integer from 1 to 20"),
        ("window", "stop_window", -1, "an integer from 0 to 20"),
        ("window", "stop_window", "3", "an integer from 0 to 20"),
        ("em_iterations", "stop_em_iterations", 0, "an integer from 1 to 1000"),
        ("em_tolerance", "stop_em_tolerance", 0.0, "a number > 0 and <= 1"),
        ("em_tolerance", "stop_em_tolerance", "tiny", "a number > 0 and <= 1"),
    ],
)
def test_each_option_refuses_its_bad_values(field: str, name: str, bad: Any, allowed: str) -> None:
    with pytest.raises(ValueError) as refused:
        replace(DEFAULT, **{field: bad})
    message = str(refused.value)
    assert f"'{name}'" in message and repr(bad) in message and allowed in message


def test_stable_means_strictly_under_the_threshold() -> None:
    statistic = trace_debate([2, 3], 5).statistics[1]
    assert statistic is not None and 0 < statistic < 1
    at = StabilityOptions(threshold=statistic, stable_rounds=1)
    assert trace_debate([2, 3], 5, at).stopped_at is None
    above = StabilityOptions(threshold=min(1.0, statistic * 1.001), stable_rounds=1)
    assert trace_debate([2, 3], 5, above).stopped_at == 2
