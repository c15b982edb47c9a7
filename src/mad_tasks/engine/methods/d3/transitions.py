"""A judge's correctness transition (`transitions.py` for answers): its first verdict against its
final one, both against the human label.

A judge's (MORE, SAMRE, single_judge) first verdict is the side the judge's round-1 scores favour
(MORE's `max_score` keeps each side's best round-1 total, as it does for its verdict), before any
later round or the jury; a peer discussion's (PRD) is the side its two reviews favour before any
discussion turn (their A votes minus their B votes). With swap both orders' first verdicts are
combined by the run's swap rule. Its final verdict is the judgment's.
An abstention (no readable verdict) is never right.
"""

from __future__ import annotations

from ...protocols.d3 import best_scores, side_of, swap_verdict
from ...records import DebateResult
from ...transitions import Transitions
from .records import REVIEW, Hearing, JudgeRecord


def first_verdict(hearing: Hearing) -> float | None:
    """The judge's round-1 gap (A minus B) in one hearing, or the reviews' votes for A minus
    those for B; None when round 1 was unscored or no review readable."""
    reviews = [v.vote for v in hearing.jury if v.persona == REVIEW]
    if reviews:
        readable = any(side is not None for side in reviews)
        return reviews.count("A") - reviews.count("B") if readable else None
    best = best_scores([e.scores for e in hearing.evaluations if e.round == 1])
    return None if best is None else best[0] - best[1]


def verdict_transitions(result: DebateResult, record: JudgeRecord, gold: str) -> Transitions:
    """A judge's first verdict against its final one, both against the human label `gold`."""
    gaps = [first_verdict(h) for h in record.hearings]
    first, tie = side_of(gaps[0]) if gaps else None, False
    reviewed = any(v.persona == REVIEW for h in record.hearings for v in h.jury)
    rule = "the two reviews" if reviewed else "the judge's round-1 scores"
    if len(gaps) == 2:  # swap: both orders, combined as the judgment combined them
        resolution = str(result.options.get("swap_resolution", "tie"))
        # an unscored order has no verdict, and then the combination abstains before any sum
        both = gaps[0] is not None and gaps[1] is not None
        gap_sum = gaps[0] - gaps[1] if both else None  # type: ignore[operator]
        first, consistent = swap_verdict(first, side_of(gaps[1]), gap_sum, resolution)
        tie = consistent is False
        rule += f" in both orders (swap_resolution={resolution})"
    return Transitions(
        first, first == gold, result.final, result.final == gold, tie, rule, agents=()
    )
