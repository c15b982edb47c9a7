"""The experiment files of `mad-tasks reproduce` (`experiments/<name>.yaml`, schema in
docs/reproducing.md): what they hold, read and checked (a field that is wrong is named with its
file)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from inspect_ai.scorer import Scorer

from .. import _registry  # noqa: F401  (registers the short solver names, as the plugin's loading does)
from .._inspect_compat import registered
from ..compare import folder_name
from ..engine.transitions import TRANSITIONS
from ..scorers.debate_stats import debate_stats
from ..scorers.decision_stats import decision_stats

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"
PREFIX = "mad_tasks/"
MAX_RUNS = 20  # runs multiply every model call of the sweep
MAX_VARIANTS = 20  # a row's `average` values: each multiplies the row's calls
MAX_ROUND = 100  # the highest round a per-round statistic may ask for
# scorer lists of this package that are not one registered scorer
SCORER_FAMILIES: dict[str, Callable[[], list[Scorer]]] = {
    "debate_stats": debate_stats,
    "decision_stats": decision_stats,
}
FIELDS = (
    "name seed paper table caption paper_model models runs tasks rows columns paper_values notes"
)
# in a row's `model_roles`: the command's `--model`
MAIN = "model"
# the simulated model: the offline stand-in of an experiment's model names (`madsim/<name>`)
SIMULATED = "madsim"
MODEL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,39}")
# per-sample figures read from each sample's debate record (no score): the transitions and
# whether the sample debated
RECORD_STATS = ("first_majority", *TRANSITIONS, "debated", "collisions", "revisions")
# per-sample figures of one agent (N: the N-th agent to answer) or one round (R)
NUMBERED = ("round_accuracy", "round_consensus", "judge_gap", "agent_accuracy", "agent_debates")
STATS = ", ".join(
    ("mean, sum, share==V, share>=V, round_accuracy:R, round_consensus:R, judge_gap:R, "
     "agent_accuracy:N, agent_debates:N", *RECORD_STATS)
)  # fmt: skip
STD_RULE = (
    "Each cell is the mean over runs of the run's value, ± the sample standard deviation over "
    "runs (n − 1); with one run the ± is left out. A run is an Inspect epoch: the run's value is "
    "the column's metric over that epoch's samples, times the column's scale."
)
COST_RULE = (
    "calls/sample and tokens/sample: the method's model calls and tokens (input + output, cached "
    "replies included, a reply without usage adding none) per sample, from its debate record as "
    "`mad-tasks report` counts them (the log's usage and model events for a sample without one), "
    "averaged over every sample and run of the row's tasks. $/sample: the dollars Inspect priced "
    "those calls at (`--model-cost-config`), – when a model of the row has no price."
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
    # `average`: the row runs once per variant (options added to `args`, `solver` replacing the
    # row's) and a run's value is the mean over the variants, as a paper averages a method over
    # its protocols
    variants: tuple[dict[str, Any], ...] = ({},)
    # `model_roles`: the roles this row binds, over the command's `--model-role`; each to a model
    # or a panel (a tuple), each model `model`, a name of the experiment's `models` or a model
    model_roles: dict[str, str | tuple[str, ...]] = field(default_factory=dict)

    @property
    def folder(self) -> str:
        return folder_name(self.label, "row")

    def variant_folder(self, variant: Mapping[str, Any]) -> str:
        """The variant's folder inside the row's ("" for a row without variants)."""
        return folder_name(" ".join(f"{k}={v}" for k, v in variant.items()), "") if variant else ""

    def solver_of(self, variant: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The variant's solver and the options it adds to the row's."""
        options = {k: v for k, v in variant.items() if k != "solver"}
        return str(variant.get("solver", self.solver)), options


@dataclass(frozen=True)
class Stat:
    """How a column reduces a run's per-sample values: `mean`, `sum`, `share==V`, `share>=V`,
    or a figure of each sample's debate record: `round_accuracy:R` / `round_consensus:R`, the
    first-answer majority's correctness and the transitions, `debated`; a judge's score gap in
    round R, `judge_gap:R`; the N-th agent's final
    answer's correctness and (CortexDebate) its debates, `agent_accuracy:N` / `agent_debates:N`;
    CortexDebate's different viewpoints read and revisions to a right answer after one,
    `collisions` / `revisions` (its Tables 3-4)."""

    kind: str
    value: float = 0.0  # V of share==V / share>=V, R or N of the numbered figures

    @property
    def from_record(self) -> bool:
        return self.kind in NUMBERED or self.kind in RECORD_STATS


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
    # `models`: the paper's models a row may name, each with what it stands for; the command
    # binds each (`--model-role NAME=MODEL`), else on the simulated model it is `madsim/NAME`
    models: dict[str, str] = field(default_factory=dict)

    @property
    def evals(self) -> int:
        return sum(len(row.tasks) * len(row.variants) for row in self.rows)


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
    for kind in (f"{name}:" for name in NUMBERED):
        digits = body[len(kind) :]
        # isdigit() passes "²", which int() refuses
        ok = body.startswith(kind) and digits.isascii() and digits.isdecimal() and len(digits) <= 3
        if ok and 1 <= int(digits) <= MAX_ROUND:
            return Stat(kind[:-1], int(digits))
    raise ValueError(
        f"got {text!r:.60}, allowed: {STATS} (V a number, R and N from 1 to {MAX_ROUND})"
    )


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
    models = _models(r, r.get(data, "models", "", dict, {}))
    rows = _rows(r, r.get(data, "rows", "", list), tasks, models)
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
        models=models,
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
                    scorer not in SCORER_FAMILIES and _unknown("scorer", scorer_name(scorer))
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


