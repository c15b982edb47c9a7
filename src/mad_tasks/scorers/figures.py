"""Figures: each statistic of a debate is a scorer of its own, so the log viewer shows it by name.

The viewer shows a score whose value is a dict as one JSON column in its samples list across logs,
and its counts as decimals (`3.0`) on a sample's Scoring tab; a number it shows as a named numeric
column on every screen. So every statistic this package reports is a registered scorer named for it
(`calls`, `context_ratio`, `tie`), its value a number (an int where it counts), its metric Inspect's
`mean`, and that one name is what every screen shows: the eval's scores, the samples lists, a
sample's Scoring tab, `inspect score --scorer mad_tasks/<name>`. A family's factory
(`debate_stats()`, `decision_stats()`, ...) returns its figures' scorers for a task's scorer list.

Every solver of this package writes, into each sample's scores, the figures that apply to the run
that answered (`sample_figures`): the eval's results and the samples lists then show, with no
scorer listed and no re-scoring, the transitions and the method's own figures, and no figure of
another method. A figure that does not apply to the run (another method's record, a stage that was
off: no swap, no challenge) is `NotApplicable` and left out there. A figure that applies but that a
sample does not have (no usage reported, no vote held) is `Score.unscored` with the reason: the
metrics and the epoch reducer leave it out, the viewer shows "(scored/total)" beside the figure and
the reason on the sample's Scoring tab. Run as a scorer (`inspect score --scorer
mad_tasks/<name>`), a figure that does not apply is unscored with its reason too. A figure whose
lack is itself the answer (`Absent`: no price, so no dollars) is left out everywhere, asked or not:
no sample holds a NaN for it, and a run where no sample has it lists no such figure. Every score's
explanation says what the figure counts. A metric of this package that computes more than a mean
returns its values by name (`{"tie_rate": 0.2}`), so the log names them without the `mad_tasks/`
prefix Inspect gives a package's scalar metrics: no figure name carries a prefix.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.scorer import Metric, Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState
from inspect_ai.viewer import TaskSamplesColumn, TaskSamplesView, ViewerConfig

from .._aliases import register_short_aliases
from .._inspect_compat import task_scorer_names


@dataclass(frozen=True)
class Missing:
    """Why a sample has no value for a figure (or for a whole family)."""

    reason: str


@dataclass(frozen=True)
class NotApplicable(Missing):
    """A figure (or a whole family) that does not apply to the run that answered: another method's
    record, a stage the options left off. Left out of the sample's scores the solver writes; a
    task's scorer that asks for it gets `value` where there is one (a verdict read from the
    output of a solver that is no judge), else an unscored score with the reason."""

    value: int | float | None = None


@dataclass(frozen=True)
class Absent(Missing):
    """A figure a sample has no value for, where having none is what there is to say (a model
    without a price: no dollars). Left out of the sample's scores whether a task's scorer asked for
    it or not, so that no screen shows a NaN for it; the reason is the family's to record."""


