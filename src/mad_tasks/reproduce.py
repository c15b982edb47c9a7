"""`mad-tasks reproduce`: one command per paper table, from an experiment file shipped with the package.

An experiment file (`experiments/<name>.yaml`, schema in docs/reproducing.md) names a paper's table:
its tasks, its rows (a solver with its options each), its columns (a task and what is measured on
it), the number of independent runs, and the paper's values. `run_experiment` runs every row
through `inspect_ai.eval_set`, one eval set per row in `log_dir/<name>/<row folder>` as `compare`
does, so running it again resumes: finished logs are reused and no model call is made twice. The
runs are Inspect epochs. `measure` then reads the logs into the table, each cell the mean and
standard deviation over runs of a per-run value, and `to_markdown` / `to_html` write it beside the
paper's values.

Every file is checked when it is loaded (a field that is wrong is named with its file), and every
solver and task is built with its options before the first model call.
"""

from __future__ import annotations

import html
import json
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import yaml
from inspect_ai import Task, eval_set, task_with
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.scorer import SampleScore, Scorer, value_to_float
from inspect_ai.solver import SolverSpec
from inspect_ai.util import registry_create

from . import _registry  # noqa: F401  (registers the short solver names, as the plugin's loading does)
from ._inspect_compat import registered
from ._inspect_sample import STORE_KEY
from .compare import folder_name
from .engine.answers import AnswerFormat
from .engine.methods.d3_records import JudgeRecord
from .engine.methods.on_demand_records import OnDemandRecord
from .engine.protocols.majority import majority_vote
from .engine.records import AgentAnswer, DebateResult, token_totals
from .engine.transitions import TRANSITIONS, first_answers, first_vote
from .report import FIRST, STYLE, prose
from .report import _float as finite
from .scorers.answers import gold_keys, task_format
from .scorers.debate_stats import debate_stats
from .scorers.decision_stats import decision_stats
from .scorers.figures import Missing
from .scorers.transitions import reading_of

EXPERIMENTS = Path(__file__).resolve().parent / "experiments"
PREFIX = "mad_tasks/"
MAX_RUNS = 20  # runs multiply every model call of the sweep
MAX_ROUND = 100  # the highest round a per-round statistic may ask for
# a sample's tokens: spent by this run and served from the cache (`report`'s tokens axis)
TOKEN_FIGURES = ("input_tokens", "output_tokens", "cached_input_tokens", "cached_output_tokens")
# scorer lists of this package that are not one registered scorer
SCORER_FAMILIES: dict[str, Callable[[], list[Scorer]]] = {
    "debate_stats": debate_stats,
    "decision_stats": decision_stats,
}
FIELDS = "name seed paper table caption paper_model runs tasks rows columns paper_values notes"
# per-sample figures read from each sample's debate record (no score): the transitions and
# whether the sample debated
RECORD_STATS = ("first_majority", *TRANSITIONS, "debated")
STATS = ", ".join(
    ("mean, sum, share==V, share>=V, round_accuracy:R, round_consensus:R", *RECORD_STATS)
)
STD_RULE = (
    "Each cell is the mean over runs of the run's value, ± the sample standard deviation over "
    "runs (n − 1); with one run the ± is left out. A run is an Inspect epoch: the run's value is "
    "the column's metric over that epoch's samples, times the column's scale."
)
COST_RULE = (
    "calls/sample and tokens/sample: the method's model calls and tokens (input + output, cached "
    "replies included, a reply without usage adding none) per sample, from its debate record as "
    "`mad-tasks report` counts them (the log's usage and model events for a sample without one), "
    "averaged over every sample and run of the row's tasks."
)


class ExperimentError(ValueError):
    """An experiment file that cannot be run; the message names the file and the field."""


@dataclass(frozen=True)
class TaskEntry:
    key: str
    task: str  # registered name without the mad_tasks/ prefix
    args: dict[str, Any]
    scorers: tuple[str, ...] | None  # None: the task's own scorers


@dataclass(frozen=True)
class RowSpec:
    label: str
    solver: str
    args: dict[str, Any]
    tasks: tuple[str, ...]  # the task keys this row runs (all of them unless the file says)

    @property
    def folder(self) -> str:
        return folder_name(self.label, "row")


@dataclass(frozen=True)
class Stat:
    """How a column reduces a run's per-sample values: `mean`, `sum`, `share==V`, `share>=V`,
    or a figure of each sample's debate record: `round_accuracy:R` / `round_consensus:R`, the
    first-answer majority's correctness and the transitions, `debated`."""

    kind: str
    value: float = 0.0  # V of share==V / share>=V, R of the round figures

    @property
    def from_record(self) -> bool:
        return self.kind.startswith("round_") or self.kind in RECORD_STATS


@dataclass(frozen=True)
class ColumnSpec:
    label: str
    tasks: tuple[str, ...]  # task keys: a run's value is the mean of its value on each
    score: str | None  # a score's name in the log; None for the per-round figures
    metric: str | None  # the score's metric, as the log names it
    stat: Stat | None
    scale: float = 1.0


