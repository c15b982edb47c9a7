"""What makes a stated value no value, in every reader (answers of every format, confidences).

One rule, read from the statement (the rest of an `ANSWER:` or `CONFIDENCE:` line, or a phrase's):

1. **Marks anywhere**: a statement holding doubt ("maybe", "I think", "not sure", "?"), a refusal
   ("I won't help", "sorry"), or a condition ("if", "unless", "depending") states no value, even
   inside its reason: the value was given with that qualification.
2. **The value's own words**: a number, a confidence or a score written as a bound or an
   approximation ("under 73", ">73", "73 or so", "circa 73", "73-ish", "73+") is no value. Its own
   words are what precedes it and what follows it up to the first punctuation: a reason after
   that ("73, because under 80 were sold") may use any of these words. Nor is a number joined to
   another (`joined`): a range, a list, a fraction, an expression or an exponent ("5-10",
   "5 or 6", "3/4", "3 x 4", "1e5", "7,5").
3. **Shape** (`plain_after`, for the answers that are one word or letter: yes/no, a choice): what
   follows the answer is nothing, punctuation, a parenthesis, or a new sentence, or, after a comma
   or a semicolon, a reason opening with a connective ("No, because ...", "C, since ..."). Any
   other words after a comma ("yes, I guess", "C, the capital") qualify the answer, whatever they
   say, so a hedge nobody listed is still no answer.

Every pattern is a bounded alternation of words and symbols, tried once per position: linear in the
text, and no reader here raises.
"""

from __future__ import annotations

import re

_NOT = r"(?:not|n[’']t)"
# doubt: words and phrases that say the value is a guess, and a question mark
DOUBT = (
    r"maybe|perhaps|possibly|probably|likely|unlikely|presumably|apparently|seemingly|seems?"
    r"|might|could\s++be|guess(?:ing)?|unsure|uncertain|unclear|or\s++not"
    rf"|{_NOT}\s++(?:entirely\s++|completely\s++|totally\s++|100%\s++)?(?:sure|certain|confident)"
    r"|i\s++(?:would\s++|[’']d\s++)?(?:think|believe|suppose|reckon|assume|feel|say|imagine|bet)"
    r"|i[’']d\s++say|no\s++idea|(?:don[’']?t|do\s++not)\s++know|hard\s++to\s++(?:say|tell)"
    r"|(?:cannot|can[’']?t|can\s++not|unable\s++to)\s++(?:be\s++)?"
    r"(?:sure|certain|determined?|tell|say|known?)"
)
# a refusal: an apology, or declining to answer, help or comply
REFUSAL = (
    r"sorry|apologi[sz]e|refuse|decline"
    r"|(?:won[’']?t|will\s++not|cannot|can[’']?t|can\s++not|unable\s++to|not\s++able\s++to)\s++"
    r"(?:help|answer|assist|comply|provide|respond|do\s++that|engage|share)"
    r"|as\s++an\s++ai"
)
# a condition: the value holds only in some case
CONDITION = r"if|unless|assuming|provided|depending|depends|except|in\s++case|only\s++when"
_MARKS = re.compile(rf"(?i)\b(?:{DOUBT}|{REFUSAL}|{CONDITION})\b|\?")
# the words of doubt and refusal alone: what a free-text answer or a math result is read for (a
# title may hold "if" or "?", an expression "<")
_DOUBT_OR_REFUSAL = re.compile(rf"(?i)\b(?:{DOUBT}|{REFUSAL})\b")
# a negation, an approximation or a bound, in the value's own words ("not 19", "close to 19")
NEGATION = r"not|never"
APPROXIMATION = (
    r"about|around|approx(?:imately)?|roughly|circa|ca|nearly|near|almost|close\s++to|somewhere"
    r"|est(?:imated?)?|estimate"
)
LIMIT = (
    r"between|at\s++(?:least|most)|(?:more|less|fewer|greater|higher|lower)\s++than|over|under"
    r"|above|below|up\s++to|within"
)
# words that qualify a value after it ("73 or so"); "odd", "some" and "several" only in a
# number's own words (a math result may be `odd`)
AFTER = r"ish|or\s++(?:so|more|less|fewer|above|below|higher|lower)|give\s++or\s++take"
BOUND = rf"{NEGATION}|{APPROXIMATION}|{LIMIT}|{AFTER}|odd|some|several"
# LaTeX relations that make a value a bound or an approximation (`\approx 19`, `\geq 19`)
RELATION = r"\\(?:approx|sim|simeq|geq?|leq?|gtrsim|lesssim|neq?)(?![A-Za-z])"
_BOUND = re.compile(rf"(?i)\b(?:{BOUND})\b|[~≈±<>≤≥+]|{RELATION}|\\(?:pm|mp)(?![A-Za-z])")
# a math result that opens with a negation, an approximation or a bound, or ends with one or a
# "?" (a result is an expression: "x > 5" and "1 \pm \sqrt{2}" are results, "> 5" is not)
_OPENS_BOUNDED = re.compile(
    rf"(?i)\s*+(?:(?:{NEGATION}|{APPROXIMATION}|{LIMIT})\b|[~≈<>≤≥]|{RELATION})"
)
_ENDS_BOUNDED = re.compile(rf"(?i)(?:\b(?:{APPROXIMATION}|{LIMIT}|{AFTER})|[+?])\Z")
_CLOSING = " \t\n.,;:!)]}*_'\"`$"
# what joins a number to another into a range, a list, a fraction, an expression, an exponent or
# a decimal the value did not take: "5-10", "5 or 6", "3/4", "3 x 4", "1e5", "7,5"
_JOINED = re.compile(r"\s*+(?:[-–—+*×x/÷^:,.e]|to\b|or\b|and\b)\s*+-?\.?[0-9]", re.IGNORECASE)
# what opens a reason after a comma or a semicolon; markup may close the word ("__because__")
_CONNECTIVE = re.compile(
    r"(?i)[^\w\n]*+(?:because|since|as|given|due|so|hence|thus|therefore|for|which|considering"
    r"|owing|being|but|and\s++(?:so|thus|therefore|hence))(?!_*+[^\W_])"
)
# the end of a value's own words: punctuation that opens a reason or a new sentence
_CLAUSE_END = re.compile(r"[,;:(\n]|[.!](?:\s|$)")
# an aside in parentheses within the line
_ASIDE = re.compile(r"\([^()\n]*+\)?")


