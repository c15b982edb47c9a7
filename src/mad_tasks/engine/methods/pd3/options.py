"""The options of PD³'s methods (Bao et al., seed 000): how every call shows the projects, one
decision among the candidates (`listwise`), the tournament (`pd3`, `llm_voting`), the lexical floor
(`bm25`) and the feedback module (`pd3_feedback`), with the caps on what multiplies a query's
calls."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...checks import OptionError, boolean, integer, one_of, optional, text
from ...embeddings import pair_scorer_spec
from ...options import (
    MAX_AGENTS,
    MAX_RETRIES,
    MAX_ROUNDS,
    Generation,
    Options,
    embedder_option,
    option,
    peers_option,
)
from ...protocols.pd3 import GROUPINGS, LABEL_NUMBERS
from . import prompts

# Caps on the counts that multiply a query's calls (docs/options.md, "Option checks"); `agents`
# and `debate_rounds` take the project's MAX_AGENTS and MAX_ROUNDS.
MAX_GROUPS = 200  # groups per query (paper: 15; its group-size sweep at most 20)
MAX_QUERY_CALLS = 3000  # groups x calls per group (paper: 150; its sweeps at most 420)
MAX_SAMPLES = 10  # judge samples per query (paper: 3)
MAX_TOP_K = 50  # the paper's K = 5
MAX_SET_SIZE = 100
MAX_GROUP_SIZE = len(LABEL_NUMBERS)  # as many candidates as there are labels
MAX_VIEW_TOKENS = 100_000  # per candidate or query (paper: about 1.3k)

DECIDERS = ("senior", "single")
REASONINGS = ("uniform", "diverse")
VISIBILITIES = ("simultaneous", "sequential")
RESULT = "[RESULT]"


@dataclass(frozen=True)
class ProjectOptions(Generation):
    """How every PD³ call shows the projects: the domain and the text budgets."""

    domain: str = option(
        prompts.DOMAIN,
        "what the projects are, as the prompts name them (paper: power science and technology "
        "projects).",
        text,
    )
    candidate_tokens: int = option(
        1024,
        "budget of each candidate's (or reference's) title and text, in tokens of "
        f"{prompts.CHARS_PER_TOKEN} characters; longer texts are cut, and the cut recorded.",
        lambda name, v: integer(name, v, 1, MAX_VIEW_TOKENS),
    )
    query_tokens: int = option(
        2048,
        "budget of the project under detection's text, in tokens of "
        f"{prompts.CHARS_PER_TOKEN} characters (cut and recorded the same way).",
        lambda name, v: integer(name, v, 1, MAX_VIEW_TOKENS),
    )


@dataclass(frozen=True)
class JudgedOptions(ProjectOptions):
    """A ranking by a model's judgement: the follow-ups, the criteria and how many."""

    retries: int = option(
        1,
        "follow-ups for a reply without a readable [RESULT] (a decision's list, a score) before "
        "it is filled or left unscored (spec A9: once).",
        lambda name, v: integer(name, v, 0, MAX_RETRIES),
    )
    criteria: str = option(
        prompts.CRITERIA,
        "the detection criteria every retrieval prompt states (paper: overlap in research "
        "content, key technologies, scenario or applications).",
        text,
    )
    top_k: int = option(
        5,
        "how many candidates the method returns (paper: K = 5).",
        lambda name, v: integer(name, v, 1, MAX_TOP_K),
    )

    def check_candidates(self, n: int) -> None:
        """Refuse, before any call, a sample whose `n` candidates the options cannot serve: every
        candidate gets a label (and `pointwise` a call), so at most len(LABEL_NUMBERS)."""
        if n > len(LABEL_NUMBERS):
            raise ValueError(
                f"a query has {n} candidates; at most {len(LABEL_NUMBERS)} can be judged"
            )
        if self.top_k > n:
            raise OptionError(
                "top_k", self.top_k, f"an integer from 1 to the number of candidates ({n})"
            )


@dataclass(frozen=True)
class PointwiseOptions(JudgedOptions):
    """LLM-as-a-Judge, point-wise: one call scores each candidate on its own."""


