"""`debate_stats`: rounds, model calls, tokens and answer changes, read from the sample store.

Tokens are counted as this run spent them: a reply served from Inspect's cache counts in
`cached_input_tokens`/`cached_output_tokens` (and `cached_calls`), not in `input_tokens`/
`output_tokens`, so a cached re-run spends 0 tokens here as in Inspect's own usage. A reply that
reported no usage counts in `calls_without_usage`, never as 0 tokens.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from .._inspect_sample import NO_RESULT, load_result
from ..engine.records import DEBATE_STATS


@scorer(metrics={name: [mean()] for name in DEBATE_STATS})
def debate_stats() -> Scorer:
    """Cost and dynamics of the debate behind each answer (tokens per role are in the metadata).

    `rounds` counts answer rounds, the first answers included, for every method."""

    async def score(state: TaskState, target: Target) -> Score:
        result = load_result(state)
        if result is None:
            return Score.unscored(reason=NO_RESULT)
        return Score(
            value=result.stats(),
            answer=result.final or "",
            metadata={
                "method": result.method,
                "options": result.options,
                "by_role": result.tokens_by_role(),
            },
        )

    return score
