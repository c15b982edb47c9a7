"""`mad-tasks report`: the comparison users run debates for, from a directory of Inspect logs.

Per task, one row per solver (its method, `-S` options and role bindings, and what cut it short if
a limit or `-S budget` did, as `mad-tasks tag` labels a run) and model (the main model, or the
panel a run ran on as its model, `[madsim/y,madsim/z]`: `log_tags.panel_model`): the log's headline
score with its stderr, the samples, and per sample the model calls, the tokens spent and served
from Inspect's cache, and the cost where Inspect priced the run. Written as markdown and CSV, and
as a self-contained HTML page (the table and the plot as inline SVG, nothing fetched) with a PNG of
each task's plot: score against tokens per sample, the Pareto front marked. Every two solvers run
on the same task and model are compared sample by sample (`paired_report.py`): the paired
difference with its bootstrap interval and McNemar's p, in the tables, paired.csv and a plot.
The failure figures (`scorers/failures.py`) add the oracle gap and the flips per sample to the
tables, and their accuracy per round a plot per task (`rounds_report.py`).

The logs are read with Inspect's own dataframes: `evals_df` for each log's header (the headline,
the usage and its cost), `samples_df` with `DebateColumns` for the debate figures of each sample.
The plot needs matplotlib (`pip install "mad-tasks[report]"`); without it the tables are written
and the command says the plots were left out.
"""

from __future__ import annotations

import csv
import html
import io
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TypeGuard

from inspect_ai.analysis import (
    EvalColumn,
    EvalInfo,
    EvalModel,
    EvalResults,
    evals_df,
    samples_df,
)
from inspect_ai.log import EvalLog, read_eval_log, read_eval_log_sample_summaries

from ._inspect_sample import STORE_KEY
from .debate_columns import DebateColumns, figure_columns
from .engine.records import DebateResult
from .engine.transitions import TRANSITIONS
from .log_tags import labelled, model_label, run_label
from .paired_report import COLUMNS as PAIR_COLUMNS
from .paired_report import PAIRED_RULE, Pair, read_pairs
from .paired_report import cells as pair_cells
from .paired_report import plot as plot_pairs
from .paired_report import write_csv as write_pairs_csv
from .rounds_report import ROUND_NAMES, ROUNDS_RULE, Curve, curve, left_out
from .rounds_report import plot as plot_rounds
from .scorers import failures, transitions
from .scorers.figures import Missing, Reading

HEADLINE_RULE = (
    "Score: each log's headline metric as Inspect resolves it (the task's declared headline metric, "
    "else the first metric of the task's first scorer: `accuracy` of `final_answer` or `choice` in "
    "this package's tasks), with that scorer's `stderr`."
)
TOKENS_RULE = (
    "Per sample: the means of the debate figures over the samples that have them (`debate_stats()`). "
    "Tokens spent are input + output tokens this run paid for; tokens cached are those of replies "
    "served from Inspect's cache. The plot's cost axis is their sum, the tokens a method uses "
    "whether or not a cache served them, so a cached re-run lands where its first run did."
)
COST_RULE = (
    "Cost: dollars per sample of the whole run (graders included) as Inspect recorded it, for the "
    "models it has a price for (its model database, `set_model_info`, `--model-cost-config`); "
    "blank when any model of the run had none."
)
TRANSITIONS_RULE = (
    "Transitions (`transitions()`): first is the accuracy of the vote of the agents' first answers, "
    "ties broken by the method's own rule (the same run's answer without debate; a judge's: its "
    "round-1 verdict against the human label), final the accuracy of the final answer; R→R, W→R, "
    "R→W and W→W the share of samples whose first vote was right or wrong and whose final answer "
    "is right or wrong. No answer is wrong. A log scored without `transitions()` has them computed "
    "from its debate records, by the same function and without a model call; blank for a method "
    "that answers with no answer (a summary, a ranking)."
)
FAILURES_RULE = (
    "Failures (`failure_figures()`, docs/failure-figures.md), means over the samples that have "
    "them: oracle gap the share of samples whose final answer is wrong while some agent's answer "
    "in some round was right; conformity, persuasion and instability the agents' answer changes "
    "per sample to the previous round's plurality, to a peer's other answer, and to an answer no "
    "peer held. – where they do not apply (flips need two rounds; a judge, a summary or a ranking "
    "has none). A log written before them has them computed from its debate records."
)
PARETO_RULE = (
    "Pareto front: the rows no other row of the task beats, i.e. none uses at most as many tokens "
    "per sample and scores at least as high, one of the two strictly; Pareto ($) the same with "
    "dollars per sample, over the rows that have them. Each task has a plot of its score against "
    "tokens and, where runs have a price, one against dollars."
)


