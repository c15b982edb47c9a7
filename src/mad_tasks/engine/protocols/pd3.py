"""PD³ rules and readers (seed 000), as pure functions: anonymous labels, the seeded partition and
the groups of the round-robin tournament (and its sliding and random ablations), the senior's
`[RESULT]` list, an expert's picks, the fill of a short decision, the vote across groups with its
tie-break chain, the retrieval metrics, the 1-10 duplication score and the pairwise accuracies.

Labels. A candidate is shown as "P" and three digits (P100..P999), drawn by a seeded sample, never
its corpus id or retrieval rank (spec A3). A label (letters, then digits) is read in any case and
with leading zeros ("p0123" is P123), never with other letters ("X123", "Project123"); in a
`[RESULT]` list a bare number ("123") is read too, as the one label with those digits (when two
labels share them, e.g. "P12" and "Q12", only the prefixed form reads; labels that read alike,
"P12" and "P012", are not read at all).

`[RESULT]` lists (spec A9). The list after the LAST tag (`[RESULT]`, any case, also in 【】) is
read token by token: any character that is not an ASCII letter or digit separates (", ，、 ; and
newlines, "and", brackets, bold), words that are not labels are skipped, labels outside the group
and repeats are dropped, order is kept. On the lines after the tag's own line a leading list number
("1. P123", "2) P456") is not a label. Once a label has been read, the list ends at the first
non-blank line without a label of any group or a bare number, or holding a word of letters only
other than "and", so prose after it is not read; and it is at most as many non-blank lines as the
group has labels, and two (the tag's own line and a heading): a longer list only repeats itself,
and a reply of many thousand lines costs no more than a short one. No tag, or no label in the
list: None (the caller
asks again, then fills). Nothing is filled at random: `fill` completes a short
list from the experts' final picks (most-named first, ties by preliminary order), then in
preliminary order, and says which slots it filled.

Vote (spec 1.5, A4, [ours]). votes(c) = the groups whose decision's top-k holds c; the top-k is the
k highest, ties broken by (1) rank points (k for rank 1 ... 1 for rank k, summed over groups), (2)
the experts' round-0 picks of c, (3) preliminary rank; `rule` names the one that decided between
the k-th and the (k+1)-th candidate.

Score (spec 1.6). `[RESULT]8`, `[RESULT]: 8`, `[RESULT] **8/10**`, `8 out of 10` after the last
tag read 8; a score outside 1..10, another denominator, no number, or any other digit on the rest
of the score's line (a hedge, "7 or 8", "7-8"; a decimal, "7.5", "7,5") is None, never clamped.

Every reader runs in linear time and never raises.
"""

from __future__ import annotations

import random
import re
import statistics
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb
from string import ascii_letters

# -- labels, partition, groups ---------------------------------------------------------------------

LABEL_PREFIX = "P"
LABEL_NUMBERS = range(100, 1000)  # three digits, no leading zero: a bare number reads unambiguously
GROUPINGS = ("round_robin", "sliding", "random", "traversal")
AGGREGATES = ("max", "avg")  # a Task-2 side's score from its references' (Table 2's MAX, AVG)


def labels(ids: Sequence[str], seed: int) -> dict[str, str]:
    """A distinct anonymous label per id ("P" + 3 digits), drawn by a sample seeded with `seed`;
    at most len(LABEL_NUMBERS) ids."""
    if len(set(ids)) != len(ids):
        raise ValueError("labels: the ids are not distinct")
    if len(ids) > len(LABEL_NUMBERS):
        raise ValueError(f"labels: {len(ids)} ids, at most {len(LABEL_NUMBERS)} can be labelled")
    numbers = random.Random(seed).sample(LABEL_NUMBERS, len(ids))
    return {i: f"{LABEL_PREFIX}{n}" for i, n in zip(ids, numbers, strict=True)}  # pragma: no mutate (equivalent: as many numbers as ids)  # fmt: skip