def qualified(statement: str) -> bool:
    """Whether the statement holds doubt, a refusal or a condition anywhere (rule 1)."""
    return _MARKS.search(statement) is not None


def doubted(statement: str) -> bool:
    """Whether the statement holds a word of doubt or a refusal anywhere (rule 1 without
    conditions and question marks, for free text and math results)."""
    return _DOUBT_OR_REFUSAL.search(statement) is not None


def bounded(result: str) -> bool:
    """Whether a math result is stated as a negation, an approximation or a bound: its opening
    or its last words ("not 19", "\\approx 19", ">= 19", "19 (approx.)", "19 or so", "32?")."""
    # the last words before the closing marks; 40 characters hold any of them (and keep it linear)
    tail = result.rstrip(_CLOSING)[-40:]  # pragma: no mutate (equivalent: see above)
    return _OPENS_BOUNDED.match(result) is not None or _ENDS_BOUNDED.search(tail) is not None


def plain_value(statement: str, start: int, end: int) -> bool:
    """Whether the number at `statement[start:end]` is stated plainly: joined to no other number,
    no bound or approximation in its own words (rule 2), and after them nothing, a new sentence
    or a reason (rule 3)."""
    if _JOINED.match(statement, end):
        return False
    after = _CLAUSE_END.search(statement, end)
    cut = after.start() if after else len(statement)
    own = statement[:start] + " " + statement[end:cut]  # pragma: no mutate (equivalent: unmarked)
    aside = _ASIDE.match(statement, cut)  # "19 (approx.)": an aside right after it is its own
    own += aside.group(0) if aside else ""
    return _BOUND.search(own) is None and plain_after(statement[cut:])


def plain_after(rest: str) -> bool:
    """Whether what follows a one-word answer leaves it plain (rule 3)."""
    text = rest.strip(" \t*_`\"'")
    if text[:1] not in (",", ";"):
        return True  # nothing, or other punctuation: a sentence, an aside, an option's text
    clause = text[1:].strip(" \t*_`\"'")
    return not clause or _CONNECTIVE.match(clause) is not None
