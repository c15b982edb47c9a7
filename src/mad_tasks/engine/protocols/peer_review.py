"""The reader of a peer review's confidence (PRD, Xu et al. 2023): reviewers rate their confidence
in their feedback from 1 to 10 on a line `CONFIDENCE: n`."""

from __future__ import annotations

import re

from ..qualifiers import plain_value, qualified

LOWEST, HIGHEST = 1, 10
_DECORATION = " \t*#_>-`"  # markdown around a line's label: "**Confidence:** 8", "- Confidence"
# the score opens the statement (after markup; a sign is no markup): one or two digits, and an
# optional "/10" or "out of 10"
_SCORE = re.compile(r"[ \t*_`'\"(]*+([0-9]++)(?:[ \t]*+(?:/|out[ \t]++of)[ \t]*+([0-9]++))?")


def review_confidence(text: str) -> int | None:
    """The confidence of the last `CONFIDENCE: n` (or `= n`, `n/10`, `n out of 10`) line, an
    integer from 1 to 10; None when no such line exists or the last one holds anything else: a
    sign, a long number, another scale ("10/100"), a fraction, a range or a list ("7.5", "7-8",
    "3e9"), a value stated with doubt, a refusal, a condition or as a bound (`qualifiers.py`).

    Linear in the text: one pass over its lines, string methods and bounded patterns only."""
    for line in reversed(text.splitlines()):
        head = line.strip(_DECORATION).lower()
        if not head.startswith("confidence"):
            continue
        rest = head[len("confidence") :]
        marks = [i for i in (rest.find(":"), rest.find("=")) if i >= 0]
        if not marks:
            continue  # prose opening with the word, not the stated line
        statement = rest[min(marks) + 1 :]
        m = _SCORE.match(statement)
        if (
            m is None
            or len(m[1]) > 2
            or m[2] not in (None, str(HIGHEST))
            or qualified(statement)
            or not plain_value(statement, m.start(1), m.end())
        ):
            return None
        n = int(m[1])
        return n if LOWEST <= n <= HIGHEST else None
    return None
