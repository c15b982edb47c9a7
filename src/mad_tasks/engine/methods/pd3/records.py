"""The records of PD³ (seed 000): the round-robin retrieval with its groups, debates, decisions and
vote (`PD3Record`, also written by the list-wise, LLM-voting and lexical baselines), and the
feedback module's duplication scores (`FeedbackRecord`), with the statistics their scorers report.

`tournament.py` writes them. Candidates are recorded by their corpus ids; `labels` maps each id to
the anonymous label the prompts showed. Expert rounds are numbered as in the paper: round 0 holds
the initial picks, rounds 1 to R the debate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ...records import MethodRecord


@dataclass(frozen=True)
class Project:
    """A project as a sample gives it: its corpus id, title and text (the query's, or a
    candidate's)."""

    id: str
    title: str
    text: str
    # the respect in which a query's relevance was judged (CSFCube's facets: background, method,
    # result; several joined by "+"), stated in every prompt that presents the query; None: unknown
    facet: str | None = None


@dataclass(frozen=True)
class Cut:
    """A project's text cut to its budget: its id, its length and what the prompts showed, in
    characters (the query's: its text parts together)."""

    id: str
    chars: int
    shown: int


@dataclass(frozen=True)
class Statement:
    """One expert's reply in one round: `expert` numbered from 1 within its group, `picks` the
    candidates (corpus ids) its text names, best effort, in order of first mention (the paper
    asks experts for no machine format)."""

    expert: int
    round: int
    text: str
    picks: tuple[str, ...]


@dataclass(frozen=True)
class Decision:
    """A group's decision: the decider's replies (follow-ups included), the ids read after its
    last `[RESULT]` (None: no reply had a readable list), and the `k` picks after the fill, with
    where each filled slot came from ("experts": their final-round majority, "preliminary": the
    preliminary order)."""

    agent: str
    replies: tuple[str, ...]
    parsed: tuple[str, ...] | None
    picks: tuple[str, ...]
    filled_from: tuple[str, ...]

    @property
    def fallback(self) -> bool:
        """Whether the decision needed a rule beyond the decider's own list."""
        return self.parsed is None or bool(self.filled_from)


@dataclass(frozen=True)
class Group:
    """A sub-competition, numbered from 1: its members (corpus ids, in partition order), every
    expert statement (by round, then expert; none for a single decider) and its decision."""

    number: int
    members: tuple[str, ...]
    statements: tuple[Statement, ...]
    decision: Decision


@dataclass
class PD3Record(MethodRecord):
    """What one query's retrieval did. `variant`: "pd3", "llm_voting" (one decider per group),
    "listwise" (one group of all candidates, one call) or "lexical" (BM25, no call, no groups).
    `seed` is the one the labels and the partition were drawn with (the option's, mixed with the
    query id); `order` the candidates in their preliminary order. `votes`, `points` (rank
    points) and `initial` (experts' round-0 picks) are per candidate id; `rule` names what settled
    the k-th place ("votes" when no tie reached it, else the tie-break that did)."""

    kind: ClassVar[str] = "pd3"
    answers_with: ClassVar[str] = "a ranking"
    variant: str
    query: str
    k: int
    seed: int
    order: tuple[str, ...]
    labels: dict[str, str] = field(default_factory=dict)
    partition: list[tuple[str, ...]] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    votes: dict[str, int] = field(default_factory=dict)
    points: dict[str, int] = field(default_factory=dict)
    initial: dict[str, int] = field(default_factory=dict)
    rule: str = ""
    top: tuple[str, ...] = ()
    cuts: list[Cut] = field(default_factory=list)  # the candidates cut
    query_cut: Cut | None = None
    # a ranking's score per id (BM25, ROUGE-L, a judge's 1-10; None: no readable score)
    scores: dict[str, float | None] = field(default_factory=dict)

    def stats(self) -> dict[str, int | float | None]:
        """What `pd3_stats` reports: groups, calls_per_group (the mean, follow-ups included; None
        without groups), fallbacks (groups whose decision was unreadable or filled), filled
        (slots filled), unreadable (decisions without a readable list), boundary_tie (1 when
        votes tied at the k-th place, settled by a tie-break), kth_votes (the votes of the k-th
        pick; None without votes) and truncated (candidate texts cut to their budget)."""
        groups = self.groups
        calls = sum(len(g.statements) + len(g.decision.replies) for g in groups)
        kth = self.top[self.k - 1] if len(self.top) >= self.k else None
        return {
            "groups": len(groups),
            "calls_per_group": calls / len(groups) if groups else None,
            "fallbacks": sum(g.decision.fallback for g in groups),
            "filled": sum(len(g.decision.filled_from) for g in groups),
            "unreadable": sum(g.decision.parsed is None for g in groups),
            "boundary_tie": int(self.rule not in ("votes", "")),
            "kth_votes": self.votes.get(kth) if kth is not None and self.votes else None,
            "truncated": len(self.cuts),
        }


@dataclass(frozen=True)
class FeedbackResult:
    """The feedback on one query's references: `side` ("" alone, "A" or "B" in a pair), the
    similarity conclusion (None: not asked for, or no readable reply), each judge sample's
    replies (follow-ups included), its score from 1 to 10 (None: unreadable, left out of the
    mean) and the mean of the readable scores (None when none was readable)."""

    side: str
    query: str
    references: tuple[str, ...]
    conclusion: str | None
    replies: tuple[tuple[str, ...], ...]
    scores: tuple[int | None, ...]
    mean: float | None
    cuts: tuple[Cut, ...] = ()  # the query's and the references' texts cut


@dataclass
class FeedbackRecord(MethodRecord):
    """The feedback module's record: one result per side, and for a pair the prediction ("A",
    "B" or "tie"; None when a side has no readable score)."""

    kind: ClassVar[str] = "pd3_feedback"
    answers_with: ClassVar[str] = "a pair's scores"
    sides: list[FeedbackResult]
    prediction: str | None = None
    # Method Retrieval: each side's PD³ retrieval of its references, side A's first
    retrievals: list[PD3Record] = field(default_factory=list)

    def stats(self) -> dict[str, int | float | None]:
        """samples (judge calls asked for), unscored (samples without a readable score) and the
        mean score of each side (`score` alone, `score_a` and `score_b` in a pair)."""
        out: dict[str, int | float | None] = {
            "samples": sum(len(s.scores) for s in self.sides),
            "unscored": sum(x is None for s in self.sides for x in s.scores),
        }
        for s in self.sides:
            out[f"score_{s.side.lower()}" if s.side else "score"] = s.mean
        return out