@dataclass(frozen=True)
class Experiment:
    name: str
    seed: str
    paper: str
    table: str
    caption: str
    paper_model: str
    runs: int
    tasks: dict[str, TaskEntry]
    rows: tuple[RowSpec, ...]
    columns: tuple[ColumnSpec, ...]
    paper_values: dict[str, dict[str, str | float | None]]
    notes: tuple[str, ...] = ()

    @property
    def evals(self) -> int:
        return sum(len(row.tasks) for row in self.rows)


# ---- loading and checking a file


class _Reader:
    """Reads the fields of one file; every refusal names the file and the field."""

    def __init__(self, file: str) -> None:
        self.file = file

    def error(self, where: str, message: str) -> ExperimentError:
        return ExperimentError(f"{self.file}: {where}: {message}")

    def get(
        self, data: Mapping[str, Any], key: str, where: str, kind: type | tuple, default: Any = ...
    ) -> Any:
        if key not in data or data[key] is None:
            if default is ...:
                raise self.error(f"{where}{key}", "missing")
            return default
        value = data[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _kinds(kind)):
            raise self.error(f"{where}{key}", f"expected {_kind_name(kind)}, got {value!r:.60}")
        return value

    def only(self, data: Mapping[str, Any], allowed: str, where: str) -> None:
        """Refuse a field not in `allowed` (space-separated): a misspelt option would be lost."""
        unknown = sorted(set(map(str, data)) - set(allowed.split()))
        if unknown:
            fields = ", ".join(allowed.split())
            raise self.error(f"{where}{unknown[0]}", f"unknown field; the fields are {fields}")

    def text(self, data: Mapping[str, Any], key: str, where: str = "") -> str:
        value = self.get(data, key, where, (str, int, float))
        return str(value)


def _kinds(kind: type | tuple) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: type | tuple) -> str:
    names = {dict: "a mapping", list: "a list", str: "text", int: "an integer", float: "a number"}
    return " or ".join(names.get(k, k.__name__) for k in _kinds(kind))


def parse_stat(text: str) -> Stat:
    """A column's `stat`; ValueError naming what is allowed."""
    body = text.strip()
    if body in ("mean", "sum", *RECORD_STATS):
        return Stat(body)
    for kind in ("share==", "share>="):
        if body.startswith(kind) and len(body) <= len(kind) + 20:
            try:
                value = float(body[len(kind) :])
            except ValueError:
                break
            if math.isfinite(value):
                return Stat(kind, value)
    for kind in ("round_accuracy:", "round_consensus:"):
        digits = body[len(kind) :]
        # isdigit() passes "²", which int() refuses
        ok = body.startswith(kind) and digits.isascii() and digits.isdecimal() and len(digits) <= 3
        if ok and 1 <= int(digits) <= MAX_ROUND:
            return Stat(kind[:-1], int(digits))
    raise ValueError(f"got {text!r:.60}, allowed: {STATS} (V a number, R from 1 to {MAX_ROUND})")


def load_experiment(path: str | Path) -> Experiment:
    """Read and check one experiment file; `ExperimentError` names the file and the field."""
    path = Path(path)
    r = _Reader(path.name)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise ExperimentError(f"{path.name}: not readable as YAML: {error}") from error
    if not isinstance(data, dict):
        raise r.error("(file)", "expected a mapping of the experiment's fields")
    r.only(data, FIELDS, "")
    name = r.text(data, "name")
    if name != path.stem:
        raise r.error("name", f"{name!r} must be the file's name without .yaml, {path.stem!r}")
    runs = r.get(data, "runs", "", int)
    if not 1 <= runs <= MAX_RUNS:
        raise r.error("runs", f"got {runs}, allowed: an integer from 1 to {MAX_RUNS}")
    tasks = _tasks(r, r.get(data, "tasks", "", dict))
    rows = _rows(r, r.get(data, "rows", "", list), tasks)
    columns = _columns(r, r.get(data, "columns", "", list), tasks)
    notes = r.get(data, "notes", "", list, [])
    if not all(isinstance(n, str) for n in notes):
        raise r.error("notes", "expected a list of text")
    return Experiment(
        name=name,
        seed=r.text(data, "seed"),
        paper=r.text(data, "paper"),
        table=r.text(data, "table"),
        caption=r.text(data, "caption"),
        paper_model=r.text(data, "paper_model"),
        runs=runs,
        tasks=tasks,
        rows=rows,
        columns=columns,
        paper_values=_paper_values(r, r.get(data, "paper_values", "", dict, {}), rows, columns),
        notes=tuple(notes),
    )


