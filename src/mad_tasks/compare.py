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
names as underscores.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import yaml
from inspect_ai import eval_set
from inspect_ai.log import EvalLog
from inspect_ai.solver import SolverSpec
from inspect_ai.util import registry_create

from . import _registry  # noqa: F401  (registers the short solver names, as the plugin's loading does)
from .engine.records import TOKEN_FIGURES
from .log_tags import run_tags
from .scorers.debate_stats import dollars_per_sample


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


def check_solvers(solvers: Sequence[SolverChoice], shared: Mapping[str, Any]) -> None:
    """Build every solver with its options (raising what its build raises: an `OptionError`
    naming the option, a `LookupError` for an unknown name); refuse two in one log directory.
    A solver that matches an earlier one's spend is built with a stand-in spend."""
    folders: dict[str, str] = {}
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
        registry_create("solver", choice.name, **args)


def matched_eval_sets(
    matched: Matching, earlier: SolverRun, models: Sequence[str],
    args: dict[str, Any], run: Callable[..., tuple[bool, list[EvalLog]]],
) -> tuple[bool, list[EvalLog]]:  # fmt: skip
    """One eval set per model, at the spend per sample the `earlier` run measured on that model.
    Where that run is unfinished the comparison is unfinished too (the same command resumes it);
    a finished run without the figure (no price, or nothing spent) is a ValueError saying so."""
    success, logs = True, list[EvalLog]()
    for model in models:
        finished = [log for log in earlier.logs if log.eval.model == model and log.status == "success"]  # fmt: skip
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
                f"{matched.label!r} on {model} has no {matched.unit} per sample to match ({why})"
            )
        own = {**args, "match_debate": f"{matched.unit}:{fixed(spend)}"}
        # tagged as the user wrote it (the eval list says what it matched); its options and
        # record hold the spend
        done, made = run([model], own, passed=args, log_dir_allow_dirty=True)
        success, logs = success and done, logs + made
    return success, logs


def fixed(value: float) -> str:
    """A spend as `match_debate` reads it: 6 significant digits, never in exponent form."""
    return format(Decimal(f"{value:.6g}"), "f")


def compare(
    task: str,
    solvers: Sequence[SolverChoice],
    models: Sequence[str],
    log_dir: str,
    task_args: Mapping[str, Any] | None = None,
    solver_args: Mapping[str, Any] | None = None,
    **eval_set_args: Any,
) -> list[SolverRun]:
    """Run `task` with each solver on every model, one eval set per solver in
    `log_dir/<solver folder>`; `solver_args` go to every solver (its own options win), and
    `eval_set_args` (`limit`, `display`, ...) to every `eval_set`."""
    if not solvers or not models:
        raise ValueError("compare needs at least one --solver and one --model")
    shared = dict(solver_args or {})
    check_solvers(solvers, shared)
    runs: dict[str, SolverRun] = {}
    for choice in solvers:
        folder = f"{log_dir.rstrip('/')}/{choice.folder}"
        args = {**shared, **choice.args}
        matched = matching(choice, list(runs))
        run = functools.partial(eval_set_of, task, folder, choice, task_args, eval_set_args)
        if matched is None:
            runs[choice.label] = SolverRun(choice, folder, *run(models, args))
        else:
            done = matched_eval_sets(matched, runs[matched.label], models, args, run)
            runs[choice.label] = SolverRun(choice, folder, *done)
    return list(runs.values())


def eval_set_of(
    task: str,
    folder: str,
    choice: SolverChoice,
    task_args: Mapping[str, Any] | None,
    eval_set_args: Mapping[str, Any],
    models: Sequence[str],
    args: dict[str, Any],
    passed: dict[str, Any] | None = None,
    **more: Any,
) -> tuple[bool, list[EvalLog]]:
    """One solver's eval set over `models` in `folder`, with `args` as its options; the run is
    tagged with them, or with `passed`, as the user gave them, where they differ."""
    named = args if passed is None else passed
    return eval_set(
        task,
        log_dir=folder,
        model=list(models),
        task_args=dict(task_args or {}),
        solver=SolverSpec(choice.name, args, args),  # built from args_passed, as the CLI does
        **{**eval_set_args, **more, "tags": run_tags(choice.name, named, eval_set_args)},
    )