@dataclass(frozen=True)
class Row:
    """One log: a solver on a main model over a task. Per-sample figures are None when no sample
    has them (a task without `debate_stats()`)."""

    task: str
    solver: str
    model: str
    headline: str | None  # "final_answer accuracy"
    score: float | None
    stderr: float | None
    samples: int
    calls: float | None
    input_tokens: float | None
    output_tokens: float | None
    cached_input_tokens: float | None
    cached_output_tokens: float | None
    calls_without_usage: float | None
    cost: float | None  # dollars per sample
    log: str
    pareto: bool = False  # on the front of score against tokens per sample
    pareto_cost: bool = False  # on the front of score against dollars per sample
    # `transitions()` figures: means over the samples that have them
    first_correct: float | None = None  # the first-answer majority's (a judge: first verdict's)
    final_correct: float | None = None
    right_to_right: float | None = None
    wrong_to_right: float | None = None
    right_to_wrong: float | None = None
    wrong_to_wrong: float | None = None
    # `failure_figures()`: means over the samples that have them
    oracle_gap: float | None = None
    conformity_flips: float | None = None
    persuasion_flips: float | None = None
    instability_flips: float | None = None

    @property
    def spent_tokens(self) -> float | None:
        return _sum(self.input_tokens, self.output_tokens)

    @property
    def cached_tokens(self) -> float | None:
        return _sum(self.cached_input_tokens, self.cached_output_tokens)

    @property
    def tokens(self) -> float | None:
        """The plot's cost axis: tokens used per sample, spent or served from the cache."""
        return _sum(self.spent_tokens, self.cached_tokens)


@dataclass(frozen=True)
class Report:
    tables: dict[str, list[Row]]  # task (with its -T options) -> its rows
    notes: list[str]  # logs left out, and why
    # task -> every two solvers on one model compared sample by sample (`paired_report.py`)
    pairs: dict[str, list[Pair]] = field(default_factory=dict)
    # task -> each row's accuracy per round, in the rows' order (`rounds_report.py`)
    curves: dict[str, list[Curve]] = field(default_factory=dict)


def _sum(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def pareto_front(points: Sequence[tuple[float, float]]) -> list[bool]:
    """Which `(cost, score)` points are on the Pareto front (lower cost and higher score are
    better): those no other point matches or beats on both, strictly on one. Equal points are
    both on it or both off."""
    front = [False] * len(points)
    best: tuple[float, float] | None = None  # the last front point, in order of cost
    for i in sorted(range(len(points)), key=lambda i: (points[i][0], -points[i][1])):
        if best is None or points[i][1] > best[1] or points[i] == best:
            front[i] = True
            best = points[i]
    return front


# ---- reading the logs


def _task_label(log: EvalLog) -> str:
    """The task's name and the `-T` options given: runs with other options are another table."""
    options = " ".join(f"{k}={v}" for k, v in (log.eval.task_args_passed or {}).items())
    return f"{log.eval.task} ({options})" if options else log.eval.task


def _run_cost(log: EvalLog) -> float | None:
    """The run's cost in dollars, or None when a model of it had no price."""
    usages = log.stats.model_usage.values()
    costs = [usage.total_cost for usage in usages]
    return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)


def _early_stops(log: EvalLog) -> int:
    """The sample runs an early-stopping manager skipped (`sweep_stopping.py`)."""
    summary = log.results.early_stopping if log.results else None
    return len(summary.early_stops) if summary else 0


def _solver_label(log: EvalLog) -> str:
    """The run's label, as `mad-tasks tag` gives it, but for the roles bound to the panel the run
    ran on as its model (the model column names it): a finished run's says what cut it short."""
    if log.status != "success":  # left out of the report: its samples are not read
        return run_label(log, panel_as_model=True) or "(none)"
    samples = read_eval_log_sample_summaries(log.location)
    return labelled(log, samples, panel_as_model=True) or "(none)"


