"""Answer formats: how to ask for a final answer, find it in messy model text, normalise and render it.

Every format asks for a last line `ANSWER: ...`. Extraction prefers the last such line, then a few
explicit phrasings ("the answer is ...", unless they report another's answer), then a
format-specific fallback; a value stated but refused there ends the search. Nothing is guessed: text
with no recognisable answer, an answer stated with doubt, a refusal, a condition or as a bound
(`qualifiers.py`: one rule for every format), or an absurd value gives None, which callers retry
and finally record as an abstention.

Model output is adversarial input: every reader here runs in linear time (no pattern can backtrack
over a long run: quantifiers are possessive or bounded, and line patterns stay within their line)
and never raises.
"""

from __future__ import annotations

import re
import string
from abc import ABC, abstractmethod
from dataclasses import dataclass
from decimal import Context, Decimal

from . import latex
from .qualifiers import bounded, doubted, plain_after, plain_value, qualified

FORMATS = ("choice", "yesno", "number", "text", "math")
MAX_DIGITS = latex.MAX_DIGITS  # a longer number is no answer (int() refuses over 4,300 digits)
MAX_ANSWER_CHARS = 1000  # a longer statement is no final answer (and costs every check its length)
# Decimal's default context rounds to 28 digits: two different long answers would read alike
_EXACT = Context(prec=MAX_DIGITS)

# decoration within a line: any run of non-word characters and underscores ("**", "__", "> ")
DECORATION = r"[^\w\n]*+(?:_++[^\w\n]*+)*+"
# a line "ANSWER: ...", "**Final answer** = ...": decoration, the word, decoration, then : or =
_MARKER = re.compile(
    rf"(?im)^{DECORATION}(?:final[^\S\n]++)?answer[^\w\n:=]*+(?:_++[^\w\n:=]*+)*+[:=]"
    r"(?P<rest>[^\n]*)"
)
_PHRASE = re.compile(r"(?i)\banswer[^\S\n]++(?:is|would[^\S\n]++be)\b[^\S\n]*+:?(?P<rest>[^\n]*)")
_NEXT_LINE = re.compile(r"\S[^\n]*")
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
# a question mark right after a box: "\boxed{32}?" is asked, not stated
_ASKED = re.compile(r"[ \t$*]*+\?")
# reported speech just before "answer is": the answer another agent or solution gave ("One other
# solution suggests the answer is 45", "Agent 2's answer is 45"), not the reply's own
_REPORTED = re.compile(
    r"(?i)(?:\b(?:(?:suggest|claim|state|argue|propose|assert|insist|report|maintain|contend"
    r"|believe)(?:s|e?d)?|says?|said|thinks?|thought)[^\S\n]++(?:that[^\S\n]++)?(?:the[^\S\n]++)?"
    r"|\w['’]s[^\S\n]++|\b(?:their|his|her|your)[^\S\n]++)(?:final[^\S\n]++)?\Z"
)
REPORT_WINDOW = 60  # characters before "answer" that can hold reported speech
_DIGIT = re.compile(r"[0-9]")
# a number as written: digits with commas and points in any order, validated by _WELL_FORMED
_NUMBER = re.compile(r"(?:(?<!\w)-)?\.?[0-9][0-9.,]*")
_WELL_FORMED = re.compile(r"-?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)?(?:\.[0-9]+)?")
# saying one does not know
_NOT_KNOW = (
    r"unsure|not\s+sure|no\s+idea|it\s+depends|depends\s+on|(?:don[’']?t|do\s+not)\s+know"
    r"|(?:cannot|can[’']?t|can\s+not|unable\s+to)(?:\s+be)?\s+(?:determined?|tell|say|answer|known?)"
)
# a whole answer (lower case, no punctuation) that only says the model does not know; "maybe"
# alone may be an option's text, and "[UNKNOWN]" is SQuAD's no-answer, so neither is here
_NOT_KNOWING = re.compile(
    r"(?:(?:i|it|this|that)\s+(?:am\s+|is\s+)?|im\s+|its\s+)?"
    rf"(?:{_NOT_KNOW}|unclear|uncertain|undetermined|unknowable)"
    r"|no\s+answer(?:\s+can\s+be\s+(?:given|determined))?"
)


def _strip_decoration(s: str) -> str:
    return s.strip().strip("*_`\"' ").strip()


def _stated(text: str, m: re.Match[str]) -> str:
    """What a marker or phrase states: the rest of its line, else the next line with text
    ("Final answer:" as a heading)."""
    rest = _strip_decoration(m.group("rest"))
    if rest:
        return rest
    following = _NEXT_LINE.search(text, m.end())
    return _strip_decoration(following.group(0)) if following else ""


def lines_with(text: str, word: str) -> tuple[int, int]:
    """(start, end) of the shortest run of whole lines (line breaks included) that holds every
    occurrence of `word` (in lower case; found in any case), or (0, 0) if there is none. A
    line-anchored pattern need scan only there: trying every line start costs ~0.1 µs a line, a
    lower-case copy and two searches far less."""
    lowered = text.lower()
    if len(lowered) != len(text):  # some character changed length: positions would not match
        return 0, len(text)
    first, last = lowered.find(word), lowered.rfind(word)
    if first < 0:
        return 0, 0
    end = text.find("\n", last) + 1  # 0: the last line has no line break
    return text[:first].rfind("\n") + 1, end or len(text)


