"""`reconcile`: RECONCILE, a round-table discussion ending in a confidence-weighted vote."""

from __future__ import annotations

from inspect_ai.solver import Solver, solver

from ..engine.methods.reconcile import ReconcileOptions
from ..engine.methods.reconcile import reconcile as run_reconcile
from ._shell import method_solver, takes


@solver
@takes(ReconcileOptions)
def reconcile(o: ReconcileOptions) -> Solver:
    """Agents answer with confidences and discuss until they agree; the recalibrated confidences vote."""
    return method_solver(o, lambda s: run_reconcile(s, o))
