"""Reading a stated confidence out of a reply (`CONFIDENCE: 0.85`, `85%`, `85/100`), and the reply
without it. CortexDebate asks every answer for one; RECONCILE, PRD's reviews and on_demand's
verbalized trigger read them the same way, and CortexDebate's prompted similarity reads a
`SIMILARITY:` line by the same grammar (`parse_stated`)."""

from __future__ import annotations

import functools
import math
import re

from .answers import DECORATION, lines_with
from .qualifiers import plain_value, qualified


@functools.cache
def _stated_line(label: str) -> re.Pattern[str]:
    """A line "CONFIDENCE: ...", "**Confidence score** = ..." (`label` a lower-case word) with its
    line break; linear: no part of the pattern can backtrack or run past the line."""
    return re.compile(
        rf"(?im)^{DECORATION}{label}(?:[^\S\n]++score)?[^\w\n:=]*+(?:_++[^\w\n:=]*+)*+[:=]"
        r"([^\n]*)\n?"
    )


_CONFIDENCE_LINE = _stated_line("confidence")
# the value opens the statement (after markup such as "**" or "("): a number, then "%" or
# "/ denominator"; a sign is no markup, so "-0.2" is no confidence
_CONFIDENCE_VALUE = re.compile(
    r"[ \t*_`'\"(]*+(?P<number>[0-9]++(?:\.[0-9]++)?|\.[0-9]++)"
    r"(?:[^\S\n]*+(?P<percent>%)|[^\S\n]*+/[^\S\n]*+(?P<denominator>[0-9]++(?:\.[0-9]++)?))?"
)


def parse_confidence(text: str) -> float | None:
    """The confidence the last `CONFIDENCE:` line states (`parse_stated`)."""
    return parse_stated(text, "confidence")


def parse_stated(text: str, label: str) -> float | None:
    """The value the last `<label>:` line states, in [0, 1]: "0.85", "85%", "85" and "85/100"
    all give 0.85.

    The grammar: a number from 0 to 1; a percentage from 0 to 100 ("85%"; A13: a bare number
    above 1 and up to 100 is one too); a fraction no greater than 1 ("85/100"). Anything else is
    unreadable, never clamped into range: a value out of range, a sign, a range or a list
    ("0.8-0.9"), a value stated with doubt, a refusal or a condition ("maybe 0.9", "0.9?") or as a
    bound ("about 0.9", "0.9+": `qualifiers.py`). None when the last line is unreadable or there
    is none (the caller uses a neutral 0.5 and records it as missing).
    """
    last = None
    span = lines_with(text, label)  # the lines that can hold the pattern: the same result
    line = _stated_line(label)
    for last in line.finditer(text, *span):  # pragma: no mutate (equivalent: see above)  # noqa: B007
        pass
    if last is None:
        return None
    statement = last[1]
    m = _CONFIDENCE_VALUE.match(statement)
    if m is None or qualified(statement) or not plain_value(statement, m.start("number"), m.end()):
        return None
    x = float(m["number"])  # float() takes any number of digits: a huge one is inf, refused
    if not math.isfinite(x):
        return None
    if m["denominator"] is not None:
        denominator = float(m["denominator"])
        return x / denominator if denominator > 0 and x <= denominator else None
    if m["percent"] is not None or x > 1:  # A13: a bare number above 1 is a percentage
        return x / 100 if x <= 100 else None
    return x


def without_confidence(text: str) -> str:
    """The output minus its confidence lines (A5/A7: what neighbours read and what is embedded)."""
    start, end = lines_with(text, "confidence")
    kept = text[:start] + _CONFIDENCE_LINE.sub("", text[start:end]) + text[end:]
    return "\n".join(kept.splitlines())