def _tasks(r: _Reader, raw: Mapping[str, Any]) -> dict[str, TaskEntry]:
    if not raw:
        raise r.error("tasks", "expected at least one task")
    tasks: dict[str, TaskEntry] = {}
    seen: dict[str, str] = {}
    for key, entry in raw.items():
        where = f"tasks.{key}."
        if not isinstance(entry, dict):
            raise r.error(f"tasks.{key}", "expected a mapping with task, args, scorers")
        r.only(entry, "task args scorers", where)
        name = str(r.get(entry, "task", where, str)).removeprefix(PREFIX)
        if _unknown("task", PREFIX + name):
            raise r.error(f"{where}task", f"unknown task {name!r} (a task of mad_tasks)")
        args = r.get(entry, "args", where, dict, {})
        scorers = r.get(entry, "scorers", where, list, None)
        if scorers is not None:
            for scorer in scorers:
                if not isinstance(scorer, str) or (
                    scorer not in SCORER_FAMILIES and _unknown("scorer", _scorer_name(scorer))
                ):
                    raise r.error(f"{where}scorers", f"unknown scorer {scorer!r:.60}")
        identity = json.dumps([name, args], sort_keys=True, default=str)
        if identity in seen:
            raise r.error(f"tasks.{key}", f"the same task and args as tasks.{seen[identity]}")
        seen[identity] = str(key)
        tasks[str(key)] = TaskEntry(
            str(key), name, args, None if scorers is None else tuple(scorers)
        )
    return tasks


def _unknown(kind: str, name: str) -> bool:
    """Not registered (unknowable when Inspect's internals moved: not refused here, then;
    building the object refuses it before any call)."""
    return registered(kind, name) is False


def _scorer_name(name: str) -> str:
    """A scorer family of this package, else the name as registered: as given or in this package."""
    if name in SCORER_FAMILIES or registered("scorer", name) is not False:
        return name
    return PREFIX + name


def _rows(r: _Reader, raw: list[Any], tasks: Mapping[str, TaskEntry]) -> tuple[RowSpec, ...]:
    if not raw:
        raise r.error("rows", "expected at least one row")
    rows: list[RowSpec] = []
    for i, entry in enumerate(raw):
        where = f"rows[{i}]."
        if not isinstance(entry, dict):
            raise r.error(f"rows[{i}]", "expected a mapping with label, solver, args")
        r.only(entry, "label solver args tasks", where)
        label = r.text(entry, "label", where)
        solver = r.get(entry, "solver", where, str)
        if _unknown("solver", solver):
            raise r.error(f"{where}solver", f"unknown solver {solver!r}")
        keys = _task_keys(
            r, r.get(entry, "tasks", where, list, list(tasks)), tasks, f"{where}tasks"
        )
        row = RowSpec(label, solver, r.get(entry, "args", where, dict, {}), tuple(keys))
        for other in rows:
            if row.label == other.label or row.folder == other.folder:
                raise r.error(f"{where}label", f"{label!r} repeats the row {other.label!r}")
        rows.append(row)
    return tuple(rows)


def _columns(r: _Reader, raw: list[Any], tasks: Mapping[str, TaskEntry]) -> tuple[ColumnSpec, ...]:
    if not raw:
        raise r.error("columns", "expected at least one column")
    columns: list[ColumnSpec] = []
    for i, entry in enumerate(raw):
        where = f"columns[{i}]."
        if not isinstance(entry, dict):
            raise r.error(f"columns[{i}]", "expected a mapping with label, task, score, metric")
        r.only(entry, "label task score metric stat scale", where)
        label = r.text(entry, "label", where)
        if any(c.label == label for c in columns):
            raise r.error(f"{where}label", f"{label!r} repeats a column")
        named = r.get(entry, "task", where, (str, list))
        keys = _task_keys(r, [named] if isinstance(named, str) else named, tasks, f"{where}task")
        metric = r.get(entry, "metric", where, str, None)
        stat_text = r.get(entry, "stat", where, str, None)
        if (metric is None) == (stat_text is None):
            raise r.error(f"{where}metric", "give exactly one of metric and stat")
        stat = None
        if stat_text is not None:
            try:
                stat = parse_stat(stat_text)
            except ValueError as error:
                raise r.error(f"{where}stat", str(error)) from error
        score = r.get(entry, "score", where, str, None)
        if score is None and not (stat and stat.from_record):
            raise r.error(f"{where}score", "missing (only the debate record's stats read none)")
        scale = r.get(entry, "scale", where, (int, float), 1)
        if not math.isfinite(scale) or scale == 0:
            raise r.error(f"{where}scale", f"got {scale}, allowed: a non-zero number")
        columns.append(ColumnSpec(label, keys, score, metric, stat, float(scale)))
    return tuple(columns)


def _task_keys(
    r: _Reader, keys: list[Any], tasks: Mapping[str, TaskEntry], where: str
) -> tuple[str, ...]:
    """A row's or a column's task keys: at least one, each a key of `tasks`, none twice."""
    if not keys:
        raise r.error(where, "expected at least one task key")
    for i, key in enumerate(keys):
        if not isinstance(key, str) or key not in tasks:
            raise r.error(where, f"unknown task key {key!r:.60}; the keys: {', '.join(tasks)}")
        if key in keys[:i]:
            raise r.error(where, f"the task key {key!r} is given twice")
    return tuple(keys)


