"""The records of a decision-protocol debate: its messages, consensus checks, votes and outcome,
and the statistics `decision_stats` reports.

`debate.py` writes them and `viewer.py` renders them; both import them from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from ...protocols.voting import Parsed
from ...records import CallRecord, MethodRecord, reply_tokens
from .personas import Persona


@dataclass(frozen=True)
class Contribution:
    """One message of the discussion and the solution it carries."""

    turn: int
    agent: str
    persona: str | None
    kind: str  # draft | agree | disagree | improve (CI) | keep (controls.py)
    message: str
    solution: str | None  # None: no readable solution
    agreement: bool | None  # None: not asked (drafts, CI)
    extraction: str  # marked | call | none (an agreement under "marked": nothing to read)
    calls: int  # the message call plus its extraction attempts


@dataclass(frozen=True)
class ConsensusCheck:
    turn: int
    agent: str  # the check ran after this agent's message
    count: int
    agents: int
    threshold: float
    decided: bool


@dataclass(frozen=True)
class Candidate:
    index: int  # what ballots call it ("Solution 0", ...)
    answer: str
    agents: list[str]  # whose latest solution it is (several only with dedupe / counting)


@dataclass(frozen=True)
class Ballot:
    agent: str
    raw: list[str]  # every reply, the re-prompted ones included
    parsed: Parsed | None  # None: invalid after every retry, dropped from the tally
    retries: int


@dataclass(frozen=True)
class Vote:
    turn: int
    protocol: str
    candidates: list[Candidate]
    ballots: list[Ballot]
    tally: list[int]
    winner: int | None
    tie: bool
    invalid: int
    retries: int


@dataclass(frozen=True)
class DecidedAt:
    turn: int
    after: str  # "vote", or the agent whose message completed the consensus


@dataclass(frozen=True)
class Outcome:
    """How the debate ended: its answer, and whether the protocol or a fallback gave it."""

    final: str | None
    decision_success: bool
    decided_at: DecidedAt | None = None
    fallback_used: str | None = None
    winner_agent: str | None = None


@dataclass(frozen=True)
class ChallengeVerdict:
    """One agent's reply to the challenge, and its new answer if it disagreed."""

    agent: str
    reply: str
    verdict: str  # agree | disagree | abstain (no readable AGREE / DISAGREE)
    new_reply: str | None  # the reply that gave the new answer (disagree only)
    new_answer: str | None  # None: not asked, or no readable answer after the follow-ups
    calls: int


@dataclass(frozen=True)
class Challenge:
    """The challenge stage after the decision (`challenge` option): what the agents judged, their
    verdicts and new answers, and whether the final answer changed."""

    setting: str  # the variant: solution | wrong | irrelevant | history | information
    decided: str | None  # the decision's answer
    # the final answer the agents judged, as shown; None: nothing to judge (the debate has no
    # answer, or, for wrong, no answer could be read from the challenger's reply)
    shown: str | None
    shown_answer: str | None  # the same in the answer format; None: not an answer (irrelevant)
    challenger: str | None  # the challenger role's reply (wrong, irrelevant written by a call)
    verdicts: list[ChallengeVerdict]
    adopt: str  # never | majority
    adopted: str | None  # the new answer that replaced the decision's (challenge_adopt=majority)
    facts: str | None = None  # the facts shown with the answer (information only)

    @property
    def final(self) -> str | None:
        return self.adopted if self.adopted is not None else self.decided

    def count(self, verdict: str) -> int:
        return sum(v.verdict == verdict for v in self.verdicts)


@dataclass(frozen=True)
class DecisionRecord(MethodRecord):
    """A decision-protocol debate (`voting`, `consensus`, `aad`, `collective_improvement`)."""

    kind: ClassVar[str] = "decision"

    personas: dict[str, Persona]
    transcript: list[Contribution]
    consensus_checks: list[ConsensusCheck]
    votes: list[Vote]
    decision_success: bool
    turns_used: int
    max_turns: int
    decided_at: DecidedAt | None
    fallback_used: str | None
    winner_agent: str | None
    final_answers: dict[str, str | None]  # each agent's last solution
    answer_cosine: float | None  # mean pairwise cosine of the final answers; None: under two
    embedder: str
    # the challenge stage's variants in the order they ran; none: no stage (challenge=none)
    challenges: list[Challenge] = field(default_factory=list)

    def stats(
        self, calls: Sequence[CallRecord], cosine: float | None
    ) -> dict[str, int | float | None]:
        """What `decision_stats` reports per sample, with `cosine` as the answer diversity (the
        recorded one, or one recomputed with another embedder); `tokens` is None when a reply
        reported no usage."""
        ballots = [b for v in self.votes for b in v.ballots]
        return {
            "decision_success": int(self.decision_success),
            "turns": self.turns_used,
            "max_turns": self.max_turns,
            "votes": len(self.votes),
            "ties": sum(v.tie for v in self.votes),
            "ballots": len(ballots),
            "invalid_ballots": sum(b.parsed is None for b in ballots),
            "calls": len(calls),
            "tokens": reply_tokens(calls),
            "answer_cosine": cosine,
        }
