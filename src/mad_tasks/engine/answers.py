"""Answer formats: how to ask for a final answer, find it in messy model text, normalise and render it.

Every format asks for a last line `ANSWER: ...`. Extraction prefers the last such line, then a few
explicit phrasings ("the answer is ..."), then a format-specific fallback. Nothing is guessed: text
with no recognisable answer gives None, which callers retry and finally record as an abstention.
"""

from __future__ import annotations

import re
import string
from abc import ABC, abstractmethod
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from . import latex

FORMATS = ("choice", "yesno", "number", "text", "math")

_MARKER = re.compile(r"(?im)^[\W_]*(?:final\s+)?answer[\W_]*?\s*[:=]\s*(.+?)\s*$")
_PHRASE = re.compile(r"(?i)\b(?:the\s+)?(?:final\s+)?answer\s+(?:is|would\s+be)\s*:?\s*([^\n]+)")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")


def _strip_decoration(s: str) -> str:
    return s.strip().strip("*_`\"' ").strip()


def answer_candidates(text: str) -> list[str]:
    """Where a final answer may stand: the last ANSWER line alone when there is one (earlier ones
    may answer questions a rambling model invented), else boxed results and explicit phrases."""
    markers = [m.group(1) for m in _MARKER.finditer(text)]
    if markers:
        found = markers[-1:]
    else:
        found = [m.group(1) for m in _BOXED.finditer(text)][::-1]
        found += [m.group(1) for m in _PHRASE.finditer(text)][::-1]
    return [c for c in (_strip_decoration(f) for f in found) if c]


class AnswerFormat(ABC):
    name: str

    @abstractmethod
    def instruction(self) -> str:
        """The sentence that tells a model how to state its final answer."""

    @abstractmethod
    def parse(self, candidate: str) -> str | None:
        """Normalise one candidate string, or None if it is not an answer of this format."""

    def fallback(self, text: str) -> str | None:
        """A last look at the whole text when no marked answer parsed."""
        return None

    def extract(self, text: str) -> str | None:
        for candidate in answer_candidates(text):
            answer = self.parse(candidate)
            if answer is not None:
                return answer
        return self.fallback(text)

    def key(self, answer: str) -> str:
        """What two answers must share to count as the same vote."""
        return answer

    def render(self, answer: str) -> str:
        return f"ANSWER: {answer}"

    def describe(self, answer: str) -> str:
        """The answer as a reader sees it (a choice shows its option text)."""
        return answer


class YesNo(AnswerFormat):
    name = "yesno"
    _WORD = re.compile(r"(?i)^\W*(yes|no|true|false)\b")

    def instruction(self) -> str:
        return 'End your reply with a last line of the form "ANSWER: yes" or "ANSWER: no".'

    def parse(self, candidate: str) -> str | None:
        m = self._WORD.match(candidate)
        if not m:
            return None
        return "yes" if m.group(1).lower() in ("yes", "true") else "no"

    def fallback(self, text: str) -> str | None:
        # a reply that is, or opens with, a bare yes/no ("No, because ...") states its answer;
        # "No idea ..." does not
        m = re.match(r"(?i)^\W*(yes|no|true|false)\s*(?:[.,;:!]|$)", text.strip())
        return self.parse(m.group(1)) if m else None


@dataclass(frozen=True)
class Choice(AnswerFormat):
    options: tuple[str, ...]
    name = "choice"

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple(string.ascii_uppercase[: len(self.options)])

    def instruction(self) -> str:
        return (
            'End your reply with a last line of the form "ANSWER: X", where X is one of the '
            f"letters {', '.join(self.letters)}."
        )

    def parse(self, candidate: str) -> str | None:
        c = candidate.strip().rstrip(".")
        # "B", "(B)", "B." alone, or a letter that opens an option: "B) ...", "(B) ...", "B. ..."
        m = re.fullmatch(r"\(?([A-Za-z])[).:\]]?", c) or re.match(r"\(?([A-Z])[).:\]]\s", c + " ")
        if m and m.group(1).upper() in self.letters:
            return m.group(1).upper()
        for letter, option in zip(self.letters, self.options):
            if _norm_text(c) == _norm_text(option):
                return letter
        return None

    def fallback(self, text: str) -> str | None:
        return self.parse(text)

    def describe(self, answer: str) -> str:
        idx = self.letters.index(answer)
        return f"{answer}) {self.options[idx]}"


