"""How an OpenAI eval writes the answers it compares, so that a completion function answers in the
case and form of the eval's `ideal` (docs/openai-evals.md, "What the completion is").

evals' `Match` checks `completion.startswith(ideal)` with no normalisation at all (no case folding,
no stripping), so `Yes` never matches an ideal `yes`, nor `B` an ideal `(B)`. A completion function
never sees the ideal; for the formats whose answers are fixed words (yes/no, option letters) it
writes them as the eval shows them to the model, the first of:

1. the `answer_case` argument, when it is not `auto` (`lower`, `upper` or `capitalized`);
2. the eval's few-shot examples (evals' `example_assistant` turns, which are other samples'
   ideals): the assistant turns that are one answer alone (`yes`, `(b)`, `No.`) give its case and
   the marks around it, when all such turns agree;
3. the eval's instruction, for yes/no: the two words named together ("yes or no", "Yes/No",
   `'YES' or 'NO'`), each such pair in one case and every pair in the same;
4. else the format's own spelling: `Yes`/`No`, an upper-case letter.

Every reader here is linear in the prompt's length (bounded patterns) and never raises.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..engine.answers import AnswerFormat, Choice, YesNo

CASES = ("auto", "lower", "upper", "capitalized")
WRITE: dict[str, Callable[[str], str]] = {
    "lower": str.lower,
    "upper": str.upper,
    "capitalized": str.capitalize,
}

# an example turn that is one answer alone: a few marks, the word, a few marks ("(b)", "Yes.")
_ALONE = re.compile(r"([^\w\s]{0,3})([A-Za-z]{1,3})([^\w\s]{0,3})")
# "yes" and "no" named together: a few marks between them, or "or"/"and" with a few marks around;
# the second word is looked ahead at, so it may open the next pair ("yes, yes or no")
_NAMED = re.compile(
    r"(?i)(?<![a-z])(yes|no)(?![a-z])"
    r"(?=[^a-z\n]{0,4}(?:(?:or|and)(?![a-z])[^a-z\n]{0,4})?(yes|no)(?![a-z]))"
)


@dataclass(frozen=True)
class Spelling:
    """How an answer word is written: its `case` and the marks `before` and `after` it; `source`
    says where that was read (`answer_case`, `examples`, `instruction` or `default`)."""

    case: str
    source: str
    before: str = ""
    after: str = ""

    def write(self, answer: str) -> str:
        return f"{self.before}{WRITE[self.case](answer)}{self.after}"


def case_of(word: str) -> str | None:
    """`lower`, `upper` (a single capital letter too) or `capitalized`; None for a mixed case."""
    if word.islower():
        return "lower"
    if word.isupper():
        return "upper"
    if word[:1].isupper() and word[1:].islower():
        return "capitalized"
    return None


def _example(fmt: YesNo | Choice, text: str) -> Spelling | None:
    """The spelling of an example turn that is one answer of `fmt` alone; None for any other."""
    m = _ALONE.fullmatch(text.strip())
    if m is None:
        return None
    before, word, after = m.groups()
    if isinstance(fmt, YesNo) and word.lower() not in ("yes", "no"):
        return None
    if isinstance(fmt, Choice) and word.upper() not in fmt.letters:
        return None
    case = case_of(word)
    return None if case is None else Spelling(case, "examples", before, after)


def named_case(instruction: str) -> str | None:
    """The case in which the text names yes and no together; None when it never does, or names
    them in mixed or different cases."""
    cases = set()
    for m in _NAMED.finditer(instruction):
        first, second = m.group(1), m.group(2)
        if first.lower() != second.lower() and case_of(first) == case_of(second):
            cases.add(case_of(first))
    return cases.pop() if len(cases) == 1 else None


def spelling(
    fmt: AnswerFormat, case: str, examples: Sequence[str], instruction: str
) -> Spelling | None:
    """How to write an answer of `fmt` for an eval that shows the model the assistant turns
    `examples` and the text `instruction` (its system and user messages), with the argument
    `answer_case` = `case`; None for a format whose answers have no fixed words (number, text,
    math: written as read)."""
    if not isinstance(fmt, (YesNo, Choice)):
        return None
    if case != "auto":
        return Spelling(case, "answer_case")
    shown = {s for s in (_example(fmt, e) for e in examples) if s is not None}
    if len(shown) == 1:
        return shown.pop()
    if isinstance(fmt, YesNo) and (named := named_case(instruction)) is not None:
        return Spelling(named, "instruction")
    return Spelling("capitalized" if isinstance(fmt, YesNo) else "upper", "default")