EVAL_COLUMNS = [
    *EvalInfo,
    *EvalModel,
    *EvalResults,
    EvalColumn("task_label", path=_task_label),
    EvalColumn("solver_label", path=_solver_label),
    EvalColumn("model_label", path=model_label),
    EvalColumn("run_cost", path=_run_cost),
    EvalColumn("early_stops", path=_early_stops),
]
FIGURES = (
    "calls",
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "cached_output_tokens",
    "calls_without_usage",
)
FIRST = ("first_majority_correct", "first_verdict_correct")  # a log's samples have one of them
OUTCOMES = (*FIRST, "final_correct", *TRANSITIONS)
FLIPS = ("conformity_flips", "persuasion_flips", "instability_flips")
FAILURES = ("oracle_gap", *FLIPS, *ROUND_NAMES)
# the figures a log may lack, each family with the function that reads them from a record
FROM_RECORDS = ((OUTCOMES, transitions.reading_of), (FAILURES, failures.reading_of))
Values = dict[str, list[float]]  # figure -> its values over a log's samples that have it


def read_report(log_dir: str) -> Report:
    """The rows of every finished log under `log_dir`, by task, the Pareto front marked. Of logs
    with the same task, solver and model the newest is kept."""
    evals = evals_df(log_dir, columns=EVAL_COLUMNS).to_dict("records")
    notes = [f"left out {e['log']}: {e['status']}" for e in evals if e["status"] != "success"]
    kept: dict[tuple[str, str, str], dict[str, Any]] = {}
    for e in sorted((e for e in evals if e["status"] == "success"), key=lambda e: e["created"]):
        key = (e["task_label"], e["solver_label"], e["model_label"])
        if key in kept:
            notes.append(f"left out {kept[key]['log']}: a newer log has the same run")
        kept[key] = e
    notes += [
        f"{e['task_label']} / {e['solver_label']} / {e['model_label']}: stopped early, "
        f"{e['early_stops']} sample runs skipped ({e['log']})"
        for e in kept.values()
        if e["early_stops"]
    ]
    values = _values_by_log({e["eval_id"]: e["log"] for e in kept.values()})
    tables: dict[str, list[Row]] = {}
    for e in kept.values():
        tables.setdefault(e["task_label"], []).append(_row(e, values.get(e["eval_id"], {})))
    fronted = {task: _with_front(rows) for task, rows in sorted(tables.items())}
    pairs = {task: p for task, rows in fronted.items() if (p := read_pairs(task, rows))}
    by_log = {e["log"]: values.get(e["eval_id"], {}) for e in kept.values()}
    curves = {task: [curve(r.solver, r.model, by_log[r.log]) for r in rows]
              for task, rows in fronted.items()}  # fmt: skip
    return Report(fronted, notes, pairs, curves)


def _values_by_log(logs: Mapping[str, str]) -> dict[str, Values]:
    """Per log (eval id -> its path), each figure's values over the samples that have it; the
    transitions or the failure figures of a log scored without them are computed from its
    records."""
    names = FIGURES + OUTCOMES + FAILURES
    values: dict[str, Values] = {eval_id: {f: [] for f in names} for eval_id in logs}
    if logs:
        columns = DebateColumns + figure_columns(*FAILURES)
        for sample in samples_df(list(logs.values()), columns=columns).to_dict("records"):
            by_figure = values[sample["eval_id"]]
            for figure in names:
                if _is_number(sample[figure]):
                    by_figure[figure].append(float(sample[figure]))
    for eval_id, by_figure in values.items():
        lacking = [(wanted, read) for wanted, read in FROM_RECORDS
                   if not any(by_figure[f] for f in wanted)]  # fmt: skip
        if lacking:
            by_figure.update(_from_records(logs[eval_id], lacking))
    return values


Reader = Callable[[DebateResult | None, Sequence[str], Mapping[str, Any], Sequence[str]],
                  Reading | Missing]  # fmt: skip


