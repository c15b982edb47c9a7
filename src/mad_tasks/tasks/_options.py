"""A task's `-T` options, all checked: Inspect runs a task without an option it does not take, with
a warning line; a task of this package refuses it by name before any download or call."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from inspect_ai import Task

from ..engine.checks import OptionError

F = TypeVar("F", bound=Callable[..., Task])


def only_its_options(factory: F) -> F:
    """`factory` with a `**unknown` that Inspect passes every `-T` option to, refused unless the
    factory takes it (under `@task`, which registers what this returns)."""
    signature = inspect.signature(factory)
    names = list(signature.parameters)

    @functools.wraps(factory)
    def checked(*args: Any, **options: Any) -> Task:
        unknown = [name for name in options if name not in names]
        if unknown:
            allowed = f"no such option ({factory.__name__} takes {', '.join(names)})"
            raise OptionError(unknown[0], options[unknown[0]], allowed, "task")
        return factory(*args, **options)

    rest = inspect.Parameter("unknown", inspect.Parameter.VAR_KEYWORD)
    checked.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), rest]
    )
    return checked  # type: ignore[return-value]
