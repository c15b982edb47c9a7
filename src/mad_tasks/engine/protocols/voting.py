"""Voting rules of "Voting or Consensus?" (Kaesberg et al., 2025): read a ballot, tally, pick a winner.

Four prompted ballots over candidates indexed 0..N-1 (the index the ballot prompt shows):
- simple: one index;
- ranked: up to `max_ranks` distinct indices, best first; Borda points `min(max_ranks, N) - position`;
- cumulative: a JSON object {index: points}; the points sum to exactly `points` (or at most, with
  `allow_fewer`), none negative;
- approval: any number of indices; out-of-range ones are dropped, at least one must remain.

Each kind is a `BallotKind` in a name registry, which holds in one place how its ballot is asked for
(the wording), read, counted and written; `register_ballot_kind` adds one (tests/test_ballot_kinds.py
adds a toy kind without touching anything else). Every ballot becomes a points vector over the
candidates; the unique highest total wins. A tie, or no
valid ballot at all, gives no winner (the debate then runs another turn): ties are never broken here.
Parsers read messy text ("I vote for solution 1.", "1, because ...", JSON inside prose) and return
None for a ballot that does not follow its rule, so the caller can re-prompt. A ranked or approval
ballot is read as written: a numbered list one index per item ("1. Solution 2" is a vote for 2),
else the first run of indices joined by spaces, commas, "and", "then", ">" or "Solution". Indices
and points are ASCII digits; one out of range (however long) or a list of more than MAX_ENTRIES
indices is an invalid ballot, never an exception. Every reader runs in linear time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

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


class BallotKind:
    """One kind of ballot, `name` being its protocol: how it is asked for, read, counted and
    written. Indices are candidate numbers, 0..rules.candidates-1."""

    name: str

    def task(self, rules: BallotRules) -> str:
        """What the voter is asked to do, in one sentence."""
        raise NotImplementedError

    def request(self, rules: BallotRules) -> str:
        """How to write the ballot, with an example the kind writes itself; repeated as the
        reminder after an invalid ballot."""
        raise NotImplementedError

    def parse(self, text: str, rules: BallotRules) -> Parsed | None:
        """The ballot in `text`, or None when it is missing or breaks the rule. Linear time."""
        raise NotImplementedError

    def points(self, ballot: Parsed, rules: BallotRules) -> list[int]:
        """What a valid ballot gives each candidate."""
        raise NotImplementedError

    def write(self, preferred: Sequence[int], others: Sequence[int], rules: BallotRules) -> str:
        """The ballot of a voter who likes the `preferred` candidates (at least one) best, the
        first most, and the `others` less, in that order: the wording's example and the simulated
        model's vote."""
        raise NotImplementedError


class Simple(BallotKind):
    name = "simple"

    def task(self, rules: BallotRules) -> str:  # pragma: no mutate block (wording)
        return "Vote for the best solution to the task."

    def request(self, rules: BallotRules) -> str:  # pragma: no mutate block (wording)
        return (
            "Reply with only the number of the one solution you vote for (for example "
            f'"{self.write([1], [0], rules)}").'
        )

    def parse(self, text: str, rules: BallotRules) -> int | None:
        return _simple_index(text, rules.simple_parse, rules.candidates)

    def points(self, ballot: Parsed, rules: BallotRules) -> list[int]:
        points = [0] * rules.candidates
        points[ballot] = 1  # type: ignore[index]
        return points

    def write(self, preferred: Sequence[int], others: Sequence[int], rules: BallotRules) -> str:
        return str(preferred[0])


class Ranked(BallotKind):
    """Borda points `min(max_ranks, N) - position`."""

    name = "ranked"

    def task(self, rules: BallotRules) -> str:  # pragma: no mutate block (wording)
        return "Rank the solutions to the task from most to least preferred."

    def request(self, rules: BallotRules) -> str:  # pragma: no mutate block (wording)
        return (
            "Reply with only solution numbers, best first, separated by spaces (for example "
            f'"{self.write([0, 2], [1], rules)}"); rank at most {rules.max_ranks}, each once.'
        )

    def parse(self, text: str, rules: BallotRules) -> list[int] | None:
        written = _index_list(text)
        if written is None or len(written) > rules.max_ranks:
            return None
        ranking = [_below(i, rules.candidates) for i in written]
        ok = len(set(ranking)) == len(ranking) and None not in ranking
        return ranking if ok else None  # type: ignore[return-value]

    def points(self, ballot: Parsed, rules: BallotRules) -> list[int]:
        points = [0] * rules.candidates
        top = min(rules.max_ranks, rules.candidates)
        for position, index in enumerate(ballot):  # type: ignore[arg-type]
            points[index] = top - position
        return points

    def write(self, preferred: Sequence[int], others: Sequence[int], rules: BallotRules) -> str:
        return " ".join(map(str, [*preferred, *others][: rules.max_ranks]))


