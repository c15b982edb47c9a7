"""Debate columns for Inspect's dataframes: `samples_df(logs, columns=SampleSummary + DebateColumns)`.

Every debate figure is a score of its own (`scorers/figures.py`), so `samples_df` already has it as
`score_calls`, `score_rounds`, ...; these columns give the figures their plain names and the method
its own column (`method`, from the `mad_tasks/method` score), read from the sample summaries (no
full sample is loaded). A figure a sample does not have (unscored, or a task without its scorer) is
None, never 0. `figure_columns("turns", "votes")` adds any other figure the same way (the
decision turn and votes of `decision_stats()`, ...).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from inspect_ai.analysis import Column, SampleColumn

from ._inspect_sample import METHOD_SCORE
from .log_tags import Sample
from .scorers.debate_stats import FIGURES
from .scorers.transitions import FIGURES as TRANSITIONS


def _score_value(name: str) -> Callable[[Sample], int | float | str | None]:
    """A sample's value of the score `name`; None when it has none or it is unscored (NaN)."""

    def value(sample: Sample) -> int | float | str | None:
        score = (sample.scores or {}).get(name)
        got = None if score is None else score.value
        if isinstance(got, float) and math.isnan(got):
            return None
        return got if isinstance(got, int | float | str) else None

    return value


def figure_columns(*names: str) -> list[Column]:
    """Columns of the figures `names`, each named for its figure."""
    return [SampleColumn(name, path=_score_value(name)) for name in names]


DebateColumns: list[Column] = [
    SampleColumn("method", path=_score_value(METHOD_SCORE)),
    *figure_columns(*(figure.name for figure in FIGURES)),
    *figure_columns(*(figure.name for figure in TRANSITIONS)),
]
"""The method, the `debate_stats()` figures (rounds, calls, tool calls, input/output tokens, cached
calls and tokens, calls without usage, critical path, cost, answer changes, abstentions) and the `transitions()` figures (the
first vote's and the final answer's correctness, the four transitions, the agents' fixes and
breaks): None in a log scored without `transitions()` (`mad-tasks report` computes those from the
records instead)."""