def _paper_values(
    r: _Reader, raw: Mapping[str, Any], rows: Sequence[RowSpec], columns: Sequence[ColumnSpec]
) -> dict[str, dict[str, str | float | None]]:
    row_labels, column_labels = {row.label for row in rows}, {c.label for c in columns}
    values: dict[str, dict[str, str | float | None]] = {}
    for row, cells in raw.items():
        if str(row) not in row_labels:
            raise r.error(f"paper_values.{row}", "not a row's label")
        if not isinstance(cells, dict):
            raise r.error(f"paper_values.{row}", "expected a mapping of column label to value")
        for column, value in cells.items():
            if str(column) not in column_labels:
                raise r.error(f"paper_values.{row}.{column}", "not a column's label")
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, str | int | float)
            ):
                raise r.error(
                    f"paper_values.{row}.{column}",
                    f"expected text, a number or null, got {value!r:.60}",
                )
        values[str(row)] = {str(c): v for c, v in cells.items()}
    return values


def experiment_files() -> dict[str, Path]:
    """Every shipped experiment file, by name."""
    return {path.stem: path for path in sorted(EXPERIMENTS.glob("*.yaml"))}


def find_experiment(name: str) -> Experiment:
    """The shipped experiment `name`; `LookupError` listing the names when there is none."""
    files = experiment_files()
    if name not in files:
        raise LookupError(f"no experiment {name!r}; the experiments: {', '.join(files) or 'none'}")
    return load_experiment(files[name])


# ---- running


@dataclass(frozen=True)
class RowRun:
    row: RowSpec
    log_dir: str
    success: bool
    logs: list[EvalLog]


def build_tasks(experiment: Experiment, data: Mapping[str, str]) -> dict[str, Task]:
    """Every task of the experiment with its args (and `data_path` from `data`, by task key or
    registered name), its scorers replaced where the file lists them. Building loads each
    task's data and checks its options."""
    names = set(experiment.tasks) | {t.task for t in experiment.tasks.values()}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(
            f"--data {unknown[0]}: not a task of {experiment.name}: {', '.join(sorted(names))}"
        )
    tasks = {}
    for key, entry in experiment.tasks.items():
        task = registry_create("task", PREFIX + entry.task, **task_args(entry, data))
        if entry.scorers is not None:
            task = task_with(task, scorer=[s for name in entry.scorers for s in _scorers(name)])
        tasks[key] = task
    return tasks


def task_args(entry: TaskEntry, data: Mapping[str, str]) -> dict[str, Any]:
    path = data.get(entry.key) or data.get(entry.task)
    return {**entry.args, **({"data_path": path} if path else {})}


def _scorers(name: str) -> list[Scorer]:
    if name in SCORER_FAMILIES:
        return SCORER_FAMILIES[name]()
    return [registry_create("scorer", _scorer_name(name))]


@dataclass(frozen=True)
class Sweep:
    """An experiment checked and built: every row's solver options and every task."""

    experiment: Experiment
    solver_args: dict[str, dict[str, Any]]  # by row label: the shared options, then the row's
    tasks: dict[str, Task]
    epochs: int


def prepare(
    experiment: Experiment,
    data: Mapping[str, str] | None = None,
    epochs: int | None = None,
    solver_args: Mapping[str, Any] | None = None,
) -> Sweep:
    """Check and build everything before the first model call: the runs, every row's solver with
    `solver_args` where the row does not set them (the paper's settings win), then every task
    with its data (the solvers first: a task may download its data). `epochs` (the runs)
    defaults to the file's `runs`. A refusal is a ValueError or LookupError naming the row."""
    if epochs is not None and not 1 <= epochs <= MAX_RUNS:
        raise ValueError(f"--epochs: got {epochs}, allowed: an integer from 1 to {MAX_RUNS}")
    args = {row.label: {**(solver_args or {}), **row.args} for row in experiment.rows}
    for row in experiment.rows:
        try:
            registry_create("solver", row.solver, **args[row.label])
        except (ValueError, TypeError, LookupError) as error:
            kind = LookupError if isinstance(error, LookupError) else ValueError
            raise kind(f"{experiment.name}: row {row.label!r}: {error}") from error
    tasks = build_tasks(experiment, data or {})
    return Sweep(experiment, args, tasks, epochs or experiment.runs)


def row_folder(sweep: Sweep, row: RowSpec, log_dir: str) -> str:
    return f"{log_dir.rstrip('/')}/{sweep.experiment.name}/{row.folder}"


