"""D3 decision rules (Harrasse et al., "Debate, Deliberate, Decide"), as pure functions.

Judge scores: six criteria scored 1-20 per side, totals 6-120, read from a strict last line. SAMRE's
budgeted stopping: a window of score gaps that stays steady, a decisive gap, a token budget or the
round limit. The jury: a majority of A/B votes, abstentions apart, a tie settled by the judge's
score. Position swap: does the verdict follow the answers? Cohen's kappa against human labels.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from ..answers import AnswerFormat, answer_candidates

SIDES = ("A", "B")
TIE = "tie"
CRITERIA = 6
CRITERION_MAX = 20
TOTAL_MIN, TOTAL_MAX = CRITERIA, CRITERIA * CRITERION_MAX

STOPPING = ("signed", "code")
TIEBREAKS = ("cumulative", "final")
SWAP_RESOLUTIONS = ("tie", "gap")

Scores = tuple[int, int]  # (total for A, total for B)

_TOTALS = re.compile(r"[\(\[]?\s*(\d{1,3})\s*,\s*(\d{1,3})\s*[\)\]]?")
_PAREN = re.compile(r"\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)")
_CRITERION = re.compile(r"(?m)^\W*([1-6])\s*[.):]\s*\[\s*(\d{1,2})\s*,\s*(\d{1,2})\s*\]")


class JudgeScores(AnswerFormat):
    """The judge's totals as an answer format, so that an unreadable score is retried like any
    answer.

    The last `ANSWER:` line decides; if it holds a pair out of range the reply is unscored (an
    earlier tuple may be an echoed example). Without a marked pair: the last `(x, y)` outside the
    criterion lines, else the sum of six complete criterion lines. Never (0, 0).
    """

    name = "scores"

    def instruction(self) -> str:
        return (
            'End your reply with a last line of the form "ANSWER: (x, y)", where x and y are the '
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
        outside = "\n".join(line for line in text.splitlines() if not _CRITERION.match(line))
        found = _PAREN.findall(outside)
        if found:
            return self.parse(f"({found[-1][0]}, {found[-1][1]})")
        criteria = parse_criteria(text)
        if criteria is None:
            return None
        return f"{sum(a for a, _ in criteria)}, {sum(b for _, b in criteria)}"


def split_scores(answer: str) -> Scores:
    """`"95, 87"` (a JudgeScores answer) -> (95, 87)."""
    a, b = answer.split(",")
    return int(a), int(b)


def parse_criteria(text: str) -> list[Scores] | None:
    """The six `n. [a, b]` criterion lines (the last line of each number wins), or None if any is
    missing or out of range."""
    found: dict[int, Scores] = {}
    for m in _CRITERION.finditer(text):
        found[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
    pairs = [found.get(n) for n in range(1, CRITERIA + 1)]
    if any(p is None or not all(1 <= s <= CRITERION_MAX for s in p) for p in pairs):
        return None
    return [p for p in pairs if p is not None]


# -- SAMRE's budgeted stopping ---------------------------------------------------------------------


@dataclass(frozen=True)
class StopRule:
    """When SAMRE stops. Gaps are A minus B per round; None is an unscored round.

    `signed` (default): the last `window` gaps span less than `eps` points and never change sign,
    after at least `min_rounds` rounds. `code`: the reference code's test on absolute gaps (span
    less than `eps` and not strictly rising or falling), which lets a winner flip count as steady.
    `token_budget` is checked after each round on the tokens spent so far, so the last round may
    overshoot it (as in the paper's Algorithm 2).
    """

    max_rounds: int = 5
    stopping: str = "signed"
    window: int = 2
    min_rounds: int = 2
    eps: float = 5.0
    decisive_gap: float | None = None
    token_budget: int | None = None


def converged(gaps: Sequence[int | None], rule: StopRule) -> bool:
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


def stop_reason(gaps: Sequence[int | None], tokens: int, rule: StopRule) -> str | None:
    """Why the debate stops after the latest round, or None to go on."""
    if converged(gaps, rule):
        return "converged"
    last = gaps[-1] if gaps else None
    if rule.decisive_gap is not None and last is not None and abs(last) >= rule.decisive_gap:
        return "decisive"
    if rule.token_budget is not None and tokens > rule.token_budget:
        return "token_budget"
    if len(gaps) >= rule.max_rounds:
        return "max_rounds"
    return None


# -- verdicts --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    winner: str  # "A", "B" or "tie"
    votes: dict[str, int]  # {"A": n, "B": m}; empty without a jury
    abstentions: int
    tiebreak_used: bool  # the judge's score decided (a tied jury, or no jury at all)
    judge_gap: float | None  # the judge's gap (A minus B) the decision read; None: never scored


def side_of(gap: float | None) -> str:
    if gap is None or gap == 0:
        return TIE
    return "A" if gap > 0 else "B"


def judge_gap(scores: Sequence[Scores | None], tiebreak: str = "cumulative") -> float | None:
    """The judge's say: the sum of A-minus-B over scored rounds, or the last scored round's gap."""
    scored = [s for s in scores if s is not None]
    if not scored:
        return None
    if tiebreak == "final":
        return scored[-1][0] - scored[-1][1]
    return sum(a - b for a, b in scored)


def best_scores(scores: Sequence[Scores | None]) -> Scores | None:
    """MORE's `max_score` aggregation: each side's best total over the judge's k pairings."""
    scored = [s for s in scores if s is not None]
    return (max(a for a, _ in scored), max(b for _, b in scored)) if scored else None


def jury_verdict(votes: Sequence[str | None], gap: float | None) -> Verdict:
    """Majority of A/B votes; None abstains. A tied vote (0-0 included) goes to the judge's gap."""
    count = {side: sum(v == side for v in votes) for side in SIDES}
    abstentions = sum(v is None for v in votes)
    if count["A"] != count["B"]:
        winner = "A" if count["A"] > count["B"] else "B"
        return Verdict(winner, count, abstentions, tiebreak_used=False, judge_gap=gap)
    return Verdict(side_of(gap), count, abstentions, tiebreak_used=True, judge_gap=gap)


def flip(label: str) -> str:
    """A verdict of the reversed order, in the labels of the original order."""
    return {"A": "B", "B": "A"}.get(label, label)


def swap_verdict(
    original: str, swapped: str, gap_sum: float | None, resolution: str
) -> tuple[str, bool]:
    """Combine the verdicts of both answer orders: (verdict, position_consistent).

    `swapped` is in the reversed order's labels. Consistent when the verdict followed the answers;
    otherwise `tie` (default) or the side of the judge's gaps summed over both orders (`gap`).
    """
    back = flip(swapped)
    if original == back:
        return original, True
    return (side_of(gap_sum) if resolution == "gap" else TIE), False


# -- agreement with human labels ------------------------------------------------------------------


def cohen_kappa(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """(p_o - p_e) / (1 - p_e) over the labels either side used; 0 when chance agreement is
    certain (both always used one and the same label)."""
    if len(gold) != len(predicted):
        raise ValueError("cohen_kappa needs two label sequences of the same length")
    n = len(gold)
    if n == 0:
        return math.nan
    p_o = sum(g == p for g, p in zip(gold, predicted)) / n
    labels = set(gold) | set(predicted)
    p_e = sum((list(gold).count(c) / n) * (list(predicted).count(c) / n) for c in labels)
    return 0.0 if p_e == 1 else (p_o - p_e) / (1 - p_e)


def anonymise(text: str, names: Sequence[str]) -> str:
    """Replace every identifying name (a model, an agent id) with `[hidden]`, case-insensitively."""
    for name in sorted({n.strip() for n in names if len(n.strip()) >= 2}, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", "[hidden]", text, flags=re.IGNORECASE)
    return text
