"""Adaptive stability detection (Hu et al., "Multi-Agent Debate for LLM Judges with Adaptive
Stability Detection", NeurIPS 2025, arXiv 2510.12697): stop a debate once the distribution of its
panel's agreement stops moving.

Each round gives a count: how many of the `n` agents hold the answer being tracked (the paper: how
many judges are correct). The counts of a round are modelled as a mixture of two Beta-Binomial
distributions, fitted by EM; the Kolmogorov-Smirnov statistic between the fitted distributions of
consecutive rounds measures how much the round changed; the debate stops once that statistic is
under a threshold for a number of consecutive rounds. docs/adaptive-stopping.md says where each
default comes from and what we chose where the paper says nothing.

Pure functions and frozen records, no randomness: the same counts always give the same trace. The
readers never raise and never return NaN, whatever the counts (empty, out of range, n = 0 or 1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .checks import integer, number
from .records import AdaptiveStopRecord, StabilityRound

# Bounds of the fitted parameters (our choice: the paper gives none). A Beta-Binomial fitted to
# counts that never vary wants an infinite concentration; the cap keeps every figure finite.
MIN_SHAPE = 0.05  # alpha and beta of each component
MAX_CONCENTRATION = 1000.0  # alpha + beta of each component
MEAN_MARGIN = 1e-3  # a component's mean rate stays in [margin, 1 - margin]
GOLDEN_STEPS = 30  # golden-section steps of the concentration search (interval shrinks 0.618^30)
MAX_STABLE_ROUNDS = 20  # caps of the options: engine/options.py allows at most 20 rounds
MAX_WINDOW = 20
MAX_EM_ITERATIONS = 1000

Reason = Literal["stable", "rounds_exhausted"]


@dataclass(frozen=True)
class StabilityOptions:
    """The rule's parameters, each checked on construction (a ValueError naming the option, the
    value and what is allowed).

    threshold: stop when the KS statistic is strictly under it (paper: 0.05).
    stable_rounds: how many consecutive rounds must be under the threshold (paper: 2).
    min_rounds: never stop before this round (paper: none, so 1).
    window: inside one debate, how many of the latest rounds' counts each round's fit sees;
        0 means every round so far (ours: 3; the paper fits a fresh batch of samples per round).
    em_iterations: cap on EM iterations per fit (ours).
    em_tolerance: EM stops once the log-likelihood gains less than this (paper: 1e-6).
    """

    threshold: float = 0.05
    stable_rounds: int = 2
    min_rounds: int = 1
    window: int = 3
    em_iterations: int = 100
    em_tolerance: float = 1e-6

    def __post_init__(self) -> None:
        number("stop_threshold", self.threshold, 0, 1, above=True)
        integer("stop_stable_rounds", self.stable_rounds, 1, MAX_STABLE_ROUNDS)
        integer("stop_min_rounds", self.min_rounds, 1, MAX_STABLE_ROUNDS)
        integer("stop_window", self.window, 0, MAX_WINDOW)
        integer("stop_em_iterations", self.em_iterations, 1, MAX_EM_ITERATIONS)
        number("stop_em_tolerance", self.em_tolerance, 0, 1, above=True)


@dataclass(frozen=True)
class Component:
    """One Beta-Binomial component: its Beta prior on the agents' agreement rate."""

    alpha: float
    beta: float

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)


@dataclass(frozen=True)
class MixtureFit:
    """weight * BB(n, low) + (1 - weight) * BB(n, high); `low` has the smaller mean."""

    n: int
    weight: float
    low: Component
    high: Component
    log_likelihood: float  # per observation (the counts are fitted as proportions)
    iterations: int

    def pmf(self) -> tuple[float, ...]:
        """P(count = s) for s = 0..n."""
        low, high = _pmf(self.n, self.low), _pmf(self.n, self.high)
        return tuple(self.weight * a + (1 - self.weight) * b for a, b in zip(low, high))

    def cdf(self) -> tuple[float, ...]:
        """P(count <= s) for s = 0..n."""
        total, out = 0.0, []
        for p in self.pmf():
            total = min(1.0, total + p)
            out.append(total)
        return tuple(out)


@dataclass(frozen=True)
class RoundStability:
    """One round: the counts its fit saw, the fit, and the KS statistic against the previous
    round's fit (absent in the first round)."""

    round: int  # 1-based
    counts: tuple[int, ...]
    fit: MixtureFit
    statistic: float | None
    stable_streak: int  # consecutive rounds so far with the statistic under the threshold


@dataclass(frozen=True)
class StabilityTrace:
    """The rule applied to a debate's rounds: the statistic per round and where and why it
    stopped (`rounds_exhausted`: it never fired, the method's own rounds ran out)."""

    rounds: tuple[RoundStability, ...]
    stopped_at: int | None
    reason: Reason

    @property
    def statistics(self) -> tuple[float | None, ...]:
        return tuple(r.statistic for r in self.rounds)


