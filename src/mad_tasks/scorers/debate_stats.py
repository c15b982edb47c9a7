"""`debate_stats`: rounds, model calls, tokens and answer changes, read from the sample store."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from ..engine.records import DebateResult
from ..solvers._shell import STORE_KEY


STATS = ("rounds", "calls", "input_tokens", "output_tokens", "answer_changes", "abstentions")


@scorer(metrics={name: [mean()] for name in STATS})
def debate_stats() -> Scorer:
    """Cost and dynamics of the debate behind each answer (tokens per role are in the metadata)."""

    async def score(state: TaskState, target: Target) -> Score:
        record = state.store.get(STORE_KEY)
        if record is None:
            return Score.unscored(reason="no mad_tasks debate record in the sample store")
        result = DebateResult.from_dict(record)
        return Score(
            value={
                "rounds": result.rounds,
                "calls": len(result.calls),
                "input_tokens": sum(c.input_tokens for c in result.calls),
                "output_tokens": sum(c.output_tokens for c in result.calls),
                "answer_changes": result.answer_changes(),
                "abstentions": sum(a.answer is None for a in result.answers),
            },
            answer=result.final or "",
            metadata={
                "method": result.method,
                "options": result.options,
                "by_role": result.tokens_by_role(),
            },
        )

    return score
