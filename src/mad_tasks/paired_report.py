"""The report's paired comparisons: for every two solvers run on the same task and model, A's
headline score minus B's over the samples both scored, with its 95% paired-bootstrap interval and
McNemar's exact p (`paired.py`). Read from each log's sample summaries (each epoch's scores); a
plot per task draws every difference with its interval, the significant ones marked."""

from __future__ import annotations

import csv
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from inspect_ai.log import read_eval_log_sample_summaries
from inspect_ai.scorer import value_to_float

from .paired import ALPHA, RESAMPLES, SEED, Paired, SampleId, paired

MEAN_METRICS = ("accuracy", "mean")  # headline metrics that are the mean of the sample scores
PAIRED_RULE = (
    "Paired differences: for every two solvers run on the same task and model with the same "
    f"headline (`{'` or `'.join(MEAN_METRICS)}`), A's score minus B's over the samples both "
    "scored, a sample's score the mean of its epochs (epochs are clustered by sample). The 95% "
    f"interval is the paired bootstrap: {RESAMPLES:,} resamples of the samples, seed {SEED}, "
    "the 2.5th and 97.5th percentiles of the mean difference. A better and B better count the "
    "samples where one scored higher (McNemar's discordant pairs); p is McNemar's exact two-sided "
    f"test on them (with epochs, the sign test). Significant: p < {ALPHA}."
)


class Run(Protocol):
    """What a pair is read from: a report's row."""

    @property
    def solver(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def headline(self) -> str | None: ...
    @property
    def log(self) -> str: ...


@dataclass(frozen=True)
class Pair:
    task: str
    model: str
    a: str  # solver labels
    b: str
    headline: str
    result: Paired


def _number(value: object) -> float | None:
    """A sample's score as a number: C/I/P/N as Inspect's accuracy reads them, a finite number;
    None for anything else (a dict, a list, NaN)."""
    if isinstance(value, bool) or (isinstance(value, str) and value in ("C", "I", "P", "N")):
        return value_to_float()(value)
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def sample_scores(log: str, scorer: str) -> dict[SampleId, list[float]]:
    """Each sample's `scorer` values in `log`, one per epoch that has a number for it."""
    scores: dict[SampleId, list[float]] = {}
    for summary in read_eval_log_sample_summaries(log):
        score = (summary.scores or {}).get(scorer)
        value = None if score is None else _number(score.value)
        if value is not None:
            scores.setdefault(summary.id, []).append(value)
    return scores


def read_pairs(task: str, rows: Sequence[Run]) -> list[Pair]:
    """The paired comparisons of one task's rows: every two rows on one model whose headline is
    the same mean of sample scores, in the rows' order (A the earlier)."""
    scores: dict[str, dict[SampleId, list[float]]] = {}
    pairs = []
    for a, b in itertools.combinations(rows, 2):
        if a.model != b.model or a.headline is None or a.headline != b.headline:
            continue
        scorer, _, metric = a.headline.rpartition(" ")
        if metric not in MEAN_METRICS:
            continue
        for run in (a, b):
            if run.log not in scores:
                scores[run.log] = sample_scores(run.log, scorer)
        result = paired(scores[a.log], scores[b.log])
        if result is not None:
            pairs.append(Pair(task, a.model, a.solver, b.solver, a.headline, result))
    return pairs


# ---- writing

COLUMNS = (
    "A",
    "B",
    "model",
    "samples",
    "A - B",
    "95% interval",
    "A better",
    "B better",
    "McNemar p",
    "significant",
)


def cells(pair: Pair) -> list[str]:
    r = pair.result
    return [
        pair.a,
        pair.b,
        pair.model,
        str(r.samples),
        f"{r.difference:+.3f}",
        f"[{r.low:+.3f}, {r.high:+.3f}]",
        str(r.a_better),
        str(r.b_better),
        f"{r.p:.3g}",
        "yes" if r.significant else "",
    ]


def line(pair: Pair) -> str:
    """One pair as `mad-tasks report` prints it."""
    r = pair.result
    mark = " *" if r.significant else ""
    return (
        f"{pair.task} on {pair.model}: {pair.a} - {pair.b} = {r.difference:+.3f} "
        f"[95% {r.low:+.3f}, {r.high:+.3f}], McNemar p = {r.p:.3g}{mark} "
        f"({r.a_better} vs {r.b_better} of {r.samples} samples)"
    )


def write_csv(pairs: Iterable[Pair], path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["task", "model", "a", "b", "headline", "samples", "difference", "low",
                         "high", "a_better", "b_better", "p", "significant"])  # fmt: skip
        for p in pairs:
            r = p.result
            writer.writerow([p.task, p.model, p.a, p.b, p.headline, r.samples, r.difference,
                             r.low, r.high, r.a_better, r.b_better, r.p, r.significant])  # fmt: skip


def plot(task: str, pairs: Sequence[Pair], names: Mapping[str, str]) -> Any:
    """Every difference of the task as a point with its interval, one line each (`A - B (model)`,
    solvers named by `names`), zero marked; a significant one drawn filled, red and starred, the
    others hollow and grey. A matplotlib Figure."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 1.2 + 0.45 * len(pairs)), layout="constrained")
    axes = figure.add_subplot()
    for y, pair in enumerate(reversed(pairs)):
        r = pair.result
        colour = "tab:red" if r.significant else "grey"
        axes.errorbar(
            [r.difference],
            [y],
            xerr=[[r.difference - r.low], [r.high - r.difference]],
            fmt="o",
            color=colour,
            markerfacecolor=colour if r.significant else "white",
            capsize=3,
        )
    labels = [
        f"{names.get(p.a, p.a)} - {names.get(p.b, p.b)} ({p.model})"
        + (" *" if p.result.significant else "")
        for p in reversed(pairs)
    ]
    axes.set_yticks(range(len(pairs)), labels)
    axes.axvline(0.0, color="black", linewidth=0.8)
    axes.set_xlabel(f"paired difference of {pairs[0].headline} (95% bootstrap interval)")
    axes.set_title(f"{task}: * McNemar p < {ALPHA}")
    axes.grid(True, axis="x", alpha=0.3)
    return figure
