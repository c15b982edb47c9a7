"""The record of a CortexDebate: answers with confidences, debate graphs, credibility, what each call
read against the full mesh, and the statistics `cortex_stats` reports.

`debate.py` writes it. Rounds are numbered as in every method: the initial answers are round 1
(the paper's round 0), so the paper's debate round d is round d + 1. `rounds_executed` is the
paper's count, the debate rounds after the initial answers (`DebateResult.rounds` is one more),
and `round0_input_tokens` keeps the paper's name for the initial answers' cost. A round's `Graph`,
with every term behind its weights, is here too: the debate builds it and the viewer text reads
it, both importing it from here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from ...protocols import cortex as rules
from ...records import MethodRecord

MISSING_CONFIDENCE = 0.5  # A13: a neutral value, flagged in the record
MISSING = "missing"


@dataclass(frozen=True)
class ModelSize:
    """What Eq. 3 needs to know of a model: its parameters N and pre-training tokens M."""

    params: float
    tokens: float


@dataclass(frozen=True)
class Credibility:
    """C per agent: Eqs. 3-4 ("chinchilla") when every model size is known, else the same C for
    all ("equal", A14)."""

    mode: str
    C: list[float]
    unknown: list[str]  # the agents whose model size is unknown
    sizes: list[ModelSize]  # every agent's, in order, when all are known


@dataclass(frozen=True)
class Turn:
    """O_i^d with H_i^d: one agent's output in one round and the heads it read."""

    agent: str
    round: int
    answer: str | None
    stated_confidence: float | None  # None: missing, counted as 0.5
    confidence: float  # H after recalibration
    read: list[str]


@dataclass(frozen=True)
class GraphRecord:
    """One round's debate graph as JSON keeps it: no NaN or infinity (the diagonal of W is null,
    a literal-S weight "inf"), the kept edges as [head, tail] indices and by agent."""

    round: int
    R: list[float]
    I: list[list[float]]
    S: list[float]
    W: list[list[float | str | None]]  # W[head][tail]
    tail_means: list[float | str | None]
    keep: list[list[int]]  # keep[head][tail], 0 or 1
    edges: list[list[int]]
    heads: dict[str, list[str]]  # tail -> the heads it read
    participation_in: list[int]  # P after this round
    participation_out: list[int]
    # trust peer: the mean rating each agent's latest answer got from the others (None: none
    # readable, weighed as MISSING_CONFIDENCE); None for every other trust
    peer_scores: list[float | None] | None = None


@dataclass(frozen=True)
class Vote:
    rule: str  # "majority", or "medoid" (free text, A11)
    all_distinct: bool  # every agent answered differently: no answer
    tie: bool


@dataclass(frozen=True)
class CallContext:
    """One call's input tokens and what they would have been with every other agent as neighbour."""

    agent: str
    round: int
    attempt: int
    neighbours: int
    input_tokens: int
    full_mesh_input_tokens: int


@dataclass(frozen=True)
class AgentContext:
    calls: int
    input_tokens: int
    full_mesh_input_tokens: int


@dataclass(frozen=True)
class Context:
    """Input tokens per call, per agent and per sample, actual and full-mesh."""

    calls: int
    input_tokens: int
    full_mesh_input_tokens: int
    ratio: float | None  # actual / full mesh, below 1 what pruning saved; None: no usage reported
    round0_input_tokens: int  # the initial answers': what majority voting alone (MaV) costs
    per_agent: dict[str, AgentContext]
    per_call: list[CallContext]


def context_of(calls: Sequence[CallContext], initial_round: int) -> Context:
    actual = sum(c.input_tokens for c in calls)
    full = sum(c.full_mesh_input_tokens for c in calls)
    per_agent = {
        agent: AgentContext(
            len(mine),
            sum(c.input_tokens for c in mine),
            sum(c.full_mesh_input_tokens for c in mine),
        )
        for agent in dict.fromkeys(c.agent for c in calls)
        if (mine := [c for c in calls if c.agent == agent])
    }
    return Context(
        calls=len(calls),
        input_tokens=actual,
        full_mesh_input_tokens=full,
        ratio=actual / full if full else None,
        round0_input_tokens=sum(c.input_tokens for c in calls if c.round == initial_round),
        per_agent=per_agent,
        per_call=list(calls),
    )


CORTEX_STATS = (
    "debate_rounds",
    "consensus",
    "all_distinct",
    "edge_density",
    "input_tokens",
    "full_mesh_input_tokens",
    "context_ratio",
    "input_tokens_per_call",
    "input_tokens_per_agent",
)