def _from_records(log: str, families: Sequence[tuple[Sequence[str], Reader]]) -> Values:
    """The figures of each family of each sample of `log` as its scorers would score them, from
    the debate record in its store (the full samples are read: the summaries do not hold it)."""
    values: Values = {f: [] for wanted, _ in families for f in wanted}
    for sample in read_eval_log(log).samples or []:
        try:
            result = DebateResult.from_dict(sample.store.get(STORE_KEY))
        except (ValueError, TypeError, KeyError, AttributeError):  # none, or another version's
            continue
        target = [sample.target] if isinstance(sample.target, str) else sample.target
        for wanted, read in families:
            got = read(result, sample.choices or [], sample.metadata or {}, target)
            if isinstance(got, Missing):
                continue
            for figure in wanted:
                value = got.values[figure]
                if not isinstance(value, Missing):
                    values[figure].append(float(value))
    return values


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def finite(value: object) -> float | None:
    """A dataframe cell as a number; None for a missing one (None, NA or NaN)."""
    return float(value) if _is_number(value) else None


def _row(e: Mapping[str, Any], values: Values) -> Row:
    figures = {f: sum(v) / len(v) if v else None for f, v in values.items()}
    samples = int(e["completed_samples"] or 0)
    run_cost, score = finite(e["run_cost"]), finite(e["score_headline_value"])
    headline = " ".join(str(e[k]) for k in ("score_headline_score", "score_headline_metric"))
    return Row(
        task=e["task_label"],
        solver=e["solver_label"],
        model=e["model_label"],
        headline=None if score is None else headline,
        score=score,
        stderr=finite(e["score_headline_stderr"]),
        samples=samples,
        calls=figures.get("calls"),
        input_tokens=figures.get("input_tokens"),
        output_tokens=figures.get("output_tokens"),
        cached_input_tokens=figures.get("cached_input_tokens"),
        cached_output_tokens=figures.get("cached_output_tokens"),
        calls_without_usage=figures.get("calls_without_usage"),
        cost=run_cost / samples if run_cost is not None and samples else None,
        log=e["log"],
        first_correct=next((v for f in FIRST if (v := figures.get(f)) is not None), None),
        final_correct=figures.get("final_correct"),
        right_to_right=figures.get("right_to_right"),
        wrong_to_right=figures.get("wrong_to_right"),
        right_to_wrong=figures.get("right_to_wrong"),
        wrong_to_wrong=figures.get("wrong_to_wrong"),
        oracle_gap=figures.get("oracle_gap"),
        conformity_flips=figures.get("conformity_flips"),
        persuasion_flips=figures.get("persuasion_flips"),
        instability_flips=figures.get("instability_flips"),
    )


@dataclass(frozen=True)
class Spend:
    """What a row spent per sample, as one of the plots' x axis: its `label`, the `value` of a
    row, whether a row is `on_front` of score against it, and the `suffix` of the plot's file."""

    label: str
    value: Callable[[Row], float | None]
    on_front: Callable[[Row], bool]
    suffix: str


TOKENS = Spend("tokens per sample (input + output, cached included)", lambda r: r.tokens,
               lambda r: r.pareto, "")  # fmt: skip
DOLLARS = Spend("dollars per sample", lambda r: r.cost, lambda r: r.pareto_cost, "-cost")


def point(row: Row, spend: Spend = TOKENS) -> tuple[float, float] | None:
    """Where the row is plotted, `(spent per sample, score)`; None without either."""
    spent, score = spend.value(row), row.score
    return None if spent is None or score is None else (spent, score)


def _front(rows: Sequence[Row], spend: Spend) -> list[bool]:
    placed = [(i, p) for i, r in enumerate(rows) if (p := point(r, spend)) is not None]
    on = [False] * len(rows)
    for (i, _), front in zip(placed, pareto_front([p for _, p in placed])):
        on[i] = front
    return on


def _with_front(rows: list[Row]) -> list[Row]:
    rows = sorted(rows, key=lambda r: (r.solver, r.model))
    fronts = zip(_front(rows, TOKENS), _front(rows, DOLLARS))
    return [replace(r, pareto=t, pareto_cost=d) for r, (t, d) in zip(rows, fronts)]


