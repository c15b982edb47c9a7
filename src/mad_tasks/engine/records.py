"""Typed, JSON-serialisable records of what a debate did."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class CallRecord:
    agent: str
    role: str
    purpose: str
    round: int
    attempt: int
    input_tokens: int | None  # None: the reply carried no usage, so its tokens are unknown
    output_tokens: int | None
    cached: bool = False  # served from the response cache: an earlier run spent these tokens

    @property
    def tokens(self) -> int | None:
        if self.input_tokens is None or self.output_tokens is None:
            return None
        return self.input_tokens + self.output_tokens


TOTALS = (
    "calls",
    "calls_without_usage",
    "cached_calls",
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "cached_output_tokens",
)


def token_totals(calls: Iterable[CallRecord]) -> dict[str, int]:
    """The `TOTALS` of some calls: `input_tokens`/`output_tokens` were spent by this run,
    `cached_*` came from the response cache (an earlier run spent them), and a call whose reply
    reported no usage counts in `calls_without_usage`, never as 0 tokens."""
    totals = dict.fromkeys(TOTALS, 0)
    for c in calls:
        totals["calls"] += 1
        totals["cached_calls"] += int(c.cached)
        if c.input_tokens is None or c.output_tokens is None:
            totals["calls_without_usage"] += 1
            continue
        prefix = "cached_" if c.cached else ""
        totals[f"{prefix}input_tokens"] += c.input_tokens
        totals[f"{prefix}output_tokens"] += c.output_tokens
    return totals


def reply_tokens(calls: Iterable[CallRecord]) -> int | None:
    """The size of a debate in tokens: every reply's input plus output, cached replies included
    (so a cached re-run measures what the first run measured); None when a reply reported none."""
    total = 0
    for c in calls:
        if c.tokens is None:
            return None
        total += c.tokens
    return total


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
        roles = dict.fromkeys(c.role for c in self.calls)
        return {role: token_totals(c for c in self.calls if c.role == role) for role in roles}

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
