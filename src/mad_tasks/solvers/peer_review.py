"""`peer_review`: PRD, agents review each other's solutions and revise (Xu et al., 2023)."""

from __future__ import annotations

from inspect_ai.solver import Solver, solver

from ..engine.methods.peer_review import PeerReviewOptions
from ..engine.methods.peer_review import peer_review as run_peer_review
from ._shell import method_solver, takes


@solver
@takes(PeerReviewOptions)
def peer_review(o: PeerReviewOptions) -> Solver:
    """Agents solve, review every other solution with a confidence, then revise; majority wins."""
    return method_solver(o, lambda s: run_peer_review(s, o))