@dataclass(frozen=True)
class ListwiseOptions(JudgedOptions):
    """One decision among the candidates, whose labels are drawn from a seed."""

    seed: int = option(
        0,
        "seed of the labels, the partition and the random groups, mixed with the query's id.",
        lambda name, v: integer(name, v, None),
    )


@dataclass(frozen=True)
class LexicalOptions(Options):
    """The option of a ranking that makes no model call (BM25, embeddings, a random draw)."""

    top_k: int = option(
        5,
        "how many candidates it returns (paper: K = 5).",
        lambda name, v: integer(name, v, 1, MAX_TOP_K),
    )


@dataclass(frozen=True)
class DenseOptions(LexicalOptions):
    """The vector-distance baseline: candidates ranked by embedding similarity to the query."""

    embedder: str = embedder_option(
        "the embedding model: hashing (offline), sentence-transformers/<model> (the paper's "
        "gte-Qwen2-1.5B-instruct: sentence-transformers/Alibaba-NLP/gte-Qwen2-1.5B-instruct) or "
        "openai[/<model>]."
    )
    instruction: str | None = option(
        None,
        "an instruction for the query's embedding, as gte-Qwen2 takes one ('Instruct: <it>\\n"
        "Query: <query>'; the candidates are embedded as they are): the paper's 'with "
        "instruction' rows; unset: none.",
        lambda name, v: optional(text, name, v),
    )


@dataclass(frozen=True)
class RerankerOptions(LexicalOptions):
    """A pretrained reranker: candidates ranked by a cross-encoder's score of (query, candidate)."""

    reranker: str = option(
        "hashing",
        "the cross-encoder: hashing (offline: the cosine of hashing embeddings) or "
        "cross-encoder/<model>, a local sentence-transformers CrossEncoder (the paper's bge: "
        "cross-encoder/BAAI/bge-reranker-v2-m3).",
        pair_scorer_spec,
    )


@dataclass(frozen=True)
class RandomOptions(LexicalOptions):
    """The random floor: top_k candidates drawn at random, seeded by the query."""

    seed: int = option(
        0, "the draw's seed (mixed with the query's id).", lambda n, v: integer(n, v, None)
    )


