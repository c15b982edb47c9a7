"""`mad-tasks compare`: several solvers over one task in one go, then the report.

`inspect eval-set` takes one `--solver` (a second one replaces the first), so comparing methods
from the command line means one eval set per solver. `compare` runs each solver through
`inspect_ai.eval_set` over all the models, in a log directory of its own under `log_dir` (named
for the solver and its options), so every solver x model is its own log and re-running the same
command resumes an interrupted comparison: finished logs are kept, unfinished ones retried. Every
solver is built once before the first eval set, so a bad option of the last solver stops the
comparison before any model call. A solver given `match_debate=<an earlier solver's
label>:tokens` (or `:dollars`) runs on each model at the spend per sample that solver measured on
it: `--solver du_debate --solver "self_consistency match_debate=du_debate:tokens"` is the debate
against self-consistency at the same spend, in one command.

Options are read as Inspect's CLI reads `-S`/`-T` (`inspect_ai._util.config.parse_cli_args`): the
value as YAML (`agents=three` is text, `yes` is true), a plain value with commas a list, dashes in
names as underscores; `--model-role ROLE=MODEL` the same way, so `agent=[a,b]` (or `agent=a,b`)
binds a role to a list of models (a panel), as `inspect eval --model-role` does.

A model may be a panel: `--model '[madsim/y,madsim/z]'` is a column whose runs have the list's
first model as their main model and every panel the solver declares (the families of numbered
roles, `engine/panels.panels`: `agent` for `agent_1` ... `agent_N`, D3's `advocate` and `juror`,
PD³'s `expert`) bound to the list, so the members take its models in turn. A solver without a
panel, a panel already bound by `--model-role`, or a list longer than a panel's members is refused
before any run. The column's logs are tagged with the binding (`du_debate
agent=[madsim/y,madsim/z]`) and the report names their model `[madsim/y,madsim/z]`.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

import yaml
from inspect_ai import Task, eval_set, task_with
from inspect_ai.log import EvalLog
from inspect_ai.solver import SolverSpec
from inspect_ai.util import registry_create, registry_info

from . import _registry  # noqa: F401  (registers the short solver names, as the plugin's loading does)
from .engine.catalogue import CATALOGUE
from .engine.panels import panels, refusal
from .engine.records import TOKEN_FIGURES
from .log_tags import PREFIX, role_text, run_tags
from .scorers.debate_stats import dollars_per_sample
from .sweep_stopping import StopRule, SweepStopping


def parse_option(text: str, flag: str) -> tuple[str, Any]:
    """`name=value` as Inspect's CLI reads it."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise ValueError(f"{flag} {text!r}: expected name=value")
    value = yaml.safe_load(raw)
    if isinstance(value, str) and "," in value:
        value = value.split(",")
    return name.replace("-", "_"), value


def parse_options(items: Sequence[str], flag: str) -> dict[str, Any]:
    return dict(parse_option(item, flag) for item in items)


Binding = str | list[str]  # a role's model, or a list of models (a panel)


def parse_model_role(text: str, flag: str = "--model-role") -> tuple[str, Binding]:
    """`ROLE=MODEL` as Inspect's CLI reads `--model-role`: the value as YAML, so `agent=[a,b]` (or
    `agent=a,b`) binds the role to a list of models; a list of one is that model, as Inspect binds
    it. A ValueError names the option and the value otherwise."""
    name, sep, _ = text.partition("=")
    role, value = parse_option(text, flag) if sep and name else (name, None)
    if isinstance(value, str) and value.strip():
        return role, value.strip()
    if isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value):
        models = [v.strip() for v in value]
        if models:
            return role, models if len(models) > 1 else models[0]
    raise ValueError(
        f"{flag} {text!r}: expected ROLE=MODEL or ROLE=[MODEL,MODEL,...] (a list of at least one "
        "model name)"
    )


def parse_model_roles(items: Sequence[str], flag: str = "--model-role") -> dict[str, Binding]:
    return dict(parse_model_role(item, flag) for item in items)


@dataclass(frozen=True)
class ModelChoice:
    """A `--model` of a comparison: one model, or a panel (`[madsim/y,madsim/z]`), whose runs have
    its first model as their main model and every panel the solver declares bound to the list
    (`panel_roles`)."""

    models: tuple[str, ...]

    @classmethod
    def parse(cls, given: str | Sequence[str]) -> ModelChoice:
        """A model's name, or a list of names: `[a,b]` as YAML on the command line, or a list
        from Python. A list of one is that model."""
        text = given if isinstance(given, str) else repr(list(given))
        value: Any = given
        if isinstance(given, str):
            value = yaml.safe_load(given) if given.strip().startswith("[") else given.strip()
        if isinstance(value, str) and value:
            return cls((value,))
        if (
            isinstance(value, list)
            and value
            and all(isinstance(v, str) and v.strip() for v in value)
        ):
            return cls(tuple(v.strip() for v in value))
        raise ValueError(
            f"--model {text!r}: expected a model's name, or a panel: a list of at least one "
            "model name, '[madsim/y,madsim/z]'"
        )

    @property
    def main(self) -> str:
        return self.models[0]

    @property
    def panel(self) -> bool:
        return len(self.models) > 1

    @property
    def label(self) -> str:
        """As the report names the column: the model, or the panel `[a,b]`."""
        return role_text(list(self.models))