# ---- writing


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _rate(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def _absent(value: float | None, shown: Callable[[float], str]) -> str:
    """A failure figure's cell: – where it does not apply."""
    return "–" if value is None else shown(value)


def _score(row: Row) -> str:
    if row.score is None:
        return ""
    return f"{row.score:.3f}" + ("" if row.stderr is None else f" ± {row.stderr:.3f}")


COLUMNS = (
    "solver",
    "model",
    "headline",
    "score ± stderr",
    "samples",
    "calls",
    "tokens spent",
    "tokens cached",
    "cost ($)",
    "first",
    "final",
    "R→R",
    "W→R",
    "R→W",
    "W→W",
    "oracle gap",
    "conformity",
    "persuasion",
    "instability",
    "Pareto",
    "Pareto ($)",
)


def _cells(row: Row) -> list[str]:
    return [
        row.solver,
        row.model,
        row.headline or "",
        _score(row),
        str(row.samples),
        _number(row.calls),
        _number(row.spent_tokens),
        _number(row.cached_tokens),
        "" if row.cost is None else f"{row.cost:.3g}",
        *(_rate(getattr(row, f)) for f in ("first_correct", "final_correct", *TRANSITIONS)),
        _absent(row.oracle_gap, _rate),
        *(_absent(getattr(row, f), "{:.2f}".format) for f in FLIPS),
        "yes" if row.pareto else "",
        "yes" if row.pareto_cost else "",
    ]


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|")


def _markdown_table(columns: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    return [*lines, *("| " + " | ".join(_markdown_cell(c) for c in r) + " |" for r in rows), ""]


def to_markdown(report: Report, log_dir: str) -> str:
    lines = [f"# Methods compared: `{log_dir}`", ""]
    lines += [HEADLINE_RULE, "", TOKENS_RULE, "", COST_RULE, "", TRANSITIONS_RULE, ""]
    lines += [FAILURES_RULE, "", PARETO_RULE, "", PAIRED_RULE, "", ROUNDS_RULE, ""]
    for task, rows in report.tables.items():
        lines += [f"## {task}", ""]
        lines += _markdown_table(COLUMNS, [_cells(r) for r in rows])
        if task in report.pairs:
            lines += ["Paired differences:", ""]
            lines += _markdown_table(PAIR_COLUMNS, [pair_cells(p) for p in report.pairs[task]])
        if (missing := _left_out(report, task)) is not None:
            lines += [missing, ""]
    lines += [f"- {note}" for note in report.notes]
    return "\n".join(lines).rstrip() + "\n"


def write_csv(report: Report, path: Path) -> None:
    names = [f.name for f in fields(Row)]
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow([*names, "spent_tokens", "cached_tokens", "tokens"])
        for rows in report.tables.values():
            for r in rows:
                values = [getattr(r, n) for n in names] + [
                    r.spent_tokens,
                    r.cached_tokens,
                    r.tokens,
                ]
                writer.writerow(["" if v is None else v for v in values])


STYLE = (
    "body{font-family:sans-serif;margin:2em;max-width:70em}"
    "table{border-collapse:collapse;margin:1em 0}"
    "th,td{border:1px solid #bbb;padding:.3em .6em;text-align:right}"
    "td:nth-child(-n+3),th{text-align:left}"
    "tr.pareto{font-weight:bold}"
    "figure{margin:1em 0}svg{max-width:100%;height:auto}"
)


def prose(text: str) -> str:
    """A markdown sentence as HTML: escaped, its `code` spans as <code> (the rules are written
    once, for the markdown page and this one)."""
    pieces = html.escape(text).split("`")
    if len(pieces) % 2 == 0:  # an unpaired backtick: shown as written
        return html.escape(text)
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(pieces))


RULES = (HEADLINE_RULE, TOKENS_RULE, COST_RULE, TRANSITIONS_RULE, FAILURES_RULE, PARETO_RULE,
         PAIRED_RULE, ROUNDS_RULE)  # fmt: skip


def _left_out(report: Report, task: str) -> str | None:
    """The sentence naming the task's runs without accuracy per round."""
    names = point_labels(r.solver for r in report.tables[task])
    return left_out(report.curves.get(task, []), names)


def to_html(report: Report, log_dir: str, plots: Mapping[str, Sequence[str]]) -> str:
    """The page: per task its table and its plots (`plots`: task -> inline SVGs)."""
    e = html.escape
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f"<title>Methods compared: {e(log_dir)}</title><style>{STYLE}</style></head><body>",
        f"<h1>Methods compared: <code>{e(log_dir)}</code></h1>",
        *(f"<p>{prose(rule)}</p>" for rule in RULES),
    ]
    for task, rows in report.tables.items():
        parts += [f"<h2>{e(task)}</h2>", "<table><thead><tr>"]
        parts += [f"<th>{e(c)}</th>" for c in COLUMNS] + ["</tr></thead><tbody>"]
        for r in rows:
            parts.append('<tr class="pareto">' if r.pareto else "<tr>")
            parts += [f"<td>{e(c)}</td>" for c in _cells(r)] + ["</tr>"]
        parts.append("</tbody></table>")
        if task in report.pairs:
            parts += ["<p>Paired differences:</p>", "<table><thead><tr>"]
            parts += [f"<th>{e(c)}</th>" for c in PAIR_COLUMNS] + ["</tr></thead><tbody>"]
            for p in report.pairs[task]:
                parts += ["<tr>", *(f"<td>{e(c)}</td>" for c in pair_cells(p)), "</tr>"]
            parts.append("</tbody></table>")
        parts += [f"<figure>{svg}</figure>" for svg in plots.get(task, ())]
        if (missing := _left_out(report, task)) is not None:
            parts.append(f"<p>{prose(missing)}</p>")
    if not plots:
        parts.append("<p>Plots left out: matplotlib is not installed (mad-tasks[report]).</p>")
    parts += [f"<p>{prose(note)}</p>" for note in report.notes] + ["</body></html>\n"]
    return "\n".join(parts)


