"""`group_debate`: GroupDebate, debate inside groups with a pool of group summaries (Liu et al.,
2024)."""

from __future__ import annotations

from inspect_ai.solver import Solver, solver

from ..engine.methods.group_debate import GroupDebateOptions
from ..engine.methods.group_debate import group_debate as run_group_debate
from ._shell import method_solver, takes


@solver
@takes(GroupDebateOptions)
def group_debate(o: GroupDebateOptions) -> Solver:
    """Agents debate inside groups; between stages every agent reads each group's summary."""
    return method_solver(o, lambda s: run_group_debate(s, o))
