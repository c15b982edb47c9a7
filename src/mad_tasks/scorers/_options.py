"""Option errors of scorer factories, in a form `inspect score` shows."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


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
