"""`on_demand_stats`: whether `on_demand` debated, on what signal, and what each stage cost.

One figure scorer each (see `figures`); `on_demand_stats()` gives them all for a task's scorer
list. The mean of `debated` is the share of samples that debated; against a `trigger=always` run,
the calls saved per sample are its calls per sample minus this run's.
"""

from __future__ import annotations

from inspect_ai.scorer import Scorer, Target
from inspect_ai.solver import TaskState

from .._inspect_sample import NO_RESULT, load_result
from ..engine.methods.on_demand_records import OnDemandRecord
from .figures import Figure, Missing, NotApplicable, Reading, family

NOT_ON_DEMAND = "no on_demand record in the sample store"
NO_SIGNAL = "the trigger reads no signal (always or never), or none could be read"

FIGURES = [
    Figure("debated", "1 when the trigger started the debate: its mean is the debate rate."),
    Figure("trigger_signal", "What the trigger read: the first answer's confidence (mean token "
           "probability, or verbalized) or the samples' agreement."),
    Figure("first_stage_calls", "Calls of the first stage, verbalized confidences included."),
    Figure("debate_calls", "Calls the debate made (0 when it did not run)."),
    Figure("reused_answers", "First answers the debate took as its round one instead of asking."),
]  # fmt: skip


def read(state: TaskState, target: Target) -> Reading | Missing:
    result = load_result(state)
    if result is None:
        return Missing(NO_RESULT)
    record = result.record
    if not isinstance(record, OnDemandRecord):
        return NotApplicable(NOT_ON_DEMAND)
    stats = record.stats()
    # a trigger that reads nothing (always, never) never has a signal; one that reads may fail to
    why = Missing(NO_SIGNAL) if record.source else NotApplicable(NO_SIGNAL)
    values: dict[str, int | float | Missing] = {
        name: why if value is None else value for name, value in stats.items()
    }
    detail = {"source": record.source, "threshold": record.threshold, "reason": record.reason}
    return Reading(values, {"debated": detail})


SCORERS = family(FIGURES, read, columns={"debated": "debated"})


def on_demand_stats() -> list[Scorer]:
    """The on_demand figures' scorers: whether it debated, the trigger's signal and each stage's
    calls, one score each."""
    return [make() for make in SCORERS]
