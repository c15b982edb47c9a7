"""`debate_stats`: rounds, model calls, tokens and answer changes, read from the sample store.

One figure scorer each (see `figures`): `debate_stats()` gives them all for a task's scorer list.
Tokens are counted as this run spent them: a reply served from Inspect's cache counts in
`cached_input_tokens`/`cached_output_tokens` (and `cached_calls`), not in `input_tokens`/
`output_tokens`, so a cached re-run spends 0 tokens here as in Inspect's own usage. A reply that
reported no usage counts in `calls_without_usage`, never as 0 tokens. `cost` is in dollars as
Inspect priced each call, and the results state it per 1,000 samples (`usd_per_1k`: a sample
costs a fraction of a cent, which a mean shows as 0.000); without a price it is absent (neither 0
nor NaN) and `calls` says why (`cost_unknown`). Each call, token and cost figure's metadata holds it
per role (`by_role`) and per model (`by_model`: the roles' figures summed by the model each ran on,
so a panel's models are told apart; absent where the record does not say a called role's model),
and `calls` the model each role ran on (`roles`).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from inspect_ai.log import EvalScore
from inspect_ai.scorer import Metric, SampleScore, Scorer, Target, Value, metric
from inspect_ai.solver import TaskState

from .._inspect_sample import NO_RESULT, load_result
from ..engine.records import TOTALS, CallRecord, DebateResult, dollars, token_totals
from .figures import Absent, Figure, Missing, Reading, family

PER = 1000  # the samples the results state a cost for
PER_SAMPLES = "usd_per_1k"  # its metric's name in the results: dollars per 1,000 samples


@metric
def usd_per_1k() -> Metric:
    """Dollars per 1,000 samples: the mean of the samples' dollars times 1,000. Nothing over no
    priced sample (Inspect then lists no value, rather than NaN)."""

    def compute(scores: list[SampleScore]) -> Value:
        spent = [s.score.as_float() for s in scores]
        return {PER_SAMPLES: PER * statistics.fmean(spent) if spent else None}

    return compute


def dollars_per_sample(score: EvalScore) -> float | None:
    """The mean dollars per sample of the results' `cost`; None without the figure."""
    got = score.metrics.get(PER_SAMPLES)
    return None if got is None else got.value / PER


FIGURES = [
    Figure("rounds", "The last answer round's number: every method counts its first answers as "
           "round 1 (cortex: its debate rounds plus one; a judge: its longest hearing)."),
    Figure("calls", "Model calls, replies served from Inspect's cache included (an acting "
           "agent's turn: each of its model calls)."),
    Figure("tool_calls", "Tool calls of acting agents (-S debater=react): each tool, its "
           "arguments and its result's size are in the record's calls."),
    Figure("input_tokens", "Input tokens this run spent (a cached reply's are in "
           "cached_input_tokens)."),
    Figure("output_tokens", "Output tokens this run spent (a cached reply's are in "
           "cached_output_tokens)."),
    Figure("cached_calls", "Replies served from Inspect's cache: an earlier run spent their tokens."),
    Figure("cached_input_tokens", "Input tokens of the replies served from Inspect's cache."),
    Figure("cached_output_tokens", "Output tokens of the replies served from Inspect's cache."),
    Figure("calls_without_usage", "Replies whose provider reported no token usage (counted here, "
           "never as 0 tokens)."),
    Figure("cost", "Dollars this run spent on the calls, as Inspect priced them from its price "
           "table (--model-cost-config); a cached reply cost nothing. The results state it per "
           "1,000 samples. Absent when a model has no price, never 0.",
           [usd_per_1k()], averaged=False),
    Figure("critical_path", "The longest chain of model calls and tool calls in which each "
           "waited for the one before: the calls a sample's time cannot go below."),
    Figure("answer_changes", "How often an agent's answer differed from its previous round's."),
    Figure("abstentions", "Answers with no readable final answer, even after the follow-ups."),
]  # fmt: skip


def read(state: TaskState, target: Target) -> Reading | Missing:
    result = load_result(state)
    if result is None:
        return Missing(NO_RESULT)
    by_role = result.tokens_by_role()
    metadata: dict[str, dict[str, Any]] = {
        name: {"by_role": {r: t[name] for r, t in by_role.items()}} for name in TOTALS
    }
    metadata["calls"]["roles"] = result.options.get("roles")
    # a limit that ended the debate early: which, where, and what decided the answer
    metadata["calls"]["stopped"] = asdict(result.stopped) if result.stopped else None
    by_role_cost = {role: dollars(c for c in result.calls if c.role == role) for role in by_role}
    metadata["cost"] = {"by_role": by_role_cost}
    models = role_models(result)
    if models is not None:
        by_model = {m: [c for c in result.calls if models[c.role] == m] for m in models.values()}
        totals = {m: token_totals(calls) for m, calls in by_model.items()}
        for name in TOTALS:
            metadata[name]["by_model"] = {m: t[name] for m, t in totals.items()}
        metadata["cost"]["by_model"] = {m: dollars(calls) for m, calls in by_model.items()}
    cost = dollars(result.calls)
    values: dict[str, int | float | Missing] = {**result.stats()}
    if cost is None:
        metadata["calls"]["cost_unknown"] = unpriced_cost(result.calls)
    values["cost"] = Absent(metadata["calls"]["cost_unknown"]) if cost is None else cost
    if any(c.depth == 0 for c in result.calls):
        values["critical_path"] = Missing(
            "a record written before mad_tasks counted each call's place in its chain"
        )
    return Reading(values, metadata)


def role_models(result: DebateResult) -> dict[str, str] | None:
    """The model each called role ran on, in the order of the calls, from the record's
    `options.roles` (the host's resolved roles); None when it does not name one for every called
    role (a host that records none, an older record)."""
    roles = result.options.get("roles")
    named = roles if isinstance(roles, dict) else {}
    models: dict[str, str] = {}
    for role in dict.fromkeys(c.role for c in result.calls):
        got = named.get(role)
        model = got.get("model") if isinstance(got, dict) else None
        if not isinstance(model, str):
            return None
        models[role] = model
    return models


def unpriced_cost(calls: Sequence[CallRecord]) -> str:
    """Why a debate's dollars are unknown: a reply without usage, or a model without a price."""
    spent = [c for c in calls if not c.cached and c.cost is None]
    if any(c.tokens is None for c in spent):
        return "a reply reported no token usage, so nothing could price it"
    roles = ", ".join(dict.fromkeys(c.role for c in spent))
    return (
        f"no price for the model of {roles}: give its price per million tokens in a file passed "
        "with --model-cost-config (docs/costs.md)"
    )


SCORERS = family(FIGURES, read, rank=2, columns={"calls": "calls", "cost": "dollars"})


def debate_stats() -> list[Scorer]:
    """The debate figures' scorers: rounds, calls, tokens (spent, cached, without usage), answer
    changes and abstentions, one score each."""
    return [make() for make in SCORERS]