def _candidates(text: str) -> tuple[list[str], bool]:
    """The candidates, best first, and whether the reply has an ANSWER line."""
    # every marker and phrase holds "answer", so the lines with that word hold every match: the
    # span saves time, and searching the whole text instead would find the same
    span = lines_with(text, "answer")
    last = None
    for last in _MARKER.finditer(text, *span):  # pragma: no mutate (equivalent: see above)  # noqa: B007 (keeps the last match)
        pass
    if last is not None:
        found = [_stated(text, last)]
    else:
        # a box followed by "?" keeps it: the value was asked, not stated
        boxes = _BOXED.finditer(text)
        found = [m.group(1) + ("?" if _ASKED.match(text, m.end()) else "") for m in boxes][::-1]
        phrases = _PHRASE.finditer(text, *span)  # pragma: no mutate (equivalent: see above)
        found += [_stated(text, m) for m in phrases if not _reported(text, m.start())][::-1]
    cleaned = (_short(f) for f in found)
    return [c for c in cleaned if c and not _NOT_KNOWING.fullmatch(_norm_text(c))], last is not None


def _reported(text: str, start: int) -> bool:
    """Whether the "answer is" phrase at `start` reports another's answer."""
    return _REPORTED.search(text, max(0, start - REPORT_WINDOW), start) is not None


def _short(text: str | None) -> str | None:
    """The text without decoration, if it is short enough to be an answer; else None."""
    stripped = _strip_decoration(text or "")
    return stripped if len(stripped) <= MAX_ANSWER_CHARS else None


def without_answer_lines(text: str) -> str:
    """The text with every ANSWER line emptied (what another reader sees of a reply)."""
    start, end = lines_with(text, "answer")
    return text[:start] + _MARKER.sub("", text[start:end]) + text[end:]


def answer_candidates(text: str) -> list[str]:
    """Where a final answer may stand: the last ANSWER line alone when there is one (earlier ones
    may answer questions a rambling model invented), else boxed results and explicit phrases.
    A candidate that only says the model does not know is dropped."""
    return _candidates(text)[0]


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

    def stated(self, candidate: str) -> bool:
        """Whether a candidate that `parse` refused still states a value of this format (a
        range, a bound, a hedged number): then it is the reply's answer, and unreadable."""
        return False

    def extract(self, text: str) -> str | None:
        candidates, marked = _candidates(text)
        for candidate in candidates:
            answer = self.parse(candidate)
            if answer is not None:
                return answer
            if self.stated(candidate):
                return None  # a refused last value: an earlier one is no longer the answer
        # an ANSWER line that cannot be read is the reply's answer: nothing else overrides it
        return None if marked else self.fallback(text)

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
    # the word stands alone: at the end or before punctuation ("No, because ..."), never before
    # another word ("No idea", "No answer", "Yes and no") or a slash ("yes/no")
    _WORD = re.compile(r"(?i)\W*+(yes|no|true|false)[^\S\n]*+(?:$|[.,;:!)(*_\"'\-–—])")

    def instruction(self) -> str:  # pragma: no mutate block (wording)
        return 'End your reply with a last line of the form "ANSWER: yes" or "ANSWER: no".'

    def parse(self, candidate: str) -> str | None:
        m = self._WORD.match(candidate)
        if not m or qualified(candidate) or not plain_after(candidate[m.end(1) :]):
            return None
        return "yes" if m.group(1).lower() in ("yes", "true") else "no"

    def fallback(self, text: str) -> str | None:
        # a reply whose first line opens with a standalone yes/no states its answer
        first = _short(m.group(0)) if (m := _NEXT_LINE.search(text)) else None
        return self.parse(first) if first else None


# a letter alone, as a choice is asked for: "C", "(C)", "C)"
_LETTER_ALONE = re.compile(r"\(?[A-Z]\)?")


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
        # "B", "(B)", "B." alone, or a letter that opens an option or a reason: "B) ...",
        # "(B) ...", "B. ...", "B, since ..."
        m = re.fullmatch(r"\(?([A-Za-z])[).:\]]?", c) or re.match(
            r"\(?([A-Z])(?:[).:\]](?=\s)|(?=[,;]))", c
        )
        if m and m.group(1).upper() in self.letters:
            letter = m.group(1).upper()
            # the option's own text may hold any word ("maybe", "if"): the rest is read without it
            option = self.options[self.letters.index(letter)].casefold()
            rest = c[m.end() :]
            read = rest.casefold().replace(option, " ", 1)  # pragma: no mutate (unmarked)
            unqualified = not qualified(read)
            return letter if unqualified and plain_after(rest) else None
        said = _norm_text(c)
        for letter, option in zip(self.letters, self.options):
            if said == _norm_text(option):
                return letter
        return None

    def fallback(self, text: str) -> str | None:
        # the closing line decides: a letter alone ("(C)", "**C.**") in a reply of any length; in
        # a short reply, any reading of its last line before its opening ("(A) looks right, but
        # ...\n(C) Rome": the reply changed its mind)
        closing = _strip_decoration(text.rstrip().rpartition("\n")[2]).rstrip(".")
        if _LETTER_ALONE.fullmatch(closing):
            return self.parse(closing)
        short = _short(text)
        return (self.parse(closing) or self.parse(short)) if short else None

    def describe(self, answer: str) -> str:
        idx = self.letters.index(answer)
        return f"{answer}) {self.options[idx]}"