# -- the Beta-Binomial mixture ---------------------------------------------------------------------


def _log_choose(n: int, s: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(s + 1) - math.lgamma(n - s + 1)


def _log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _log_pmf(n: int, c: Component, values: Sequence[int] | None = None) -> list[float]:
    """log BB(s; n, alpha, beta) = log C(n, s) + log B(s + alpha, n - s + beta) - log B(alpha, beta)
    for s in `values` (default 0..n)."""
    base = _log_beta(c.alpha, c.beta)
    return [
        _log_choose(n, s) + _log_beta(s + c.alpha, n - s + c.beta) - base
        for s in (range(n + 1) if values is None else values)
    ]


def _pmf(n: int, c: Component) -> list[float]:
    return [math.exp(x) for x in _log_pmf(n, c)]


def _log_add(a: float, b: float) -> float:
    top = max(a, b)
    return top + math.log(math.exp(a - top) + math.exp(b - top))


def _component(mean: float, concentration: float) -> Component:
    mean = min(1 - MEAN_MARGIN, max(MEAN_MARGIN, mean))
    concentration = min(MAX_CONCENTRATION, concentration)
    return Component(
        max(MIN_SHAPE, mean * concentration), max(MIN_SHAPE, (1 - mean) * concentration)
    )


def _fit_component(n: int, weights: Sequence[float]) -> Component | None:
    """The M-step for one component from its weighted histogram: the mean rate is the weighted
    mean count over n; the concentration maximises the weighted log-likelihood at that mean
    (golden-section search on its logarithm). None when the component has no weight."""
    total = sum(weights)
    if total <= 1e-12:
        return None
    mean = sum(w * s for s, w in enumerate(weights)) / (n * total)
    mean = min(1 - MEAN_MARGIN, max(MEAN_MARGIN, mean))
    lowest = math.log(MIN_SHAPE / min(mean, 1 - mean))
    highest = math.log(MAX_CONCENTRATION)

    seen = [s for s, w in enumerate(weights) if w > 0]

    def score(log_concentration: float) -> float:
        logs = _log_pmf(n, _component(mean, math.exp(log_concentration)), seen)
        return sum(weights[s] * x for s, x in zip(seen, logs))

    a, b = lowest, highest
    ratio = (math.sqrt(5) - 1) / 2
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = score(c), score(d)
    for _ in range(GOLDEN_STEPS):
        if fc >= fd:  # ties go to the lower concentration: deterministic
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = score(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = score(d)
    return _component(mean, math.exp((a + b) / 2))


def histogram(counts: Sequence[Any], n: int) -> tuple[float, ...]:
    """The proportion of counts at each value 0..n. Values that are not integers are dropped,
    values outside 0..n are clamped to it; no counts give the empty histogram (all zeros)."""
    n = max(0, n)
    bins = [0] * (n + 1)
    for c in counts:
        if isinstance(c, int) and not isinstance(c, bool):
            bins[min(n, max(0, c))] += 1
    total = sum(bins)
    return tuple(b / total if total else 0.0 for b in bins)


def fit_mixture(
    counts: Sequence[Any], n: int, options: StabilityOptions | None = None
) -> MixtureFit:
    """Fit the two-component Beta-Binomial mixture to `counts` (each in 0..n) by EM.

    Deterministic start (the paper's code is not public; a random start would make the stop rule
    irreproducible): the low component at the smallest observed count, the high one at the
    largest, concentration n + 2 each, weight 1/2. Each M-step takes the components' weighted mean
    rates and searches their concentrations (see `_fit_component`). No counts, or n = 0, give
    the fit of a panel with no information: both components uniform."""
    options = options or StabilityOptions()
    n = max(0, n)
    shares = histogram(counts, n)
    seen = [s for s, p in enumerate(shares) if p > 0]
    if n == 0 or not seen:
        flat = Component(1.0, 1.0)
        return MixtureFit(n, 0.5, flat, flat, 0.0, 0)
    start = n + 2.0
    low = _component((seen[0] + 0.5) / (n + 1), start)
    high = _component((seen[-1] + 0.5) / (n + 1), start)
    weight, previous, likelihood, done = 0.5, -math.inf, -math.inf, 0
    while done < options.em_iterations:
        done += 1
        log_low, log_high = _log_pmf(n, low, seen), _log_pmf(n, high, seen)
        # E-step: each observed value's probability of coming from the low component
        low_share, likelihood = [0.0] * (n + 1), 0.0
        for s, x, y in zip(seen, log_low, log_high):
            a = math.log(weight) + x if weight > 0 else -math.inf
            b = math.log(1 - weight) + y if weight < 1 else -math.inf
            total = _log_add(a, b)
            low_share[s] = math.exp(a - total) if a > -math.inf else 0.0
            likelihood += shares[s] * total
        if likelihood - previous < options.em_tolerance:
            break
        previous = likelihood
        # M-step
        weight = min(1.0, max(0.0, sum(p * r for p, r in zip(shares, low_share))))
        low = _fit_component(n, [p * r for p, r in zip(shares, low_share)]) or low
        high = _fit_component(n, [p * (1 - r) for p, r in zip(shares, low_share)]) or high
    if high.mean < low.mean:
        low, high, weight = high, low, 1 - weight
    return MixtureFit(n, weight, low, high, likelihood if math.isfinite(likelihood) else 0.0, done)


def ks_statistic(a: MixtureFit, b: MixtureFit) -> float:
    """The Kolmogorov-Smirnov statistic between two fitted count distributions: the largest
    difference of their CDFs over the counts 0..n (exact: the CDFs are step functions). Fits of
    different panel sizes are compared over the larger range (the smaller CDF is 1 past its n)."""
    fa, fb = a.cdf(), b.cdf()
    size = max(len(fa), len(fb))
    fa += (1.0,) * (size - len(fa))
    fb += (1.0,) * (size - len(fb))
    gap = max((abs(x - y) for x, y in zip(fa, fb)), default=0.0)
    return min(1.0, gap) if math.isfinite(gap) else 1.0


# -- the stop rule ---------------------------------------------------------------------------------


def trace_rounds(
    observations: Sequence[Sequence[Any]], n: int, options: StabilityOptions | None = None
) -> StabilityTrace:
    """The rule over rounds whose observations are given: round t's counts are
    `observations[t - 1]` (the paper's form: one count per sample of a batch). Round t (from the
    second) is stable when KS(fit_t, fit_{t-1}) < threshold; the debate stops at the first round
    t >= min_rounds that ends `stable_rounds` consecutive stable rounds."""
    options = options or StabilityOptions()
    rounds: list[RoundStability] = []
    streak = 0
    for index, counts in enumerate(observations, start=1):
        kept = tuple(c for c in counts if isinstance(c, int) and not isinstance(c, bool))
        fit = fit_mixture(kept, n, options)
        statistic = ks_statistic(rounds[-1].fit, fit) if rounds else None
        streak = streak + 1 if statistic is not None and statistic < options.threshold else 0
        rounds.append(RoundStability(index, kept, fit, statistic, streak))
        if streak >= options.stable_rounds and index >= options.min_rounds:
            return StabilityTrace(tuple(rounds), index, "stable")
    return StabilityTrace(tuple(rounds), None, "rounds_exhausted")


def debate_observations(counts: Sequence[Any], window: int = 0) -> list[tuple[Any, ...]]:
    """One debate's per-round counts as per-round observation sets: round t sees the counts of
    its latest `window` rounds (all rounds so far when window is 0)."""
    return [
        tuple(counts[max(0, t - window) if window else 0 : t]) for t in range(1, len(counts) + 1)
    ]


def trace_debate(
    counts: Sequence[Any], n: int, options: StabilityOptions | None = None
) -> StabilityTrace:
    """The rule inside one debate: `counts[t - 1]` is how many of the n agents held the tracked
    answer in round t. Each round's fit sees the counts of its window (see `debate_observations`)."""
    options = options or StabilityOptions()
    return trace_rounds(debate_observations(counts, options.window), n, options)


# -- what a method feeds it and keeps ---------------------------------------------------------------


def plurality_count(answers: Sequence[str | None]) -> int:
    """How many of a round's answers back its most-given answer (abstentions back none): the count
    a method without two fixed sides feeds the rule. It does not depend on which answer wins a
    tie."""
    support: dict[str, int] = {}
    for a in answers:
        if a is not None:
            support[a] = support.get(a, 0) + 1
    return max(support.values(), default=0)


def stops_now(counts: Sequence[int], n: int, options: StabilityOptions | None) -> bool:
    """Whether a method that stops adaptively (`options` set; None: it does not) ends its debate
    after the latest of `counts` (one per round so far)."""
    if options is None or not counts:
        return False
    return trace_debate(counts, n, options).stopped_at == len(counts)


def record(
    counts: Sequence[int], n: int, tracked: str, options: StabilityOptions | None
) -> AdaptiveStopRecord | None:
    """What the debate's record keeps of the rule over its rounds' `counts`: per round its count,
    the statistic and the streak, where the rule stopped and why (`rounds_exhausted`: it never
    fired); None without an adaptive stop."""
    if options is None:
        return None
    trace = trace_debate(counts, n, options)
    rows = tuple(
        StabilityRound(r.round, int(counts[r.round - 1]), r.statistic, r.stable_streak)
        for r in trace.rounds
    )
    return AdaptiveStopRecord(
        n=n,
        tracked=tracked,
        threshold=options.threshold,
        stable_rounds=options.stable_rounds,
        min_rounds=options.min_rounds,
        window=options.window,
        rounds=rows,
        stopped_at=trace.stopped_at,
        reason=trace.reason,
    )