def scorer_name(name: str) -> str:
    """A scorer family of this package, else the name as registered: as given or in this package."""
    if name in SCORER_FAMILIES or registered("scorer", name) is not False:
        return name
    return PREFIX + name


def _models(r: _Reader, raw: Mapping[str, Any]) -> dict[str, str]:
    """The experiment's model names, each with what it stands for (the paper's model)."""
    models: dict[str, str] = {}
    for name, meaning in raw.items():
        if not isinstance(name, str) or not MODEL_NAME.fullmatch(name) or name == MAIN:
            raise r.error(
                f"models.{name}",
                f"a model name is a letter, then up to 39 letters, digits or _ . - (not {MAIN!r}, "
                "the command's --model)",
            )
        if not isinstance(meaning, str) or not meaning.strip():
            raise r.error(f"models.{name}", "expected text: the paper's model it stands for")
        models[name] = meaning
    return models


def _model_roles(
    r: _Reader, raw: Mapping[str, Any], models: Mapping[str, str], where: str
) -> dict[str, str | tuple[str, ...]]:
    """A row's `model_roles`: role -> a model or a list of models (a panel), each `model`, a
    name of `models` or a model (`provider/name`)."""
    allowed = (
        f"{MAIN} (the command's --model), "
        + (f"a name of models ({', '.join(models)}), " if models else "")
        + "or a model provider/name"
    )
    roles: dict[str, str | tuple[str, ...]] = {}
    for role, bound in raw.items():
        here = f"{where}.{role}"
        if not isinstance(role, str) or not MODEL_NAME.fullmatch(role):
            raise r.error(here, "a role is a letter, then letters, digits or _ . -")
        if role in models:
            raise r.error(here, f"{role!r} is a name of models: a role may not share it")
        entries = bound if isinstance(bound, list) else [bound]
        if not entries:
            raise r.error(here, "expected a model or a list of at least one model")
        for entry in entries:
            if not isinstance(entry, str) or not (
                entry == MAIN or entry in models or "/" in entry.strip("/")
            ):
                raise r.error(here, f"unknown model {entry!r:.60}; allowed: {allowed}")
        roles[role] = tuple(entries) if isinstance(bound, list) else bound
    return roles


def _rows(
    r: _Reader, raw: list[Any], tasks: Mapping[str, TaskEntry], models: Mapping[str, str]
) -> tuple[RowSpec, ...]:
    if not raw:
        raise r.error("rows", "expected at least one row")
    rows: list[RowSpec] = []
    for i, entry in enumerate(raw):
        where = f"rows[{i}]."
        if not isinstance(entry, dict):
            raise r.error(f"rows[{i}]", "expected a mapping with label, solver, args")
        r.only(entry, "label solver args tasks average model_roles", where)
        label = r.text(entry, "label", where)
        solver = r.get(entry, "solver", where, str)
        if _unknown("solver", solver):
            raise r.error(f"{where}solver", f"unknown solver {solver!r}")
        keys = _task_keys(
            r, r.get(entry, "tasks", where, list, list(tasks)), tasks, f"{where}tasks"
        )
        args = r.get(entry, "args", where, dict, {})
        variants = _variants(r, r.get(entry, "average", where, list, []), args, f"{where}average")
        roles = _model_roles(
            r, r.get(entry, "model_roles", where, dict, {}), models, f"{where}model_roles"
        )
        row = RowSpec(label, solver, args, tuple(keys), variants, roles)
        for other in rows:
            if row.label == other.label or row.folder == other.folder:
                raise r.error(f"{where}label", f"{label!r} repeats the row {other.label!r}")
        rows.append(row)
    return tuple(rows)


