"""Reading a stated confidence out of a reply (`CONFIDENCE: 0.85`, `85%`, `85/100`), and the reply
without it. CortexDebate asks every answer for one; RECONCILE, PRD's reviews and on_demand's
verbalized trigger read them the same way."""

from __future__ import annotations

import math
import re

from .answers import DECORATION, lines_with

# a line "CONFIDENCE: ...", "**Confidence score** = ..." with its line break; linear: no part of
# the pattern can backtrack or run past the line
_CONFIDENCE_LINE = re.compile(
    rf"(?im)^{DECORATION}confidence(?:[^\S\n]++score)?[^\w\n:=]*+(?:_++[^\w\n:=]*+)*+[:=]"
    r"([^\n]*)\n?"
)
_CONFIDENCE_VALUE = re.compile(
    r"(-?[0-9]++(?:\.[0-9]++)?|-?\.[0-9]++)[^\S\n]*+(?:(%)|/[^\S\n]*+([0-9]++(?:\.[0-9]++)?))?"
)


def parse_confidence(text: str) -> float | None:
    """The last stated confidence in [0, 1]: "0.85", "85%", "85" and "85/100" all give 0.85.

    A13: a value above 1 and up to 100 is a percentage; anything else is clamped to [0, 1]. No
    readable value gives None (the caller uses a neutral 0.5 and records it as missing).
    """
    lines = _CONFIDENCE_LINE.finditer(text, *lines_with(text, "confidence"))
    stated = [v for m in lines if (v := _CONFIDENCE_VALUE.search(m[1]))]
    if not stated:
        return None
    number, percent, denominator = stated[-1].groups()
    x = float(number)  # float() takes any number of digits (a huge one is inf, then clamped)
    if denominator and float(denominator) > 0:
        x /= float(denominator)
    elif percent or 1 < x <= 100:
        x /= 100
    return None if math.isnan(x) else min(max(x, 0.0), 1.0)  # NaN: a huge x over a huge y


def without_confidence(text: str) -> str:
    """The output minus its confidence lines (A5/A7: what neighbours read and what is embedded)."""
    start, end = lines_with(text, "confidence")
    kept = text[:start] + _CONFIDENCE_LINE.sub("", text[start:end]) + text[end:]
    return "\n".join(kept.splitlines())