LABEL_WIDTH = 40  # characters of a point's name in the plot


def point_labels(solvers: Iterable[str]) -> dict[str, str]:
    """Each solver label's name in the plot. A method with one label keeps it; where several
    labels share a method (two `on_demand` thresholds), each is the method and the options that
    set it apart from the others (`on_demand threshold=0.9`), so no two points read alike. Cut to
    `LABEL_WIDTH` characters."""
    labels = list(dict.fromkeys(solvers))
    by_method: dict[str, list[set[str]]] = {}
    for label in labels:
        method, *options = label.split(" ")
        by_method.setdefault(method, []).append(set(options))
    names = {}
    for label in labels:
        method, *options = label.split(" ")
        group = by_method[method]
        shared = set.intersection(*group) if len(group) > 1 else set()
        name = " ".join([method, *(o for o in options if o not in shared)])
        names[label] = name if len(name) <= LABEL_WIDTH else name[: LABEL_WIDTH - 1] + "…"
    return names


def label_lines(points: Sequence[tuple[float, float]]) -> list[int]:
    """How many lines below its point each point's name is printed, so that the names of points
    close together (tokens within a factor of 3, about a name's width on the log axis, and scores
    within 5% of the plot's range) do not print over each other: each takes the first line that no
    earlier close point took."""
    ys = [y for _, y in points]
    span = (max(ys) - min(ys)) or 1.0 if ys else 1.0
    lines: list[int] = []
    for i, (x, y) in enumerate(points):
        taken = {
            lines[j]
            for j, (x2, y2) in enumerate(points[:i])
            if x > 0
            and x2 > 0
            and abs(math.log(x / x2)) < math.log(3)
            and abs(y - y2) <= 0.05 * span
        }
        lines.append(min(set(range(len(taken) + 1)) - taken))
    return lines


