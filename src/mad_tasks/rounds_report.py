"""The report's accuracy per round: for every solver and model of a task, the mean of each round's
`round_<r>_agent_accuracy` and `round_<r>_vote_accuracy` figures (`scorers/failures.py`) over the
samples whose debate reached round r, drawn as one line each against the round (Choi et al. 2025,
"Debate or Vote": debate alone leaves the agents' accuracy a martingale, flat in expectation).
A run without round figures (a judge, a summary, a log whose records cannot be read) has no line
and is named under the plot."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from .scorers.failures import ROUND_FIGURES, round_name

LEVELS = ("agent", "vote")
ROUND_NAMES = tuple(round_name(r, level) for r in range(1, ROUND_FIGURES + 1) for level in LEVELS)
ROUNDS_RULE = (
    "Accuracy per round (`<task>-rounds.png`): for each solver and model, round r's agent "
    "accuracy (the share of agents whose latest answer by round r is right, solid) and vote "
    "accuracy (whether the plurality of those answers is right, dashed), each the mean over the "
    "samples whose debate reached round r (`round_<r>_agent_accuracy`, `round_<r>_vote_accuracy`; "
    "epochs count as samples). A debate that stopped early has no later rounds, so a later "
    "round's mean is over fewer samples: the legend gives round 1's samples and `n=` marks each "
    "round where the number drops. A method with one round is one point at round 1. Runs "
    "without round figures (a judge, a summary or a ranking) are left out and named."
)


@dataclass(frozen=True)
class RoundPoint:
    """One round of one run: the means of its two figures and the samples they are over."""

    round: int
    agent_accuracy: float
    vote_accuracy: float | None  # None when no sample that reached the round has the vote
    samples: int  # the samples (each epoch one) whose debate reached the round


@dataclass(frozen=True)
class Curve:
    """A run's accuracy per round; `points` empty when it has no round figures."""

    solver: str
    model: str
    points: tuple[RoundPoint, ...]


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def curve(solver: str, model: str, values: Mapping[str, Sequence[float]]) -> Curve:
    """The run's curve from each round figure's values over its samples (`values`: figure name ->
    the values of the samples that have it)."""
    points = []
    for r in range(1, ROUND_FIGURES + 1):
        agent = values.get(round_name(r, "agent"), ())
        if agent:
            vote = _mean(values.get(round_name(r, "vote"), ()))
            points.append(RoundPoint(r, sum(agent) / len(agent), vote, len(agent)))
    return Curve(solver, model, tuple(points))


def left_out(curves: Sequence[Curve], names: Mapping[str, str]) -> str | None:
    """The sentence naming the runs the plot leaves out, or None when it leaves none out."""
    missing = [f"{names.get(c.solver, c.solver)} ({c.model})" for c in curves if not c.points]
    if not missing:
        return None
    return f"Left out of the accuracy per round (no round figures): {', '.join(missing)}."


def drops(points: Sequence[RoundPoint]) -> list[RoundPoint]:
    """The points after the first whose samples are fewer than the round before's."""
    return [b for a, b in pairwise(points) if b.samples < a.samples]


DODGE = 0.3  # the widest sideways spread of the lines at one round, in rounds


def offsets(lines: int) -> list[float]:
    """How far each of `lines` lines is shifted sideways, so that equal values at a round do not
    hide each other: evenly over at most `DODGE` round, centred on the round."""
    step = min(0.06, DODGE / (lines - 1)) if lines > 1 else 0.0
    return [(i - (lines - 1) / 2) * step for i in range(lines)]


def plot(task: str, curves: Sequence[Curve], names: Mapping[str, str]) -> Any:
    """Accuracy against the round, a colour per run (solver, named by `names`, and model), each
    run's line shifted a little sideways (`offsets`): agent accuracy solid with dots, vote
    accuracy dashed with hollow squares, `n=` where the samples drop. A matplotlib Figure (no
    pyplot)."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(8, 5.5), layout="constrained")
    axes = figure.add_subplot()
    drawn = [c for c in curves if c.points]
    for i, (c, shift) in enumerate(zip(drawn, offsets(len(drawn)))):
        colour = f"C{i % 10}"
        label = f"{names.get(c.solver, c.solver)} ({c.model}), n={c.points[0].samples}"
        axes.plot([p.round + shift for p in c.points], [p.agent_accuracy for p in c.points],
                  "-o", color=colour, label=label)  # fmt: skip
        voted = [
            (p.round + shift, p.vote_accuracy) for p in c.points if p.vote_accuracy is not None
        ]
        axes.plot([r for r, _ in voted], [v for _, v in voted], "--s", color=colour,
                  markerfacecolor="none")  # fmt: skip
        for p in drops(c.points):
            axes.annotate(f"n={p.samples}", (p.round + shift, p.agent_accuracy), color=colour,
                          textcoords="offset points", xytext=(6, -12))  # fmt: skip
    styles = [Line2D([], [], color="grey", linestyle="-", marker="o", label="agent accuracy"),
              Line2D([], [], color="grey", linestyle="--", marker="s", markerfacecolor="none",
                     label="vote accuracy")]  # fmt: skip
    handles, _ = axes.get_legend_handles_labels()
    axes.legend(handles=[*handles, *styles], loc="best", fontsize="small")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylim(-0.03, 1.03)
    axes.margins(x=0.1)
    axes.set_xlabel("round")
    axes.set_ylabel("accuracy (mean over the samples that reached the round)")
    axes.set_title("\n".join([*textwrap.wrap(task, 80), "accuracy per round"]))
    axes.grid(True, alpha=0.3)
    return figure
