"""The `mad-tasks` command line: `tag`, `report`, `compare` and `reproduce`. Their work is in
`log_tags.py`, `logs_report.py`, `compare.py` and `reproduce/`; here only their arguments."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .log_tags import MISSING, NO_LOGS, role_text, tag_logs
from .prices import apply_prices
from .sweep_stopping import StopRule
from .tasks._data import DataUnavailable

if TYPE_CHECKING:
    from .compare import Binding
    from .reproduce import Sweep


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="mad-tasks", description="Tools for mad_tasks logs.")
    commands = parser.add_subparsers(dest="command", required=True)
    tag = commands.add_parser("tag", help="tag logs with their method, options and role models")
    tag.add_argument(
        "paths",
        nargs="*",
        default=[os.environ.get("INSPECT_LOG_DIR", "./logs")],
        help="log files or directories (default: $INSPECT_LOG_DIR, else ./logs)",
    )
    _add_report_commands(commands)
    args = parser.parse_args(argv)
    if args.command in ("report", "compare", "reproduce"):
        run = {"report": lambda a: _report(a.log_dir, a.out), "compare": _compare}
        status = run.get(args.command, _reproduce)(args)
        if status:
            sys.exit(status)
        return
    failed = False
    for log_file, outcome in tag_logs(args.paths):
        print(f"{log_file}: {outcome}")
        failed = failed or outcome in (MISSING, NO_LOGS)
    if failed:
        sys.exit(1)


def _add_report_commands(commands: Any) -> None:
    report = commands.add_parser(
        "report",
        help="compare the runs of a log directory: tables, an accuracy-vs-tokens plot, paired "
        "differences with bootstrap intervals and McNemar p",
        description="Per task, a table of solver x model (headline score with stderr, samples, "
        "calls, tokens spent and cached per sample, cost where Inspect priced the run) as "
        "report.md, report.csv and a self-contained report.html, and an accuracy-vs-tokens plot "
        "with the Pareto front (in the HTML and as <task>.png; needs mad-tasks[report]); for every "
        "two solvers on one model, the paired difference with its 95% bootstrap interval and "
        "McNemar's exact p (printed, in the tables, paired.csv and <task>-paired.png).",
    )
    report.add_argument("log_dir", help="a directory of Inspect logs, read recursively")
    report.add_argument("--out", help="where to write the report (default: LOG_DIR/report)")
    compare = commands.add_parser(
        "compare",
        help="run several solvers (x models) over one task, one log each, then the report",
        description="`inspect eval-set` keeps only the last --solver; this runs one eval set per "
        "solver (in LOG_DIR/<solver>), every solver x model its own log, then writes the report "
        "(LOG_DIR/report). Re-running the same command resumes an interrupted comparison. "
        "INSPECT_DISPLAY sets Inspect's display.",
    )
    compare.add_argument("task", help="a task's registered name, e.g. mad_tasks/strategyqa")
    compare.add_argument(
        "--solver",
        action="append",
        required=True,
        help='a solver and its own options, e.g. --solver "du_debate agents=4" (repeat it)',
    )
    compare.add_argument(
        "--model",
        action="append",
        required=True,
        help="a model, or a panel '[a,b]' (its first model the main one, every panel role of the "
        "solver, e.g. agent, bound to the list); repeat it",
    )
    compare.add_argument(
        "--model-role",
        action="append",
        default=[],
        metavar="ROLE=MODEL",
        help="bind a role for every run, as inspect eval does; a list 'agent=[a,b]' is a panel",
    )
    compare.add_argument(
        "-T", action="append", default=[], metavar="NAME=VALUE", help="a task option"
    )
    compare.add_argument(
        "-S", action="append", default=[], metavar="NAME=VALUE", help="an option for every solver"
    )
    compare.add_argument("--limit", type=int, help="samples per run")
    compare.add_argument("--epochs", type=int, help="epochs per run (Inspect's --epochs)")
    compare.add_argument("--max-samples", type=int, help="samples of a run at once")
    _add_prices(compare)
    _add_sweep_options(compare)
    compare.add_argument("--log-dir", required=True, help="the comparison's log directory")
    compare.add_argument("--out", help="where to write the report (default: LOG_DIR/report)")
    _add_reproduce_command(commands)


def _add_reproduce_command(commands: Any) -> None:
    reproduce = commands.add_parser(
        "reproduce",
        help="run a paper table's experiment and write the table beside the paper's values",
        description="Runs the experiment NAME (a file shipped with mad-tasks; --list names them) "
        "through Inspect's eval sets, one per row in LOG_DIR/NAME/<row>, then writes "
        "LOG_DIR/NAME/NAME.md and .html: each cell the measured mean ± std over runs beside the "
        "paper's value, with calls and tokens per sample. Re-running the same command resumes.",
    )
    reproduce.add_argument("name", nargs="?", help="the experiment, e.g. seed004_fig2")
    reproduce.add_argument("--list", action="store_true", help="list the experiments")
    reproduce.add_argument("--model", help="the model every row runs on")
    reproduce.add_argument(
        "--model-role",
        action="append",
        default=[],
        metavar="ROLE=MODEL",
        help="bind a role, as inspect eval does; a list 'agent=[a,b]' is a panel",
    )
    reproduce.add_argument("--limit", type=int, help="samples per task")
    reproduce.add_argument("--epochs", type=int, help="runs (default: the experiment's runs)")
    reproduce.add_argument(
        "--log-dir",
        default=os.environ.get("INSPECT_LOG_DIR", "./logs"),
        help="where LOG_DIR/NAME goes (default: $INSPECT_LOG_DIR, else ./logs)",
    )
    reproduce.add_argument(
        "--data", action="append", default=[], metavar="TASK=PATH", help="a task's data_path"
    )
    reproduce.add_argument(
        "-M", action="append", default=[], metavar="NAME=VALUE", help="a model option"
    )
    reproduce.add_argument(
        "-S",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a solver option for every row that does not set it (e.g. max_tokens=256)",
    )
    reproduce.add_argument("--model-base-url", help="the model's base URL")
    reproduce.add_argument("--max-tasks", type=int, help="tasks of a row run at once")
    reproduce.add_argument("--max-samples", type=int, help="samples of a task run at once")
    _add_prices(reproduce)
    _add_sweep_options(reproduce)


def _add_sweep_options(command: Any) -> None:
    """`--batch` as `inspect eval` takes it, and the sweep's early stop (`sweep_stopping.py`)."""
    command.add_argument(
        "--batch",
        nargs="?",
        const="true",
        metavar="SIZE|FILE",
        help="send calls through the provider's batch API (about half the price): alone for "
        "Inspect's default batch size, a size, or a YAML/JSON file of Inspect's BatchConfig",
    )
    command.add_argument(
        "--stop-width",
        type=float,
        metavar="W",
        help="start no more samples once the headline score's 95%% interval is narrower than W "
        "(in (0, 1]; after --stop-min-samples samples)",
    )
    command.add_argument(
        "--stop-min-samples",
        type=int,
        default=10,
        metavar="N",
        help="samples scored before --stop-width may stop (default 10, at least 2)",
    )
    command.add_argument(
        "--stop-epochs-agree",
        type=int,
        metavar="N",
        help="skip a sample's other epochs once N of them gave the same answer (2 to --epochs)",
    )