@dataclass(frozen=True)
class CortexRecord(MethodRecord):
    kind: ClassVar[str] = "cortex"

    agents: int
    models: dict[str, str]  # per agent, when the solver knows them
    credibility: Credibility
    turns: list[list[Turn]]  # per round, the initial answers first
    graphs: list[GraphRecord]  # per debate round
    rounds_executed: int  # the paper's D actually run: debate rounds after the initial answers
    # consensus, consensus_round0, stable (stop=adaptive), max_rounds or limit (a limit of the run)
    stop_reason: str
    consensus: bool
    vote: Vote
    context: Context
    warnings: list[str]

    def debates(self, agent: str) -> int:
        """Table 4's debating number: the peers `agent` read, summed over the debate rounds (a
        fully-connected graph of n agents: n - 1 a round)."""
        return sum(len(t.read) for turns in self.turns for t in turns if t.agent == agent)

    def collisions(self, key: Callable[[str], str]) -> int:
        """Table 3's DVC: the different viewpoints the agents read, each pair (reader, peer read)
        of a debate round counted when both answered the round before and `key`s differ."""
        return sum(
            len(self._collided(t, d, key)) for d, turns in enumerate(self.turns) for t in turns
        )

    def revisions(self, key: Callable[[str], str], gold: set[str]) -> int:
        """Table 3's CVR: the turns that, having read a different viewpoint, revised a wrong answer
        of the round before into a right one."""
        return sum(
            1
            for d, turns in enumerate(self.turns)
            for t in turns
            if self._collided(t, d, key)
            and self._right(t.answer, key, gold)
            and not self._right(self._before(t.agent, d), key, gold)
        )

    def _before(self, agent: str, d: int) -> str | None:
        """`agent`'s answer in the round before the `d`-th (None in the first)."""
        earlier = self.turns[d - 1] if d > 0 else []
        return next((t.answer for t in earlier if t.agent == agent), None)

    def _collided(self, turn: Turn, d: int, key: Callable[[str], str]) -> list[str]:
        """The differing answers `turn`, of the `d`-th round, read from the round before."""
        own = self._before(turn.agent, d)
        if own is None:
            return []
        read = (self._before(head, d) for head in turn.read)
        return [a for a in read if a is not None and key(a) != key(own)]

    @staticmethod
    def _right(answer: str | None, key: Callable[[str], str], gold: set[str]) -> bool:
        return answer is not None and key(answer) in gold

    def stats(self) -> dict[str, int | float]:
        """The `CORTEX_STATS`. `edge_density` is the share of the n(n-1) possible edges kept,
        averaged over the debate rounds (0 without any); `context_ratio` is 1.0 when no usage was
        reported."""
        n, graphs, context = self.agents, self.graphs, self.context
        density = sum(len(g.edges) for g in graphs) / (len(graphs) * n * (n - 1)) if graphs else 0.0
        return {
            "debate_rounds": self.rounds_executed,
            "consensus": int(self.consensus),
            "all_distinct": int(self.vote.all_distinct),
            "edge_density": density,
            "input_tokens": context.input_tokens,
            "full_mesh_input_tokens": context.full_mesh_input_tokens,
            "context_ratio": context.ratio if context.ratio is not None else 1.0,
            "input_tokens_per_call": context.input_tokens / max(1, context.calls),
            "input_tokens_per_agent": context.input_tokens / n,
        }


@dataclass(frozen=True)
class Graph:
    """One round's debate graph and every term behind it (agents in order)."""

    round: int
    R: list[float]
    I: list[list[float]]
    S: list[float]
    W: list[list[float]]  # W[head][tail]; NaN on the diagonal
    tail_means: list[float]
    keep: list[list[bool]]  # keep[head][tail]
    participation_in: list[int]  # P after this round
    participation_out: list[int]
    peer_scores: list[float | None] | None = None  # trust peer: the mean rating received

    def to_record(self, names: Sequence[str]) -> GraphRecord:
        n = len(names)
        return GraphRecord(
            round=self.round,
            R=self.R,
            I=self.I,
            S=self.S,
            W=[[_json_number(w) for w in row] for row in self.W],
            tail_means=[_json_number(m) for m in self.tail_means],
            keep=[[int(k) for k in row] for row in self.keep],
            edges=[[i, j] for i in range(n) for j in range(n) if self.keep[i][j]],
            heads={names[j]: [names[i] for i in rules.heads(self.keep, j)] for j in range(n)},
            participation_in=self.participation_in,
            participation_out=self.participation_out,
            peer_scores=self.peer_scores,
        )


def _json_number(x: float) -> float | str | None:
    """JSON has no NaN or infinity: the diagonal becomes null, a literal-S weight "inf"."""
    if math.isnan(x):
        return None
    return "inf" if math.isinf(x) else x
