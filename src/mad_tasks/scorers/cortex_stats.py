"""`cortex_stats`: how sparse a CortexDebate was and what the pruning saved, from the sample store.

One figure scorer each (see `figures`); `cortex_stats()` gives them all for a task's scorer list.
Add one to a finished log: `inspect score --scorer mad_tasks/context_ratio --action append <log>`.
"""

from __future__ import annotations

from dataclasses import asdict

from inspect_ai.scorer import Scorer, Target
from inspect_ai.solver import TaskState

from .._inspect_sample import NO_RESULT, load_result
from ..engine.methods.cortex.records import CortexRecord
from .figures import Figure, Missing, NotApplicable, Reading, family

NOT_CORTEX = "no CortexDebate record in the sample store"
NO_USAGE = "no call reported token usage, so what the calls read cannot be measured"

FIGURES = [
    Figure("debate_rounds", "Debate rounds after the initial answers (the paper's D; rounds is one "
           "more)."),
    Figure("consensus", "1 when the agents reached consensus before max_rounds."),
    Figure("all_distinct", "1 when every agent answered differently at the end, so no answer won."),
    Figure("edge_density", "The share of the n(n-1) possible edges the debate graphs kept, averaged "
           "over the debate rounds (1: topology=full)."),
    Figure("full_mesh_input_tokens", "The input tokens the same calls would have read had every "
           "agent read every other agent."),
    Figure("context_ratio", "Input tokens the calls read over full_mesh_input_tokens: below 1, what "
           "pruning saved (1 for topology=full)."),
    Figure("input_tokens_per_call", "Input tokens the calls read, per call."),
    Figure("input_tokens_per_agent", "Input tokens the calls read, per agent."),
]  # fmt: skip
TOKENS = ("full_mesh_input_tokens", "context_ratio", "input_tokens_per_call",
          "input_tokens_per_agent")  # fmt: skip


def read(state: TaskState, target: Target) -> Reading | Missing:
    result = load_result(state)
    if result is None:
        return Missing(NO_RESULT)
    record = result.record
    if not isinstance(record, CortexRecord):
        return NotApplicable(NOT_CORTEX)
    all_stats, context = record.stats(), record.context
    stats: dict[str, int | float | Missing] = {f.name: all_stats[f.name] for f in FIGURES}
    if context.ratio is None:  # no usage: the token figures would read 0, or a ratio of 1
        stats |= dict.fromkeys(TOKENS, Missing(NO_USAGE))
    return Reading(
        stats,
        {
            "debate_rounds": {"stop_reason": record.stop_reason},
            "edge_density": {
                "credibility": record.credibility.mode,
                "heads": [g.heads for g in record.graphs],
            },
            "context_ratio": {
                "round0_input_tokens": context.round0_input_tokens,
                "per_agent": {a: asdict(c) for a, c in context.per_agent.items()},
            },
        },
    )


SCORERS = family(FIGURES, read, columns={"context_ratio": "context read"})


def cortex_stats() -> list[Scorer]:
    """The CortexDebate figures' scorers: rounds, consensus, graph density and the input tokens
    against the full-mesh counterfactual, one score each."""
    return [make() for make in SCORERS]
