"""Voting rules of "Voting or Consensus?" (Kaesberg et al., 2025): read a ballot, tally, pick a winner.

Four prompted ballots over candidates indexed 0..N-1 (the index the ballot prompt shows):
- simple: one index;
- ranked: up to `max_ranks` distinct indices, best first; Borda points `min(max_ranks, N) - position`;
- cumulative: a JSON object {index: points}; the points sum to exactly `points` (or at most, with
  `allow_fewer`), none negative;
- approval: any number of indices; out-of-range ones are dropped, at least one must remain.

Every ballot becomes a points vector over the candidates; the unique highest total wins. A tie, or no
valid ballot at all, gives no winner (the debate then runs another turn): ties are never broken here.
Parsers read messy text ("I vote for solution 1.", "1, because ...", JSON inside prose) and return
None for a ballot that does not follow its rule, so the caller can re-prompt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

PROTOCOLS = ("simple", "ranked", "cumulative", "approval")
SIMPLE_PARSES = ("first_number", "all_digits")

# simple: an index; ranked/approval: indices in order; cumulative: points per candidate
Parsed = int | list[int]

_INT = re.compile(r"-?\d+")
_INDEX_RUN = re.compile(r"-?\d+(?:(?:\s*[,;>&/]\s*|\s+(?:and\s+|then\s+)?)-?\d+)*")
_BRACES = re.compile(r"\{[^{}]*\}")
_PAIR = re.compile(
    r"""["']?\s*(?:solution\s*)?(-?\d+)\s*["']?\s*:\s*["']?\s*(-?\d+(?:\.\d+)?)\s*["']?""",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class BallotRules:
    protocol: str
    candidates: int
    max_ranks: int = 5
    points: int = 10
    allow_fewer: bool = False
    simple_parse: str = "first_number"


@dataclass(frozen=True)
class VoteTally:
    totals: list[int]  # points per candidate index
    winner: int | None  # the unique top candidate, None on a tie or without valid ballots
    tie: bool  # two or more candidates share the top total (> 0)
    valid: int  # ballots that counted


def parse_ballot(text: str, rules: BallotRules) -> Parsed | None:
    """The ballot in `text` under `rules`, or None when it is missing or breaks the rule."""
    n = rules.candidates
    if rules.protocol == "simple":
        index = _simple_index(text, rules.simple_parse)
        return index if index is not None and 0 <= index < n else None
    if rules.protocol == "ranked":
        ranking = _first_index_run(text)
        ok = (
            ranking is not None
            and len(ranking) <= rules.max_ranks
            and len(set(ranking)) == len(ranking)
            and all(0 <= i < n for i in ranking)
        )
        return ranking if ok else None
    if rules.protocol == "approval":
        approved = _first_index_run(text)
        kept = list(dict.fromkeys(i for i in approved or [] if 0 <= i < n))
        return kept or None
    if rules.protocol == "cumulative":
        return _cumulative(text, rules)
    raise ValueError(
        f"unknown voting protocol {rules.protocol!r}: use one of {', '.join(PROTOCOLS)}"
    )


def ballot_points(ballot: Parsed, rules: BallotRules) -> list[int]:
    """What a valid ballot gives each candidate."""
    n = rules.candidates
    points = [0] * n
    if rules.protocol == "simple":
        points[ballot] = 1  # type: ignore[index]
    elif rules.protocol == "ranked":
        top = min(rules.max_ranks, n)
        for position, index in enumerate(ballot):  # type: ignore[arg-type]
            points[index] = top - position
    elif rules.protocol == "approval":
        for index in ballot:  # type: ignore[union-attr]
            points[index] = 1
    else:  # cumulative: already a points vector
        points = list(ballot)  # type: ignore[arg-type]
    return points


def tally(ballots: Sequence[Parsed | None], rules: BallotRules) -> VoteTally:
    """Sum the valid ballots (None = invalid, dropped); the unique highest total wins."""
    totals = [0] * rules.candidates
    valid = [b for b in ballots if b is not None]
    for ballot in valid:
        totals = [t + p for t, p in zip(totals, ballot_points(ballot, rules))]
    return winner_of(totals, len(valid))


def winner_of(totals: list[int], valid: int) -> VoteTally:
    top = max(totals, default=0)
    leaders = [i for i, t in enumerate(totals) if t == top]
    if top <= 0:
        return VoteTally(totals, winner=None, tie=False, valid=valid)
    return VoteTally(
        totals, winner=leaders[0] if len(leaders) == 1 else None, tie=len(leaders) > 1, valid=valid
    )


# -- parsing helpers -------------------------------------------------------------------------------


def _simple_index(text: str, mode: str) -> int | None:
    if mode == "all_digits":  # MALLM's reading: every digit in the reply, joined ("1 or 2" -> 12)
        digits = "".join(ch for ch in text if ch.isdigit())
        return int(digits) if digits else None
    m = _INT.search(text)
    return int(m.group(0)) if m else None


def _first_index_run(text: str) -> list[int] | None:
    """The first run of integers joined by spaces, commas, '>' or 'and': "0, 2 and 1" -> [0, 2, 1]."""
    m = _INDEX_RUN.search(text)
    return [int(i) for i in _INT.findall(m.group(0))] if m else None


def _cumulative(text: str, rules: BallotRules) -> list[int] | None:
    block = _BRACES.search(text)
    if block is None:
        return None
    body = block.group(0)[1:-1]
    pairs = _PAIR.findall(body)
    # every entry of the object must be an index: points pair, and each index may appear once
    if not pairs or len(pairs) != body.count(":"):
        return None
    points = [0] * rules.candidates
    seen = set()
    for key, value in pairs:
        index, amount = int(key), float(value)
        if (
            index in seen
            or not 0 <= index < rules.candidates
            or amount < 0
            or amount != int(amount)
        ):
            return None
        seen.add(index)
        points[index] = int(amount)
    total = sum(points)
    ok = 0 < total <= rules.points if rules.allow_fewer else total == rules.points
    return points if ok else None
