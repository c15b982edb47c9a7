"""The record of a Tree-of-Debate run: every node with its self-deliberation, debate and expansion
decision, the tree JSON the synthesis read, every fallback taken, and the statistics `tree_stats`
reports.

`debate.py` writes it (the baselines `single_stage` and `two_stage` write one without nodes).
Authors are numbered as in the paper: Author 0 (the "focus" paper, the sample's `paper_a`) and
Author 1. Node ids are paths: the root `r`, its children `r.1` to `r.5`, theirs `r.2.1`, ...
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ...records import MethodRecord
from ...retrieval import Evidence

# what an opponent's claim gets when the relevance filter keeps none of the retrieved segments
NOT_ADDRESSED = "We do not address the opposition's claim: {claim}"


@dataclass(frozen=True)
class Claim:
    """A persona's claim: `evidence` holds the 1-based ids of the excerpts it cites (ids outside
    the pool are dropped when read)."""

    title: str
    description: str
    evidence: tuple[int, ...]


@dataclass(frozen=True)
class Judged:
    """One retrieved segment as the relevance filter read it: the four Yes/No fields (None: the
    reply could not be read, so the segment is dropped) and whether the keep rule kept it."""

    text: str
    supports: bool | None
    refutes: bool | None
    clarifies: bool | None
    irrelevant: bool | None
    kept: bool


@dataclass(frozen=True)
class Preemption:
    """A persona's counter-evidence to one opponent claim (`claim`, 1-based): the segments of its
    own paper the filter kept, or `[NOT_ADDRESSED filled in]` when it kept none."""

    claim: int
    query: str
    judged: tuple[Judged, ...]
    segments: tuple[str, ...]


@dataclass(frozen=True)
class Deliberation:
    """One persona's self-deliberation at a node: its evidence pool (empty without SD), its claims
    and its counter-evidence to each of the opponent's claims (empty without SD)."""

    author: int
    query: str
    evidence: tuple[Evidence, ...]
    claims: tuple[Claim, ...]
    preemption: tuple[Preemption, ...]


@dataclass(frozen=True)
class Argument:
    """A presented or revised argument (`concedes`: the persona concedes the topic)."""

    title: str
    description: str
    concedes: bool = False


@dataclass(frozen=True)
class Debate:
    """The three stages at a node, indexed by author; None where the reply could not be read
    after the retries (a fallback, recorded)."""

    present: tuple[Argument | None, Argument | None]
    respond: tuple[str | None, str | None]
    revise: tuple[Argument | None, Argument | None]


@dataclass(frozen=True)
class Expansion:
    """The moderator's three judgments (None: unreadable) and what came of them: `wants` by the
    expansion rule (an unreadable reply never expands), `granted` when the budget and the depth
    limit allowed it, else `blocked` says which stopped it ("budget" or "depth")."""

    explanation: str
    progression: bool | None
    questions: bool | None
    clear_winner: bool | None
    rule: str
    wants: bool
    granted: bool
    blocked: str | None = None


@dataclass(frozen=True)
class Node:
    """A (sub)topic of the tree. The root holds the user's topic and is never debated; every other
    node is debated with its parent's self-deliberation, mapped to it by `contributions` (the claim
    ids of Author 0 and of Author 1). A node that was expanded holds its own `deliberation`.
    `order` is its place in breadth-first order (the root 0)."""

    id: str
    parent: str | None
    level: int
    order: int
    title: str
    description: str
    contributions: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    deliberation: tuple[Deliberation, Deliberation] | None = None
    debate: Debate | None = None
    expansion: Expansion | None = None
    children: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fallback:
    """A reply that could not be read after its retries and the deterministic rule that replaced
    it: `what` is the stage ("claims", "relevance", "subtopics", "present", "respond", "revise",
    "expand", "summary"), `rule` what was done (e.g. "no claims: persona skipped")."""

    node: str
    what: str
    author: int | None
    rule: str


@dataclass
class TreeRecord(MethodRecord):
    """What a Tree-of-Debate run (or a baseline: `variant` "single_stage" or "two_stage", with no
    nodes) did. `tree` is exactly the JSON the synthesis read; `budget` the expansion budget (None:
    unlimited, bounded by `max_depth`); `texts` says what text each paper was read from."""

    kind: ClassVar[str] = "tree"
    answers_with: ClassVar[str] = "a summary"
    variant: str
    topic: str
    titles: tuple[str, str]
    texts: tuple[str, str]
    nodes: list[Node] = field(default_factory=list)
    expansions: int = 0
    budget: int | None = None
    chunks: tuple[int, int] = (0, 0)  # chunks each paper gave the retriever (after the filter)
    fallbacks: list[Fallback] = field(default_factory=list)
    tree: dict[str, Any] = field(default_factory=dict)
    summary: str | None = None

    def stats(self) -> dict[str, int | float | None]:
        """What `tree_stats` reports: nodes (debated), depth (deepest level), expansions,
        self-deliberations, concessions (of the revised arguments), the share of judged
        segments the relevance filter kept (None when none was judged), and fallbacks."""
        debated = [n for n in self.nodes if n.debate is not None]
        revised = [a for n in debated for a in n.debate.revise if a is not None]  # type: ignore[union-attr]
        judged = [
            j
            for n in self.nodes
            for d in n.deliberation or ()
            for p in d.preemption
            for j in p.judged
        ]
        return {
            "nodes": len(debated),
            "depth": max((n.level for n in self.nodes), default=0),
            "expansions": self.expansions,
            "deliberations": sum(n.deliberation is not None for n in self.nodes),
            "concessions": sum(a.concedes for a in revised),
            "evidence_kept": sum(j.kept for j in judged) / len(judged) if judged else None,
            "fallbacks": len(self.fallbacks),
        }
