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


def _balanced(depth: int) -> str:
    """A {...} group with up to `depth` levels of braces; possessive, so it never backtracks."""
    inner = "[^{}]*+" if depth == 1 else f"(?:[^{{}}]++|{_balanced(depth - 1)})*+"
    return rf"\{{{inner}\}}"


_GROUP = re.compile(_balanced(MAX_NESTING))


def last_boxed(text: str) -> str | None:
    """The content of the last \\boxed{...} or \\fbox{...} (braces balanced, at most MAX_NESTING
    deep), or of `\\boxed 5`."""
    box = None
    for box in _BOX.finditer(text):  # noqa: B007 (the loop keeps the last match)
        pass
    if box is None:
        return None
    i = box.end()
    if not text.startswith("{", i):
        # "\boxed 5": the box holds the next token
        token = _TOKEN.match(text, i)
        return (token.group(0).rstrip("$.") or None) if box.group(1) and token else None
    group = _GROUP.match(text, i)
    return group.group(0)[1:-1].strip() if group else None  # unbalanced: no answer


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