def plot(task: str, rows: Sequence[Row], spend: Spend = TOKENS) -> Any:
    """The task's score against what a sample `spend`s (tokens or dollars), one marker per model,
    each point named by its solver (`point_labels`), stderr as error bars, the Pareto front as a
    dashed step line. A matplotlib Figure (drawn without pyplot: no display, no global
    state)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    figure = Figure(figsize=(8, 5.5), layout="constrained")
    axes = figure.add_subplot()
    placed = [(r, p) for r in rows if (p := point(r, spend)) is not None]
    names = point_labels(r.solver for r, _ in placed)
    markers = "osD^vP*Xh<>"
    for i, model in enumerate(sorted({r.model for r, _ in placed})):
        mine = [(r, p) for r, p in placed if r.model == model]
        axes.errorbar(
            [p[0] for _, p in mine],
            [p[1] for _, p in mine],
            yerr=[r.stderr or 0.0 for r, _ in mine],
            fmt=markers[i % len(markers)],
            capsize=3,
            label=model,
        )
    lines = label_lines([p for _, p in placed])
    for (r, p), line in zip(placed, lines):
        # right of the error bars' caps, so a name never sits on a bar
        axes.annotate(names[r.solver], p, textcoords="offset points", xytext=(10, 4 - 11 * line))
    front = sorted(p for r, p in placed if spend.on_front(r))
    if front:
        xs, ys = zip(*front)
        if len(front) > 1:  # a line only where there is one to draw
            axes.step(xs, ys, where="post", linestyle="--", color="grey")
        # the circles stand for the front in the legend: they are drawn for every front
        axes.scatter(xs, ys, s=220, facecolors="none", edgecolors="grey", label="Pareto front")
    spent = [p[0] for _, p in placed]
    if spent and min(spent) > 0 and max(spent) >= 10 * min(spent):
        axes.set_xscale("log")
        axes.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))  # 200
        axes.xaxis.set_minor_formatter(NullFormatter())
    axes.margins(x=0.15, y=0.08)  # room for the solvers' names
    axes.set_xlabel(spend.label)
    axes.set_ylabel(next((r.headline for r, _ in placed if r.headline), "score"))
    axes.set_title(task)
    axes.grid(True, alpha=0.3)
    if placed:
        axes.legend(loc="best")
    return figure


SVG_METADATA = ("Creator", "Date", "Format", "Type")


def _svg(figure: Any) -> str:
    """The figure as inline SVG: its text kept as text, no XML prolog or DOCTYPE."""
    from matplotlib import rc_context

    text = io.StringIO()
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "mad-tasks"}):
        # no metadata block: only the namespace declarations name a URL, and nothing is fetched
        figure.savefig(text, format="svg", metadata=dict.fromkeys(SVG_METADATA))
    svg = text.getvalue()
    return svg[svg.index("<svg") :]


def _file_stems(tasks: Iterable[str]) -> dict[str, str]:
    names: dict[str, str] = {}
    for task in tasks:
        name = task.split(" (", 1)[0].rsplit("/", 1)[-1]  # the task's name, without options
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.") or "task"
        name, n = stem, 1
        while name in names.values():
            n += 1
            name = f"{stem}-{n}"
        names[task] = name
    return names


@dataclass(frozen=True)
class Written:
    report: Report
    files: list[Path]
    plots_left_out: bool  # matplotlib is not installed


def write_report(log_dir: str, out_dir: str | Path) -> Written:
    """Read the logs under `log_dir`; write report.md, report.csv, report.html, paired.csv (when
    runs pair) and the PNGs of each task into `out_dir`."""
    report = read_report(log_dir)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = [out / "report.md", out / "report.csv", out / "report.html"]
    files[0].write_text(to_markdown(report, log_dir), encoding="utf-8")
    write_csv(report, files[1])
    if report.pairs:
        write_pairs_csv((p for pairs in report.pairs.values() for p in pairs), out / "paired.csv")
        files.append(out / "paired.csv")
    plots: dict[str, list[str]] = {}
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        plots_left_out = True
    else:
        plots_left_out = False
        for task, stem in _file_stems(report.tables).items():
            rows = report.tables[task]
            for spend in (TOKENS, DOLLARS):
                if spend is DOLLARS and not any(point(r, DOLLARS) for r in rows):
                    continue  # no run of the task has a price
                figure = plot(task, rows, spend)
                figure.savefig(out / f"{stem}{spend.suffix}.png", format="png", dpi=120)
                plots.setdefault(task, []).append(_svg(figure))
                files.append(out / f"{stem}{spend.suffix}.png")
            if task in report.pairs:
                names = point_labels(r.solver for r in rows)
                figure = plot_pairs(task, report.pairs[task], names)
                figure.savefig(out / f"{stem}-paired.png", format="png", dpi=120)
                plots.setdefault(task, []).append(_svg(figure))
                files.append(out / f"{stem}-paired.png")
            curves = report.curves.get(task, [])
            if any(c.points for c in curves):
                figure = plot_rounds(task, curves, point_labels(r.solver for r in rows))
                figure.savefig(out / f"{stem}-rounds.png", format="png", dpi=120)
                plots.setdefault(task, []).append(_svg(figure))
                files.append(out / f"{stem}-rounds.png")
    files[2].write_text(to_html(report, log_dir, plots), encoding="utf-8")
    return Written(report, files, plots_left_out)