class Number(AnswerFormat):
    name = "number"

    def instruction(self) -> str:  # pragma: no mutate block (wording)
        return (
            'End your reply with a last line of the form "ANSWER: N", where N is a number '
            "(digits only, no units)."
        )

    def parse(self, candidate: str) -> str | None:
        # "3 + 4 = 7": the result; ">= 7", "<= 7" and "!= 7" are bounds; a Unicode minus is a minus
        before, _, after = candidate.rpartition("=")
        if qualified(candidate) or before.endswith(("<", ">", "!")):
            return None
        text = after.replace("$", "").replace("−", "-")
        m = _NUMBER.search(text)
        if m is None:
            return None
        # a full stop or a comma after the number ends it
        raw = m.group(0).rstrip(".,")  # pragma: no mutate (equivalent: _NUMBER takes no other char)
        end = m.start() + len(raw)
        if not plain_value(text, m.start(), end):
            return None
        return normalise_number(raw)

    def stated(self, candidate: str) -> bool:
        # a number or a qualification: "12-14", "not 19", "about 19", "19?"
        return _DIGIT.search(candidate) is not None or qualified(candidate)

    def fallback(self, text: str) -> str | None:
        # only a reply whose last line is a bare number; "step 2 ... I can't decide" is no answer
        return normalise_number(text.rstrip().rpartition("\n")[2].replace("$", ""))


class FreeText(AnswerFormat):
    name = "text"

    def instruction(self) -> str:  # pragma: no mutate block (wording)
        return (
            'End your reply with a last line of the form "ANSWER: <your answer>", giving only '
            "the answer itself."
        )

    def parse(self, candidate: str) -> str | None:
        if doubted(candidate):
            return None
        cleaned = " ".join(candidate.split()).rstrip(".")
        return cleaned or None

    def key(self, answer: str) -> str:
        return _norm_text(answer)


class Math(AnswerFormat):
    """A competition-math result (a number or a LaTeX expression), compared by its normal form."""

    name = "math"

    def instruction(self) -> str:  # pragma: no mutate block (wording)
        return (
            'End your reply with a last line of the form "ANSWER: <result>", where <result> is '
            "only the final result, a number or a LaTeX expression in simplest form."
        )

    def parse(self, candidate: str) -> str | None:
        # a digit other than 0-9 (Arabic-Indic, full-width): the number format reads none, so a
        # result holding one is unreadable here too (a superscript ² is no decimal digit)
        if doubted(candidate) or any(c.isdecimal() and not c.isascii() for c in candidate):
            return None
        result = latex.strip_math(candidate)
        # a negated, approximate or bounded result is none ("not 19", "\approx 19", "19?")
        return latex.read_result(result) if result and not bounded(result) else None

    def stated(self, candidate: str) -> bool:
        # any candidate but a template echoed from the prompt ("\boxed{answer}")
        return not latex.template(latex.strip_math(candidate))

    def fallback(self, text: str) -> str | None:
        # a boxed result anywhere in the reply, nested braces included; "\boxed{...}?" is asked
        content, end = latex.last_box(text)
        boxed = _short(content)
        return self.parse(boxed) if boxed and not _ASKED.match(text, end) else None

    def key(self, answer: str) -> str:
        return latex.normalise(answer)


def normalise_number(raw: str) -> str | None:
    """One spelling of a number ("1,234.50" -> "1234.5"), or None unless it is digits with at most
    one decimal point and commas only between groups of three ("2,5" is ambiguous), at most
    MAX_DIGITS digits in all."""
    s = raw.strip().rstrip(".")
    # a quick refusal of a long line; the digit count below refuses all it does
    if len(s) > 2 * MAX_DIGITS:  # pragma: no mutate (equivalent: see the comment above)
        return None
    if not _WELL_FORMED.fullmatch(s):
        return None
    digits = len(s) - s.count(",") - s.count(".") - s.startswith("-")
    if not 0 < digits <= MAX_DIGITS:
        return None
    value = Decimal(s.replace(",", ""))
    if value == value.to_integral_value():
        return str(int(value))
    value = value.normalize(_EXACT)  # without trailing zeros, every digit kept
    return format(value, "f")  # pragma: no mutate (equivalent: "F" differs only for inf and NaN)


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
    if len(t.split(maxsplit=1)) == 1 and YesNo().parse(t) is not None:
        return "yesno"
    if normalise_number(t.replace("$", "")) is not None:
        return "number"
    return "text"