def run_row(sweep: Sweep, row: RowSpec, model: str, log_dir: str, **eval_set_args: Any) -> RowRun:
    """One row's eval set over its tasks in `log_dir/<name>/<row folder>`."""
    folder = row_folder(sweep, row, log_dir)
    args = sweep.solver_args[row.label]
    success, logs = eval_set(
        [sweep.tasks[key] for key in row.tasks],
        log_dir=folder,
        model=model,
        solver=SolverSpec(row.solver, args, args),  # built from args_passed, as the CLI does
        epochs=sweep.epochs,
        # a file's changed args or scorers make new logs beside the old ones, not an error
        **{"log_dir_allow_dirty": True, **eval_set_args},
    )
    return RowRun(row, folder, success, logs)


def run_experiment(
    experiment: Experiment,
    model: str,
    log_dir: str,
    data: Mapping[str, str] | None = None,
    epochs: int | None = None,
    solver_args: Mapping[str, Any] | None = None,
    **eval_set_args: Any,
) -> list[RowRun]:
    """`prepare`, then run every row with `model`, one eval set per row; `eval_set_args`
    (`limit`, `model_roles`, `model_args`, `max_tasks`, `display`, ...) go to every `eval_set`."""
    sweep = prepare(experiment, data, epochs, solver_args)
    return [run_row(sweep, row, model, log_dir, **eval_set_args) for row in experiment.rows]


# ---- per-round figures of a debate record (pure; round 1 is the transitions' first vote)


def answers_after(result: DebateResult, round: int) -> list[AgentAnswer]:
    """The answers standing after `round`: each agent's latest answer at or before it (an agent
    that did not answer in a later round, or a debate that ended earlier, keeps its answer), in
    agent order."""
    latest: dict[str, AgentAnswer] = {}
    for a in result.answers:
        if a.round <= round and (a.agent not in latest or a.round >= latest[a.agent].round):
            latest[a.agent] = a
    return list(latest.values())


def plurality(result: DebateResult, round: int, fmt: AnswerFormat) -> str | None:
    """The answer the methods' own rule (`majority_vote`) picks from the answers standing after
    `round`: a tie goes to the earlier rounds' votes, then to agent order; None when every agent
    abstained. After round 1 it is the first-answer majority of `engine/transitions.py`, with the
    method's own tie rule (RECONCILE's confidence-weighted vote, CortexDebate's `tie_break`)."""
    if round == 1:
        return first_vote(result, first_answers(result), fmt).winner
    earlier = sorted({a.round for a in result.answers if a.round < round})
    votes = [[a.answer for a in result.answers_in_round(r)] for r in earlier]
    standing = [a.answer for a in answers_after(result, round)]
    return majority_vote(standing, earlier=votes, key=fmt.key).winner


def round_correct(result: DebateResult, round: int, fmt: AnswerFormat, gold: set[str]) -> bool:
    """Whether the plurality after `round` is a right answer (no answer is not)."""
    winner = plurality(result, round, fmt)
    return winner is not None and fmt.key(winner) in gold


def round_consensus(result: DebateResult, round: int, fmt: AnswerFormat) -> bool:
    """Whether every agent's answer after `round` is the same (an abstention agrees with none)."""
    answers = answers_after(result, round)
    keys = {None if a.answer is None else fmt.key(a.answer) for a in answers}
    return bool(answers) and None not in keys and len(keys) == 1


# ---- measuring


@dataclass(frozen=True)
class Cell:
    runs: tuple[float, ...]  # one value per run that had one

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self.runs) if self.runs else None

    @property
    def std(self) -> float | None:
        return statistics.stdev(self.runs) if len(self.runs) > 1 else None


@dataclass(frozen=True)
class TableRow:
    label: str
    cells: tuple[Cell | None, ...]  # None: the row does not run the column's task
    calls: float | None
    tokens: float | None


@dataclass(frozen=True)
class Table:
    experiment: Experiment
    rows: tuple[TableRow, ...]
    model: str
    limit: int | None
    epochs: int
    log_dir: str
    date: str
    roles: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    solver_args: dict[str, Any] = field(default_factory=dict)  # -S: given to every row


def measure(
    experiment: Experiment,
    runs: Sequence[RowRun],
    model: str,
    limit: int | None,
    epochs: int,
    log_dir: str,
    data: Mapping[str, str] | None = None,
    roles: Mapping[str, str] | None = None,
    solver_args: Mapping[str, Any] | None = None,
) -> Table:
    """The table from the rows' logs: finished logs only (the others are noted)."""
    notes: list[str] = []
    rows = []
    for run in runs:
        logs = _logs_by_key(experiment, run, data or {}, notes)
        cells: list[Cell | None] = []
        for column in experiment.columns:
            if not set(column.tasks) <= set(run.row.tasks):
                cells.append(None)
                continue
            per_task = [
                _column_runs(run.row, column, key, logs.get(key), epochs, notes)
                for key in column.tasks
            ]
            # a run's value: the mean over the column's tasks, none when a task has none
            values = [
                statistics.fmean(got) * column.scale for got in zip(*per_task) if None not in got
            ]
            cells.append(Cell(tuple(values)))
        calls, tokens = _cost(list(logs.values()))
        rows.append(TableRow(run.row.label, tuple(cells), calls, tokens))
    date = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return Table(
        experiment,
        tuple(rows),
        model,
        limit,
        epochs,
        log_dir,
        date,
        dict(roles or {}),
        tuple(dict.fromkeys(notes)),
        dict(solver_args or {}),
    )