@dataclass(frozen=True)
class Group:
    """Models run in one eval set with the same role bindings: every single model together, each
    panel apart (its own bindings)."""

    models: tuple[ModelChoice, ...]
    roles: dict[str, Binding]


def declared_roles(solver: Any, args: Mapping[str, Any]) -> tuple[str, ...]:
    """The roles a solver built with `args` runs its calls on, from its method's declaration
    (`MethodSpec.roles`); none for a solver this package does not declare."""
    name = registry_info(solver).name
    spec = CATALOGUE.get(name.removeprefix(PREFIX)) if name.startswith(PREFIX) else None
    return () if spec is None else spec.roles(spec.factory("solver")(**args))


def panel_roles(
    column: ModelChoice, choice: SolverChoice, declared: Sequence[str], given: Mapping[str, Binding]
) -> dict[str, Binding]:
    """The role bindings of a panel `column`'s runs of a solver whose calls run on `declared`:
    those `--model-role` gave, and every panel family of the solver bound to the panel's list; a
    ValueError naming the option and the value where the list cannot go (`panels.refusal`)."""
    where = f"--model {column.label!r} with --solver {choice.label!r}"
    families = list(panels(declared))
    if not families:
        raise ValueError(
            f"{where}: the solver has no panel (a family of numbered roles, as agent_1 ... "
            "agent_N) to bind a list of models to; compare it on single models"
        )
    taken = [f for f in families if f in given]
    if taken:
        raise ValueError(
            f"{where}: --model-role binds {taken[0]} already, which the panel would bind; give "
            "the panel by one of them"
        )
    bound = {**given, **{family: list(column.models) for family in families}}
    lists = {r: m for r, m in bound.items() if isinstance(m, list)}
    refused = refusal(declared, lists)
    if refused is not None:
        raise ValueError(f"{where}: {refused}")
    return bound


def groups_of(
    choice: SolverChoice,
    declared: Sequence[str],
    columns: Sequence[ModelChoice],
    given: Mapping[str, Binding],
) -> list[Group]:
    """The eval sets of one solver: its single models together, each panel apart; refused as
    `panel_roles` refuses, and a list `--model-role` binds that the solver cannot take."""
    lists = {r: m for r, m in given.items() if isinstance(m, list)}
    refused = refusal(declared, lists)
    if refused is not None:
        shown = f"{refused.role}={role_text(given[refused.role])}"
        raise ValueError(f"--model-role {shown} with --solver {choice.label!r}: {refused}")
    single = tuple(c for c in columns if not c.panel)
    groups = [Group(single, dict(given))] if single else []
    return groups + [
        Group((c,), panel_roles(c, choice, declared, given)) for c in columns if c.panel
    ]


