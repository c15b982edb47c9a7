"""The records of a decision-protocol debate: its messages, consensus checks, votes and outcome.

`decision.py` writes them and `decision_report.py` renders them; both import them from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..protocols.voting import Parsed


@dataclass(frozen=True)
class Contribution:
    """One message of the discussion and the solution it carries."""

    turn: int
    agent: str
    persona: str | None
    kind: str  # draft | agree | disagree | improve (CI)
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
class Outcome:
    """How the debate ended: its answer, and whether the protocol or a fallback gave it."""

    final: str | None
    decision_success: bool
    decided_at: dict[str, Any] | None = None
    fallback_used: str | None = None
    winner_agent: str | None = None
