"""`du_debate`: Du et al. simultaneous multi-agent debate."""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..engine.methods.du_debate import du_debate as run_du_debate
from ..engine.options import MAX_AGENTS, MAX_ROUNDS, boolean, integer
from ._shell import check_common, run_method


@solver
def du_debate(
    agents: int = 3,
    rounds: int = 2,
    sequential: bool = False,
    answer_format: str = "auto",
    retries: int = 2,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Solver:
    """N agents answer, then for R-1 more rounds each reads the others' previous answers; majority wins.

    Args:
        agents: number of agents (each on model role `agent_i`, falling back to `agent`, then the
            main model).
        rounds: total rounds, the independent first answers included (Du et al.: 2).
        sequential: agents read the replies already given in the same round (default: simultaneous).
        answer_format: auto, choice, yesno, number or text.
        retries: follow-ups for a reply with no parseable answer before it counts as an abstention.
        temperature: sampling temperature for agents (provider default if unset).
        max_tokens: reply length limit per call.
    """
    check_common(answer_format, retries, temperature, max_tokens)
    integer("agents", agents, 1, MAX_AGENTS)
    integer("rounds", rounds, 1, MAX_ROUNDS)
    boolean("sequential", sequential)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await run_method(
            state,
            lambda s: run_du_debate(s, agents, rounds, sequential),
            answer_format,
            retries,
            temperature,
            max_tokens,
        )

    return solve
