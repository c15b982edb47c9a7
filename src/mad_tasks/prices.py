"""Model prices: the file Inspect reads with `--model-cost-config` (YAML or JSON, per model its
dollars per million tokens: `input`, `output`, `input_cache_write`, `input_cache_read`), checked
before a run so that a bad file is refused by name before any model call.

`PRICES` is the example shipped with the package, dated in its header: the providers the docs
use, and `madsim/<name>` priced as a small hosted model so that simulated runs state dollars.
"""

from __future__ import annotations

import math
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml
from inspect_ai.model import ModelCost, set_model_cost
from pydantic import ValidationError

PRICES = Path(str(files("mad_tasks") / "data" / "prices.yaml"))


def apply_prices(path: str | Path) -> None:
    """Give Inspect the prices of `path`, as `--model-cost-config` would; a ValueError naming the
    file and the model for a file that cannot be read, a price that is not a number >= 0 or a
    model Inspect cannot look up."""
    try:
        data: Any = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise ValueError(f"--model-cost-config {path}: cannot be read ({error})") from None
    if not isinstance(data, dict) or not data:
        raise ValueError(f"--model-cost-config {path}: give a mapping of model name to prices")
    for model, price in data.items():
        try:
            cost = ModelCost.model_validate(price)
        except ValidationError as error:
            fields = ", ".join(ModelCost.model_fields)
            raise ValueError(
                f"--model-cost-config {path}: {model}: give {fields} as dollars per million "
                f"tokens ({error.error_count()} error(s): {error.errors()[0]['msg']})"
            ) from None
        values = (cost.input, cost.output, cost.input_cache_write, cost.input_cache_read)
        if not all(math.isfinite(v) and v >= 0 for v in values):
            raise ValueError(f"--model-cost-config {path}: {model}: a price below 0 or not finite")
        try:
            set_model_cost(str(model), cost)
        except ValueError as error:
            raise ValueError(f"--model-cost-config {path}: {model}: {error}") from None