def partition(ids: Sequence[str], set_size: int, seed: int) -> list[tuple[str, ...]]:
    """Disjoint sets of `set_size`: the ids shuffled with `seed`, then cut in consecutive chunks
    (spec A2)."""
    if set_size < 1 or len(ids) % set_size:
        raise ValueError(
            f"partition: {len(ids)} candidates do not split into sets of {set_size} "
            "(the count must be a multiple of the set size)"
        )
    shuffled = list(ids)
    random.Random(seed).shuffle(shuffled)
    return [tuple(shuffled[i : i + set_size]) for i in range(0, len(shuffled), set_size)]


def groups(
    sets: Sequence[tuple[str, ...]], group_size: int, grouping: str, seed: int
) -> list[tuple[str, ...]]:
    """The sub-competitions over a partition, members in partition order (spec 1.3, A11).
    "round_robin": every combination of group_size/set_size sets, in itertools.combinations order
    (6 sets of 5, groups of 20: 15 groups, each candidate in 10, any two sets together in 6);
    "sliding": windows of that many consecutive sets, cyclic, step 1 (one group when a window
    holds every set); "random": as many groups as round_robin, each `group_size` candidates drawn
    uniformly with `seed`, without the balance."""
    if grouping not in GROUPINGS or grouping == "traversal":  # traversal: see `traversal`
        static = ", ".join(g for g in GROUPINGS if g != "traversal")
        raise ValueError(f"groups: grouping {grouping!r} has no fixed groups: allowed {static}")
    set_size = len(sets[0]) if sets else 0
    if set_size == 0 or any(len(s) != set_size for s in sets):
        raise ValueError("groups: the sets must be non-empty and of one size")
    if group_size % set_size or not set_size <= group_size <= set_size * len(sets):
        raise ValueError(
            f"groups: group size {group_size} must be a multiple of the set size {set_size} "
            f"between {set_size} and {set_size * len(sets)}"
        )
    per, count = group_size // set_size, len(sets)
    if grouping == "random":
        order = [c for s in sets for c in s]
        position = {c: i for i, c in enumerate(order)}
        rng = random.Random(seed)
        return [
            tuple(sorted(rng.sample(order, group_size), key=position.__getitem__))
            for _ in range(comb(count, per))
        ]
    if grouping == "round_robin":
        chosen: list[tuple[int, ...]] = list(combinations(range(count), per))
    else:
        starts = range(count) if per < count else range(1)
        chosen = [tuple(sorted((s + j) % count for j in range(per))) for s in starts]
    return [tuple(c for i in combo for c in sets[i]) for combo in chosen]


def traversal(order: Sequence[str], group_size: int, k: int) -> list[tuple[str, ...]]:
    """The traversal ablation's new candidates per step (paper Sec. 4.4, "each round selects 5
    out of 10, then adds 5 new candidates until completion"): the first `group_size` of `order`,
    then `group_size - k` at a time (the last step may add fewer). A step's group is the previous
    step's k picks and its new candidates."""
    if group_size >= len(order):
        return [tuple(order)]
    if not 0 < k < group_size:
        raise ValueError(f"traversal: k ({k}) must be 1 to {group_size - 1} (below the group size)")
    step = group_size - k
    rest = range(group_size, len(order), step)
    return [tuple(order[:group_size]), *(tuple(order[i : i + step]) for i in rest)]


# -- readers ---------------------------------------------------------------------------------------

# the tag, bounded around its word so each "[" costs a constant
_TAG = re.compile(r"[\[【][^\S\n]{0,3}result[^\S\n]{0,3}[\]】]", re.IGNORECASE)
# the tokens that can name a label: a run of ASCII letters and digits that is letters, then digits
# (any other character separates), or written out with its letters; and a word of letters alone
# other than "and": prose
_LABEL_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]*+[0-9]++(?![A-Za-z0-9])")
_PREFIXED_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]++[0-9]++(?![A-Za-z0-9])")
_PROSE_WORD = re.compile(r"(?<![A-Za-z0-9])(?!(?i:and)(?![A-Za-z0-9]))[A-Za-z]++(?![A-Za-z0-9])")
# a list number at the start of a line: "1. ", "2) ", after spaces and bullets
_ITEM_NUMBER = re.compile(r"[\s*#>-]{0,20}[0-9]{1,3}[.)][^\S\n]++\S")
MAX_DIGITS = 9  # a longer number names no label


