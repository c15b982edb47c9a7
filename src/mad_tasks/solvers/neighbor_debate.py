"""`neighbor_debate`: debate on a fixed sparse topology (Li et al., 2024)."""

from __future__ import annotations

from inspect_ai.solver import Solver, solver

from ..engine.methods.neighbor_debate import NeighborDebateOptions
from ..engine.methods.neighbor_debate import neighbor_debate as run_neighbor_debate
from ._shell import method_solver, takes


@solver
@takes(NeighborDebateOptions)
def neighbor_debate(o: NeighborDebateOptions) -> Solver:
    """Each round every agent reads only its neighbours' previous answers; majority wins."""
    return method_solver(o, lambda s: run_neighbor_debate(s, o))
