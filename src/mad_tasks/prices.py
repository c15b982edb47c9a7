"""Model prices: the file Inspect reads with `--model-cost-config` (YAML or JSON, per model its
dollars per million tokens: `input`, `output`, `input_cache_write`, `input_cache_read`), checked
before a run so that a bad file is refused by name before any model call.

`mad-tasks compare` and `reproduce` apply a file themselves (`apply_prices`). A plain `inspect
eval --model-cost-config FILE` applies it before it builds the solvers, with no check of its own:
each solver of this package reads the same file again (`check_run_prices`) and refuses the run
when a price is below 0, infinite or NaN.

`PRICES` is the example shipped with the package, dated in its header: the providers the docs
use, and `madsim/<name>` priced as a small hosted model so that simulated runs state dollars.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml
from inspect_ai.model import ModelCost, set_model_cost
from pydantic import ValidationError

PRICES = Path(str(files("mad_tasks") / "data" / "prices.yaml"))
FLAG = "--model-cost-config"
ENV = "INSPECT_EVAL_MODEL_COST_CONFIG"  # the flag's variable in Inspect's command line


def read_prices(path: str | Path) -> dict[str, ModelCost]:
    """The prices of `path` by model; a ValueError naming the file and the model for a file that
    cannot be read or a price that is not a number >= 0."""
    try:
        data: Any = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise ValueError(f"{FLAG} {path}: cannot be read ({error})") from None
    if not isinstance(data, dict) or not data:
        raise ValueError(f"{FLAG} {path}: give a mapping of model name to prices")
    prices: dict[str, ModelCost] = {}
    for model, price in data.items():
        try:
            cost = ModelCost.model_validate(price)
        except ValidationError as error:
            fields = ", ".join(ModelCost.model_fields)
            raise ValueError(
                f"{FLAG} {path}: {model}: give {fields} as dollars per million "
                f"tokens ({error.error_count()} error(s): {error.errors()[0]['msg']})"
            ) from None
        values = (cost.input, cost.output, cost.input_cache_write, cost.input_cache_read)
        if not all(math.isfinite(v) and v >= 0 for v in values):
            raise ValueError(f"{FLAG} {path}: {model}: a price below 0 or not finite")
        prices[str(model)] = cost
    return prices


def apply_prices(path: str | Path) -> None:
    """Give Inspect the prices of `path`, as `--model-cost-config` would; a ValueError naming the
    file and the model for a bad file (`read_prices`) or a model Inspect cannot look up."""
    for model, cost in read_prices(path).items():
        try:
            set_model_cost(model, cost)
        except ValueError as error:
            raise ValueError(f"{FLAG} {path}: {model}: {error}") from None


def given_price_file(argv: Sequence[str] | None = None) -> str | None:
    """The price file of this process's `inspect eval` command line (`--model-cost-config FILE`,
    `--model-cost-config=FILE`, or its environment variable); None when it gives none."""
    args = list(sys.argv if argv is None else argv)
    for i, arg in enumerate(args):
        if arg == FLAG and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(FLAG + "="):
            return arg.removeprefix(FLAG + "=")
    return os.environ.get(ENV) or None


def check_run_prices() -> None:
    """Refuse a run whose command line gave a bad price file (`read_prices`: the error names the
    file and the model). Inspect has applied the file by the time a solver is built, without
    looking at its values."""
    path = given_price_file()
    if path is not None:
        read_prices(path)
