"""Baseline solvers: `single`, `cot`, `self_consistency`."""

from __future__ import annotations

from inspect_ai.solver import Solver, solver

from ..engine.methods import baselines
from ..engine.methods.baselines import SelfConsistencyOptions
from ..engine.options import Answering
from ._shell import method_solver, takes


@solver
@takes(Answering)
def single(o: Answering) -> Solver:
    """One agent answers directly, once."""
    return method_solver(o, lambda s: baselines.single(s, cot=False))


@solver
@takes(Answering)
def cot(o: Answering) -> Solver:
    """One agent reasons step by step, then answers."""
    return method_solver(o, lambda s: baselines.single(s, cot=True))


@solver
@takes(SelfConsistencyOptions)
def self_consistency(o: SelfConsistencyOptions) -> Solver:
    """Majority over independent chains of thought; `match_debate=3x2` spends a debate's call budget."""
    return method_solver(o, lambda s: baselines.self_consistency(s, o.n))
