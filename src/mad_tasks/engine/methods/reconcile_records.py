"""The record of a RECONCILE debate: every answer with its stated and recalibrated confidence, the
confidence-weighted vote, and why the discussion stopped. `reconcile.py` writes it; rounds are
numbered as in every method (the initial answers are round 1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..protocols.reconcile import WeightedTally
from ..records import MethodRecord


@dataclass(frozen=True)
class ConfidentAnswer:
    """One agent's answer in one round with its confidence: `stated` as the reply gives it (None:
    none was readable, so it weighs as the lowest bin), `weight` the recalibrated value."""

    agent: str
    round: int
    answer: str | None
    stated: float | None
    weight: float


@dataclass(frozen=True)
class ReconcileRecord(MethodRecord):
    kind: ClassVar[str] = "reconcile"

    turns: list[list[ConfidentAnswer]]  # by round, agents in order
    vote: WeightedTally  # of the last round
    discussion_rounds: int  # the rounds after the initial answers that ran
    # "agreement" (every agent gave the same answer), "stable" (stop=adaptive) or "max_rounds"
    stop_reason: str