def _split(token: str) -> tuple[str, str] | None:
    """(prefix upper-cased, digits without leading zeros) of a letters-then-digits token."""
    digits = token.lstrip(ascii_letters)
    if not digits.isdigit() or len(digits) > MAX_DIGITS:
        return None
    return token[: len(token) - len(digits)].upper(), digits.lstrip("0") or "0"  # pragma: no mutate (equivalent: names and tokens split alike)  # fmt: skip


class _Matcher:
    """Reads the tokens of a reply as labels: prefixed ("P123", "p0123") and, if `bare`, bare
    numbers that name exactly one label."""

    def __init__(self, names: Sequence[str], bare: bool) -> None:
        # None: two labels read alike ("P12" and "P012"; bare, "P12" and "Q12"), so neither does
        self.prefixed: dict[tuple[str, str], str | None] = {}
        self.bare: dict[str, str | None] = {}
        for name in names:
            key = _split(name)
            if key is None:
                continue
            self.prefixed[key] = None if key in self.prefixed else name
            if bare:
                self.bare[key[1]] = None if key[1] in self.bare else name
        self.prefixes = {prefix for prefix, _ in self.prefixed} | {""}
        self._keys: dict[str, tuple[str, str] | None] = {}  # a list repeats its tokens: split once

    def _key(self, token: str) -> tuple[str, str] | None:
        if token not in self._keys:
            self._keys[token] = _split(token)
        return self._keys[token]

    def label(self, token: str) -> str | None:
        key = self._key(token)
        if key is None:
            return None
        if key in self.prefixed:
            return self.prefixed[key]
        return self.bare.get(key[1]) if key[0] == "" else None

    def names_one(self, token: str) -> bool:
        """Whether the token is written like a label (perhaps of another group)."""
        key = self._key(token)
        return key is not None and key[0] in self.prefixes


def _unique(found: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(found))


def _last_tag_end(text: str) -> int | None:
    end = None
    for match in _TAG.finditer(text):
        end = match.end()
    return end


# a line break as str.splitlines() knows them, and a run of blank lines
_BREAK = "\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]"
_LINE_BREAK = re.compile(_BREAK)
_BLANK_LINES = re.compile(f"(?:[^\\S\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]*+(?:{_BREAK}))*+")


def _lines(text: str, start: int, most: int) -> Iterator[tuple[bool, str]]:
    """The first `most` non-blank lines of `text` from `start`, one at a time, each with whether it
    is the first line (the tag's own); a run of blank lines is passed over at once."""
    first = True
    while most > 0 and start < len(text):  # pragma: no mutate (at the end no line is left anyway)
        brk = _LINE_BREAK.search(text, start)
        stop = brk.start() if brk else len(text)
        line = text[start:stop]
        if line.strip():
            most -= 1
            yield first, line
        first = False  # pragma: no mutate (None is as false)
        if brk is None:
            return
        blank = _BLANK_LINES.match(text, brk.end())  # pragma: no mutate (only faster)
        start = blank.end() if blank else brk.end()  # pragma: no mutate (it always matches)


def read_result(text: str, labels: Sequence[str]) -> tuple[str, ...] | None:
    """The labels of the list after the last `[RESULT]` tag, in order, unique, only those in
    `labels` (module docstring); None when there is no tag or no label in the list."""
    end = _last_tag_end(text)
    if end is None:
        return None
    matcher = _Matcher(labels, bare=True)
    found: list[str] = []
    for first, line in _lines(text, end, len(labels) + 2):
        tokens = [m.group() for m in _LABEL_TOKEN.finditer(line)]
        if not first and tokens and _ITEM_NUMBER.match(line):
            tokens = tokens[1:]  # the list number
        if found and (not any(matcher.names_one(t) for t in tokens) or _PROSE_WORD.search(line)):
            break  # prose after the list, even when it names a label ("P555 was close")
        found.extend(label for t in tokens if (label := matcher.label(t)) is not None)
    return _unique(found) or None


