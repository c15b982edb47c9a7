"""`du_debate`: Du et al. simultaneous multi-agent debate."""

from __future__ import annotations

from inspect_ai.solver import Solver, solver

from ..engine.methods.du_debate import DuDebateOptions
from ..engine.methods.du_debate import du_debate as run_du_debate
from ._shell import method_solver, takes


@solver
@takes(DuDebateOptions)
def du_debate(o: DuDebateOptions) -> Solver:
    """N agents answer, then for R-1 more rounds each reads the others' previous answers; majority wins."""
    return method_solver(o, lambda s: run_du_debate(s, o.agents, o.rounds, o.sequential))
