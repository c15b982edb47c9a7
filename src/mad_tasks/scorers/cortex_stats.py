"""`cortex_stats`: how sparse a CortexDebate was and what the pruning saved, from the sample store.

Add it to a finished log: `inspect score --scorer mad_tasks/cortex_stats --action append <log>`.
"""

from __future__ import annotations

from dataclasses import asdict

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from .._inspect_sample import NO_RESULT, load_result
from ..engine.methods.cortex_records import CORTEX_STATS, CortexRecord


@scorer(metrics={name: [mean()] for name in CORTEX_STATS})
def cortex_stats() -> Scorer:
    """Rounds, consensus, graph density and input tokens against the full-mesh counterfactual.

    `context_ratio` is a sample's input tokens over what the same calls would have cost had every
    agent read every other agent (1.0 for topology=full, or when the provider reported no usage).
    `edge_density` is the share of the n(n-1) possible edges kept, averaged over debate rounds.
    """

    async def score(state: TaskState, target: Target) -> Score:
        result = load_result(state)
        if result is None:
            return Score.unscored(reason=NO_RESULT)
        record = result.record
        if not isinstance(record, CortexRecord):
            return Score.unscored(reason="no CortexDebate record in the sample store")
        context = record.context
        return Score(
            value=record.stats(),
            answer=result.final or "",
            metadata={
                "stop_reason": record.stop_reason,
                "credibility": record.credibility.mode,
                "per_agent": {a: asdict(c) for a, c in context.per_agent.items()},
                "round0_input_tokens": context.round0_input_tokens,
                "heads": [g.heads for g in record.graphs],
            },
        )

    return score
