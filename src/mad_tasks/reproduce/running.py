"""Running an experiment: every solver and task built with its options before the first model
call, then each row through `inspect_ai.eval_set`, one eval set per row in
`log_dir/<name>/<row folder>` as `compare` does, so running it again resumes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inspect_ai import Task, eval_set, task_with
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from inspect_ai.scorer import Scorer
from inspect_ai.solver import SolverSpec
from inspect_ai.util import registry_create

from .. import _registry  # noqa: F401  (registers the short solver names, as the plugin's loading does)
from ..engine.catalogue import CATALOGUE
from ..engine.panels import panels, refusal
from ..log_tags import run_tags
from ..sweep_stopping import StopRule, SweepStopping
from .experiments import (
    MAIN,
    MAX_RUNS,
    PREFIX,
    SCORER_FAMILIES,
    Experiment,
    RowSpec,
    TaskEntry,
    check_models,
    row_roles,
    scorer_name,
)


@dataclass(frozen=True)
class RowRun:
    row: RowSpec
    log_dir: str
    success: bool
    logs: list[EvalLog]
    variants: tuple[int, ...] = ()  # the row variant each log ran (`row.variants`), in order


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
    return [registry_create("scorer", scorer_name(name))]


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
    stopping: StopRule | None = None,
) -> Sweep:
    """Check and build everything before the first model call: the runs, every row's solver with
    `solver_args` where the row does not set them (the paper's settings win), then every task
    with its data (the solvers first: a task may download its data), each with its own
    early-stopping manager when `stopping` has a rule. `epochs` (the runs) defaults to the
    file's `runs`. A refusal is a ValueError or LookupError naming the row."""
    if epochs is not None and not 1 <= epochs <= MAX_RUNS:
        raise ValueError(f"--epochs: got {epochs}, allowed: an integer from 1 to {MAX_RUNS}")
    if stopping is not None:
        stopping.check(epochs or experiment.runs)
    args = {row.label: {**(solver_args or {}), **row.args} for row in experiment.rows}
    for row in experiment.rows:
        try:
            for variant in row.variants:
                solver, options = row.solver_of(variant)
                registry_create("solver", solver, **{**args[row.label], **options})
                check_row_roles(experiment, row, solver, {**args[row.label], **options})
        except (ValueError, TypeError, LookupError) as error:
            kind = LookupError if isinstance(error, LookupError) else ValueError
            raise kind(f"{experiment.name}: row {row.label!r}: {error}") from error
    tasks = build_tasks(experiment, data or {})
    if stopping is not None and stopping.active:
        tasks = {k: task_with(t, early_stopping=SweepStopping(stopping)) for k, t in tasks.items()}
    return Sweep(experiment, args, tasks, epochs or experiment.runs)


def declared_roles(solver: str, options: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The model roles a solver of this package calls with these options (its method's declared
    roles); None for another package's solver."""
    spec = CATALOGUE.get(solver.removeprefix(PREFIX))
    if spec is None:
        return None
    return spec.roles(spec.options(**{**spec.preset, **options}))


def check_row_roles(
    experiment: Experiment, row: RowSpec, solver: str, options: Mapping[str, Any]
) -> None:
    """Refuse a row's `model_roles` its solver cannot take, before any call: a role it never
    calls (a misspelt one would be lost), a panel where it takes one model (`panels.refusal`),
    or a model name of the experiment that is also one of its roles."""
    declared = declared_roles(solver, options)
    if declared is None:
        return
    families = panels(declared)
    roles = set(declared) | set(families)
    clash = sorted(set(experiment.models) & roles)
    if clash:
        raise ValueError(f"models.{clash[0]}: also a model role of {solver}: name it otherwise")
    for role in row.model_roles:
        if role not in roles:
            raise ValueError(
                f"model_roles.{role}: {solver} calls no role {role!r}; its roles: "
                + ", ".join(declared)
            )
    lists = {r: list(b) for r, b in row.model_roles.items() if isinstance(b, tuple)}
    refused = refusal(declared, lists)
    if refused is not None:
        raise ValueError(f"model_roles: {refused}")


def run_roles(
    experiment: Experiment, row: RowSpec, model: str, eval_set_args: Mapping[str, Any]
) -> dict[str, Any]:
    """The roles the row's eval sets run with (`row_roles`), the experiment's model names
    checked first (`check_models`); the command's model in a panel as `--model` is made (its
    base URL and `-M` arguments)."""
    command = dict(eval_set_args.get("model_roles") or {})
    check_models(experiment, model, command)
    main = None
    if any(MAIN in b for b in row.model_roles.values() if isinstance(b, tuple)):
        main = get_model(
            model,
            base_url=eval_set_args.get("model_base_url"),
            **(eval_set_args.get("model_args") or {}),
        )
    return row_roles(experiment, row, model, command, main)


def row_folder(sweep: Sweep, row: RowSpec, log_dir: str) -> str:
    return f"{log_dir.rstrip('/')}/{sweep.experiment.name}/{row.folder}"


def run_row(sweep: Sweep, row: RowSpec, model: str, log_dir: str, **eval_set_args: Any) -> RowRun:
    """One row's eval set over its tasks in `log_dir/<name>/<row folder>`; a row with variants
    one per variant, in a folder of the row's named by the variant's options."""
    folder = row_folder(sweep, row, log_dir)
    # the row's own roles over the command's; every model name checked, so a run that cannot
    # bind the paper's models stops at its first row, before any call
    roles = run_roles(sweep.experiment, row, model, eval_set_args)
    eval_set_args = {**eval_set_args, "model_roles": roles or None}
    success, logs, of = True, list[EvalLog](), list[int]()
    for index, variant in enumerate(row.variants):
        solver, options = row.solver_of(variant)
        args = {**sweep.solver_args[row.label], **options}
        done, got = eval_set(
            [sweep.tasks[key] for key in row.tasks],
            log_dir="/".join(filter(None, (folder, row.variant_folder(variant)))),
            model=model,
            solver=SolverSpec(solver, args, args),  # built from args_passed, as the CLI does
            epochs=sweep.epochs,
            # a file's changed args or scorers make new logs beside the old ones, not an error
            **{
                "log_dir_allow_dirty": True,
                **eval_set_args,
                "tags": run_tags(solver, args, eval_set_args),
            },
        )
        success, logs, of = success and done, logs + got, of + [index] * len(got)
    return RowRun(row, folder, success, logs, tuple(of))


def run_experiment(
    experiment: Experiment,
    model: str,
    log_dir: str,
    data: Mapping[str, str] | None = None,
    epochs: int | None = None,
    solver_args: Mapping[str, Any] | None = None,
    stopping: StopRule | None = None,
    **eval_set_args: Any,
) -> list[RowRun]:
    """`prepare`, then run every row with `model`, one eval set per row; `eval_set_args`
    (`limit`, `model_roles`, `model_args`, `max_tasks`, `batch`, `display`, ...) go to every
    `eval_set`."""
    sweep = prepare(experiment, data, epochs, solver_args, stopping)
    return [run_row(sweep, row, model, log_dir, **eval_set_args) for row in experiment.rows]
