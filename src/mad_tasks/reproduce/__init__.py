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
solver and task is built with its options before the first model call. The schema and its checks
are in `experiments.py`, the runs in `running.py`, the measures in `measuring.py`, the tables'
text in `rendering.py`; here, what the command line and users take.
"""

from .experiments import (
    MAX_RUNS,
    Experiment,
    ExperimentError,
    Stat,
    check_models,
    experiment_files,
    find_experiment,
    load_experiment,
    parse_stat,
)
from .measuring import (
    Cell,
    Table,
    TableRow,
    answers_after,
    measure,
    plurality,
    record_value,
    round_consensus,
    round_correct,
    stat_value,
)
from .rendering import list_markdown, table_cells, to_markdown, write_table
from .running import RowRun, Sweep, prepare, row_folder, run_experiment, run_row

__all__ = [
    "MAX_RUNS",
    "Cell",
    "Experiment",
    "ExperimentError",
    "RowRun",
    "Stat",
    "Sweep",
    "Table",
    "TableRow",
    "answers_after",
    "check_models",
    "experiment_files",
    "find_experiment",
    "list_markdown",
    "load_experiment",
    "measure",
    "parse_stat",
    "plurality",
    "prepare",
    "record_value",
    "round_consensus",
    "round_correct",
    "row_folder",
    "run_experiment",
    "run_row",
    "stat_value",
    "table_cells",
    "to_markdown",
    "write_table",
]
