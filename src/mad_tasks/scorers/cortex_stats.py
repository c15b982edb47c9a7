"""`cortex_stats`: how sparse a CortexDebate was and what the pruning saved, from the sample store.

Add it to a finished log: `inspect score --scorer mad_tasks/cortex_stats --action append <log>`.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from .._inspect_sample import STORE_KEY
from ..engine.records import DebateResult

STATS = (
    "debate_rounds",
    "consensus",
    "all_distinct",
    "edge_density",
    "input_tokens",
    "full_mesh_input_tokens",
    "context_ratio",
    "input_tokens_per_call",
    "input_tokens_per_agent",
)


@scorer(metrics={name: [mean()] for name in STATS})
def cortex_stats() -> Scorer:
    """Rounds, consensus, graph density and input tokens against the full-mesh counterfactual.

    `context_ratio` is a sample's input tokens over what the same calls would have cost had every
    agent read every other agent (1.0 for topology=full, or when the provider reported no usage).
    `edge_density` is the share of the n(n-1) possible edges kept, averaged over debate rounds.
    """

    async def score(state: TaskState, target: Target) -> Score:
        record = state.store.get(STORE_KEY)
        if record is None or record.get("method") != "cortex":
            return Score.unscored(reason="no CortexDebate record in the sample store")
        result = DebateResult.from_dict(record)
        details, context = result.details, result.details["context"]
        agents = result.options["agents"]
        graphs = details["graphs"]
        density = (
            sum(len(g["edges"]) for g in graphs) / (len(graphs) * agents * (agents - 1))
            if graphs
            else 0.0
        )
        return Score(
            value={
                "debate_rounds": details["rounds_executed"],
                "consensus": int(details["consensus"]),
                "all_distinct": int(details["vote"]["all_distinct"]),
                "edge_density": density,
                "input_tokens": context["input_tokens"],
                "full_mesh_input_tokens": context["full_mesh_input_tokens"],
                "context_ratio": context["ratio"] if context["ratio"] is not None else 1.0,
                "input_tokens_per_call": context["input_tokens"] / max(1, context["calls"]),
                "input_tokens_per_agent": context["input_tokens"] / agents,
            },
            answer=result.final or "",
            metadata={
                "stop_reason": details["stop_reason"],
                "credibility": details["credibility"]["mode"],
                "per_agent": context["per_agent"],
                "round0_input_tokens": context["round0_input_tokens"],
                "heads": [g["heads"] for g in graphs],
            },
        )

    return score
