"""`debate_stats`: rounds, model calls, tokens and answer changes, read from the sample store.

Tokens are counted as this run spent them: a reply served from Inspect's cache counts in
`cached_input_tokens`/`cached_output_tokens` (and `cached_calls`), not in `input_tokens`/
`output_tokens`, so a cached re-run spends 0 tokens here as in Inspect's own usage. A reply that
reported no usage counts in `calls_without_usage`, never as 0 tokens.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from .._inspect_sample import STORE_KEY
from ..engine.records import TOTALS, DebateResult, token_totals

STATS = ("rounds", *TOTALS, "answer_changes", "abstentions")


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
                **token_totals(result.calls),
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
