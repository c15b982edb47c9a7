"""Paired comparison of two methods run on the same samples: the difference in mean score, a 95%
paired-bootstrap interval and McNemar's exact p.

Epochs are clustered by sample: each method's score of a sample is the mean over its epochs, and
the unit resampled and counted is the sample, never the epoch (epochs of one sample are not
independent draws). Of two runs the samples compared are those both scored.

- Difference: the mean over the samples of (A's score - B's score).
- Interval: the 2.5th and 97.5th percentiles (`numpy.quantile`, method `inverted_cdf`: each end
  is a resampled mean, never between two) of the mean difference over `RESAMPLES` resamples of
  the samples with replacement, drawn by `numpy.random.default_rng(SEED)`: the same logs give
  the same interval.
- McNemar's exact p: two-sided, the binomial test of the discordant samples, b (A better) against
  c (B better), at 1/2: min(1, 2 * sum_{k <= min(b, c)} C(b + c, k) / 2^(b + c)); 1 when no sample
  is discordant. With one epoch and right/wrong scores a sample is discordant when one method is
  right and the other wrong, McNemar's own test; with epochs it is the sign test of the per-sample
  mean differences, of which McNemar's is the one-epoch case.
- Significant: p < `ALPHA` (0.05).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

RESAMPLES = 10_000
SEED = 0
ALPHA = 0.05
LEVEL = 0.95

SampleId = str | int


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p of `b` and `c` discordant pairs (the binomial test at 1/2)."""
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be >= 0: got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2**n)


def bootstrap_interval(
    differences: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[float, float]:
    """The 95% percentile interval of the mean of `differences` (one per sample) over `resamples`
    resamples with replacement drawn with `seed`."""
    values = np.asarray(differences, dtype=float)
    if values.size == 0:
        raise ValueError("no samples to resample")
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, values.size, size=(resamples, values.size))].mean(axis=1)
    tail = (1 - LEVEL) / 2
    low, high = np.quantile(means, [tail, 1 - tail], method="inverted_cdf")
    return float(low), float(high)


def by_sample(scores: Mapping[SampleId, Sequence[float]]) -> dict[SampleId, float]:
    """Each sample's score: the mean over its epochs (samples without a score left out)."""
    return {sample: sum(v) / len(v) for sample, v in scores.items() if v}


@dataclass(frozen=True)
class Paired:
    """A's score minus B's over the `samples` both scored; `a_better`/`b_better` are McNemar's
    b and c (the samples where one method's score is the higher)."""

    samples: int
    difference: float
    low: float
    high: float
    a_better: int
    b_better: int
    p: float

    @property
    def significant(self) -> bool:
        return self.p < ALPHA


def paired(
    a: Mapping[SampleId, Sequence[float]],
    b: Mapping[SampleId, Sequence[float]],
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Paired | None:
    """A against B, each given as its scores per sample (one per epoch); None when no sample has
    a score of both."""
    mean_a, mean_b = by_sample(a), by_sample(b)
    common = sorted((s for s in mean_a if s in mean_b), key=lambda s: (str(type(s)), s))
    if not common:
        return None
    differences = [mean_a[s] - mean_b[s] for s in common]
    low, high = bootstrap_interval(differences, resamples, seed)
    a_better = sum(d > 0 for d in differences)
    b_better = sum(d < 0 for d in differences)
    return Paired(
        samples=len(common),
        difference=sum(differences) / len(common),
        low=low,
        high=high,
        a_better=a_better,
        b_better=b_better,
        p=mcnemar_exact(a_better, b_better),
    )
