"""Option errors of scorer factories, in a form `inspect score` shows."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from inspect_ai.scorer import Scorer

from ..engine.options import Options, options_factory

O = TypeVar("O", bound=Options)


class ScorerOptionError(Exception):
    """A bad scorer option. Not a ValueError on purpose: `inspect score` reports a ValueError raised
    by a scorer factory as "couldn't be loaded" and drops its message."""


@contextmanager
def scorer_options() -> Iterator[None]:
    """Re-raise the option checks' ValueError (an `OptionError`) as a `ScorerOptionError`."""
    try:
        yield
    except ValueError as e:
        raise ScorerOptionError(str(e)) from None


def takes(cls: type[O], **preset: Any) -> Callable[[Callable[[O], Scorer]], Callable[..., Scorer]]:
    """`@takes(Options)` over `build(options) -> Scorer`: the scorer's `-S` options are the fields
    of the options object, checked by making it; a bad one raises `ScorerOptionError`."""
    return lambda build: options_factory(
        cls, build, "scorer", error=lambda e: ScorerOptionError(str(e)), **preset
    )
