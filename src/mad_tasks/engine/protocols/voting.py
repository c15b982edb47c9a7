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
None for a ballot that does not follow its rule, so the caller can re-prompt. A ranked or approval
ballot is read as written: a numbered list one index per item ("1. Solution 2" is a vote for 2),
else the first run of indices joined by spaces, commas, "and", "then", ">" or "Solution". Indices
and points are ASCII digits; one out of range (however long) or a list of more than MAX_ENTRIES
indices is an invalid ballot, never an exception. Every reader runs in linear time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

PROTOCOLS = ("simple", "ranked", "cumulative", "approval")
SIMPLE_PARSES = ("first_number", "all_digits")

# simple: an index; ranked/approval: indices in order; cumulative: points per candidate
Parsed = int | list[int]

MAX_ENTRIES = 100  # a ranked or approval list with more entries is no ballot

_INT = re.compile(r"-?[0-9]+")
_DIGITS = re.compile(r"[0-9]+")
# what may stand between two indices of a run: spaces, punctuation, a bullet, "and", "Solution"
_SEP = (
    r"(?:(?m:^)[^\S\n]*+[-•](?=[^\S\n])|[\s,;&/>*#\"'`()\[\]]|->|→"
    r"|\.(?=[^\S\n]*+(?:\n|\Z))|\b(?:and|then|followed\s+by|solutions?|candidates?)\b)"
)
# at most MAX_ENTRIES indices; _MORE tells whether the run goes on beyond them
_INDEX_RUN = re.compile(rf"-?[0-9]+(?:{_SEP}*+-?[0-9]+){{0,{MAX_ENTRIES - 1}}}", re.IGNORECASE)
_MORE = re.compile(rf"{_SEP}*+-?[0-9]", re.IGNORECASE)
# an item of a numbered list "1. ..." or "2) ..." and the first number it holds
_ITEM = re.compile(r"(?m)^[^\S\n]*+[0-9]{1,3}[.)][^\S\n]++[^0-9\n]*?(-?[0-9]+)")
_BRACES = re.compile(r"\{[^{}]*\}")
# a cumulative ballot's entry: "0": 5, 'Solution 2': 5.0, 1: 3 (no sign, no fraction of a point)
_ENTRY = re.compile(
    r"""[\s"']*+(?:solution\s*+)?([0-9]+)[\s"']*+:[\s"']*+([0-9]+)(?:\.0*+)?[\s"']*+""",
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
        return _simple_index(text, rules.simple_parse, n)
    if rules.protocol == "ranked":
        written = _index_list(text)
        if written is None or len(written) > rules.max_ranks:
            return None
        ranking = [_below(i, n) for i in written]
        ok = len(set(ranking)) == len(ranking) and None not in ranking
        return ranking if ok else None  # type: ignore[return-value]
    if rules.protocol == "approval":
        kept = list(dict.fromkeys(_below(i, n) for i in _index_list(text) or []))
        return [i for i in kept if i is not None] or None
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
    if not any(totals):  # no points at all (or no candidates): nobody leads
        return VoteTally(totals, winner=None, tie=False, valid=valid)
    top = max(totals)
    leaders = [i for i, t in enumerate(totals) if t == top]
    return VoteTally(
        totals, winner=leaders[0] if len(leaders) == 1 else None, tie=len(leaders) > 1, valid=valid
    )


# -- parsing helpers -------------------------------------------------------------------------------


def _below(written: str, bound: int) -> int | None:
    """The integer `written` ("2", "007", "-1") if it is in 0..bound-1, else None; the length is
    checked first, so that no digit string is too long to convert."""
    # leading zeros do not count ("007" is 7); "written" is digits, with at most a sign
    digits = written.lstrip("0") or "0"  # pragma: no mutate (equivalent: "XX0XX" strips the same)
    if not digits.isdecimal() or len(digits) > len(str(bound)):
        return None
    return int(digits) if int(digits) < bound else None


def _simple_index(text: str, mode: str, n: int) -> int | None:
    if mode == "all_digits":  # MALLM's reading: every digit in the reply, joined ("1 or 2" -> 12)
        digits = "".join(_DIGITS.findall(text))  # ASCII only: "²" passes isdigit() but not int()
        return _below(digits, n) if digits else None
    m = _INT.search(text)
    return _below(m.group(0), n) if m else None


def _index_list(text: str) -> list[str] | None:
    """The indices as written, in order: the items of the first numbered list ("1. Solution 2"
    gives "2"), else the first run of indices ("2, 0 and 1", "2 > 0 > 1", "Solution 2, Solution 0").
    None when there is none, or more than MAX_ENTRIES."""
    item = _ITEM.search(text)
    if item is None:
        run = _INDEX_RUN.search(text)
        if run is None or _MORE.match(text, run.end()):
            return None
        return _INT.findall(run.group(0))
    found = [item.group(1)]
    for following in _ITEM.finditer(text, item.end()):
        # the list goes on while only the rest of an item's line and blank lines come between
        if text[item.end() : following.start()].partition("\n")[2].strip():
            break
        if len(found) == MAX_ENTRIES:
            return None
        found.append(following.group(1))
        item = following
    return found


def _cumulative(text: str, rules: BallotRules) -> list[int] | None:
    block = _BRACES.search(text)
    if block is None:
        return None
    points = [0] * rules.candidates
    seen = set()
    # every entry must be an index: points pair, each index at most once; an empty entry (a
    # trailing comma) is no entry
    for entry in filter(str.strip, block.group(0)[1:-1].split(",")):
        pair = _ENTRY.fullmatch(entry)
        if pair is None:
            return None
        i = _below(pair.group(1), rules.candidates)
        # the bound only guards the conversion: more than `points` fails the total check below
        given = _below(pair.group(2), rules.points + 1)  # pragma: no mutate (equivalent: see above)
        if i is None or i in seen or given is None:
            return None
        seen.add(i)
        points[i] = given
    total = sum(points)
    ok = 0 < total <= rules.points if rules.allow_fewer else total == rules.points
    return points if ok else None
