"""ChatEval on a pair of answers as the authors' code judges it (thunlp/ChatEval at 56b320c): the
debate held a second time with the two answers swapped (their `llm_eval.py --reverse_input`), and
the verdict read from scores instead of votes (the `average` rule of their scoring script,
`calc_adversarial_results_calc_score_calibration.py`).

A pair is what the pairwise tasks show (`mt_bench_judge`, `autoj_pairwise`): a block headed
`[Answer A]` and one headed `[Answer B]` (d3/court.py writes them). Swapping exchanges the two
answers' texts, so the answer shown first is the other one; the letters keep naming positions,
and a swapped debate's letters are read back to the answers they name.

The scores: each referee's message of the last turn gives both answers a score (`SCORE A: n`,
`SCORE B: n`, n from 0 to 10). The scores of every referee's last message, of both debates, are
summed per answer; the larger sum wins. As in the authors' script, equal sums and any score that
cannot be read give the answer shown first in the debate as given, A.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..content import Question
from ..records import AgentAnswer

OPEN_A, OPEN_B = "[Answer A]\n", "[Answer B]\n"
CLOSE_A, CLOSE_B = "\n[end of Answer A]", "\n[end of Answer B]"
BETWEEN = f"{CLOSE_A}\n\n{OPEN_B}"
LETTERS = ("A", "B")
FLIP = {"A": "B", "B": "A"}
MAX_SCORE = 10

# a line "SCORE A: 8" (decoration allowed around it, "**Score B:** 7.5"); every run is bounded and
# stays within its line, so a line costs linear time. A hedged or approximate score ("~8", "8?",
# ">= 8") is no score
_SCORE = re.compile(
    r"(?im)^[^\w\n]{0,8}score[^\S\n]{1,4}(?P<letter>[AB])[^\w\n<>~≈?]{0,4}[:=]"
    r"[^\w\n\-~≈<>?]{0,4}(?P<value>[0-9]{1,2}(?:\.[0-9]{1,2})?)[^\w\n?~]{0,4}$"
)


def swapped(question: Question) -> Question | None:
    """The question with the two answers' texts exchanged; None when it holds no pair (exactly
    one text part with the two blocks, the separator between them once)."""
    found = [
        i for i, p in enumerate(question.parts) if isinstance(p, str) and p.count(BETWEEN) == 1
    ]
    if len(found) != 1:
        return None
    part = question.parts[found[0]]
    assert isinstance(part, str)
    middle = part.index(BETWEEN)
    start, end = part.find(OPEN_A), part.rfind(CLOSE_B)
    if not 0 <= start < middle or end < middle + len(BETWEEN):
        return None
    a = part[start + len(OPEN_A) : middle]
    b = part[middle + len(BETWEEN) : end]
    exchanged = f"{part[:start]}{OPEN_A}{b}{BETWEEN}{a}{part[end:]}"
    parts = list(question.parts)
    parts[found[0]] = exchanged
    return Question(tuple(parts), question.turns)


def read_back(said: Sequence[AgentAnswer], suffix: str) -> list[AgentAnswer]:
    """A swapped debate's messages, each answer read back to the answer its letter named there,
    each agent marked as in that debate."""
    return [
        replace(a, agent=f"{a.agent}{suffix}", answer=FLIP.get(a.answer or "", a.answer))
        for a in said
    ]


def scores_of(text: str) -> tuple[float, float] | None:
    """The scores a message gives the answers shown first and second (the last line for each
    letter); None when either is missing or above the scale."""
    found: dict[str, float] = {}
    for m in _SCORE.finditer(text):
        found[m.group("letter").upper()] = float(m.group("value"))
    if set(found) != set(LETTERS) or max(found.values()) > MAX_SCORE:
        return None
    return found["A"], found["B"]


@dataclass(frozen=True)
class ScoreVerdict:
    winner: str
    totals: dict[str, float]  # by answer, over every referee's last message of both debates
    unread: int  # last messages without readable scores
    tie: bool


def score_verdict(
    given: Sequence[str],
    reversed: Sequence[str] = (),
    read_scores: Callable[[str], tuple[float, float] | None] = scores_of,
) -> ScoreVerdict:
    """The authors' `average`: the last messages of the debate as given (`given`) and of the
    swapped one (`reversed`, whose first-shown answer is B), their scores (`read_scores`: the
    first-shown answer's and the second's) summed per answer."""
    totals = {"A": 0.0, "B": 0.0}
    unread = 0
    for texts, (first, second) in ((given, ("A", "B")), (reversed, ("B", "A"))):
        for text in texts:
            read = read_scores(text)
            if read is None:
                unread += 1
                continue
            totals[first] += read[0]
            totals[second] += read[1]
    tie = totals["A"] == totals["B"]
    winner = "A" if unread or tie or totals["A"] > totals["B"] else "B"
    return ScoreVerdict(winner, totals, unread, tie)


# what every turn asks with `verdict=scores`: the authors' template names these criteria
CRITERIA = " Judge the answers by their helpfulness, relevance, accuracy and level of detail."


def score_request() -> str:
    """What the last turn asks beyond the answer, with `verdict=scores`."""
    return (
        " Before that line, score each answer from 1 to 10 (higher is better), on two lines of "
        'the form "SCORE A: n" and "SCORE B: n"; you need not give the same scores as the other '
        "referees."
    )
