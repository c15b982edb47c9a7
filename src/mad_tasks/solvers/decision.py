"""Decision-protocol debates (Kaesberg et al., 2025): `voting`, `consensus`, `aad`, `collective_improvement`.

Each solver shows the options of `DecisionConfig` that its method uses and fixes the others.
"""

from __future__ import annotations

from inspect_ai.solver import Solver, solver

from ..engine.embeddings import make_embedder
from ..engine.methods.decision import VARIANTS, DecisionConfig, decision_debate
from ._shell import method_solver, takes


def _debate(cfg: DecisionConfig) -> Solver:
    embed = make_embedder(cfg.embedder)
    return method_solver(cfg, lambda s: decision_debate(s, cfg, embed))


@solver
@takes(DecisionConfig, groups=VARIANTS["voting"].groups, **VARIANTS["voting"].fixed)
def voting(cfg: DecisionConfig) -> Solver:
    """Agents discuss in a fixed order, then vote after turn `vote_turn`; a tie adds a turn.

    Takes a voting protocol: simple, ranked, cumulative, approval or counting."""
    return _debate(cfg)


@solver
@takes(DecisionConfig, groups=VARIANTS["consensus"].groups, **VARIANTS["consensus"].fixed)
def consensus(cfg: DecisionConfig) -> Solver:
    """Agents discuss in a fixed order until enough of them agree in a row, checked after every
    message; at `max_turns` the latest proposal is the answer.

    Takes a consensus protocol: majority, supermajority or unanimity."""
    return _debate(cfg)


@solver
@takes(DecisionConfig, groups=VARIANTS["aad"].groups, **VARIANTS["aad"].fixed)
def aad(cfg: DecisionConfig) -> Solver:
    """All-Agents Drafting: every agent drafts independently in turn 1, then the memory paradigm.

    Takes any voting or consensus protocol; the voting options apply to voting protocols, `strict`
    to consensus ones."""
    return _debate(cfg)


@solver
@takes(
    DecisionConfig,
    groups=VARIANTS["collective_improvement"].groups,
    **VARIANTS["collective_improvement"].fixed,
)
def collective_improvement(cfg: DecisionConfig) -> Solver:
    """Collective Improvement: each turn every agent, at once, improves its previous answer given only
    the others' previous answers; votes from turn `vote_turn` on.

    Takes a voting protocol. Consensus protocols are refused: without a turn order nobody agrees
    "in order"."""
    return _debate(cfg)