def sweep_options(args: argparse.Namespace) -> tuple[StopRule, dict[str, Any]]:
    """The early stop and the eval-set arguments `--batch` makes: a ValueError naming the option,
    the value and what is allowed."""
    rule = StopRule(args.stop_width, args.stop_min_samples, args.stop_epochs_agree)
    if args.batch is None:
        return rule, {}
    text = args.batch.strip()
    if text.lower() in ("true", "false"):
        return rule, {"batch": text.lower() == "true"}
    if text.isdigit():
        if int(text) < 1:
            raise ValueError(f"--batch: got {text}, allowed: a size >= 1, a file, or nothing")
        return rule, {"batch": int(text)}
    return rule, {"batch": _batch_file(text)}


def _batch_file(path: str) -> Any:
    import yaml
    from inspect_ai.model import BatchConfig
    from pydantic import ValidationError

    try:
        return BatchConfig.model_validate(yaml.safe_load(Path(path).read_text()))
    except (OSError, yaml.YAMLError, ValidationError) as error:
        raise ValueError(
            f"--batch {path!r}: not a size or a readable BatchConfig file: {error!s:.200}"
        ) from error


def _add_prices(command: Any) -> None:
    command.add_argument(
        "--model-cost-config",
        metavar="FILE",
        help="model prices per million tokens, as Inspect reads them (a shipped example: "
        "src/mad_tasks/data/prices.yaml): every run then states its dollars",
    )


