"""The record of a D3 judgment (MORE, SAMRE, single judge): its hearings, each with the defences,
the judge's evaluations and the jury's votes, and the statistics the judge metrics read.

`court.py` writes it; the hearings' rounds are SAMRE's debate rounds, the first numbered 1.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, ClassVar

from ...answers import without_answer_lines
from ...protocols.d3 import Scores, Verdict
from ...records import AdaptiveStopRecord, MethodRecord

# a peer discussion's first statements, each a reviewer's review (its `jury` holds every
# statement, the persona saying which: "review" or "turn n")
REVIEW = "review"


@dataclass(frozen=True)
class Defence:
    side: str
    agent: str
    round: int
    kind: str  # "argument", "merged" or "summary"
    text: str


@dataclass(frozen=True)
class Evaluation:
    """One scoring pass of the judge; `scores` is None when no reply gave readable totals."""

    agent: str
    round: int
    scores: Scores | None
    criteria: list[Scores] | None
    text: str
    attempts: int

    @property
    def gap(self) -> int | None:
        return self.scores[0] - self.scores[1] if self.scores else None

    def shown(self) -> str:
        """As advocates and jurors read it: the totals line replaced, so that a juror's own
        `ANSWER:` line has no rival in its prompt."""
        scores = f"A {self.scores[0]}, B {self.scores[1]}" if self.scores else "unscored"
        return f"{without_answer_lines(self.text).strip()}\n\nScores: {scores}"


@dataclass(frozen=True)
class JurorVote:
    juror: str
    persona: str
    vote: str | None  # None: abstained (no readable vote after the retries)
    rationale: str
    attempts: int


@dataclass
class Hearing:
    """One debate over the pair in one order ("AB" as given, "BA" reversed); labels are
    positions in that order."""

    order: str
    rounds: int
    defences: list[Defence]
    evaluations: list[Evaluation]
    stop_reason: str | None
    jury: list[JurorVote]
    verdict: Verdict
    transcript: str  # the text the jurors read (the question's other parts are the sample's)
    tokens: int | None  # None: some reply reported no usage
    calls: int
    # SAMRE with stopping=adaptive: the stability rule over this hearing's rounds; None without
    adaptive_stop: AdaptiveStopRecord | None = None


@dataclass(frozen=True)
class JudgeRecord(MethodRecord):
    kind: ClassVar[str] = "judge"

    verdict: str | None  # A, B or tie; None: abstained
    position_consistent: bool | None  # with swap: did the verdict follow the answers?
    max_rounds: int | None  # SAMRE's round limit; None for judges without one
    token_budget_enforced: bool | None  # SAMRE with a budget: False once a reply had no usage
    hearings: list[Hearing]  # the order as given first, then the reversed one with swap
    # why no court sat (an empty answer: `d3.unheard`); then there is no hearing
    unheard: str | None = None

    def stats(self) -> dict[str, Any]:
        """What the judge metrics read: the verdict, whether it is an abstention, and the costs
        and dynamics behind it. rounds is the mean over the hearings (0 without one), early_stop
        the share of them that stopped before `max_rounds` (None without a limit or a hearing),
        tokens and calls the sums (tokens None when a reply reported no usage), unscored the judge
        passes without readable totals, abstentions the jurors without a readable vote."""
        hearings, limit = self.hearings, self.max_rounds
        tokens = [h.tokens for h in hearings]
        return {
            "verdict": self.verdict,
            "abstained": self.verdict is None,
            "rounds": statistics.mean(h.rounds for h in hearings) if hearings else 0,
            "early_stop": (
                statistics.mean(h.rounds < limit for h in hearings) if limit and hearings else None
            ),
            "stop_reasons": [h.stop_reason for h in hearings],
            "tokens": None if None in tokens else sum(t for t in tokens if t is not None),
            "calls": sum(h.calls for h in hearings),
            "position_consistent": self.position_consistent,
            "unscored": sum(e.scores is None for h in hearings for e in h.evaluations),
            "abstentions": sum(v.vote is None for h in hearings for v in h.jury),
        }