class Number(AnswerFormat):
    name = "number"

    def instruction(self) -> str:
        return (
            'End your reply with a last line of the form "ANSWER: N", where N is a number '
            "(digits only, no units)."
        )

    def parse(self, candidate: str) -> str | None:
        m = _NUMBER.search(candidate.replace("$", ""))
        return normalise_number(m.group(0)) if m else None

    def fallback(self, text: str) -> str | None:
        # only a reply whose last line is a bare number; "step 2 ... I can't decide" is no answer
        lines = [line for line in text.strip().splitlines() if line.strip()]
        last = lines[-1].strip().replace("$", "").rstrip(".") if lines else ""
        return normalise_number(last) if _NUMBER.fullmatch(last) else None


class FreeText(AnswerFormat):
    name = "text"

    def instruction(self) -> str:
        return (
            'End your reply with a last line of the form "ANSWER: <your answer>", giving only '
            "the answer itself."
        )

    def parse(self, candidate: str) -> str | None:
        cleaned = " ".join(candidate.split()).rstrip(".")
        return cleaned or None

    def key(self, answer: str) -> str:
        return _norm_text(answer)


class Math(AnswerFormat):
    """A competition-math result (a number or a LaTeX expression), compared by its normal form."""

    name = "math"

    def instruction(self) -> str:
        return (
            'End your reply with a last line of the form "ANSWER: <result>", where <result> is '
            "only the final result, a number or a LaTeX expression in simplest form."
        )

    def parse(self, candidate: str) -> str | None:
        return latex.strip_math(candidate) or None

    def fallback(self, text: str) -> str | None:
        # a boxed result anywhere in the reply, nested braces included
        boxed = latex.last_boxed(text)
        return self.parse(boxed) if boxed else None

    def key(self, answer: str) -> str:
        return latex.normalise(answer)


def normalise_number(raw: str) -> str | None:
    try:
        value = Decimal(raw.replace(",", "").rstrip("."))
    except InvalidOperation:
        return None
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def _norm_text(s: str) -> str:
    s = s.casefold().strip()
    s = s.translate(str.maketrans("", "", string.punctuation))
    return " ".join(s.split())


def make_format(name: str, options: tuple[str, ...] = ()) -> AnswerFormat:
    if name == "choice":
        if not options:
            raise ValueError("answer format 'choice' needs the task's choices")
        return Choice(options)
    if name == "yesno":
        return YesNo()
    if name == "number":
        return Number()
    if name == "text":
        return FreeText()
    if name == "math":
        return Math()
    raise ValueError(f"unknown answer format {name!r}: use one of {', '.join(FORMATS)}")


def infer_format(target: str) -> str:
    """The format a free-form target implies: a number, yes/no, or any text."""
    t = target.strip()
    if YesNo().parse(t) is not None and len(t.split()) == 1:
        return "yesno"
    if _NUMBER.fullmatch(t.replace("$", "").strip()):
        return "number"
    return "text"


def format_from_instruction(text: str) -> AnswerFormat | None:
    """Recognise which format a prompt asks for (used by the simulated model)."""
    m = re.search(r"where X is one of the letters ([A-Z](?:, [A-Z])*)\.", text)
    if m:
        letters = m.group(1).split(", ")
        return Choice(tuple(letters))  # option texts are unknown here; letters suffice
    for fmt in (YesNo(), Number(), FreeText(), Math()):
        if fmt.instruction() in text:
            return fmt
    return None