def _report(log_dir: str, out: str | None) -> int:
    from .logs_report import write_report  # pandas and matplotlib load only for this command
    from .paired_report import line

    if not Path(log_dir).is_dir():
        print(f"mad-tasks report: {log_dir}: no such directory", file=sys.stderr)
        return 2
    written = write_report(log_dir, out or str(Path(log_dir) / "report"))
    for note in written.report.notes:
        print(note)
    if written.plots_left_out:
        print('plots left out: matplotlib is not installed (pip install "mad-tasks[report]")')
    if not written.report.tables:
        print(f"no finished logs under {log_dir}")
        return 1
    for pairs in written.report.pairs.values():
        for pair in pairs:
            print(line(pair))
    for path in written.files:
        print(f"wrote {path}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from .compare import ModelChoice, SolverChoice, compare, parse_model_roles, parse_options
    from .reproduce import MAX_RUNS

    try:
        if args.model_cost_config:  # refused by name before any run
            apply_prices(args.model_cost_config)
        stopping, batch = sweep_options(args)
        if args.epochs is not None and not 1 <= args.epochs <= MAX_RUNS:
            raise ValueError(f"--epochs: got {args.epochs}, allowed: from 1 to {MAX_RUNS}")
        if args.max_samples is not None and args.max_samples < 1:
            raise ValueError(f"--max-samples: got {args.max_samples}, allowed: >= 1")
        runs = compare(
            args.task,
            [SolverChoice.parse(text) for text in args.solver],
            [ModelChoice.parse(text) for text in args.model],
            args.log_dir,
            task_args=parse_options(args.T, "-T"),
            solver_args=parse_options(args.S, "-S"),
            model_roles=parse_model_roles(args.model_role),
            limit=args.limit,
            model_cost_config=args.model_cost_config,
            stopping=stopping,
            **({"epochs": args.epochs} if args.epochs else {}),
            **({"max_samples": args.max_samples} if args.max_samples else {}),
            **batch,
        )
    except (ValueError, LookupError) as error:  # an option or name refused before any model call
        print(f"mad-tasks compare: {error}", file=sys.stderr)
        return 2
    unfinished = [run.solver.label for run in runs if not run.success]
    status = _report(args.log_dir, args.out)
    if unfinished:
        print(f"unfinished: {', '.join(unfinished)}; run the same command again to resume")
        return 1
    return status


def _reproduce(args: argparse.Namespace) -> int:
    from . import reproduce as r

    if args.list:
        return _list_experiments()
    if not args.name or not args.model:
        print("mad-tasks reproduce: give NAME and --model (or --list)", file=sys.stderr)
        return 2
    try:  # every refusal before the first model call
        sweep, data, roles, shared, batch = _prepare_reproduce(args)
        if args.model_cost_config:
            apply_prices(args.model_cost_config)
    except (ValueError, LookupError) as error:
        print(f"mad-tasks reproduce: {error}", file=sys.stderr)
        return 2
    except DataUnavailable as error:
        hint = "offline, pass each task's local file with --data TASK=FILE"
        print(f"mad-tasks reproduce: {error.what}; {hint}", file=sys.stderr)
        return 2
    experiment = sweep.experiment
    shown_roles = {role: role_text(models) for role, models in roles.items()}
    runs = []
    for row in experiment.rows:
        try:
            runs.append(
                r.run_row(
                    sweep,
                    row,
                    args.model,
                    args.log_dir,
                    model_base_url=args.model_base_url,
                    limit=args.limit,
                    model_roles=roles or None,
                    model_args=_model_args(args),
                    max_tasks=args.max_tasks,
                    max_samples=args.max_samples,
                    model_cost_config=args.model_cost_config,
                    **batch,
                )
            )
        except Exception as error:  # noqa: BLE001  (the rows that finished are still written)
            print(f"mad-tasks reproduce: row {row.label!r}: {error!r:.300}", file=sys.stderr)
            runs += [
                r.RowRun(later, r.row_folder(sweep, later, args.log_dir), False, [])
                for later in experiment.rows[len(runs) :]
            ]
            break
    out = Path(args.log_dir) / experiment.name
    table = r.measure(
        experiment, runs, args.model, args.limit, sweep.epochs, str(out), data, shown_roles, shared
    )
    files = r.write_table(table, out)
    print(r.to_markdown(table))
    for path in files:
        print(f"wrote {path}")
    unfinished = [run.row.label for run in runs if not run.success]
    if unfinished:
        print(f"unfinished: {', '.join(unfinished)}; run the same command again to resume")
        return 1
    return 0


def _model_args(args: argparse.Namespace) -> dict[str, Any]:
    from .compare import parse_options

    return parse_options(args.M, "-M")


def _prepare_reproduce(
    args: argparse.Namespace,
) -> tuple[Sweep, dict[str, str], dict[str, Binding], dict[str, Any], dict[str, Any]]:
    """The sweep checked and built, its `--data`, roles (a role bound to a list of models: a
    panel), `-S` options and `--batch`; a ValueError or LookupError naming the option, the value
    and what is allowed."""
    from . import reproduce as r
    from .compare import parse_model_roles, parse_options

    for flag, value, most in (
        ("--epochs", args.epochs, r.MAX_RUNS),
        ("--limit", args.limit, None),
        ("--max-tasks", args.max_tasks, None),
        ("--max-samples", args.max_samples, None),
    ):
        if value is not None and not (value >= 1 and (most is None or value <= most)):
            allowed = f"from 1 to {most}" if most else ">= 1"
            raise ValueError(f"{flag}: got {value}, allowed: an integer {allowed}")
    experiment = r.find_experiment(args.name)
    data = dict(_pair(item, "--data") for item in args.data)
    roles = parse_model_roles(args.model_role)
    shared = parse_options(args.S, "-S")
    _model_args(args)  # -M checked here too
    stopping, batch = sweep_options(args)
    sweep = r.prepare(experiment, data, args.epochs, shared, stopping)
    r.check_models(experiment, args.model, roles)  # a paper's model left unbound: exit 2 here
    return sweep, data, roles, shared, batch


def _pair(text: str, flag: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise ValueError(f"{flag} {text!r}: expected NAME=VALUE")
    return name, value


def _list_experiments() -> int:
    from .reproduce import ExperimentError, experiment_files, load_experiment

    status = 0
    for name, path in experiment_files().items():
        try:
            e = load_experiment(path)
        except (ValueError, TypeError, LookupError) as error:  # the other files still list
            where = "" if isinstance(error, ExperimentError) else f"{path.name}: "
            print(f"mad-tasks reproduce: {where}{error}", file=sys.stderr)
            status = 2
            continue
        print(f"{name}\tseed {e.seed}\t{e.table}\t{e.runs} runs\t{e.evals} evals\t{e.caption}")
    return status


if __name__ == "__main__":
    main()