def read_picks(text: str, labels: Sequence[str]) -> tuple[str, ...]:
    """The labels an expert's free text names, best effort: its `[RESULT]` list if it has one,
    else every label it writes out ("P123", not a bare number), in order of first mention."""
    listed = read_result(text, labels)
    if listed is not None:
        return listed
    matcher = _Matcher(labels, bare=False)  # pragma: no mutate (equivalent: None reads as False)
    # written out: a bare number is no label here, so only prefixed tokens are read
    found = (matcher.label(m.group()) for m in _PREFIXED_TOKEN.finditer(text))
    return _unique([label for label in found if label is not None])


# a score after the tag: marks and spaces, the number, an optional "/10" or "out of 10"
_SCORE = re.compile(
    r"[\s:=*_`'\"]{0,20}([0-9]++)"
    r"(?:[^\S\n]{0,3}(?:/|(?i:out)[^\S\n]{1,3}(?i:of))[^\S\n]{0,3}([0-9]++))?"
)
SCORE_RANGE = range(1, 11)


def read_score(text: str) -> int | None:
    """The judge's integer score after the last `[RESULT]` tag: 1..10, "8/10" and "8 out of 10"
    read as 8; any other denominator, a value outside 1..10, another digit on the rest of the line
    (a hedge, "7 or 8"; a decimal, "7.5") or no number: None (never clamped)."""
    end = _last_tag_end(text)
    match = None if end is None else _SCORE.match(text, end)
    if match is None or match.group(2) not in (None, "10"):
        return None
    line_end = text.find("\n", match.end())
    rest = text[match.end() : None if line_end < 0 else line_end]  # pragma: no mutate (equivalent: line_end > 0)  # fmt: skip
    if any(c.isdigit() for c in rest):
        return None  # a hedge or a decimal is an abstention, not its first number
    digits = match.group(1).lstrip("0") or "0"  # pragma: no mutate (equivalent: 0 is out of range)
    if len(digits) > 2:  # pragma: no mutate (equivalent: 3 digits are out of range)
        return None  # out of range, and never converted (a long one would not convert)
    score = int(digits)
    return score if score in SCORE_RANGE else None


# -- a group's decision, the vote across groups ----------------------------------------------------


@dataclass(frozen=True)
class Filled:
    """A group decision of k labels and, per slot filled after the senior's list, where it came
    from: "experts" or "preliminary"."""

    picks: tuple[str, ...]
    filled_from: tuple[str, ...]


def fill(
    parsed: Sequence[str] | None,
    k: int,
    expert_final: Sequence[Sequence[str]],
    prelim_order: Sequence[str],
) -> Filled:
    """The senior's list cut to k, filled to k (spec A9) first from the experts' final-round
    picks (an expert's picks are the first k labels it named; most-named first, ties by
    preliminary order), then in preliminary order. `prelim_order` is the group's members in
    preliminary order; picks outside it are ignored."""
    members = {label: rank for rank, label in enumerate(prelim_order)}
    picks = [label for label in _unique(parsed or ()) if label in members][:k]
    named: dict[str, int] = {}
    for expert in expert_final:
        for label in _unique(expert)[:k]:
            if label in members:
                named[label] = named.get(label, 0) + 1  # pragma: no mutate (equivalent: counts shifted alike)  # fmt: skip
    by_experts = sorted(named, key=lambda label: (-named[label], members[label]))
    sources = []
    for source, order in (("experts", by_experts), ("preliminary", prelim_order)):
        for label in order:
            if len(picks) == k:
                break
            if label not in picks:
                picks.append(label)
                sources.append(source)
    return Filled(tuple(picks), tuple(sources))


TIE_RULES = ("votes", "rank_points", "initial_picks", "prelim_rank")


@dataclass(frozen=True)
class Outcome:
    """The vote: the top-k, the table (votes and rank points per candidate, every candidate of
    the preliminary order first) and the rule that decided at the k-th place (TIE_RULES)."""

    top: tuple[str, ...]
    votes: dict[str, int]
    points: dict[str, int]
    rule: str


