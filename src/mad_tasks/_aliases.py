"""Short solver names (`--solver du_debate`) beside Inspect's prefixed ones (`mad_tasks/du_debate`).

Inspect resolves an unprefixed `--solver` name only as itself or as `inspect_ai/<name>`, so each of
our solvers is also registered under its bare name, unless something already holds that name. The
alias calls the canonical factory, so the plan in the log records `mad_tasks/<name>` with every
argument. `solver_register` and `registry_has` are Inspect internals: the supported Inspect range
is pinned in pyproject.toml and tests/test_registry.py fails if they move.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from inspect_ai._util.registry import (
    registry_has,
    registry_info,
    registry_unqualified_name,
    set_registry_info,
)
from inspect_ai.solver import Solver
from inspect_ai.solver._solver import solver_register


def register_short_aliases(factories: list[Callable[..., Solver]]) -> list[str]:
    """Register each solver factory under its unprefixed name; return the names registered."""
    registered = []
    for factory in factories:
        short = registry_unqualified_name(factory)
        if registry_has("solver", short):
            continue  # never shadow a name Inspect or another package already holds

        @functools.wraps(factory)
        def alias(*args: Any, _factory: Callable[..., Solver] = factory, **kwargs: Any) -> Solver:
            return _factory(*args, **kwargs)

        solver_register(alias, short)
        # created through the alias, the solver is still labelled (and logged) as mad_tasks/<name>
        set_registry_info(alias, registry_info(factory))
        registered.append(short)
    return registered