class Cumulative(BallotKind):
    """Points per candidate summing to exactly `points` (at most, with `allow_fewer`)."""

    name = "cumulative"

    def task(self, rules: BallotRules) -> str:  # pragma: no mutate block (wording)
        return (
            f"Distribute {'up to ' if rules.allow_fewer else ''}{rules.points} points among the "
            "solutions to the task; better solutions get more points."
        )

    def request(self, rules: BallotRules) -> str:  # pragma: no mutate block (wording)
        total = f"at most {rules.points}" if rules.allow_fewer else f"exactly {rules.points}"
        return (
            "Reply with only a JSON object that maps solution numbers to points (for example "
            f"{self.write([0, 2], [1], rules)}); the points must add up to {total}."
        )

    def parse(self, text: str, rules: BallotRules) -> list[int] | None:
        return _cumulative(text, rules)

    def points(self, ballot: Parsed, rules: BallotRules) -> list[int]:
        return list(ballot)  # type: ignore[arg-type]  # already a points vector

    def write(self, preferred: Sequence[int], others: Sequence[int], rules: BallotRules) -> str:
        # every point to the preferred, shared evenly; the first takes what does not divide
        points = {str(i): rules.points // len(preferred) for i in preferred}
        points[str(preferred[0])] += rules.points - sum(points.values())
        return json.dumps(points)


class Approval(BallotKind):
    """Any number of indices; out-of-range ones are dropped, at least one must remain."""

    name = "approval"

    def task(self, rules: BallotRules) -> str:  # pragma: no mutate block (wording)
        return "Approve every solution to the task that you find acceptable."

    def request(self, rules: BallotRules) -> str:  # pragma: no mutate block (wording)
        return (
            "Reply with only the numbers of the solutions you approve, separated by commas (for "
            f'example "{self.write([0, 2], [1], rules)}").'
        )

    def parse(self, text: str, rules: BallotRules) -> list[int] | None:
        kept = list(dict.fromkeys(_below(i, rules.candidates) for i in _index_list(text) or []))
        return [i for i in kept if i is not None] or None

    def points(self, ballot: Parsed, rules: BallotRules) -> list[int]:
        points = [0] * rules.candidates
        for index in ballot:  # type: ignore[union-attr]
            points[index] = 1
        return points

    def write(self, preferred: Sequence[int], others: Sequence[int], rules: BallotRules) -> str:
        return ", ".join(map(str, preferred))


_KINDS: dict[str, BallotKind] = {}


def register_ballot_kind(kind: BallotKind) -> None:
    """Make `kind` a voting protocol under its name (replacing a kind of that name)."""
    _KINDS[kind.name] = kind


def unregister_ballot_kind(name: str) -> None:
    _KINDS.pop(name, None)


def ballot_kinds() -> tuple[str, ...]:
    """The registered kinds' names, in the order they were registered."""
    return tuple(_KINDS)


def ballot_kind(name: str) -> BallotKind:
    kind = _KINDS.get(name)
    if kind is None:
        raise ValueError(
            f"unknown voting protocol {name!r}: use one of {', '.join(ballot_kinds())}"
        )
    return kind


for _kind in (Simple(), Ranked(), Cumulative(), Approval()):
    register_ballot_kind(_kind)


def parse_ballot(text: str, rules: BallotRules) -> Parsed | None:
    """The ballot in `text` under `rules`, or None when it is missing or breaks the rule."""
    return ballot_kind(rules.protocol).parse(text, rules)


def ballot_points(ballot: Parsed, rules: BallotRules) -> list[int]:
    """What a valid ballot gives each candidate."""
    return ballot_kind(rules.protocol).points(ballot, rules)


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