@dataclass(frozen=True)
class Reading:
    """One sample's figures of a family: a number, or why there is none, per figure name; and
    what a figure's score metadata adds (the figure per role, the record it came from)."""

    values: Mapping[str, int | float | Missing]
    metadata: Mapping[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Figure:
    name: str
    meaning: str  # what it counts, in a sentence: every score's explanation, and the docstring
    metrics: Sequence[Metric] = ()  # besides the mean
    averaged: bool = True  # False: `metrics` alone (a mean the results would show as 0.000)


Reader = Callable[[TaskState, Target], Reading | Missing]

MEMO_SIZE = 64  # samples scored at once (Inspect interleaves them) whose readings are kept


def memo(read: Reader) -> Reader:
    """`read` once per sample for all of a family's figures (each would parse the record again).
    Keyed by the sample's state, which a family's scorers share and which no scorer of ours changes;
    a few recent samples are kept, as Inspect scores several at once."""
    kept: OrderedDict[int, tuple[TaskState, Reading | Missing]] = OrderedDict()

    def reading(state: TaskState, target: Target) -> Reading | Missing:
        hit = kept.get(id(state))
        if hit is not None and hit[0] is state:
            return hit[1]
        got = read(state, target)
        kept[id(state)] = (state, got)  # the state is held, so its id is not reused meanwhile
        if len(kept) > MEMO_SIZE:
            kept.popitem(last=False)
        return got

    return reading


def _score(figure: Figure, got: Reading | Missing, asked: bool) -> Score | None:
    """The figure's score; None where it is `Absent`, and where it does not apply and nobody
    `asked` (a solver writing the figures of its run, rather than a task's scorer)."""
    value = got if isinstance(got, Missing) else got.values[figure.name]
    if isinstance(value, Absent):
        return None
    if isinstance(value, NotApplicable):
        if not asked:
            return None
        value = value if value.value is None else value.value
    if isinstance(value, Missing):
        return Score.unscored(reason=value.reason, explanation=figure.meaning)
    metadata = got.metadata.get(figure.name) if isinstance(got, Reading) else None
    return Score(value=value, explanation=figure.meaning, metadata=metadata)


def figure_scorer(figure: Figure, read: Reader) -> Callable[[], Scorer]:
    """Register the scorer of one figure, read from a sample by `read` (a family's reader)."""

    def build() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score | None:
            return _score(figure, read(state, target), asked=True)

        return score

    build.__name__ = build.__qualname__ = figure.name
    build.__doc__ = figure.meaning
    averaged = [mean()] if figure.averaged else []
    return scorer(metrics=[*averaged, *figure.metrics], name=figure.name)(build)


@dataclass(frozen=True)
class Family:
    figures: Sequence[Figure]
    read: Reader  # not memoized: a solver reads the record it has just written
    rank: int  # where its figures come in a sample's scores: did it help, the method's, the costs
    columns: Mapping[str, str]  # figure -> its header in the samples list, for those shown there


FAMILIES: list[Family] = []
PREFIX = "mad_tasks/"
# The run's label as a score of every sample (`_inspect_sample.method_score`): the viewer's samples
# lists show scores as columns, and nothing else a solver writes. Metric-less (the scorer of this
# name says so), so the eval's results gain no figure from it.
METHOD = PREFIX + "method"
SHORT: set[str] = set()  # the figures registered under their bare name (unless another holds it)


def family(
    figures: Sequence[Figure],
    read: Reader,
    rank: int = 1,
    columns: Mapping[str, str] | None = None,
) -> list[Callable[[], Scorer]]:
    """The registered scorers of a family's figures, all reading a sample once through `read`;
    the family's figures are then among those a solver writes (`sample_figures`), in the order
    of `rank` (0: whether the debate helped, 1: a method's own figures, 2: its costs). `columns`
    names the figures a task's samples list shows by default, with their headers."""
    FAMILIES.append(Family(figures, read, rank, dict(columns or {})))
    shared = memo(read)
    scorers = [figure_scorer(f, shared) for f in figures]
    SHORT.update(register_short_aliases(scorers, "scorer"))
    return scorers


def score_name(figure: str) -> str:
    """A figure's key in a sample's scores: its bare name where this package registered it (Inspect
    finds a solver-written score's metrics by that name), else `mad_tasks/<name>`."""
    return figure if figure in SHORT else PREFIX + figure


def sample_figures(state: TaskState) -> dict[str, Score]:
    """Every figure that applies to the run that answered the sample, by its score name, but
    those the task scores itself (a task that lists `debate_stats()`: Inspect refuses a scorer
    whose name a solver already wrote)."""
    _import_families()
    taken = task_scorer_names()
    scores: dict[str, Score] = {}
    for each in sorted(FAMILIES, key=lambda f: f.rank):
        got = each.read(state, state.target)
        if isinstance(got, NotApplicable):
            continue
        for figure in each.figures:
            name = score_name(figure.name) if taken is not None else PREFIX + figure.name
            score = _score(figure, got, asked=False)
            if score is not None and name not in (taken or ()):
                scores[name] = score
    return scores


def samples_view(*scores: str) -> ViewerConfig:
    """A task's samples list: the sample, the answer, the task's own `scores`, the run's label,
    then the figures the families name as columns (whether the debate helped, one figure of each
    method, the calls) and the tokens. A figure the run lacks has no column; every other score
    stays a click away in the list's Columns menu."""
    _import_families()
    ranked = sorted(FAMILIES, key=lambda f: f.rank)
    figures = {score_name(name): header for f in ranked for name, header in f.columns.items()}
    built = [TaskSamplesColumn(id=c) for c in ("sampleId", "input", "target", "answer")]
    return ViewerConfig(
        task_samples_view=TaskSamplesView(
            name="debate",
            columns=[
                *built,
                *(TaskSamplesColumn.score(s) for s in scores),
                TaskSamplesColumn.score(METHOD),
                *(TaskSamplesColumn.score(name) for name in figures),
                TaskSamplesColumn(id="tokens"),
            ],
            score_labels={METHOD: "method", **figures},
        )
    )


@functools.cache
def _import_families() -> None:
    """Every scorer module of this package, imported once: each family registers as it loads."""
    for module in pkgutil.iter_modules(importlib.import_module(__package__).__path__):
        importlib.import_module(f"{__package__}.{module.name}")
