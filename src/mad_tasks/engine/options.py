"""Option checks for every solver, scorer and task: typed, ranged, capped, and named in the error.

Values reach the factories from the command line already parsed as YAML (`-S agents=three` is the
string 'three', `-S swap=maybe` the string 'maybe', `-S match_debate=0x2` the integer 2), or from
Python as anything at all, so every check tests the type as well as the value. Each checker returns
the value or raises `OptionError`, whose message names the option, the value and what is allowed:
`invalid solver option 'agents': got 'three', allowed: an integer from 1 to 32`. The factories call
them, so a bad value stops the eval before its first model call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .embeddings import EMBEDDERS

T = TypeVar("T")

# Caps on the counts that multiply a sample's model calls (README, "Option checks and limits").
# Each is well above every paper's default and ablation, but finite: a typo must not run a sample
# until it is killed.
MAX_AGENTS = 32  # papers: 3 to 5; the agent sweep of "Voting or Consensus?" goes to 10
MAX_ROUNDS = 20  # Du et al. 2; CortexDebate D = 5; SAMRE R_max = 5 (its code: 7)
MAX_TURNS = 50  # "Voting or Consensus?": 5; its vote-turn sweep (1 to 10) needs up to 12
MAX_SAMPLES = MAX_AGENTS * MAX_ROUNDS  # self_consistency may match the largest du_debate
MAX_RETRIES = 10  # follow-ups for an unreadable reply (default 2; MALLM's personas: 5)
MAX_VOTE_RETRIES = 20  # MALLM: 10
MAX_ADVOCATES = 10  # D3's k = 3
MAX_JURORS = 15  # D3: 5; its jury ablation goes to 7
MAX_POINTS = 1000  # cumulative voting budget (paper: 10)
MAX_TEMPERATURE = 2.0  # the widest range the major providers accept (OpenAI, Gemini)
MAX_TOKENS = 1_000_000  # per call; a provider refuses what its model cannot produce
MAX_HASHING_DIMENSIONS = 65536  # `hashing/N` embeds into N dimensions (default 1024)


class OptionError(ValueError):
    """A bad option value. `kind` says what takes it: a solver, a scorer or a task."""

    def __init__(self, option: str, value: Any, allowed: str, kind: str = "solver") -> None:
        self.option, self.value, self.allowed, self.kind = option, value, allowed, kind
        super().__init__(
            f"invalid {kind} option '{option}': got {shown(value)}, allowed: {allowed}"
        )

    def __reduce__(self) -> tuple[Any, ...]:  # picklable despite the custom signature
        return OptionError, (self.option, self.value, self.allowed, self.kind)

    def also(self, more: str) -> OptionError:
        """The same error with `more` added to what is allowed (`, or full`)."""
        return OptionError(self.option, self.value, self.allowed + more, self.kind)


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
    option: str, value: Any, low: int | None, high: int | None = None, *, kind: str = "solver"
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
    kind: str = "solver",
) -> float:
    """A finite int or float (not a bool) >= low (> low with `above`) and <= high."""
    ok = _is_int(value) or (isinstance(value, float) and math.isfinite(value))
    if ok and low is not None:
        ok = value > low if above else value >= low
    if ok and high is not None:
        ok = value <= high
    if ok:
        return float(value)
    raise OptionError(option, value, _bounds("a number", low, high, above), kind)


def boolean(option: str, value: Any, *, kind: str = "solver") -> bool:
    """Exactly true or false: `maybe`, 1 or "false" (a string) are not read as a truth value."""
    if isinstance(value, bool):
        return value
    raise OptionError(option, value, "true or false", kind)


def one_of(option: str, value: Any, allowed: Sequence[str], *, kind: str = "solver") -> str:
    if isinstance(value, str) and value in allowed:
        return value
    raise OptionError(option, value, ", ".join(allowed), kind)


def text(option: str, value: Any, *, kind: str = "solver") -> str:
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


def generation(temperature: Any, max_tokens: Any, *, kind: str = "solver") -> None:
    """The sampling settings every model-calling solver and scorer passes on to its calls."""
    optional(number, "temperature", temperature, 0, MAX_TEMPERATURE, kind=kind)
    optional(integer, "max_tokens", max_tokens, 1, MAX_TOKENS, kind=kind)


def embedder_spec(option: str, value: Any, *, kind: str = "solver") -> str:
    """`hashing[/dimensions]`, `sentence-transformers[/model]` or `openai[/model]`."""
    name, _, model = value.partition("/") if isinstance(value, str) else ("", "", "")
    if name == "hashing":
        ok = not model or (
            model.isascii()
            and model.isdigit()
            and len(model) <= 9
            and 1 <= int(model) <= MAX_HASHING_DIMENSIONS
        )
    else:
        ok = name in EMBEDDERS
    if ok:
        return value
    raise OptionError(
        option,
        value,
        f"hashing[/DIMENSIONS from 1 to {MAX_HASHING_DIMENSIONS}], "
        + ", ".join(f"{e}[/MODEL]" for e in EMBEDDERS if e != "hashing"),
        kind,
    )
