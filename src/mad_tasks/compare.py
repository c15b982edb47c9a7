"""`mad-tasks compare`: several solvers over one task in one go, then the report.

`inspect eval-set` takes one `--solver` (a second one replaces the first), so comparing methods
from the command line means one eval set per solver. `compare` runs each solver through
`inspect_ai.eval_set` over all the models, in a log directory of its own under `log_dir` (named
for the solver and its options), so every solver x model is its own log and re-running the same
command resumes an interrupted comparison: finished logs are kept, unfinished ones retried. Every
solver is built once before the first eval set, so a bad option of the last solver stops the
comparison before any model call.

Options are read as Inspect's CLI reads `-S`/`-T` (`inspect_ai._util.config.parse_cli_args`): the
value as YAML (`agents=three` is text, `yes` is true), a plain value with commas a list, dashes in
names as underscores.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml
from inspect_ai import eval_set
from inspect_ai.log import EvalLog
from inspect_ai.solver import SolverSpec
from inspect_ai.util import registry_create

from . import _registry  # noqa: F401  (registers the short solver names, as the plugin's loading does)
from .log_tags import run_tags


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


def check_solvers(solvers: Sequence[SolverChoice], shared: Mapping[str, Any]) -> None:
    """Build every solver with its options (raising what its build raises: an `OptionError`
    naming the option, a `LookupError` for an unknown name); refuse two in one log directory."""
    folders: dict[str, str] = {}
    for choice in solvers:
        if choice.folder in folders:
            raise ValueError(
                f"--solver {choice.label!r} and {folders[choice.folder]!r} would share the log "
                f"directory {choice.folder!r}: give each solver once"
            )
        folders[choice.folder] = choice.label
        registry_create("solver", choice.name, **{**shared, **choice.args})


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
    runs = []
    for choice in solvers:
        folder = f"{log_dir.rstrip('/')}/{choice.folder}"
        args = {**shared, **choice.args}
        success, logs = eval_set(
            task,
            log_dir=folder,
            model=list(models),
            task_args=dict(task_args or {}),
            solver=SolverSpec(choice.name, args, args),  # built from args_passed, as the CLI does
            **{**eval_set_args, "tags": run_tags(choice.name, args, eval_set_args)},
        )
        runs.append(SolverRun(choice, folder, success, logs))
    return runs
