"""The reader of a peer review's confidence (PRD, Xu et al. 2023): reviewers rate their confidence
in their feedback from 1 to 10 on a line `CONFIDENCE: n`."""

from __future__ import annotations

LOWEST, HIGHEST = 1, 10
_DECORATION = " \t*#_>-`"  # markdown around a line's label: "**Confidence:** 8"


def review_confidence(text: str) -> int | None:
    """The confidence of the last `CONFIDENCE: n` (or `= n`, `n/10`) line, an integer from 1 to 10;
    None when no such line exists or the last one holds anything else (a hedge, 11, 7.5).

    Linear in the text: one pass over its lines, string methods only."""
    for line in reversed(text.splitlines()):
        head = line.strip(_DECORATION).lower()
        if not head.startswith("confidence"):
            continue
        rest = head[len("confidence") :]
        marks = [i for i in (rest.find(":"), rest.find("=")) if i >= 0]
        if not marks:
            continue  # prose opening with the word, not the stated line
        value = rest[min(marks) + 1 :].strip(_DECORATION)
        digits = len(value) - len(value.lstrip("0123456789"))
        after = value[digits : digits + 2]
        if not 1 <= digits <= 2 or (after[:1] in (".", ",") and after[1:].isdigit()):
            return None  # no number, a long one, or a fraction such as 7.5
        n = int(value[:digits])
        return n if LOWEST <= n <= HIGHEST else None
    return None
