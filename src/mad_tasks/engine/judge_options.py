"""The options the D3 judges share, checked before any model call: the court (jury, swap, retries,
generation), MORE's advocates and SAMRE's stop rule. `kind` ("solver", "scorer") is for the message."""

from __future__ import annotations

from typing import Any

from .methods.d3 import Jury, Swap
from .methods.more import AGGREGATIONS
from .options import (
    MAX_ADVOCATES,
    MAX_JURORS,
    MAX_RETRIES,
    MAX_ROUNDS,
    OptionError,
    boolean,
    generation,
    integer,
    number,
    one_of,
    optional,
)
from .protocols.d3 import STOPPING, SWAP_RESOLUTIONS, TIEBREAKS, StopRule

# stopping preset -> (window, min_rounds, eps) unless set explicitly
STOP_PRESETS = {"signed": (2, 2, 5.0), "code": (3, 3, 5.0)}


def court_options(
    kind: str,
    jurors: Any,
    personas: Any,
    tiebreak: Any,
    swap: Any,
    swap_resolution: Any,
    retries: Any,
    temperature: Any,
    max_tokens: Any,
) -> tuple[Jury, Swap]:
    """Check the options every D3 judge shares; `kind` ("solver", "scorer") is for the message."""
    odd = isinstance(jurors, int) and not isinstance(jurors, bool) and jurors % 2 == 1
    if not (odd and 1 <= jurors <= MAX_JURORS) and not (jurors == 0 and type(jurors) is int):
        raise OptionError(
            "jurors",
            jurors,
            f"0 (the judge's score decides alone) or an odd integer from 1 to {MAX_JURORS}",
            kind,
        )
    boolean("personas", personas, kind=kind)
    one_of("tiebreak", tiebreak, TIEBREAKS, kind=kind)
    boolean("swap", swap, kind=kind)
    one_of("swap_resolution", swap_resolution, SWAP_RESOLUTIONS, kind=kind)
    integer("retries", retries, 0, MAX_RETRIES, kind=kind)
    generation(temperature, max_tokens, kind=kind)
    return Jury(jurors, personas, tiebreak), Swap(swap, swap_resolution)


def more_options(kind: str, advocates: Any, aggregation: Any) -> None:
    integer("advocates", advocates, 1, MAX_ADVOCATES, kind=kind)
    one_of("aggregation", aggregation, AGGREGATIONS, kind=kind)


def stop_rule(
    kind: str,
    max_rounds: Any,
    stopping: Any,
    eps: Any,
    window: Any,
    min_rounds: Any,
    decisive_gap: Any,
    token_budget: Any,
) -> StopRule:
    """SAMRE's stop rule; window, min_rounds and eps default to the chosen preset's values."""
    integer("max_rounds", max_rounds, 1, MAX_ROUNDS, kind=kind)
    one_of("stopping", stopping, STOPPING, kind=kind)
    preset = "the preset's value"
    window = optional(integer, "window", window, 2, MAX_ROUNDS, null=preset, kind=kind)
    min_rounds = optional(integer, "min_rounds", min_rounds, 1, MAX_ROUNDS, null=preset, kind=kind)
    eps = optional(number, "eps", eps, 0, above=True, null=preset, kind=kind)
    optional(number, "decisive_gap", decisive_gap, 0, above=True, kind=kind)
    optional(integer, "token_budget", token_budget, 1, kind=kind)
    default_window, default_min_rounds, default_eps = STOP_PRESETS[stopping]
    return StopRule(
        max_rounds,
        stopping,
        default_window if window is None else window,
        default_min_rounds if min_rounds is None else min_rounds,
        default_eps if eps is None else eps,
        decisive_gap,
        token_budget,
    )