def _variants(
    r: _Reader, average: list[Any], args: Mapping[str, Any], where: str
) -> tuple[dict[str, Any], ...]:
    """A row's variants from `average`: 2 to MAX_VARIANTS mappings of options the row's args
    leave open (`solver` among them replaces the row's), no two alike."""
    if not average:
        return ({},)
    if not 2 <= len(average) <= MAX_VARIANTS:
        raise r.error(where, f"expected a list of 2 to {MAX_VARIANTS} mappings of options")
    seen: set[str] = set()
    for i, variant in enumerate(average):
        if not isinstance(variant, dict) or not variant:
            raise r.error(f"{where}[{i}]", "expected a mapping of options")
        both = sorted(set(map(str, variant)) & set(args))
        if both:
            raise r.error(f"{where}[{i}].{both[0]}", "also set in args: give it in one place")
        solver = variant.get("solver", "")
        if "solver" in variant and (not isinstance(solver, str) or _unknown("solver", solver)):
            raise r.error(f"{where}[{i}].solver", f"unknown solver {solver!r:.60}")
        shown = json.dumps(variant, sort_keys=True, default=str)
        if shown in seen:
            raise r.error(f"{where}[{i}]", "the same options as an earlier variant")
        seen.add(shown)
    return tuple({str(k): v for k, v in variant.items()} for variant in average)


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


# ---- the models a row runs on: its own roles over the command's


def simulated(model: str) -> bool:
    """Whether `model` is the simulated model (`madsim/<name>`), whose stand-ins need no key."""
    return model == SIMULATED or model.startswith(SIMULATED + "/")


def named_models(
    experiment: Experiment, model: str, roles: Mapping[str, Any]
) -> dict[str, str | None]:
    """Each of the experiment's model names to its model: the command's binding of the name
    (`--model-role NAME=MODEL`), else `madsim/NAME` when `model` is the simulated model (the
    offline stand-in), else None (unbound)."""
    found: dict[str, str | None] = {}
    for name in experiment.models:
        if name in roles and not isinstance(roles[name], list | tuple):
            found[name] = str(roles[name])
        else:
            found[name] = f"{SIMULATED}/{name}" if simulated(model) else None
    return found


def check_models(experiment: Experiment, model: str, roles: Mapping[str, Any]) -> None:
    """Refuse, before any call, a model name of the experiment that a row names and the command
    leaves unbound on a model that is not the simulated one (a stand-in would run in its place),
    or binds to a list; a ValueError naming each and what to pass."""
    for name in experiment.models:
        if isinstance(roles.get(name), list | tuple):
            raise ValueError(
                f"--model-role {name}: {experiment.name}'s model {name} "
                f"({experiment.models[name]}) takes one model, got a list"
            )
    used = {
        entry
        for row in experiment.rows
        for bound in row.model_roles.values()
        for entry in (bound if isinstance(bound, tuple) else (bound,))
    }
    found = named_models(experiment, model, roles)
    unbound = [name for name in experiment.models if name in used and found[name] is None]
    if unbound:
        bind = " ".join(f"--model-role {name}=MODEL" for name in unbound)
        meant = ", ".join(f"{name}: {experiment.models[name]}" for name in unbound)
        raise ValueError(
            f"{experiment.name}: its rows run on the paper's models ({meant}); bind them: {bind} "
            f"(offline, with --model {SIMULATED}/..., each runs on {SIMULATED}/NAME)"
        )


def row_roles(
    experiment: Experiment,
    row: RowSpec,
    model: str,
    roles: Mapping[str, Any],
    main: Any = None,
) -> dict[str, Any]:
    """The model roles a row runs with: the command's `roles` (less the experiment's model
    names, which name models, not roles), the row's own over them. A role the row binds to
    `model` alone is left unbound, so it runs on the command's model itself (its base URL and
    `-M` arguments); in a panel, `model` is `main` (default: the name `model`). A model name
    unbound (refused by `check_models` before a run) shows as `<NAME?>`."""
    found = named_models(experiment, model, roles)

    def one(entry: str) -> Any:
        if entry == MAIN:
            return model if main is None else main
        if entry in experiment.models:
            return found[entry] or f"<{entry}?>"
        return entry

    bound = {r: m for r, m in roles.items() if r not in experiment.models}
    for role, entries in row.model_roles.items():
        bound.pop(role, None)
        if isinstance(entries, tuple):
            bound[role] = [one(e) for e in entries]
        elif entries != MAIN:
            bound[role] = one(entries)
    return bound


def shown_roles(
    experiment: Experiment, row: RowSpec, model: str, roles: Mapping[str, Any]
) -> dict[str, str]:
    """The row's own roles as text, each to its model or its panel's (`[a, b, c]`)."""
    found = named_models(experiment, model, roles)

    def one(entry: str) -> str:
        if entry == MAIN:
            return model
        return (found[entry] or f"<{entry}?>") if entry in experiment.models else entry

    return {
        role: f"[{', '.join(map(one, entries))}]" if isinstance(entries, tuple) else one(entries)
        for role, entries in row.model_roles.items()
    }
