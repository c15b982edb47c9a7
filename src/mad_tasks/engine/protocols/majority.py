"""Plurality vote with a deterministic tie-break (Du et al. debate, self-consistency)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from ..records import Tally


def majority_vote(
    answers: Sequence[str | None],
    earlier: Sequence[Sequence[str | None]] = (),
    key: Callable[[str], str] = lambda a: a,
) -> Tally:
    """Plurality over `answers`; None is an abstention and never votes.

    A tie is never broken at random: the tied answer with more votes in the latest earlier round
    wins (rounds are tried from the most recent back); if that still ties, the tied answer given
    first in agent order wins. `tie` records that a tie-break was needed. `key` decides which answers
    count as the same; the winner is reported as its first spelling.
    """
    votes = [a for a in answers if a is not None]
    spelling: dict[str, str] = {}
    for a in votes:
        spelling.setdefault(key(a), a)
    counts = Counter(key(a) for a in votes)
    abstentions = len(answers) - len(votes)
    if not counts:
        return Tally(counts={}, winner=None, tie=False, abstentions=abstentions)
    top = max(counts.values())
    tied = [k for k in spelling if counts[k] == top]  # agent order
    tie = len(tied) > 1
    for past in reversed(earlier):
        if len(tied) == 1:
            break
        past_counts = Counter(key(a) for a in past if a is not None)
        best = max(past_counts[k] for k in tied)
        tied = [k for k in tied if past_counts[k] == best]
    return Tally(
        counts={spelling[k]: n for k, n in counts.items()},
        winner=spelling[tied[0]],
        tie=tie,
        abstentions=abstentions,
    )
