"""D3 decision rules (Harrasse et al., "Debate, Deliberate, Decide"), as pure functions.

Judge scores: six criteria scored 1-20 per side, totals 6-120, read from a strict last line. SAMRE's
budgeted stopping: a window of score gaps that stays steady, a decisive gap, a token budget or the
round limit. The jury: a majority of A/B votes, abstentions apart, a tie settled by the judge's
score; with no vote and no score to read, the verdict is an abstention (None), never a tie. Position
swap: does the verdict follow the answers? Cohen's kappa against human labels.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from ..answers import AnswerFormat, answer_candidates, lines_with

SIDES = ("A", "B")
TIE = "tie"
CRITERIA = 6
CRITERION_MAX = 20
TOTAL_MIN, TOTAL_MAX = CRITERIA, CRITERIA * CRITERION_MAX

STOPPING = ("signed", "code", "adaptive")  # adaptive: engine/stability.py instead of a test here
TIEBREAKS = ("cumulative", "final")
FINALS = ("last_turn", "agreement")  # a peer discussion's verdict rule
SWAP_RESOLUTIONS = ("tie", "gap")

Scores = tuple[int, int]  # (total for A, total for B)
MAX_PAIR_LINES = 100  # a reply with more lines holding a pair is no judge's reply

_TOTALS = re.compile(r"[(\[]?\s*+([0-9]{1,3})\s*+,\s*+([0-9]{1,3})(?![0-9])\s*+[)\]]?")
# a line's first pair "(x, y)" or "[x, y]", and what stands before it on the line
_PAIR_LINE = re.compile(
    r"(?m)^(?P<label>[^\n]*?)[(\[][^\S\n]*+(?P<a>[0-9]{1,3})[^\S\n]*+,"
    r"[^\S\n]*+(?P<b>[0-9]{1,3})[^\S\n]*+[)\]]"
)
_NUMBERED = re.compile(r"[^\w\n]*+([1-6])[^\S\n]*+[.):]")  # "1.", "**2)", "3:"
_TOTAL_WORD = re.compile(r"(?i)\b(?:totals?|overall|sum|final)\b")
_NAME = re.compile(r"[^\W\d_][^\d]{0,59}")  # "Relevance", "Clarity of the defence"
_LABEL_MARKS = " \t*_#:-–.>"  # what may stand around a criterion's name: markdown, bullets, ":"


class JudgeScores(AnswerFormat):
    """The judge's totals as an answer format, so that an unreadable score is retried like any
    answer.

    The last `ANSWER:` line decides; if it holds a pair out of range the reply is unscored (an
    earlier tuple may be an echoed example). Without a marked pair: the last pair on a totals line
    ("Total: (90, 70)"), else the sum of the six criteria, else the last pair on any other line.
    Never (0, 0).
    """

    name = "scores"

    def instruction(self) -> str:
        return (
            'End your reply with a last line of the form "ANSWER: (x, y)", where x and y are the '  # pragma: no mutate (wording)
            f"totals of the six scores of A and of B (each between {TOTAL_MIN} and {TOTAL_MAX})."
        )

    def parse(self, candidate: str) -> str | None:
        m = _TOTALS.match(candidate.strip())
        if not m:
            return None
        a, b = int(m.group(1)), int(m.group(2))
        return f"{a}, {b}" if all(TOTAL_MIN <= s <= TOTAL_MAX for s in (a, b)) else None

    def extract(self, text: str) -> str | None:
        marked = answer_candidates(text)
        if marked and _TOTALS.match(marked[0]):
            return self.parse(marked[0])
        return self.fallback(text)

    def fallback(self, text: str) -> str | None:
        lines = _read_pairs(text)
        if lines.totals is None and lines.criteria is not None:
            return f"{sum(a for a, _ in lines.criteria)}, {sum(b for _, b in lines.criteria)}"
        pair = lines.totals or lines.other
        return self.parse(f"{pair[0]}, {pair[1]}") if pair else None


def split_scores(answer: str) -> Scores:
    """`"95, 87"` (a JudgeScores answer) -> (95, 87)."""
    a, b = answer.split(",")
    return int(a), int(b)


def parse_criteria(text: str) -> list[Scores] | None:
    """The six criteria, or None if any is missing or out of range (see `_read_pairs`)."""
    return _read_pairs(text).criteria


@dataclass(frozen=True)
class _PairLines:
    totals: Scores | None  # the last pair on a line that names totals
    criteria: list[Scores] | None  # the six criteria, in order
    other: Scores | None  # the last pair on any other line


def _read_pairs(text: str) -> _PairLines:
    """Every line's first pair, by what the line says before it.

    A criterion line is numbered 1-6 ("1. [18, 15]", "2: (a, b)", "3. Depth: [a, b]"; the last line
    of each number wins) or named, with scores up to 20 ("Relevance: (18, 15)"). Numbered lines,
    if any, must give all six in range; else exactly six names must. A line naming a total,
    "overall", "sum" or "final" holds totals; any other pair is neither. More than
    MAX_PAIR_LINES such lines: nothing is read.
    """
    totals = other = None
    numbered: dict[int, Scores] = {}
    named: dict[str, Scores] = {}
    # every pair holds a comma: only those lines need a scan (a speed-up: the whole text holds
    # the same pairs, so dropping the span is an equivalent mutant)
    span = lines_with(text, ",")
    lines = _PAIR_LINE.findall(text, *span)  # pragma: no mutate (equivalent: a speed-up)
    if len(lines) > MAX_PAIR_LINES:
        lines = []
    for label, a, b in lines:
        pair = (int(a), int(b))
        if number := _NUMBERED.match(label):
            numbered[int(number.group(1))] = pair
        elif _TOTAL_WORD.search(label):
            totals = pair
        elif max(pair) <= CRITERION_MAX and (name := _NAME.fullmatch(label.strip(_LABEL_MARKS))):
            named[name.group(0).casefold()] = pair
        else:
            other = pair
    if numbered:  # numbers 1-6 only (_NUMBERED): one missing leaves fewer than six
        found = [pair for _, pair in sorted(numbered.items())]
    elif len(named) == CRITERIA:
        found = list(named.values())
    else:
        found = []
    criteria = [p for p in found if all(1 <= s <= CRITERION_MAX for s in p)]
    return _PairLines(totals, criteria if len(criteria) == CRITERIA else None, other)


# -- SAMRE's budgeted stopping ---------------------------------------------------------------------


@dataclass(frozen=True)
class StopRule:
    """When SAMRE stops. Gaps are A minus B per round; None is an unscored round.

    `signed` (default): the last `window` gaps span less than `eps` points and never change sign,
    after at least `min_rounds` rounds. `code`: the reference code's test on absolute gaps (span
    less than `eps` and not strictly rising or falling), which lets a winner flip count as steady.
    `adaptive`: no convergence test here; Hu et al.'s stability rule replaces it (samre.py), and
    `window`, `min_rounds` and `eps` are unused. `token_budget` is checked after each round on the
    tokens spent so far, so the last round may overshoot it (as in the paper's Algorithm 2).
    """

    max_rounds: int = 5
    stopping: str = "signed"
    window: int = 2
    min_rounds: int = 2
    eps: float = 5.0
    decisive_gap: float | None = None
    token_budget: int | None = None


def converged(gaps: Sequence[int | None], rule: StopRule) -> bool:
    if rule.stopping == "adaptive":
        return False
    if len(gaps) < max(rule.window, rule.min_rounds):
        return False
    recent = gaps[-rule.window :]
    if any(g is None for g in recent):
        return False
    window = [g for g in recent if g is not None]
    if rule.stopping == "code":
        width = [abs(g) for g in window]
        monotone = all(x < y for x, y in pairwise(width)) or all(x > y for x, y in pairwise(width))
        return max(width) - min(width) < rule.eps and not monotone
    flipped = any(g > 0 for g in window) and any(g < 0 for g in window)
    return max(window) - min(window) < rule.eps and not flipped


def stop_reason(gaps: Sequence[int | None], tokens: int | None, rule: StopRule) -> str | None:
    """Why the debate stops after the latest round, or None to go on; `tokens` None (unknown)
    never exceeds a budget."""
    if converged(gaps, rule):
        return "converged"
    last = gaps[-1] if gaps else None
    if rule.decisive_gap is not None and last is not None and abs(last) >= rule.decisive_gap:
        return "decisive"
    if rule.token_budget is not None and tokens is not None and tokens > rule.token_budget:
        return "token_budget"
    if len(gaps) >= rule.max_rounds:
        return "max_rounds"
    return None


# -- verdicts --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    winner: str | None  # "A", "B" or "tie"; None: abstained, nothing readable to decide on
    votes: dict[str, int]  # {"A": n, "B": m}; empty without a jury
    abstentions: int
    tiebreak_used: bool  # the judge's score decided (a tied jury, or no jury at all)
    judge_gap: float | None  # the judge's gap (A minus B) the decision read; None: never scored


def side_of(gap: float | None) -> str | None:
    """The side the judge's gap favours: a zero gap is a tie, no gap (never scored) gives none."""
    if gap is None:
        return None
    if gap > 0:
        return "A"
    if gap < 0:
        return "B"
    return TIE


def judge_gap(scores: Sequence[Scores | None], tiebreak: str = "cumulative") -> float | None:
    """The judge's say: the sum of A-minus-B over scored rounds, or the last scored round's gap."""
    scored = [s for s in scores if s is not None]
    if not scored:
        return None
    if tiebreak == "cumulative":
        return sum(a - b for a, b in scored)
    a, b = scored[-1]  # "final"
    return a - b


def best_scores(scores: Sequence[Scores | None]) -> Scores | None:
    """MORE's `max_score` aggregation: each side's best total over the judge's k pairings."""
    scored = [s for s in scores if s is not None]
    return (max(a for a, _ in scored), max(b for _, b in scored)) if scored else None


def jury_verdict(votes: Sequence[str | None], gap: float | None) -> Verdict:
    """Majority of A/B votes; None abstains. A tied vote (0-0 included) goes to the judge's gap.

    Without a judge score, jurors who split evenly are a tie; no vote at all is an abstention.
    """
    count = {side: sum(v == side for v in votes) for side in SIDES}
    abstentions = sum(v is None for v in votes)
    if count["A"] != count["B"]:
        winner = side_of(count["A"] - count["B"])
        return Verdict(winner, count, abstentions, tiebreak_used=False, judge_gap=gap)
    settled = side_of(gap) or (TIE if count["A"] + count["B"] else None)
    return Verdict(settled, count, abstentions, tiebreak_used=True, judge_gap=gap)


def flip(label: str) -> str:
    """A verdict of the reversed order, in the labels of the original order."""
    return {"A": "B", "B": "A"}.get(label, label)


def swap_verdict(
    original: str | None, swapped: str | None, gap_sum: float | None, resolution: str
) -> tuple[str | None, bool | None]:
    """Combine the verdicts of both answer orders: (verdict, position_consistent).

    `swapped` is in the reversed order's labels. Consistent when the verdict followed the answers;
    otherwise `tie` (default) or the side of the judge's gaps summed over both orders (`gap`; a
    tie without any judge score). An order that abstained leaves nothing to compare: the judgment
    abstains (None) and its consistency is unknown (None).
    """
    if original is None or swapped is None:
        return None, None
    back = flip(swapped)
    if original == back:
        return original, True
    return ((side_of(gap_sum) if resolution == "gap" else None) or TIE), False


# -- agreement with human labels ------------------------------------------------------------------


def cohen_kappa(
    gold: Sequence[str], predicted: Sequence[str], weights: Sequence[float] | None = None
) -> float:
    """(p_o - p_e) / (1 - p_e); 0 when chance agreement is certain (both always used one and the
    same label). `weights`: how much each pair counts (1 each by default; a sample judged in
    several epochs splits its weight of 1 among them)."""
    w = [1.0] * len(gold) if weights is None else list(weights)  # pragma: no mutate (equivalent: uniform weights)  # fmt: skip
    if not len(gold) == len(predicted) == len(w):
        raise ValueError("cohen_kappa needs label and weight sequences of the same length")
    n = sum(w)
    if n == 0:
        return math.nan

    def share(labels: Sequence[str], label: str) -> float:
        return sum(x for y, x in zip(labels, w) if y == label) / n

    p_o = sum(x for g, p, x in zip(gold, predicted, w) if g == p) / n
    # chance agreement: a label only one side used adds nothing, so the gold labels suffice
    p_e = sum(share(gold, c) * share(predicted, c) for c in set(gold))
    return 0.0 if p_e == 1 else (p_o - p_e) / (1 - p_e)


def anonymise(text: str, names: Sequence[str]) -> str:
    """Replace every name that says who wrote what (an agent id) with `[hidden]`, as a whole word,
    case-insensitively."""
    for name in sorted({n.strip() for n in names if len(n.strip()) >= 2}, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", "[hidden]", text, flags=re.IGNORECASE)
    return text


# -- a peer discussion's verdict (PRD) ----------------------------------------------------------


def discussion_verdict(
    final: str, stated: Sequence[tuple[int, str | None]], discussed: bool = True
) -> str | None:
    """A peer discussion's verdict (PRD, methods/d3/peer_discussion.py) from the preferences in the
    order stated, (reviewer, side or None): the last
    stated one, or with `agreement` both reviewers' latest when they agree (none otherwise).
    Without a discussion turn (`discussed` false) `last_turn` reads the reviews as the first
    verdict does: the side more of them prefer, a split being a tie."""
    readable = [(r, s) for r, s in stated if s is not None]
    if final == "last_turn" and not discussed:
        sides = [s for _, s in readable]
        gap = sides.count("A") - sides.count("B")
        return None if not sides else "A" if gap > 0 else "B" if gap < 0 else TIE
    if final == "last_turn":
        return readable[-1][1] if readable else None
    latest = dict(readable)
    agreed = set(latest.values())
    return agreed.pop() if len(latest) == 2 and len(agreed) == 1 else None
