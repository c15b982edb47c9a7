"""`chateval`: ChatEval, role-playing referees who discuss in turns, then vote."""

from __future__ import annotations

from inspect_ai.solver import Solver, solver

from ..engine.methods.chateval import ChatEvalOptions
from ..engine.methods.chateval import chateval as run_chateval
from ._shell import method_solver, takes


@solver
@takes(ChatEvalOptions)
def chateval(o: ChatEvalOptions) -> Solver:
    """Agents with distinct roles discuss one by one, simultaneously or through a summarizer; majority of the last turn."""
    return method_solver(o, lambda s: run_chateval(s, o))
