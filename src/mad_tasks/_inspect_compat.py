"""Every private Inspect import of this package, in one place: what Inspect's public API lacks.

No other module imports `inspect_ai._...` or `inspect_ai.<pkg>._...`. Each accessor imports the
internal when called and degrades, as its docstring says, when an Inspect release has moved it:
a neutral value, or (the short solver names) a one-line warning at load time; never an error, so
an upgrade of Inspect costs at most those features. tests/test_inspect_compat.py checks that each
accessor reaches Inspect on the installed version and simulates each move;
scripts/test-newest-inspect.sh runs the tests against the newest Inspect that pip resolves.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspect_ai.model import GenerateConfig
from inspect_ai.util import RegistryInfo

if TYPE_CHECKING:
    from inspect_ai.solver import TaskState

logger = logging.getLogger(__name__)


def task_name() -> str | None:
    """The name of the task whose sample is running, for messages. None outside a sample, and when
    Inspect's internals moved: a message then says "this task"."""
    try:
        from inspect_ai.log._samples import sample_active

        active = sample_active()
        return str(active.task) if active is not None else None
    except (ImportError, AttributeError):
        return None


def scoring_elapsed(solver_time: float) -> float | None:
    """Seconds since the running sample's scoring began, while Inspect scores it: Inspect then
    shows the limits as they were when the solver ended, and scores within half the time limit.
    Read as the sample's running time less the `solver_time` its solver used. None while the
    solver runs, outside a sample, and when Inspect's internals moved (a scorer's calls then see
    the time left at the solver's end)."""
    try:
        from inspect_ai.log._samples import sample_active
        from inspect_ai.util._limit import _sample_limit_data
    except ImportError:
        return None
    active = sample_active()
    if active is None or _sample_limit_data.get() is None:
        return None
    return max(0.0, float(active.running_time) - solver_time)


def sample_state() -> TaskState | None:
    """The running sample's state: the simulated model reads its target and its epoch. None outside
    a sample, and when Inspect's internals moved: the simulator then draws as in epoch 0 (every
    epoch the same replies) and knows only the gold answers of its `answers=` file, so it abstains
    on a question it cannot place and flips a coin over a judged pair."""
    try:
        from inspect_ai.solver._task_state import sample_state as running
    except ImportError:
        return None
    return running()


def sandbox_names() -> list[str] | None:
    """The names of the running sample's sandbox environments ([] without any); None when
    Inspect's internals moved, so that no tool is refused for want of a sandbox it may have."""
    try:
        from inspect_ai.util._sandbox.context import sandbox_environments_context_var
    except ImportError:
        return None
    return list(sandbox_environments_context_var.get({}) or {})


def task_scorer_names() -> list[str] | None:
    """The names the running sample's task scores under (its scorers' unique names, as Inspect
    gives them; [] for a task without scorers): a solver must not write a score of such a name
    (Inspect then refuses the scorer). None when Inspect's internals moved: the solvers then
    write their figures as `mad_tasks/<name>`, a name no task scorer has."""
    try:
        from inspect_ai.scorer._score import _scorers
        from inspect_ai.scorer._scorer import unique_scorer_name
    except ImportError:
        return None
    names: list[str] = []
    for each in _scorers.get(None) or []:
        names.append(unique_scorer_name(each, names))
    return names


def active_generate_config() -> GenerateConfig:
    """The eval's generation settings (`--temperature`, `--seed`, `--cache`, ...). An empty
    `GenerateConfig()` when Inspect's internals moved: the main model still gets the eval's
    settings from Inspect, but role models get only their own, agents' seeds derive only from a
    model's own seed, and the debate calls are not cached (a warning says so, once)."""
    try:
        from inspect_ai.model._generate_config import active_generate_config as active
    except ImportError:
        _warn_settings_lost()
        return GenerateConfig()
    return active()


def quiet_store() -> contextlib.AbstractContextManager[None]:
    """Inspect's suspension of store tracking for the spans opened inside it. Each span otherwise
    copies the whole store as it begins and as it ends, to log what changed within it; a debate
    opens a few spans per call and changes the store only after them, so the copies are pure cost
    (a tenth of a millisecond and more a span). The enclosing span opened before it (the solver's,
    a tool call's) still logs the net change once. A no-op when Inspect moved it: spans then copy
    the store as before."""
    try:
        from inspect_ai.util._store import suspend_store_events
    except ImportError:
        return contextlib.nullcontext()
    return suspend_store_events()


@functools.cache
def _warn_settings_lost() -> None:
    """Once per process: a lost cache and seeds must not go unnoticed."""
    logger.warning(
        "mad_tasks: this Inspect version moved active_generate_config; debate calls of role models "
        "run without the eval's settings (--cache, --seed, --temperature, ...)"
    )


@dataclass(frozen=True)
class ShortNames:
    """Inspect's registry calls that the short solver and scorer names need (no public API
    registers a package's object without its `package/` prefix)."""

    has: Callable[[str, str], bool]  # (kind, name): already taken (by Inspect or any package)
    register: Callable[[str, Callable[..., Any], str], Any]  # (kind, factory, name as given)
    label: Callable[[object, RegistryInfo], Any]  # set the registry info an object carries


def short_names() -> ShortNames | None:
    """Inspect's solver and scorer registry calls; None when Inspect's internals moved: the short
    names (`--solver voting`, a figure's unprefixed score name) are then not registered,
    `_aliases.register_short_aliases` warns once in one line, and every namespaced name
    (`--solver mad_tasks/voting`, `mad_tasks/calls`) works as before."""
    try:
        from inspect_ai._util.registry import registry_has, set_registry_info
        from inspect_ai.scorer._scorer import scorer_register
        from inspect_ai.solver._solver import solver_register
    except ImportError:
        return None
    registers: dict[str, Callable[..., Any]] = {
        "solver": solver_register,
        "scorer": scorer_register,
    }
    return ShortNames(
        has=lambda kind, name: registry_has(kind, name),  # type: ignore[arg-type]
        register=lambda kind, factory, name: registers[kind](factory, name),
        label=set_registry_info,
    )


def registered(kind: str, name: str) -> bool | None:
    """Whether Inspect's registry holds a task, solver or scorer of this name (loading the
    package that namespaces it, as Inspect does); None when its internals moved: the caller then
    skips the check, and building the object refuses an unknown name as before."""
    try:
        from inspect_ai._util.registry import registry_lookup
    except ImportError:
        return None
    return registry_lookup(kind, name) is not None  # type: ignore[arg-type]
