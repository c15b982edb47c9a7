"""CortexDebate's options (`-S` on the `cortex` solver), each checked before the first model call:
the agents and rounds, the topology and pruning, the trust and similarity terms, the credibility
sizes and the ablations (A-numbers: the resolutions in the spec's §6). The debate (debate.py) and
its viewer text (viewer.py) both read them from here."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ...checks import OptionError, boolean, integer, number, one_of
from ...embeddings import pair_scorer_spec
from ...options import (
    MAX_AGENTS,
    MAX_ROUNDS,
    AdaptiveStop,
    Check,
    PeerControls,
    embedder_option,
    option,
)
from ...protocols import cortex as rules
from ..turns import agent_names
from .records import ModelSize
from .similarity import SIMILARITIES

TOPOLOGIES = ("mdm", "full")
MAX_PEER_RATINGS = (
    2000  # trust peer's rating calls per sample (the paper's 5 agents, 5 rounds: 100)
)
MAX_SIMILARITY_RATINGS = 1000  # similarity prompted: calls per sample (5 agents, 5 rounds: 50)
S_MODES = ("smoothed", "literal")
EMBED_TEXTS = ("no_confidence", "raw")
FREEFORM_VOTES = ("exact", "medoid")


def _recalibration(name: str, value: Any) -> tuple[float, float, float] | None:
    """[high, mid, low] with 1 >= high >= mid >= low >= 0, or "none" (no recalibration).

    Numbers may come as text: `-S recalibration=0.8,0.6,0.3` arrives as three strings."""
    if value is None or (isinstance(value, str) and value.lower() == "none"):
        return None
    bands = _numbers(value, 3)
    if bands is not None and 1 >= bands[0] >= bands[1] >= bands[2] >= 0:
        return bands[0], bands[1], bands[2]
    raise OptionError(name, value, RECALIBRATION)


RECALIBRATION = "[high, mid, low] with 1 >= high >= mid >= low >= 0, or none (or null)"


def _numbers(value: Any, n: int) -> list[float] | None:
    """A list of n finite numbers (or numeric strings, as YAML reads `7.6e9`), else None."""
    if not isinstance(value, (list, tuple)) or len(value) != n:
        return None
    numbers = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (int, float, str)) or len(str(v)) > 40:
            return None
        try:
            numbers.append(float(v))
        except ValueError:
            return None
    return numbers if all(math.isfinite(x) for x in numbers) else None


CREDIBILITY = (
    "{agent role or model name: [parameters, pre-training tokens]} with both counts positive and "
    "finite, e.g. {agent_1: [7.6e9, 1.8e13]}, or null (unset)"
)


def _credibility_option(name: str, value: Any) -> dict[str, ModelSize] | None:
    """{agent role or model name: [parameters, pre-training tokens]}, both raw counts > 0."""
    if value is None:
        return None
    sizes: dict[str, ModelSize] = {}
    for key, size in value.items() if isinstance(value, dict) else [(None, None)]:
        counts = [size.params, size.tokens] if isinstance(size, ModelSize) else _numbers(size, 2)
        if not isinstance(key, str) or counts is None or min(counts) <= 0:
            raise OptionError(name, value, CREDIBILITY)
        sizes[key] = ModelSize(counts[0], counts[1])
    return sizes


def _choice(allowed: Sequence[str]) -> Check:
    return lambda name, v: one_of(name, v, allowed)


@dataclass(frozen=True)
class CortexOptions(PeerControls, AdaptiveStop):
    TEMPLATES: ClassVar[tuple[str, ...]] = ("reminder",)
    agents: int = option(
        5,
        "number of agents, each on model role `agent_i` (falling back to `agent`, then the main "
        "model), so every agent can be a different model.",
        lambda name, v: integer(name, v, 2, MAX_AGENTS),
    )
    max_rounds: int = option(
        5,
        "debate rounds D after the initial answers (paper: 5); 0 = majority voting only.",
        lambda name, v: integer(name, v, 0, MAX_ROUNDS),
    )
    topology: str = option(
        "mdm",
        "mdm (per-tail mean pruning of the trust weights) or full (every agent reads every "
        "other: the fully connected ablation and cost baseline).",
        _choice(TOPOLOGIES),
    )
    pruning: str = option(
        "mean",
        "which heads a tail keeps (topology mdm): mean (Eq. 11, at or above the row's mean), "
        "Table 9's median, top3 (the three heaviest) or bottom3 (all but the three lightest), or "
        "global (App. E: at or above the whole graph's mean).",
        _choice(rules.PRUNINGS),
    )
    trust: str = option(
        "full",
        "the edge weight: full (Eq. 9, C·R·I/S), individual (C·R only: Table 2's MDM without "
        "its intimacy and self-orientation terms), self (the head's own latest confidence: "
        "Table 2's self-evaluation) or peer (the mean rating the other agents give its latest "
        "answer, n(n-1) more calls a round: Table 2's peer evaluation); self and peer with "
        "pruning global.",
        _choice(rules.TRUSTS),
    )
    similarity: str = option(
        "embedding",
        "how alike two outputs are for the intimacy term: embedding (the embedder's cosine, the "
        "paper), cross_encoder (Table 10's DeTS: the cross_encoder's score of each pair) or "
        "prompted (Table 10's R1-P: a model on role `similarity` rates each pair from 0 to 1, "
        "agents x (agents - 1) / 2 more calls a round).",
        _choice(SIMILARITIES),
    )
    cross_encoder: str = option(
        "hashing",
        "the pair scorer of similarity cross_encoder: hashing (offline) or cross-encoder/<model> "
        "(the paper's DeTS: cross-encoder/abbasgolestani/ag-nli-DeTS-sentence-similarity-v4).",
        pair_scorer_spec,
    )
    embedder: str = embedder_option(
        "similarity for the intimacy term (and the free-text medoid): hashing (offline), "
        "openai[/<model>] (the paper: openai/text-embedding-3-large) or "
        "sentence-transformers[/<model>]."
    )
    credibility: Mapping[str, ModelSize] | None = option(
        None,
        "model sizes for the credibility term, keyed by agent role or model name: {key: "
        "[parameters, pre-training tokens]}. Without an entry for every agent all agents get "
        "the same credibility, which the pruning rule cancels.",
        _credibility_option,
    )
    s_mode: str = option(
        "smoothed",  # A1: S + s_smoothing; "literal": x/0 = +inf (round 1: full mesh)
        "smoothed (S + s_smoothing, since the printed S is 0 in round 1) or literal (x/0 = "
        "infinity: round 1 becomes a full mesh).",
        _choice(S_MODES),
    )
    s_smoothing: float = option(
        1.0,
        "the constant added to S in smoothed mode (> 0).",
        lambda name, v: number(name, v, 0, above=True),
    )
    participation: str = option(
        "in",  # A2
        "in (P counts the agents an agent read) or out (the agents that read it).",
        _choice(rules.PARTICIPATION),
    )
    recalibration: tuple[float, float, float] | None = option(
        rules.RECALIBRATION, 'the confidence bands [high, mid, low] of Eq. 2, or "none".',
        _recalibration,
    )  # fmt: skip
    show_confidence: bool = option(
        False, "neighbours also read each other's confidence line (A7).", boolean
    )
    include_self: bool = option(
        False, "an agent also reads its own previous output (ablation A8; the paper: no).", boolean
    )
    scrutiny: bool = option(
        False,
        "ask each agent to check the others' reasoning rather than trust it (ours; the paper "
        "offers their answers as additional information only).",
        boolean,
    )
    check_round0: bool = option(
        False, "stop before the first debate round when the initial answers agree (A9).", boolean
    )
    tie_break: str = option(
        "lowest_agent_index",  # A12
        "lowest_agent_index or none (a tie for first gives no answer).",
        _choice(rules.TIE_BREAKS),
    )
    freeform_vote: str = option(
        "exact",  # A11
        "exact (the paper) or medoid (free-text answers: the one most similar to the others).",
        _choice(FREEFORM_VOTES),
    )
    embed_text: str = option(
        "no_confidence",  # A5
        "no_confidence (answer and explanation) or raw (the whole reply).",
        _choice(EMBED_TEXTS),
    )
    # per agent, set by the solver for each sample from the model roles: any unknown size ->
    # equal credibility (A14); the models for the record
    sizes: tuple[ModelSize | None, ...] = option((), "model sizes per agent.", group="internal")
    models: tuple[str, ...] = option((), "model per agent.", group="internal")

    def validate(self) -> None:
        super().validate()
        if self.peers == "self" and self.include_self:  # it would read its own output twice
            raise OptionError("include_self", self.include_self, "false with peers=self")
        if self.similarity != "cross_encoder" and self.cross_encoder != "hashing":  # unused
            raise OptionError("cross_encoder", self.cross_encoder, "set only with similarity "
                              "cross_encoder")  # fmt: skip
        rated = self.agents * (self.agents - 1) // 2 * self.max_rounds
        if self.similarity == "prompted" and rated > MAX_SIMILARITY_RATINGS:
            raise OptionError(
                "similarity",
                self.similarity,
                f"embedding with {self.agents} agents and {self.max_rounds} rounds: prompted "
                f"rates agents x (agents - 1) / 2 x max_rounds = {rated} pairs, at most "
                f"{MAX_SIMILARITY_RATINGS}",
            )
        ratings = self.agents * (self.agents - 1) * self.max_rounds
        if self.trust == "peer" and ratings > MAX_PEER_RATINGS:
            raise OptionError(
                "trust",
                self.trust,
                f"full, individual or self with {self.agents} agents and {self.max_rounds} "
                f"rounds: peer rates agents x (agents - 1) x max_rounds = {ratings} answers, "
                f"at most {MAX_PEER_RATINGS}",
            )

    def record(self) -> dict[str, Any]:
        d = super().record()
        # recorded in the CortexRecord (credibility, models)
        del d["sizes"], d["models"], d["credibility"]
        return {**d, "recalibration": list(self.recalibration) if self.recalibration else None}

    def for_models(self, models: Sequence[str]) -> CortexOptions:
        """These options for agents on `models`, each agent's size found by its role first, then
        by its model's name; a credibility key that names neither is refused."""
        names = agent_names(self.agents)
        sizes = self.credibility or {}
        unused = [key for key in sizes if key not in set(names) | set(models)]
        if unused:
            raise OptionError(
                "credibility",
                unused,
                "keys naming an agent role or model of this run: "
                + ", ".join(f"{n}={m}" for n, m in zip(names, models)),
            )
        found = tuple(sizes.get(name) or sizes.get(model) for name, model in zip(names, models))
        return replace(self, sizes=found, models=tuple(models))
