"""Final answers of competition mathematics (MATH): find them in LaTeX and normalise them.

Two answers are equivalent when their normal forms are equal. The normal form follows the usual
MATH answer check (Hendrycks et al.'s `is_equiv`): drop the box, dollar signs, \\left/\\right,
spacing commands, degree and percent signs, units written as trailing text, a short "x =" prefix
and spaces; write \\dfrac/\\tfrac as \\frac and restore braces in \\frac12 and \\sqrt3. On top of
that, every plain rational number is written one way (0.5, 1/2, \\frac{2}{4} -> \\frac{1}{2}), since
those are equal values. No expression is evaluated beyond that: nothing here guesses.
"""

from __future__ import annotations

import re
from fractions import Fraction

_BOX = re.compile(r"\\(?:boxed|fbox)(\s*)")
_SPACING = ("\\!", "\\,", "\\;", "\\:", "\\ ", "~")
_TEXT = re.compile(r"\\(?:text|textbf|textrm|mbox|mathrm)\{([^{}]*)\}")
_INTEGER = r"-?\d+"
_RATIONAL = re.compile(
    rf"(?P<int>{_INTEGER})"
    r"|(?P<dec>-?\d*\.\d+)"
    rf"|(?P<sign>-?)\\frac\{{(?P<num>{_INTEGER})\}}\{{(?P<den>{_INTEGER})\}}"
    rf"|(?P<a>{_INTEGER})/(?P<b>{_INTEGER})"
)
_THOUSANDS = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_TOKEN = re.compile(r"\S+")
MAX_DIGITS = 100  # a longer number is compared as written, not as a value
MAX_NESTING = 8  # braces inside a box deeper than this are no readable answer
SENTENCE_WORDS = 4  # a result with this many words (of two letters or more) is a sentence
_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}+")  # a word, not a LaTeX command
_DIGIT = re.compile(r"[0-9]")
# a prompt's placeholder echoed: "answer", "<result>", "[your final answer]", "..."
_TEMPLATE = re.compile(
    r"(?i)[<\[(]?+\s*+(?:(?:your|the|my|final)\s++)*+(?:answer|result)s?+\s*+[>\])]?+|\.{3}|…"
)
# arithmetic on numbers only: what "30 * 3 = 90" holds before its last "=" (a chain included)
_ARITHMETIC = re.compile(r"(?:[0-9\s.,+\-*/×÷()^{}=]|\\(?:times|cdot|div|[dt]?frac))*+")
# a number followed by one to three unit words: "48 calories", "12 square feet"
_UNITS = re.compile(
    r"(?P<number>-?[0-9][0-9,]*+(?:\.[0-9]++)?)[^\S\n]++(?P<words>(?:[A-Za-z]{2,}+[^\S\n]*+){1,3})"
)
# words after a number that change its value or join it to another: no units
_NOT_UNITS = frozenset((
    "hundred", "thousand", "million", "billion", "trillion", "dozen", "squared", "cubed",
    "factorial", "pi", "times", "plus", "minus", "and", "or", "to", "over", "of",
))  # fmt: skip


def _balanced(depth: int) -> str:
    """A {...} group with up to `depth` levels of braces; possessive, so it never backtracks."""
    inner = "[^{}]*+" if depth == 1 else f"(?:[^{{}}]++|{_balanced(depth - 1)})*+"
    return rf"\{{{inner}\}}"


_GROUP = re.compile(_balanced(MAX_NESTING))


def last_boxed(text: str) -> str | None:
    """The content of the last \\boxed{...} or \\fbox{...} (braces balanced, at most MAX_NESTING
    deep), or of `\\boxed 5`."""
    return last_box(text)[0]


def last_box(text: str) -> tuple[str | None, int]:
    """The content of the last box (`last_boxed`) and where the box ends (0 without one)."""
    box = None
    for box in _BOX.finditer(text):  # noqa: B007 (the loop keeps the last match)
        pass
    if box is None:
        return None, 0
    i = box.end()
    if not text.startswith("{", i):
        # "\boxed 5": the box holds the next token
        token = _TOKEN.match(text, i)
        if not (box.group(1) and token):
            return None, 0
        return token.group(0).rstrip("$.") or None, token.end()
    group = _GROUP.match(text, i)
    return (group.group(0)[1:-1].strip(), group.end()) if group else (None, 0)  # unbalanced


