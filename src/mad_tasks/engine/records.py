"""Typed, JSON-serialisable records of what a debate did."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class CallRecord:
    agent: str
    role: str
    purpose: str
    round: int
    attempt: int
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class AgentAnswer:
    """An agent's reply in one round and the answer parsed from it (None = abstention)."""

    agent: str
    round: int
    text: str
    answer: str | None
    attempts: int = 1


@dataclass(frozen=True)
class Tally:
    """A majority vote over answers; abstentions are counted apart and never vote."""

    counts: dict[str, int]
    winner: str | None
    tie: bool
    abstentions: int


@dataclass
class DebateResult:
    method: str
    final: str | None
    answers: list[AgentAnswer]
    calls: list[CallRecord]
    tally: Tally | None = None
    options: dict[str, Any] = field(default_factory=dict)
    # method-specific records (ballots, personas, graphs, ...), already JSON-serialisable
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def rounds(self) -> int:
        return max((a.round for a in self.answers), default=0)

    def answers_in_round(self, round: int) -> list[AgentAnswer]:
        return [a for a in self.answers if a.round == round]

    def tokens_by_role(self) -> dict[str, dict[str, int]]:
        out: dict[str, Counter[str]] = {}
        for c in self.calls:
            role = out.setdefault(c.role, Counter())
            role["input_tokens"] += c.input_tokens
            role["output_tokens"] += c.output_tokens
            role["calls"] += 1
        return {k: dict(v) for k, v in out.items()}

    def answer_changes(self) -> int:
        """How many times an agent's parsed answer differed from its previous round's answer."""
        last: dict[str, str | None] = {}
        changes = 0
        for a in sorted(self.answers, key=lambda a: a.round):
            if a.agent in last and a.answer != last[a.agent]:
                changes += 1
            last[a.agent] = a.answer
        return changes

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DebateResult:
        return cls(
            method=d["method"],
            final=d["final"],
            answers=[AgentAnswer(**a) for a in d["answers"]],
            calls=[CallRecord(**c) for c in d["calls"]],
            tally=Tally(**d["tally"]) if d.get("tally") else None,
            options=d.get("options", {}),
            details=d.get("details", {}),
        )