def _logs_by_key(
    experiment: Experiment, run: RowRun, data: Mapping[str, str], notes: list[str]
) -> dict[str, EvalLog]:
    """The row's finished logs, read in full, by task key (matched by task and args)."""
    keys = {
        _identity(PREFIX + e.task, task_args(e, data)): key for key, e in experiment.tasks.items()
    }
    logs: dict[str, EvalLog] = {}
    for header in run.logs:
        key = keys.get(_identity(header.eval.task, header.eval.task_args_passed or {}))
        if key is None:
            continue
        if header.status != "success":
            notes.append(f"{run.row.label} / {key}: the log is {header.status} ({header.location})")
            continue
        try:
            logs[key] = read_eval_log(header.location)
        except (OSError, ValueError) as error:  # moved, cut short, or of another Inspect version
            notes.append(f"{run.row.label} / {key}: cannot read {header.location}: {error!s:.200}")
    return logs


def _identity(task: str, args: Mapping[str, Any]) -> str:
    return json.dumps([task, dict(args)], sort_keys=True, default=str)


class NoValue(ValueError):
    """Why a column has no value in a run (a metric the scorer does not declare, one that
    failed): noted below the table."""


def _column_runs(
    row: RowSpec, column: ColumnSpec, key: str, log: EvalLog | None, epochs: int, notes: list[str]
) -> list[float | None]:
    """The column's value on task `key` in each run (None: none, noted)."""
    if log is None:  # not run, not finished or unreadable: noted with the log
        return [None] * epochs
    values: list[float | None] = []
    where = f"{row.label} / {column.label}" + (f" / {key}" if len(column.tasks) > 1 else "")
    for epoch in range(1, epochs + 1):
        samples = [s for s in log.samples or [] if s.epoch == epoch]
        try:
            value = _run_value(column, log, samples)
        except NoValue as error:
            notes.append(f"{where}: {error} ({log.location})")
            value = None
        else:
            if value is None:
                what = column.stat.kind if column.stat and column.stat.from_record else column.score
                notes.append(f"{where}: no value of {what} in run {epoch} ({log.location})")
        values.append(value)
    return values


def _run_value(column: ColumnSpec, log: EvalLog, samples: Sequence[EvalSample]) -> float | None:
    if column.stat is not None and column.stat.from_record:
        return _record_value(column.stat, samples)
    name = column.score
    assert name is not None
    scores = [
        SampleScore(score=s.scores[name], sample_id=s.id)
        for s in samples
        if s.scores and name in s.scores
    ]
    if column.metric is not None:
        return _metric(log, name, column.metric, scores)
    assert column.stat is not None
    return stat_value(column.stat, [_float(s.score.value) for s in scores])


def _float(value: Any) -> float | None:
    """A score's value as a number (C/I as 1/0); None when unscored (NaN) or not a number."""
    try:
        return finite(value_to_float()(value))
    except (TypeError, ValueError):
        return None


def stat_value(stat: Stat, values: Sequence[float | None]) -> float | None:
    """`mean`, `sum`, `share==V` or `share>=V` of the values there are; None without any."""
    got = [v for v in values if v is not None]
    if not got:
        return None
    if stat.kind == "sum":
        return math.fsum(got)
    if stat.kind == "share==":
        return sum(v == stat.value for v in got) / len(got)
    if stat.kind == "share>=":
        return sum(v >= stat.value for v in got) / len(got)
    return statistics.fmean(got)


def _metric(log: EvalLog, score: str, metric: str, scores: list[SampleScore]) -> float | None:
    """The score's own metric (as its scorer declared it in the log) over one run's scores;
    `accuracy` and `mean` recomputed when the scorer declares no such metric. `NoValue` when
    the scorer declares no metric of that name (a misspelt one), or computing it fails."""
    # an unscored sample (Inspect's NaN sentinel) counts in no metric, as in Inspect's own results
    scores = [s for s in scores if not _unscored(s.score.value)]
    if not scores:
        return None
    declared = next((s.metrics for s in log.eval.scorers or [] if s.name == score), None)
    # the metric of that name first; then those giving several values (`by_split`: HasAns, ...)
    listed = declared if isinstance(declared, list) else []  # a dict: metrics grouped by key
    definitions = [d for d in listed if not isinstance(d, dict)]
    names: list[str] = []
    for definition in sorted(definitions, key=lambda d: d.name.rsplit("/", 1)[-1] != metric):
        name = definition.name.rsplit("/", 1)[-1]
        try:
            metric_of = registry_create("metric", definition.name, **(definition.options or {}))
            got = cast(Callable[[list[SampleScore]], Any], metric_of)(scores)
        except (ValueError, TypeError, LookupError, ArithmeticError, AttributeError) as error:
            if name != metric:
                continue  # another metric's failure says nothing of this one
            raise NoValue(f"metric {metric!r} of {score!r} failed: {error!s:.200}") from error
        if isinstance(got, dict) and metric in got:
            got = got[metric]
        elif name != metric:
            names += [f"{name} ({', '.join(map(str, got))})" if isinstance(got, dict) else name]
            continue
        return float(got) if isinstance(got, int | float) and math.isfinite(got) else None
    if metric in ("accuracy", "mean"):
        return stat_value(Stat("mean"), [_float(s.score.value) for s in scores])
    declares = ", ".join(names) or "none"
    raise NoValue(f"{score!r} has no metric {metric!r}; its scorer declares: {declares}")