def template(result: str) -> bool:
    """Whether a result only echoes a prompt's template ("answer", "<result>", "your answer")."""
    return _TEMPLATE.fullmatch(_TEXT.sub(r"\1", result)) is not None


def read_result(result: str) -> str | None:
    """A stated math result as an answer: the value after "=" of plain arithmetic ("30 * 3 = 90"
    is 90), a number without the unit words after it ("48 calories" is 48); None for a template
    echo or a sentence ("After the purchase, Joe will have no money left over.")."""
    if template(result) or len(_WORD.findall(_TEXT.sub(r"\1", result))) >= SENTENCE_WORDS:
        return None
    lhs, _, rhs = result.rpartition("=")
    if _ARITHMETIC.fullmatch(lhs) and _DIGIT.search(lhs) and rhs.strip():
        result = rhs.strip()
    units = _UNITS.fullmatch(result)
    if units and not _NOT_UNITS.intersection(units["words"].lower().split()):
        return units["number"]
    return result


def strip_math(answer: str) -> str:
    """The answer without what surrounds it in prose: box, dollar signs (math delimiters and the
    currency sign \\$), \\( \\), a final period."""
    s = answer.strip()
    if _BOX.search(s):
        s = last_boxed(s) or ""
    for delimiter in ("\\$", "$", "\\(", "\\)", "\\[", "\\]"):
        s = s.replace(delimiter, "")
    return s.strip().rstrip(".").strip()


def normalise(answer: str) -> str:
    """The normal form two equivalent MATH answers share (see the module docstring)."""
    s = strip_math(answer).replace("\n", "")
    for spacing in _SPACING:
        s = s.replace(spacing, "")
    s = s.replace("\\\\", "\\").replace("tfrac", "frac").replace("dfrac", "frac")
    s = s.replace("\\left", "").replace("\\right", "")
    for degree in ("^{\\circ}", "^\\circ", "°"):
        s = s.replace(degree, "")
    s = s.replace("\\%", "").replace("%", "")
    s = s.split("\\text{ ")[0]  # units: "5\text{ cm}" -> "5"
    s = _TEXT.sub(r"\1", s)
    if s.startswith("."):
        s = "0" + s
    s = s.replace(" .", " 0.").replace("{.", "{0.")
    s = s.replace(" ", "")
    if s.count("=") == 1:
        lhs, rhs = s.split("=")
        if len(lhs) <= 2:
            s = rhs  # "x = 5" -> "5", "k=2" -> "2"
    s = re.sub(r"\\sqrt(\w)", r"\\sqrt{\1}", s)
    s = _fix_fracs(s)
    if _THOUSANDS.fullmatch(s):
        s = s.replace(",", "")
    return _rational(s) or s


def equivalent(a: str, b: str) -> bool:
    return normalise(a) == normalise(b)


def _fix_fracs(s: str) -> str:
    r"""\frac12 -> \frac{1}{2}, \frac1{72} -> \frac{1}{72}, \frac{3}4 -> \frac{3}{4}."""
    s = re.sub(r"\\frac(\d)(\d)", r"\\frac{\1}{\2}", s)
    s = re.sub(r"\\frac(\d)\{", r"\\frac{\1}{", s)
    return re.sub(r"\\frac(\{[^{}]*\})(\d)", r"\\frac\1{\2}", s)


def _rational(s: str) -> str | None:
    """One spelling of a plain rational number: an integer, or \\frac{p}{q} in lowest terms."""
    m = _RATIONAL.fullmatch(s)
    if m is None or any(len(g) > MAX_DIGITS for g in m.groups() if g):
        return None
    if m["int"] is not None:
        value = Fraction(int(m["int"]))
    elif m["dec"] is not None:
        value = Fraction(m["dec"])
    else:
        num, den = (m["num"], m["den"]) if m["num"] is not None else (m["a"], m["b"])
        if int(den) == 0:
            return None
        value = Fraction(int(num), int(den))
        if m["sign"]:
            value = -value
    if value.denominator == 1:
        return str(value.numerator)
    magnitude = abs(value)
    sign = "" if magnitude == value else "-"
    return f"{sign}\\frac{{{magnitude.numerator}}}{{{magnitude.denominator}}}"