@dataclass(frozen=True)
class PD3Options(ListwiseOptions):
    """PD³'s round-robin tournament of debates; `decider` single is the LLM-voting ablation."""

    set_size: int = option(
        5,
        "candidates per set of the partition; the candidates must split evenly (paper: K = 5).",
        lambda name, v: integer(name, v, 1, MAX_SET_SIZE),
    )
    group_size: int = option(
        20,
        "candidates per group, a multiple of set_size (paper: M = 20; M = 30 of 30 is one group, "
        "'MAD vanilla').",
        lambda name, v: integer(name, v, 1, MAX_GROUP_SIZE),
    )
    grouping: str = option(
        "round_robin",
        "round_robin (every combination of group_size / set_size sets), sliding (windows of "
        "consecutive sets, cyclic, step 1), random (as many groups, members drawn at random) or "
        "traversal (one group after another: the last decision's top_k and group_size - top_k "
        "new candidates, in a seeded order; the last decision is the result; set_size unused).",
        lambda name, v: one_of(name, v, GROUPINGS),
    )
    agents: int = option(
        3,
        "experts per group (paper: 3; its sweep 2 to 5).",
        lambda name, v: integer(name, v, 1, MAX_AGENTS),
    )
    debate_rounds: int = option(
        2,
        "debate rounds after the experts' initial picks (paper: 2; its sweep 1 to 4).",
        lambda name, v: integer(name, v, 0, MAX_ROUNDS),
    )
    visibility: str = option(
        "simultaneous",
        "simultaneous: a debate round's experts see the earlier rounds; sequential: also the "
        "statements already made in their round.",
        lambda name, v: one_of(name, v, VISIBILITIES),
    )
    # the control conditions, in what a debating expert reads of the other experts' statements
    # (tournament.py); `llm_voting`, whose groups do not debate, does not show the group
    peers: str = peers_option("debate")
    extra_asks: bool = option(
        False,
        "ours, not the paper's: a debating expert also names the candidates it now selects, and "
        "the senior also weighs the experts' disagreements and reasons against the criteria and "
        "lists exactly top_k.",
        boolean,
    )
    neutrality: str = option(
        "initial",
        "where the experts are told they come without a preconceived view: initial (each "
        "expert's round-0 prompt, once, as the paper's prompts have it) or every_prompt (every "
        "expert prompt of every round and the senior's).",
        lambda name, v: one_of(name, v, prompts.NEUTRALITIES),
    )
    reasoning: str = option(
        "uniform",
        "uniform (every expert asked alike) or diverse (DMAD, as the paper ran it: the experts "
        "reason by chain of thought, step-back prompting and self-refine, in turn).",
        lambda name, v: one_of(name, v, REASONINGS),
    )
    decider: str = option(
        "senior",
        "senior: experts debate, a senior expert decides; single: one call decides each group "
        "(the LLM-voting ablation; agents and debate_rounds are not used).",
        lambda name, v: one_of(name, v, DECIDERS),
    )

    def validate(self) -> None:
        super().validate()
        if self.grouping != "traversal" and self.group_size % self.set_size:
            raise OptionError(
                "group_size", self.group_size, f"a multiple of set_size ({self.set_size})"
            )
        if self.top_k > self.group_size:
            raise OptionError(
                "top_k", self.top_k, f"an integer from 1 to group_size ({self.group_size})"
            )
        if self.peers != "others" and not (
            self.decider == "senior" and self.agents > 1 and self.debate_rounds > 0
        ):
            allowed = (
                "others unless experts debate (decider senior, agents 2 or more, debate_rounds "
                "1 or more): no expert reads another's statement"
            )
            raise OptionError("peers", self.peers, allowed)

    @property
    def calls_per_group(self) -> int:
        if self.decider == "single":
            return 1
        return self.agents * (1 + self.debate_rounds) + 1

    def group_count(self, n: int) -> int:
        """How many groups `n` candidates make (sliding: at most)."""
        sets, per = n // self.set_size, self.group_size // self.set_size
        if self.grouping == "traversal":
            new = self.group_size - self.top_k  # none: group_size = n, one group
            return 1 + (-(-(n - self.group_size) // new) if n > self.group_size else 0)
        if self.grouping == "sliding":
            return sets if per < sets else 1
        return math.comb(sets, per)

    def check_candidates(self, n: int) -> None:
        """Also: the sets, the groups and the calls `n` candidates make."""
        super().check_candidates(n)
        if self.grouping != "traversal" and n % self.set_size:  # traversal makes no sets
            raise OptionError(
                "set_size", self.set_size, f"a divisor of the number of candidates ({n})"
            )
        if self.group_size > n:
            raise OptionError(
                "group_size",
                self.group_size,
                f"a multiple of set_size ({self.set_size}) up to the number of candidates ({n})",
            )
        if self.grouping == "traversal" and self.top_k == self.group_size < n:
            raise OptionError(
                "group_size",
                self.group_size,
                f"more than top_k ({self.top_k}) with grouping traversal, or every candidate "
                f"({n}): each group adds group_size - top_k new candidates",
            )
        count = self.group_count(n)
        if count > MAX_GROUPS:
            raise OptionError(
                "group_size",
                self.group_size,
                f"a size giving at most {MAX_GROUPS} groups ({count} with {n} candidates in sets "
                f"of {self.set_size}, grouping {self.grouping})",
            )
        if count * self.calls_per_group > MAX_QUERY_CALLS:
            raise OptionError(
                "debate_rounds",
                self.debate_rounds,
                f"a value giving at most {MAX_QUERY_CALLS} calls per query ({count} groups × "
                f"{self.calls_per_group} calls: agents × (1 + debate_rounds) + 1)",
            )


@dataclass(frozen=True)
class FeedbackOptions(ProjectOptions):
    """The feedback module: the similarity conclusion and the judge samples."""

    samples: int = option(
        3,
        "independent judge calls whose readable scores are averaged (paper: 3).",
        lambda name, v: integer(name, v, 1, MAX_SAMPLES),
    )
    conclusion: bool = option(
        True,
        "write a similarity conclusion first and show it to the judges ('with conclusion').",
        boolean,
    )