def _unscored(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _record_value(stat: Stat, samples: Sequence[EvalSample]) -> float | None:
    """The mean of `record_value` over the samples with a debate record that have one."""
    values: list[float | None] = []
    for sample in samples:
        try:
            result = DebateResult.from_dict((sample.store or {}).get(STORE_KEY))
        except (ValueError, TypeError, KeyError, AttributeError):
            continue  # no record of this version: not measured, never counted as wrong
        targets = [sample.target] if isinstance(sample.target, str) else list(sample.target)
        choices = tuple(sample.choices or ())
        values.append(record_value(stat, result, choices, sample.metadata or {}, targets))
    return stat_value(Stat("mean"), values)


def record_value(
    stat: Stat,
    result: DebateResult,
    choices: Sequence[str],
    metadata: Mapping[str, Any],
    targets: Sequence[str],
) -> float | None:
    """One sample's figure from its record, 1 or 0: whether the plurality after round R is right
    (`round_accuracy`), whether its agents all agree then (`round_consensus`), whether it
    `debated`; whether the first-answer majority is right (`first_majority`; a judge's first
    verdict) and whether the sample made a transition (`right_to_right`, ...), as the
    `transitions()` scorer reads them. None where the record has no such figure (a method that
    answers with a summary or a ranking, a target that is no answer): not counted."""
    if stat.kind == "debated":
        ran = debated(result)
        return None if ran is None else float(ran)
    if stat.kind in ("round_accuracy", "round_consensus"):
        text = ",".join(targets)
        fmt = task_format(tuple(choices), metadata, text, result.options.get("answer_format"))
        round = int(stat.value)
        if stat.kind == "round_accuracy":
            return float(round_correct(result, round, fmt, gold_keys(fmt, targets)))
        return float(round_consensus(result, round, fmt))
    got = reading_of(result, choices, metadata, targets)
    if isinstance(got, Missing):
        return None
    names = FIRST if stat.kind == "first_majority" else (stat.kind,)
    # an answer method has first_majority_correct, a judge first_verdict_correct
    value = next((v for name in names if not isinstance(v := got.values[name], Missing)), None)
    return None if value is None else float(value)


def debated(result: DebateResult) -> bool | None:
    """Whether the sample debated: `on_demand`'s own decision; any other answer method, whether
    its record has answers after round 1 (a method that only answers once, or a debate that ended
    with its first answers, did not). None for a record without answers to the question (a judge,
    a summary, a ranking)."""
    record = result.record
    if isinstance(record, OnDemandRecord):
        return record.debated
    if (
        not result.answers
        or isinstance(record, JudgeRecord)
        or (record is not None and record.answers_with is not None)
    ):
        return None
    return any(a.round > 1 for a in result.answers)


def _cost(logs: Sequence[EvalLog]) -> tuple[float | None, float | None]:
    """Calls and tokens per sample over every sample and run of the logs."""
    calls: list[float] = []
    tokens: list[float] = []
    for log in logs:
        for sample in log.samples or []:
            n, t = _sample_cost(sample)
            calls.append(n)
            tokens.append(t)
    mean = statistics.fmean
    return (mean(calls) if calls else None), (mean(tokens) if tokens else None)


def _sample_cost(sample: EvalSample) -> tuple[float, float]:
    """A sample's calls and tokens as `mad-tasks report` counts them (its `debate_stats`
    figures: `token_totals` of the debate record, spent plus cached, a reply without usage
    adding none); the log's model events and usage for a sample without a record."""
    try:
        result = DebateResult.from_dict((sample.store or {}).get(STORE_KEY))
    except (ValueError, TypeError, KeyError, AttributeError):
        usage = sample.model_usage.values()
        calls = sum(e.event == "model" for e in sample.events)
        return calls, float(sum(u.input_tokens + u.output_tokens for u in usage))
    totals = token_totals(result.calls)
    return totals["calls"], float(sum(totals[k] for k in TOKEN_FIGURES))


# ---- writing


def number(value: float | None, decimals: int = 1) -> str:
    return "–" if value is None else f"{value:.{decimals}f}"


def column_decimals(table: Table, index: int) -> int:
    """One decimal for a whole column; three for an unscaled column whose values are all under 1
    (a cosine, a share), so that every row of a column reads alike."""
    if table.experiment.columns[index].scale != 1:
        return 1
    means = [c.mean for row in table.rows if (c := row.cells[index]) and c.mean is not None]
    return 3 if means and all(abs(m) < 1 for m in means) else 1


def cell_text(cell: Cell | None, decimals: int, paper: str | float | None) -> str:
    """`measured ± std (paper: X)`, `n/a` where the row does not run the column's tasks."""
    if cell is None:
        return "n/a"
    mean, std = cell.mean, cell.std
    measured = number(mean, decimals) + ("" if std is None else f" ± {number(std, decimals)}")
    return f"{measured} (paper: {'–' if paper is None else paper})"


def title(table: Table) -> str:
    return f"{table.experiment.table}: {table.experiment.caption}"


def intro(table: Table) -> list[str]:
    """What the paper measured and what this table was measured with, as markdown lines."""
    e = table.experiment
    roles = ", ".join(f"{role}={model}" for role, model in table.roles.items())
    runs = f"{table.epochs} run{'s' if table.epochs != 1 else ''} (Inspect epochs)"
    limit = "all samples" if table.limit is None else f"limit {table.limit} samples per task"
    shared = " ".join(f"{k}={v}" for k, v in table.solver_args.items())
    return [
        f"Experiment `{e.name}` (seed {e.seed}): {e.paper}. The paper's model: {e.paper_model}, "
        f"{e.runs} run{'s' if e.runs != 1 else ''}.",
        f"Measured with `{table.model}`"
        + (f" (roles: {roles})" if roles else "")
        + (f", every solver with `{shared}` where the row leaves it open" if shared else "")
        + f", {limit}, {runs}, {table.date}. Logs: `{table.log_dir}`.",
        STD_RULE,
        COST_RULE,
    ]


def table_cells(table: Table) -> list[list[str]]:
    """The header, then each row: its label, a cell per column, calls and tokens per sample."""
    columns = table.experiment.columns
    decimals = [column_decimals(table, i) for i in range(len(columns))]
    out = [["", *(c.label for c in columns), "calls/sample", "tokens/sample"]]
    for row in table.rows:
        paper = table.experiment.paper_values.get(row.label, {})
        cells = [
            cell_text(c, d, paper.get(col.label)) for c, d, col in zip(row.cells, decimals, columns)
        ]
        tokens = "–" if row.tokens is None else f"{row.tokens:.0f}"
        out.append([row.label, *cells, number(row.calls), tokens])
    return out


def table_notes(table: Table) -> tuple[str, ...]:
    return (*table.experiment.notes, *table.notes)


def to_markdown(table: Table) -> str:
    head, *rows = [[c.replace("|", "\\|") for c in r] for r in table_cells(table)]
    lines = [f"# {title(table)}", ""] + [line for text in intro(table) for line in (text, "")]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += [""] + [f"- {note}" for note in table_notes(table)]
    return "\n".join(lines).rstrip() + "\n"


def to_html(table: Table) -> str:
    """The same table as a self-contained page (the report's style; nothing fetched)."""
    e = html.escape
    head, *rows = table_cells(table)
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title(table))}</title><style>{STYLE}</style></head><body>",
        f"<h1>{e(title(table))}</h1>",
        *(f"<p>{prose(text)}</p>" for text in intro(table)),
        "<table><thead><tr>",
        *(f"<th>{e(name)}</th>" for name in head),
        "</tr></thead><tbody>",
    ]
    for cells in rows:
        parts += ["<tr>", *(f"<td>{e(c)}</td>" for c in cells), "</tr>"]
    parts.append("</tbody></table>")
    parts += [f"<p>{prose(note)}</p>" for note in table_notes(table)]
    return "\n".join([*parts, "</body></html>\n"])


def write_table(table: Table, out_dir: str | Path) -> list[Path]:
    """`<name>.md` and `<name>.html` in `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md, page = out / f"{table.experiment.name}.md", out / f"{table.experiment.name}.html"
    md.write_text(to_markdown(table), encoding="utf-8")
    page.write_text(to_html(table), encoding="utf-8")
    return [md, page]


def list_markdown() -> str:
    """The shipped experiments as a markdown table (docs/reproducing.md holds it; a test checks)."""
    lines = ["| experiment | seed | table | runs | evals | caption |", "|---|---|---|---|---|---|"]
    for path in experiment_files().values():
        e = load_experiment(path)
        caption = e.caption.replace("|", "\\|")
        lines.append(f"| `{e.name}` | {e.seed} | {e.table} | {e.runs} | {e.evals} | {caption} |")
    return "\n".join(lines) + "\n"
