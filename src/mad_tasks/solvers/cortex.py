"""`cortex`: CortexDebate, a sparse debate pruned by McKinsey trust (Sun et al., 2025)."""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..engine.embeddings import make_embedder
from ..engine.methods import cortex as method
from ..engine.methods.cortex import CortexOptions
from ..engine.methods.du_debate import agent_names
from ..engine.options import OptionError
from ..inspect_runtime import resolve_model
from ._shell import run_method, takes


@solver
@takes(CortexOptions)
def cortex(o: CortexOptions) -> Solver:
    """CortexDebate: each round every agent reads only the agents it trusts most."""
    try:
        similarity = make_embedder(o.embedder)
    except ImportError as e:
        raise OptionError(
            "embedder", o.embedder, f"an embedder installed here ({e})", "solver"
        ) from e

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        models = [str(resolve_model(name)) for name in agent_names(o.agents)]
        try:  # sizes by role or model name; a key that names neither is refused
            opts = o.for_models(models)
        except OptionError as e:
            raise e.of("solver") from None
        return await run_method(state, lambda s: method.cortex(s, opts, similarity), opts)

    return solve
