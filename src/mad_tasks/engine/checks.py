"""Checks of one option value: typed, ranged, and named in the error.

Values reach the factories from the command line already parsed as YAML (`-S agents=three` is the
string 'three', `-S swap=maybe` the string 'maybe', `-S match_debate=0x2` the integer 2), or from
Python as anything at all, so every check tests the type as well as the value. Each checker returns
the value or raises `OptionError`, whose message names the option, the value and what is allowed:
`invalid solver option 'agents': got 'three', allowed: an integer from 1 to 32`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


class OptionError(ValueError):
    """A bad option value. `kind` says what takes it (a solver, a scorer or a task); the engine
    raises it without one, and the factory that took the value names itself (`OptionsOf`)."""

    def __init__(self, option: str, value: Any, allowed: str, kind: str = "") -> None:
        self.option, self.value, self.allowed, self.kind = option, value, allowed, kind
        what = f"{kind} option" if kind else "option"
        super().__init__(f"invalid {what} '{option}': got {shown(value)}, allowed: {allowed}")

    def __reduce__(self) -> tuple[Any, ...]:  # picklable despite the custom signature
        return OptionError, (self.option, self.value, self.allowed, self.kind)

    def also(self, more: str) -> OptionError:
        """The same error with `more` added to what is allowed (`, or full`)."""
        return OptionError(self.option, self.value, self.allowed + more, self.kind)

    def of(self, kind: str) -> OptionError:
        """The same error, naming what took the option."""
        return OptionError(self.option, self.value, self.allowed, kind)


def shown(value: Any) -> str:
    """The value as the message shows it: its repr, shortened."""
    try:
        written = repr(value)
    except ValueError:  # an int beyond Python's digit limit for str()
        written = f"an integer of {value.bit_length()} bits"
    return written if len(written) <= 80 else written[:77] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # True is an int in Python


def _bounds(what: str, low: float | None, high: float | None, above: bool = False) -> str:
    def num(x: float) -> str:
        return str(x) if isinstance(x, int) else f"{x:g}"  # 2.0 as 2, 1000000 as itself

    if low is not None and high is not None:
        if above:
            return f"{what} > {num(low)} and <= {num(high)}"
        return f"{what} from {num(low)} to {num(high)}"
    if low is not None:
        return f"{what} {'>' if above else '>='} {num(low)}"
    return what if high is None else f"{what} <= {num(high)}"


def integer(
    option: str, value: Any, low: int | None, high: int | None = None, *, kind: str = ""
) -> int:
    """An int (not a bool, not a float) with low <= value <= high."""
    if _is_int(value) and (low is None or value >= low) and (high is None or value <= high):
        return int(value)
    raise OptionError(option, value, _bounds("an integer", low, high), kind)


def number(
    option: str,
    value: Any,
    low: float | None,
    high: float | None = None,
    *,
    above: bool = False,
    kind: str = "",
) -> float:
    """A finite int or float (not a bool) >= low (> low with `above`) and <= high."""
    ok = _is_int(value) or (isinstance(value, float) and math.isfinite(value))
    if ok and low is not None:
        ok = value > low if above else value >= low
    if ok and high is not None:
        ok = value <= high
    if ok:
        try:
            return float(value)
        except OverflowError:  # an int past any float (309 digits or more): no such number here
            pass
    raise OptionError(option, value, _bounds("a number", low, high, above), kind)


def boolean(option: str, value: Any, *, kind: str = "") -> bool:
    """Exactly true or false: `maybe`, 1 or "false" (a string) are not read as a truth value."""
    if isinstance(value, bool):
        return value
    raise OptionError(option, value, "true or false", kind)


def one_of(option: str, value: Any, allowed: Sequence[str], *, kind: str = "") -> str:
    if isinstance(value, str) and value in allowed:
        return value
    raise OptionError(option, value, ", ".join(allowed), kind)


def text(option: str, value: Any, *, kind: str = "") -> str:
    """A non-empty string."""
    if isinstance(value, str) and value.strip():
        return value
    raise OptionError(option, value, "a non-empty string", kind)


def optional(
    check: Callable[..., T],
    option: str,
    value: Any,
    *args: Any,
    null: str = "unset",
    **kwargs: Any,
) -> T | None:
    """`check`, or None (YAML `null`) for an option that may be left unset; `null` says in the
    message what leaving it unset means."""
    if value is None:
        return None
    try:
        return check(option, value, *args, **kwargs)
    except OptionError as e:
        raise e.also(f", or null ({null})") from None