@dataclass(frozen=True)
class SolverChoice:
    """A solver and its own options: `--solver "du_debate agents=4 rounds=3"`, split as a shell
    splits words, so a value with spaces is quoted: `"on_demand debate_args='{agents: 4}'"`."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> SolverChoice:
        # quotes group words as in a shell; a backslash stays (a Windows path is a value)
        lexer = shlex.shlex(text, posix=True)
        lexer.whitespace_split, lexer.escape = True, ""
        try:
            words = list(lexer)
        except ValueError as e:  # an unclosed quote
            raise ValueError(f"--solver {text!r}: {e}") from None
        if not words:
            raise ValueError("--solver '': expected a solver's name, then its name=value options")
        return cls(words[0], parse_options(words[1:], f"--solver {words[0]}"))

    @property
    def label(self) -> str:
        return " ".join([self.name, *(f"{k}={v}" for k, v in self.args.items())])

    @property
    def folder(self) -> str:
        return folder_name(self.label, "solver")


def folder_name(label: str, empty: str) -> str:
    """A run's log directory's name: the label with anything but letters, digits, `=._-` as `_`
    (`empty` when nothing is left)."""
    return re.sub(r"[^A-Za-z0-9=._-]+", "_", label).strip("_.") or empty


@dataclass(frozen=True)
class SolverRun:
    solver: SolverChoice
    log_dir: str
    success: bool
    logs: list[EvalLog]
    # each column's logs, by its label (`ModelChoice.label`: a model, or a panel `[a,b]`)
    by_model: dict[str, list[EvalLog]] = field(default_factory=dict)


SPENDS = ("tokens", "dollars")  # what a solver can match of an earlier one's spend


@dataclass(frozen=True)
class Matching:
    """`match_debate=<label>:<tokens|dollars>`: the solver matches, on each model, the spend per
    sample of the comparison's earlier solver `label` (`self_consistency` at a debate's spend)."""

    label: str
    unit: str


def matching(choice: SolverChoice, earlier: Sequence[str]) -> Matching | None:
    """The earlier solver `choice` matches, if its `match_debate` names one of `earlier`'s labels;
    a ValueError for a spend other than tokens or dollars."""
    value = choice.args.get("match_debate")
    label, sep, unit = value.rpartition(":") if isinstance(value, str) else ("", "", "")
    if not sep or label not in earlier:  # the solver's own value (3x2, tokens:842)
        return None
    if unit not in SPENDS:
        raise ValueError(
            f"--solver {choice.label!r}: match_debate={value!r}: match {label!r}'s tokens or "
            f"dollars ({label}:tokens or {label}:dollars)"
        )
    return Matching(label, unit)


def spend_per_sample(log: EvalLog, unit: str) -> float | None:
    """A finished run's mean spend per sample in tokens (every reply's, cached ones included) or
    dollars; None when its log lacks a figure of it (no price: no dollars)."""
    scores = {s.name: s for s in (log.results.scores if log.results else [])}
    if unit == "dollars":  # the `debate_stats` figures that make each spend
        parts = [dollars_per_sample(scores["cost"]) if "cost" in scores else None]
    else:
        means = {n: s.metrics["mean"].value for n, s in scores.items() if "mean" in s.metrics}
        parts = [means.get(name) for name in TOKEN_FIGURES]
    if any(v is None or v != v for v in parts):  # missing or NaN
        return None
    return sum(v for v in parts if v is not None)


def check_solvers(
    solvers: Sequence[SolverChoice],
    shared: Mapping[str, Any],
    columns: Sequence[ModelChoice] = (),
    roles: Mapping[str, Binding] | None = None,
) -> dict[str, list[Group]]:
    """Build every solver with its options (raising what its build raises: an `OptionError`
    naming the option, a `LookupError` for an unknown name); refuse two in one log directory.
    A solver that matches an earlier one's spend is built with a stand-in spend. Returns each
    solver's eval sets over `columns` (`groups_of`, by its label), refused as that refuses."""
    folders: dict[str, str] = {}
    groups: dict[str, list[Group]] = {}
    for choice in solvers:
        if choice.folder in folders:
            raise ValueError(
                f"--solver {choice.label!r} and {folders[choice.folder]!r} would share the log "
                f"directory {choice.folder!r}: give each solver once"
            )
        args = {**shared, **choice.args}
        matched = matching(choice, list(folders.values()))
        if matched is not None:
            args["match_debate"] = f"{matched.unit}:1"
        folders[choice.folder] = choice.label
        solver = registry_create("solver", choice.name, **args)
        declared = declared_roles(solver, args) if any(c.panel for c in columns) or roles else ()
        groups[choice.label] = groups_of(choice, declared, columns, roles or {})
    return groups


Run = Callable[..., tuple[bool, list[EvalLog]]]


def matched_eval_sets(
    matched: Matching, earlier: SolverRun, groups: Sequence[Group], args: dict[str, Any], run: Run
) -> SolverRun:
    """One eval set per model (a panel: per panel), at the spend per sample the `earlier` run
    measured on it. Where that run is unfinished the comparison is unfinished too (the same
    command resumes it); a finished run without the figure (no price, or nothing spent) is a
    ValueError saying so. The run's solver and folder are left to the caller."""
    success, logs, by_model = True, list[EvalLog](), dict[str, list[EvalLog]]()
    for group in groups:
        for column in group.models:
            got = earlier.by_model.get(column.label, [])
            finished = [log for log in got if log.status == "success"]
            if not finished:
                success = False
                continue
            spend = spend_per_sample(finished[0], matched.unit)
            if spend is None or spend <= 0:
                why = (
                    "no price: give one with --model-cost-config"
                    if matched.unit == "dollars"
                    else "its replies reported no token usage"
                )
                raise ValueError(
                    f"{matched.label!r} on {column.label} has no {matched.unit} per sample to "
                    f"match ({why})"
                )
            whole = matched.unit == "tokens"  # a token spend is whole: the nearest, at least 1
            amount = str(max(1, round(spend))) if whole else fixed(spend)
            own = {**args, "match_debate": f"{matched.unit}:{amount}"}
            # tagged as the user wrote it (the eval list says what it matched); its options and
            # record hold the spend
            done, made = run(Group((column,), group.roles), own, passed=args, allow_dirty=True)
            success, logs = success and done, logs + made
            by_model[column.label] = made
    return SolverRun(earlier.solver, earlier.log_dir, success, logs, by_model)


