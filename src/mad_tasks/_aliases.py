"""Short names beside Inspect's prefixed ones: solvers (`--solver du_debate` beside
`mad_tasks/du_debate`) and figure scorers (`calls` beside `mad_tasks/calls`).

Inspect resolves an unprefixed name only as itself or as `inspect_ai/<name>`, so each of our
solvers and figures is also registered under its bare name, unless something already holds that
name. A figure needs it twice over: a solver writes its figures into the sample's scores, and
Inspect finds the metrics of such a score by looking its name up, so a bare `calls` gets `mean`
only when `calls` is registered. The alias calls the canonical factory, so the log records
`mad_tasks/<name>` with every argument. No public Inspect API registers a name without its
package prefix, so this goes through `_inspect_compat.short_names`: if an Inspect release moves
those internals, loading the plugin warns in one line and the short names are missing, while
every `mad_tasks/<name>` works as before.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from inspect_ai.util import registry_info

from ._inspect_compat import short_names

logger = logging.getLogger(__name__)

MOVED = (
    "mad_tasks: short names (--solver du_debate) are off with this Inspect version (its registry "
    "internals moved); use the namespaced names: --solver mad_tasks/du_debate"
)


def register_short_aliases(factories: list[Callable[..., Any]], kind: str = "solver") -> list[str]:
    """Register each factory of this `kind` (solver, scorer) under its unprefixed name; return the
    names registered."""
    registry = short_names()
    if registry is None:
        _warn_moved()
        return []
    registered = []
    for factory in factories:
        info = registry_info(factory)
        short = info.name.split("/", 1)[-1]  # mad_tasks/du_debate -> du_debate
        if registry.has(kind, short):
            continue  # never shadow a name Inspect or another package already holds

        @functools.wraps(factory)
        def alias(*args: Any, _factory: Callable[..., Any] = factory, **kwargs: Any) -> Any:
            return _factory(*args, **kwargs)

        registry.register(kind, alias, short)
        # created through the alias, the object is still labelled (and logged) as mad_tasks/<name>
        registry.label(alias, info)
        registered.append(short)
    return registered


@functools.cache
def _warn_moved() -> None:
    logger.warning(MOVED)
