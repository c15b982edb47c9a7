"""RECONCILE's decision rule (Chen, Saha and Bansal, 2023): a vote weighted by recalibrated
confidences.

Each agent's stated confidence p in [0, 1] is mapped to a weight f(p), the recalibration of the
paper's final-answer phase, as the authors' code computes it (`trans_confidence` in
dinobby/ReConcile `utils.py`, read for this module): 1.0 -> 1.0; [0.9, 1) -> 0.8; [0.8, 0.9) ->
0.5; (0.6, 0.8) -> 0.3; anything lower, 0.6 itself included, -> 0.1. The answer with the largest sum of
weights wins. Weights are summed in tenths, as integers, so sums compare exactly (0.1 + 0.1 + 0.1
ties 0.3 rather than beating it by a rounding error).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

# a reply with no readable confidence weighs as the lowest bin: the authors' code reads a missing
# confidence as 0.0, which maps to 0.1
MISSING_WEIGHT_TENTHS = 1


def weight_tenths(confidence: float | None) -> int:
    """f(p) in tenths: 10, 8, 5, 3 or 1; None (no readable confidence) weighs 1."""
    if confidence is None:
        return MISSING_WEIGHT_TENTHS
    if confidence >= 1.0:
        return 10
    if confidence >= 0.9:
        return 8
    if confidence >= 0.8:
        return 5
    if confidence > 0.6:
        return 3
    return 1


def recalibrate(confidence: float | None) -> float:
    """f(p): the weight of an answer stated with confidence p (None: unreadable)."""
    return weight_tenths(confidence) / 10


@dataclass(frozen=True)
class WeightedTally:
    """The confidence-weighted vote: each answer's summed weight (by its first spelling), the
    winner (None when every agent abstained), whether the lead was tied, and the abstentions."""

    weights: dict[str, float]
    winner: str | None
    tie: bool
    abstentions: int


def weighted_vote(
    answers: Sequence[str | None],
    confidences: Sequence[float | None],
    key: Callable[[str], str] = lambda a: a,
) -> WeightedTally:
    """The answer with the largest sum of recalibrated confidences. An abstention (None) never
    votes, whatever its confidence. A tie for the lead goes to the tied answer given first in
    agent order (the authors' code: the first key of a dict in agent order wins `max`); `tie`
    records it. `key` decides which answers count as the same."""
    if len(answers) != len(confidences):
        raise ValueError("one confidence per answer")
    spelling: dict[str, str] = {}
    tenths: dict[str, int] = {}
    for answer, confidence in zip(answers, confidences):
        if answer is None:
            continue
        k = key(answer)
        spelling.setdefault(k, answer)
        tenths[k] = tenths.get(k, 0) + weight_tenths(confidence)
    abstentions = sum(a is None for a in answers)
    if not tenths:
        return WeightedTally({}, None, False, abstentions)
    top = max(tenths.values())
    leaders = [k for k in tenths if tenths[k] == top]  # agent order
    return WeightedTally(
        weights={spelling[k]: t / 10 for k, t in tenths.items()},
        winner=spelling[leaders[0]],
        tie=len(leaders) > 1,
        abstentions=abstentions,
    )