def fixed(value: float) -> str:
    """A spend as `match_debate` reads it: 6 significant digits, never in exponent form."""
    return format(Decimal(f"{value:.6g}"), "f")


def compare(
    task: str,
    solvers: Sequence[SolverChoice],
    models: Sequence[str | Sequence[str] | ModelChoice],
    log_dir: str,
    task_args: Mapping[str, Any] | None = None,
    solver_args: Mapping[str, Any] | None = None,
    model_roles: Mapping[str, str | Sequence[str]] | None = None,
    stopping: StopRule | None = None,
    **eval_set_args: Any,
) -> list[SolverRun]:
    """Run `task` with each solver on every model (a model, or a panel: a list of models, see
    `ModelChoice`), one eval set per solver in `log_dir/<solver folder>` (and one per panel
    beside it); `solver_args` go to every solver (its own options win), `model_roles` bind roles
    for every run (a list: a panel), `stopping` gives every run its own early-stopping manager
    (`sweep_stopping.py`), and `eval_set_args` (`limit`, `batch`, `display`, ...) go to every
    `eval_set`."""
    if not solvers or not models:
        raise ValueError("compare needs at least one --solver and one --model")
    if stopping is not None:
        stopping.check(eval_set_args.get("epochs") or 1)
    columns = [m if isinstance(m, ModelChoice) else ModelChoice.parse(m) for m in models]
    roles = {r: m if isinstance(m, str) else list(m) for r, m in (model_roles or {}).items()}
    shared = dict(solver_args or {})
    planned = check_solvers(solvers, shared, columns, roles)
    runs: dict[str, SolverRun] = {}
    for choice in solvers:
        folder = f"{log_dir.rstrip('/')}/{choice.folder}"
        args = {**shared, **choice.args}
        groups = planned[choice.label]
        matched = matching(choice, list(runs))
        # eval sets that share the folder leave each other's logs alone
        many = len(groups) > 1
        run = functools.partial(
            eval_set_of, task, folder, choice, task_args, eval_set_args, stopping
        )
        if matched is not None:
            done = matched_eval_sets(matched, runs[matched.label], groups, args, run)
            runs[choice.label] = replace(done, solver=choice, log_dir=folder)
            continue
        success, logs, by_model = True, list[EvalLog](), dict[str, list[EvalLog]]()
        for group in groups:
            finished, made = run(group, args, allow_dirty=many)
            success, logs = success and finished, logs + made
            for column in group.models:
                by_model[column.label] = [
                    log for log in made if len(group.models) == 1 or log.eval.model == column.main
                ]
        runs[choice.label] = SolverRun(choice, folder, success, logs, by_model)
    return list(runs.values())


def eval_set_of(
    task: str,
    folder: str,
    choice: SolverChoice,
    task_args: Mapping[str, Any] | None,
    eval_set_args: Mapping[str, Any],
    stopping: StopRule | None,
    group: Group,
    args: dict[str, Any],
    passed: dict[str, Any] | None = None,
    allow_dirty: bool = False,
) -> tuple[bool, list[EvalLog]]:
    """One solver's eval set over a group of models in `folder`, with `args` as its options and
    the group's role bindings; the run is tagged with them, or with `passed`, as the user gave
    them, where they differ. `allow_dirty`: other eval sets share the folder. With a stop rule,
    the task has an early-stopping manager, and the group's models run one after another (a
    manager follows one run at a time; it starts afresh with each)."""
    named = args if passed is None else passed
    roles = {"model_roles": group.roles} if group.roles else {}
    dirty: dict[str, Any] = {"log_dir_allow_dirty": True} if allow_dirty else {}
    tasks: str | Task = task
    if stopping is not None and stopping.active:
        made = registry_create("task", task, **dict(task_args or {}))
        tasks = task_with(made, early_stopping=SweepStopping(stopping))
        dirty = {**dirty, "max_tasks": 1}
    return eval_set(
        tasks,
        log_dir=folder,
        model=[column.main for column in group.models],
        task_args=dict(task_args or {}),
        solver=SolverSpec(choice.name, args, args),  # built from args_passed, as the CLI does
        **{
            **eval_set_args,
            **roles,
            **dirty,
            "tags": run_tags(choice.name, named, {**eval_set_args, **roles}),
        },
    )