def vote(
    decisions: Sequence[Sequence[str]],
    k: int,
    rank_points: Mapping[str, int] | None = None,
    initial_picks: Mapping[str, int] | None = None,
    prelim_order: Sequence[str] = (),
) -> Outcome:
    """Majority vote across the group decisions (module docstring). `rank_points`: the first
    tie-break per candidate; None (the default) computes it from the decisions, k for rank 1 ...
    1 for rank k. `initial_picks`: the experts' round-0 picks per candidate."""
    initial = initial_picks or {}
    tops = [_unique(decision)[:k] for decision in decisions]
    candidates = _unique([*prelim_order, *(c for top in tops for c in top), *initial])
    votes = dict.fromkeys(candidates, 0)
    points = dict.fromkeys(candidates, 0)
    for top in tops:
        for rank, c in enumerate(top):
            votes[c] += 1
            points[c] += k - rank
    if rank_points is not None:
        points = {c: rank_points.get(c, 0) for c in candidates}
    # the preliminary rank; a candidate missing from prelim_order comes after, in order of mention
    keys = {
        c: (-votes[c], -points[c], -initial.get(c, 0), rank) for rank, c in enumerate(candidates)
    }
    ranked = sorted(candidates, key=keys.__getitem__)
    rule = TIE_RULES[0]
    if len(ranked) > k:
        kth, next_ = keys[ranked[k - 1]], keys[ranked[k]]
        # the first rule whose key differs decided (the ranks always differ)
        rule = next(r for r, a, b in zip(TIE_RULES, kth, next_, strict=True) if a != b)  # pragma: no mutate (equivalent: a key per rule)  # fmt: skip
    return Outcome(tuple(ranked[:k]), votes, points, rule)


# -- metrics ---------------------------------------------------------------------------------------


def overlap(pred: Sequence[str], gold: Sequence[str]) -> int:
    """|R ∩ R̂|: distinct predictions in the gold set."""
    return len(set(pred) & set(gold))


def prec_at_k(pred: Sequence[str], gold: Sequence[str], k: int = 5) -> float:
    """Prec@k = |R ∩ R̂| / k over the first k distinct predictions (spec 4.2)."""
    return overlap(_unique(pred)[:k], gold) / k


def match_counts(overlaps: Sequence[int], k: int = 5) -> list[int]:
    """Match@1..k: how many items have an overlap of at least K, for K = 1..k (spec 4.2;
    Prec@k = sum(Match) / (k n))."""
    return [sum(1 for o in overlaps if o >= at) for at in range(1, k + 1)]


# -- Task 2: pairwise duplication accuracy ---------------------------------------------------------

PREDICTIONS = ("A", "B", "tie")


def _check(prediction: str, votes: tuple[int, int]) -> None:
    if prediction not in PREDICTIONS:
        raise ValueError(f"prediction {prediction!r}: allowed {', '.join(PREDICTIONS)}")
    if min(votes) < 0 or sum(votes) == 0:
        raise ValueError(f"expert votes {votes}: two counts, none negative, not both zero")


def origin(prediction: str, votes: tuple[int, int]) -> float:
    """Origin accuracy (spec 4.2): 1 when the prediction is the side most experts voted for,
    else 0; a tie predicted scores 0."""
    _check(prediction, votes)
    if prediction == "tie":
        return 0.0
    mine, theirs = votes if prediction == "A" else votes[::-1]
    return 1.0 if mine > theirs else 0.0


def weighted(prediction: str, votes: tuple[int, int]) -> float:
    """Weighted accuracy (spec 4.2): the share of expert votes for the predicted side (2A:1B and
    B earns 1/3); a tie predicted earns the minority's share, min(v) / total."""
    _check(prediction, votes)
    total = sum(votes)
    if prediction == "tie":
        return min(votes) / total
    return votes[0 if prediction == "A" else 1] / total


def side_score(scores: Sequence[float | None], how: str) -> float | None:
    """A Task-2 side's score from its references' scores (`pair_similarity`, `pair_pointwise`):
    the max or the mean of the readable scores; None without one."""
    readable = [s for s in scores if s is not None]
    if not readable:
        return None
    return max(readable) if how == "max" else statistics.fmean(readable)
