"""Readers of the answer forms the papers' own code asks for, and the formats that ask for them.

The project asks every model for one last line `ANSWER: ...` (answers.py). The authors' code asks
for its own forms, and reads them its own way:

- a single score in double brackets, `Rating: [[8]]` (MT-Bench's judge, FastChat): `read_rating`;
- a pairwise verdict, `[[A]]`, `[[B]]` or `[[C]]` for a tie (the same judge): `read_verdict`;
- a confidence in a tag, `<confidence>85</confidence>`: `read_confidence_tag`;
- a boxed result, `\\boxed{42}` (Du et al.'s GSM), and a letter in parentheses, `(B)` (their
  MMLU): the formats `boxed` and `letter`, which `-S answer_form=authors` asks for;
- the flat JSON object (or Python dict) of Liang et al.'s MAD moderator and judge, with
  "Whether there is a preference", "Supported Side", "Reason" and the answer: `read_fields`,
  `moderator_side`;
- ReConcile's JSON object of "reasoning", "answer" and "confidence_level" (dinobby/ReConcile's
  `utils.py`): the format `answer_object`, whose confidence `stated_confidence` reads;
- ChatEval's two closing lines, `The score of Assistant 1: 8` and `The score of Assistant 2: 6`
  (thunlp/ChatEval's `llm_eval` prompts): `read_assistant_scores`, the format `assistant_scores`;
- MALLM's `Final Solution: ...` (Kaesberg et al.'s decision protocols): `read_final_solution`, the
  format `final_solution`.

Each reader keeps the authors' reading where it is sound and abstains (None) where it is not: a
mark given as an example, reported from another agent ("B says (C)"), negated ("not (C)"), stated
with doubt or a condition (qualifiers.py), or joined to another mark ("[[8]] or [[9]]"). Model
output is adversarial input: every reader runs in linear time (each mark is judged from a bounded
window around it) and never raises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from itertools import islice

from . import latex
from .answers import MAX_ANSWER_CHARS, AnswerFormat, Choice
from .protocols.d3 import TOTAL_MAX, TOTAL_MIN, JudgeScores
from .qualifiers import CONDITION, DOUBT, bounded, qualified

WINDOW = 200  # characters either side of a mark that decide whether the reply states it
MAX_MARKS = 20  # marks judged in one reply: beyond, a reply that repeats marks is no plain answer
SCALE = (0.0, 10.0)  # MT-Bench's scores run from 1 to 10; a judge may give 0

_RATING = re.compile(r"\[\[([0-9]{1,3}(?:\.[0-9]{1,3})?)\]\]")
# FastChat's fallback `[N]`, here only when it stands alone on its line
_BARE_RATING = re.compile(r"(?m)^[^\S\n]*+\[([0-9]{1,3}(?:\.[0-9]{1,3})?)\][^\S\n]*+$")
_VERDICT = re.compile(r"\[\[([ABC])\]\]")
_CONFIDENCE_TAG = re.compile(r"(?i)<confidence>([^<]{0,40})</confidence>")
_CONFIDENCE_VALUE = re.compile(r"\s*+([0-9]{1,3}(?:\.[0-9]{1,6})?)\s*+(%?)\s*+")
_LETTER = re.compile(r"\(([A-Za-z])\)")

# where a sentence ends: a full stop, `!` or `?` before a space, or a line break
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
# what makes a mark someone else's or an example: reported speech, "for example"
_REPORTED = re.compile(
    r"(?i)\b(?:suggest(?:s|ed)?|says|said|claim(?:s|ed)?|argue(?:s|d)?|propose(?:s|d)?"
    r"|believes|believed|thinks|thought|chose|picked|answered|concluded|according\s++to"
    r"|for\s++example|e\.g\.|such\s++as)\b"
)
# a negation within the two words before a mark: "not (C)", "isn't [[8]]", "would not rate it"
_NEGATED = re.compile(
    r"(?i)(?:\b(?:not|never|rather\s++than|instead\s++of)|n[’']t)[^\w\n]++(?:\w++[^\w\n]++){0,2}$"
)
_JOINED_BEFORE = re.compile(r"(?i)\b(?:or|to|and)\s*+$|/\s*+$")
# a hedge or a condition opening the reason after a mark: "[[8]], if the code runs"
_HEDGED_REASON = re.compile(rf"[,;(]\s*+(?:{DOUBT}|{CONDITION})\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[,;(]")
# a mark joined to another into a range or a choice: "[[8]] or [[9]]", "(B) or (C)", "[[8]]-[[9]]"
_JOIN = re.compile(r"(?i)\s*+(?:or|to|and|/|-|–|—)\s*+[\[(]")


def _sentence(text: str, start: int, end: int) -> tuple[str, str]:
    """What precedes the mark in its sentence and what follows it, each within `WINDOW`."""
    lo = max(0, start - WINDOW)
    before = text[lo:start]
    last = None
    for last in _SENTENCE_END.finditer(before):  # noqa: B007 (keeps the last match)
        pass
    if last is not None:
        before = before[last.end() :]
    after = text[end : end + WINDOW]
    cut = _SENTENCE_END.search(after)
    return before, after[: cut.start()] if cut else after


def _states(text: str, start: int, end: int) -> bool | None:
    """Whether the reply states the mark at text[start:end] as its own: True; None when the mark
    is an example or another's (reported speech: read on); False when the reply states it with
    doubt, a condition or a negation, or joined to another mark (the reply abstains)."""
    before, after = _sentence(text, start, end)
    if _REPORTED.search(before):
        return None
    clause = _CLAUSE.search(after)
    own = before + " " + (after[: clause.start()] if clause else after)
    hedged_reason = clause is not None and _HEDGED_REASON.match(after, clause.start()) is not None
    if _NEGATED.search(before) or qualified(own) or hedged_reason or _JOIN.match(after):
        return False
    return _JOINED_BEFORE.search(before) is None


def read_rating(text: str, scale: tuple[float, float] = SCALE) -> float | None:
    """The score of a judge's reply: the first `[[N]]` the reply states (FastChat reads the first
    `[[N]]`; an example or another's score is passed over, at most `MAX_MARKS` of them), else a
    `[N]` alone on its line (FastChat's fallback reads any `[N]`, even `array[0]` in code); None
    when that mark is hedged, negated or joined to another, or out of `scale`."""
    for m in islice(_RATING.finditer(text), MAX_MARKS):
        states = _states(text, m.start(), m.end())
        if states is None:
            continue
        return _in_scale(m.group(1), scale) if states else None
    bare = None if _RATING.search(text) else _BARE_RATING.search(text)
    return _in_scale(bare.group(1), scale) if bare else None


def _in_scale(number: str, scale: tuple[float, float]) -> float | None:
    value = float(number)
    return (int(value) if value.is_integer() else value) if scale[0] <= value <= scale[1] else None


def read_verdict(text: str) -> str | None:
    """A pairwise verdict: "A", "B" or "tie" (`[[C]]`), from the last mark, which the reply must
    state (not hedged, negated, joined or another's). FastChat reads `[[A]]` wherever it stands,
    else `[[B]]`, else `[[C]]`; here a mark of another letter that the reply also states makes it
    abstain, and so do more than `MAX_MARKS` such marks to judge."""
    marks = list(_VERDICT.finditer(text))
    if not marks or not _states(text, marks[-1].start(), marks[-1].end()):
        return None
    verdict = marks[-1].group(1)
    others = [m for m in marks if m.group(1) != verdict]
    if len(others) > MAX_MARKS or any(_states(text, m.start(), m.end()) for m in others):
        return None
    return "tie" if verdict == "C" else verdict


def read_confidence_tag(text: str) -> float | None:
    """The confidence in the last `<confidence>...</confidence>`, in [0, 1]: "0.85", "85" and
    "85%" all give 0.85 (a bare number above 1 is a percentage); anything else, doubt or a bound
    included ("~85", "85?"), is None."""
    last = None
    for last in _CONFIDENCE_TAG.finditer(text):  # noqa: B007 (keeps the last match)
        pass
    return _confidence(last.group(1)) if last is not None else None


def _confidence(said: str) -> float | None:
    """A stated confidence in [0, 1] ("0.85", "85", "85%"); None for anything else."""
    if qualified(said):
        return None
    m = _CONFIDENCE_VALUE.fullmatch(said)
    if m is None:
        return None
    value = float(m.group(1))
    if m.group(2) or value > 1:
        return value / 100 if value <= 100 else None
    return value


def read_boxed(text: str, fmt: AnswerFormat) -> str | None:
    """The last `\\boxed{...}` of the reply read as an answer of `fmt` (a number, a math result);
    None when the reply has none, or when that last box is unreadable, hedged, negated or another
    agent's (no earlier box stands in for it)."""
    content = latex.last_boxed(text)
    if content is None:
        return None
    start = max(text.rfind("\\boxed"), text.rfind("\\fbox"))  # the box `last_boxed` read
    if _states(text, start, start) is not True:
        return None
    return fmt.parse(content)


def read_letter(text: str, fmt: Choice) -> str | None:
    """The last `(X)` of the reply whose letter is one of `fmt`'s (Du et al.'s parser reads the
    last `(X)`); None when there is none or that one is hedged, negated, another agent's, or
    listed beside another option's letter ("(A) or (B)", the options repeated)."""
    marks = [m for m in _LETTER.finditer(text) if m.group(1).upper() in fmt.letters]
    if not marks:
        return None
    last = marks[-1]
    before, after = _sentence(text, last.start(), last.end())
    near = {m.group(1).upper() for part in (before, after) for m in _LETTER.finditer(part)}
    if (near & set(fmt.letters)) - {last.group(1).upper()} or _states(
        text, last.start(), last.end()
    ) is not True:
        return None
    return last.group(1).upper()


# -- the MAD moderator's object -------------------------------------------------------------------

_STRING = re.compile(r"\"((?:[^\"\\\n]|\\.)*+)\"|'((?:[^'\\\n]|\\.)*+)'")
# a bare JSON number as a value (ReConcile's "confidence_level": 0.9), read as its text
_NUMBER = re.compile(r"(-?[0-9]{1,20}(?:\.[0-9]{1,20})?)(?![\w.])")
_OPEN = re.compile(r"\s*+(?:```(?:json|python)?\s*+)?\{\s*+")
_COLON = re.compile(r"\s*+:\s*+")
_COMMA = re.compile(r"\s*+,\s*+")
_CLOSE = re.compile(r"\s*+,?\s*+\}\s*+(?:```\s*+)?")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "/": "/"}
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)


def _unescape(raw: str) -> str:
    def one(m: re.Match[str]) -> str:
        code = m.group(1)
        if len(code) == 5:
            return chr(int(code[1:], 16))
        return _ESCAPES.get(code, "\\" + code)

    return _ESCAPE.sub(one, raw)


def read_fields(text: str, numbers: bool = False) -> dict[str, str] | None:
    """The reply as a flat object of string fields, in JSON or as a Python dict literal (MAD's
    moderator answers `{'Whether there is a preference': 'No', ...}`, which the authors' code
    `eval`s; nothing is evaluated here), optionally in a code fence; None unless the whole reply
    is one such object (text around it, a nested value, a repeated key or, unless `numbers`, a
    number: None). With `numbers` a value may be a bare number, read as its text."""
    m = _OPEN.match(text)
    if m is None:
        return None
    fields: dict[str, str] = {}
    i = m.end()
    while True:
        if _CLOSE.fullmatch(text, i):
            return fields or None
        if fields:
            comma = _COMMA.match(text, i)
            if comma is None:
                return None
            i = comma.end()
        key = _STRING.match(text, i)
        colon = _COLON.match(text, key.end()) if key else None
        value = _STRING.match(text, colon.end()) if colon else None
        if value is None and colon is not None and numbers:
            value = _NUMBER.match(text, colon.end())
        if key is None or value is None:
            return None
        name = _unescape(_quoted(key))
        if name in fields:
            return None
        fields[name] = _unescape(_quoted(value))
        i = value.end()


def _quoted(m: re.Match[str]) -> str:
    """A string's text, or a number's (`_NUMBER`'s one group)."""
    return m.group(1) if m.group(1) is not None else m.group(2)


def moderator_side(fields: dict[str, str]) -> str | None:
    """What a MAD moderator decided: the supported side when it states a preference ("Yes" and a
    side), "" when it states none ("No"); None for any other statement."""
    said = fields.get("Whether there is a preference")
    preference = said.strip().casefold() if said is not None else None
    side = fields.get("Supported Side", "").strip()
    if preference == "yes" and side and not qualified(side):
        return side
    return "" if preference == "no" else None


# -- the formats `-S answer_form=authors` asks for ------------------------------------------------


# a reply in a form, from its reasoning, its answer and its confidence (None: not asked)
Writer = Callable[[str, str, float | None], str]


class AuthorsFormat(AnswerFormat):
    """A task's answer format asked for and read in an authors' form: the answers, their votes
    and how they are shown stay those of the task's format (`inner`). `confidence` reads the
    confidence a reply states in the form, where the form holds one."""

    def __init__(
        self,
        inner: AnswerFormat,
        ask: str,
        read: Callable[[str], str | None],
        write: Writer,
        confidence: Callable[[str], float | None] | None = None,
    ) -> None:
        self.inner, self.name, self._ask, self._read = inner, inner.name, ask, read
        self._write, self.confidence = write, confidence

    def write(self, reasoning: str, answer: str, confidence: float | None = None) -> str:
        """A reply in this form that gives `reasoning` and states `answer` (and `confidence`,
        where given): what the simulated model writes (models/sim.py)."""
        return self._write(reasoning, answer, confidence)

    def instruction(self) -> str:
        return self._ask

    def parse(self, candidate: str) -> str | None:
        return self.inner.parse(candidate)

    def extract(self, text: str) -> str | None:
        return self._read(text)

    def key(self, answer: str) -> str:
        return self.inner.key(answer)

    def render(self, answer: str) -> str:
        return self.inner.render(answer)

    def describe(self, answer: str) -> str:
        return self.inner.describe(answer)


def _closing(mark: Callable[[str], str]) -> Writer:
    """A reply that ends with `mark(answer)`, a confidence on a `CONFIDENCE:` line before it."""

    def write(reasoning: str, answer: str, confidence: float | None) -> str:
        stated = f"\nCONFIDENCE: {confidence:.2f}" if confidence is not None else ""
        return f"{reasoning}{stated}\n\n{mark(answer)}"

    return write


def boxed(fmt: AnswerFormat) -> AuthorsFormat:
    """A number or math result in `\\boxed{...}` at the end (Du et al.'s GSM)."""
    # pragma: no mutate start (wording)
    ask = (
        "At the end of your reply, write your final answer inside \\boxed{}, "
        "for example \\boxed{42}, with only the result in the box."
    )
    # pragma: no mutate end
    write = _closing(lambda answer: f"\\boxed{{{answer}}}")
    return AuthorsFormat(fmt, ask, lambda text: read_boxed(text, fmt), write)


def letter(fmt: Choice) -> AuthorsFormat:
    """An option's letter in parentheses at the end (Du et al.'s MMLU)."""
    # pragma: no mutate start (wording)
    ask = (
        "At the end of your reply, give your final choice as its letter in parentheses, "
        f"(X), where X is one of {', '.join(fmt.letters)}."
    )
    # pragma: no mutate end
    write = _closing(lambda answer: f"({answer})")
    return AuthorsFormat(fmt, ask, lambda text: read_letter(text, fmt), write)


def boxed_or_letter(fmt: AnswerFormat) -> AuthorsFormat | None:
    """Du et al.'s forms: a letter for a choice, a box for a number or a math result; None for
    any other format (their code asks for none)."""
    if isinstance(fmt, Choice):
        return letter(fmt)
    return boxed(fmt) if fmt.name in ("number", "math") else None


def letter_for_choice(fmt: AnswerFormat) -> AuthorsFormat | None:
    """A letter for a choice (Xu et al.'s peer review on ARC-c); None for any other format."""
    return letter(fmt) if isinstance(fmt, Choice) else None


# -- ReConcile's object ---------------------------------------------------------------------------

ANSWER_FIELD, CONFIDENCE_FIELD = "answer", "confidence_level"


def read_object_answer(text: str, fmt: AnswerFormat) -> str | None:
    """The "answer" field of a reply that is one flat object (`read_fields`, a number allowed),
    read as an answer of `fmt`; None when the reply is no such object or the field is missing,
    unreadable or hedged."""
    fields = read_fields(text, numbers=True)
    said = fields.get(ANSWER_FIELD) if fields is not None else None
    return fmt.parse(said) if said is not None else None


def read_object_confidence(text: str) -> float | None:
    """The "confidence_level" field of such a reply, in [0, 1] ("0.85", 0.85, "85%"); None when
    it is missing or unreadable (ReConcile's code reads a missing one as 0.0)."""
    fields = read_fields(text, numbers=True)
    said = fields.get(CONFIDENCE_FIELD) if fields is not None else None
    return _confidence(said) if said is not None else None


def _write_object(reasoning: str, answer: str, confidence: float | None) -> str:
    fields: dict[str, str | float] = {"reasoning": reasoning, ANSWER_FIELD: answer}
    if confidence is not None:
        fields[CONFIDENCE_FIELD] = round(confidence, 2)
    return json.dumps(fields)


def answer_object(fmt: AnswerFormat) -> AuthorsFormat | None:
    """ReConcile's reply: only a JSON object of the reasoning, the answer and the confidence
    (their `utils.py`, on StrategyQA, GSM8K, AQuA and ECQA), for a choice, a yes/no or a number
    answer; None for any other format (their code asks for none)."""
    if isinstance(fmt, Choice):
        what = f"only the letter of your choice, one of {', '.join(fmt.letters)}"
    elif fmt.name in ("yesno", "number"):
        what = "only yes or no" if fmt.name == "yesno" else "only a single number"
    else:
        return None
    # pragma: no mutate start (wording)
    ask = (
        "Reply with nothing but a JSON object of three fields: "
        f'"reasoning", your reasoning step by step; "{ANSWER_FIELD}", {what}; and '
        f'"{CONFIDENCE_FIELD}", the probability, from 0.0 to 1.0, that your answer is right.'
    )
    # pragma: no mutate end
    return AuthorsFormat(
        fmt, ask, lambda text: read_object_answer(text, fmt), _write_object, read_object_confidence
    )


def stated_confidence(fmt: AnswerFormat) -> Callable[[str], float | None] | None:
    """How a reply in `fmt` states its confidence, where `fmt` is an authors' form that holds one
    (ReConcile's object); None otherwise."""
    return fmt.confidence if isinstance(fmt, AuthorsFormat) else None


# -- ChatEval's two score lines -------------------------------------------------------------------

MAX_ASSISTANT_SCORE = 10  # ChatEval's referees score each answer from 1 to 10
_ASSISTANT_SCORE = re.compile(
    r"(?i)[*_ \t]*+the[ \t]++score[ \t]++of[ \t]++assistant[ \t]++([12])[*_ \t]*+:"
    r"[*_ \t]*+([0-9]{1,2}(?:\.[0-9]{1,2})?)[*_ \t.]*+"
)


def read_assistant_scores(text: str) -> tuple[float, float] | None:
    """The scores of the answers shown first and second, from the reply's last two lines with
    text, `The score of Assistant 1: n` then `The score of Assistant 2: n` (as ChatEval's parser
    requires), n a plain number up to 10; None when those lines are not both there, in order, or a
    score is hedged or out of scale."""
    closing = [line for line in text.splitlines() if line.strip()][-2:]
    read = [_ASSISTANT_SCORE.fullmatch(line) for line in closing]
    if len(read) != 2 or read[0] is None or read[1] is None:
        return None
    if (read[0].group(1), read[1].group(1)) != ("1", "2"):
        return None
    first, second = float(read[0].group(2)), float(read[1].group(2))
    return (first, second) if max(first, second) <= MAX_ASSISTANT_SCORE else None


def _preferred(scores: tuple[float, float] | None) -> str | None:
    """The answer scored higher, A (shown first) or B; None for equal scores or none."""
    if scores is None:
        return None
    first, second = scores
    return "A" if first > second else "B" if second > first else None


def _write_scores(reasoning: str, answer: str, confidence: float | None) -> str:
    first, second = (8, 5) if answer == "A" else (5, 8)
    return f"{reasoning}\n\nThe score of Assistant 1: {first}\nThe score of Assistant 2: {second}"


def assistant_scores(fmt: AnswerFormat) -> AuthorsFormat | None:
    """ChatEval's referee on a pair of answers: both scored on the reply's last two lines, the
    higher score its answer (equal scores: no answer); None for any format but a choice between
    two answers (their code judges only pairs)."""
    if not (isinstance(fmt, Choice) and len(fmt.options) == 2):
        return None
    # pragma: no mutate start (wording)
    ask = (
        "Score each of the two answers from 1 to 10, higher being better: the answer shown first "
        "(A) is Assistant 1, the one shown second (B) is Assistant 2. End your reply with exactly "
        "these two lines, only the score after each colon:\n"
        "The score of Assistant 1: n\nThe score of Assistant 2: n"
    )
    # pragma: no mutate end
    return AuthorsFormat(
        fmt, ask, lambda text: _preferred(read_assistant_scores(text)), _write_scores
    )


# -- D3's totals and jurors' votes (abirharrasse/D3-Judge's `utils/`) ----------------------------

# one side of a pair: up to three digits, which a bound or an approximation sign, a decimal or a
# question mark make no plain total (so such a pair is found, and refused, not passed over)
_SIDE = r"[^\S\n]*+([~≈<>≤≥]?=?)[^\S\n]*+([0-9]{1,3}(?:\.[0-9]{1,3})?)[^\S\n]*+(\??)[^\S\n]*+"
_TOTALS = re.compile(rf"\({_SIDE},{_SIDE}\)")
# a criterion's line, numbered 1 to 6 ("6. Rebuttal: (15, 12)"): its pair is no pair of totals
_CRITERION_LINE = re.compile(r"[^\w\n]*+[1-6][^\S\n]*+[.):]")
_VOTE = re.compile(r"[(\[][^\S\n]*+([01])[^\S\n]*+,[^\S\n]*+([01])[^\S\n]*+[)\]]")
VOTES = {("1", "0"): "A", ("0", "1"): "B"}  # a juror's pair: a point for A, or for B


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    last = None
    for last in pattern.finditer(text):  # noqa: B007 (keeps the last match)
        pass
    return last


def _stated(text: str, m: re.Match[str]) -> bool:
    """Whether the reply states the mark `m` as its own (`_states`), with no bound or
    approximation just before it ("about (95, 87)", "at least (1, 0)")."""
    before, _ = _sentence(text, m.start(), m.end())
    return _states(text, m.start(), m.end()) is True and not bounded(before)


def read_totals(text: str, fmt: AnswerFormat) -> str | None:
    """A D3 judge's totals: the reply's last pair in parentheses, `(total of A, total of B)`,
    read by `fmt` (the judge's scores, which bound them). Their SAMRE reads the last pair, their
    MORE the first; both ask for it after the criteria. None when there is none, or when the last
    is a criterion's (on a line numbered 1-6), carries a bound, a decimal or a `?`, or is hedged,
    negated, joined or another's (no earlier pair stands in for it)."""
    last = _last(_TOTALS, text)
    if last is None:
        return None
    bound_a, a, doubt_a, bound_b, b, doubt_b = last.groups()
    line = text.rfind("\n", 0, last.start()) + 1  # pragma: no mutate (equivalent: start None is 0)
    if bound_a or bound_b or doubt_a or doubt_b or "." in a + b:
        return None
    if _CRITERION_LINE.match(text, line) or not _stated(text, last):
        return None
    return fmt.parse(f"{a}, {b}")


def read_vote(text: str) -> str | None:
    """A D3 juror's vote: the reply's last pair of 0 and 1 in parentheses or brackets, `(1, 0)`
    for answer A, `(0, 1)` for B (their parser reads the last such pair, and none as (0, 0), a
    point for nobody); "A" or "B", or None when there is none, the last is (1, 1) or (0, 0), or it
    is hedged, negated, joined or another's."""
    last = _last(_VOTE, text)
    side = VOTES.get((last.group(1), last.group(2))) if last is not None else None
    return side if last is not None and _stated(text, last) else None


def judge_totals() -> AuthorsFormat:
    """A D3 judge's scores asked for and read as their judge gives them: after the criteria (one
    `[A, B]` pair each, as the project asks too), the totals as one pair in parentheses."""
    scores = JudgeScores()
    # pragma: no mutate start (wording)
    ask = (
        "Then add up each answer's six scores and end your reply with the two totals as one pair "
        f"in parentheses, (total of A, total of B), two whole numbers from {TOTAL_MIN} to "
        f"{TOTAL_MAX} with nothing else inside."
    )
    # pragma: no mutate end
    write = _closing(lambda answer: f"Totals: ({answer})")
    return AuthorsFormat(scores, ask, lambda text: read_totals(text, scores), write)


def vote_pair(fmt: AnswerFormat) -> AuthorsFormat | None:
    """A D3 juror's vote on a pair of answers, `(1, 0)` for A or `(0, 1)` for B at the end (their
    jurors' `Vote:` line); None for any format but a choice between two answers (their code
    judges only pairs). The judge then gives its totals as theirs does (`judge_totals`)."""
    if not (isinstance(fmt, Choice) and len(fmt.options) == 2):
        return None
    # pragma: no mutate start (wording)
    ask = (
        "End your reply with your vote as a pair of numbers: (1, 0) for Answer A, or (0, 1) for "
        "Answer B, and nothing after it."
    )
    # pragma: no mutate end
    write = _closing(lambda answer: "Vote: (1, 0)" if answer == "A" else "Vote: (0, 1)")
    return AuthorsFormat(fmt, ask, read_vote, write)


# -- PRD's last line ------------------------------------------------------------------------------

# the last line: a number alone, in markdown emphasis at most, a full stop after it
_NUMBER_LINE = re.compile(r"[*_`#>\s]*+([0-9]{1,2})[*_`\s.]*+")


def read_numbered(text: str, fmt: Choice) -> str | None:
    """The option numbered on the reply's last line with text, alone ("1" is `fmt`'s first
    option; PRD's reviewers end on 1, 2, or 3 for equal answers, which their code reads as the
    last line's number); its letter, or None when that line holds anything else, the number is no
    option's, or the line before, which ends with a colon, introduces it with doubt, a negation
    or as another's ("Reviewer 1 says:")."""
    body = text.rstrip()
    cut = body.rfind("\n")
    m = _NUMBER_LINE.fullmatch(body, cut + 1)
    if m is None or not 1 <= int(m.group(1)) <= len(fmt.letters):
        return None
    # with no line before, the number's line holds no colon (equivalent mutants)
    before = body[:cut].rstrip() if cut >= 0 else ""  # pragma: no mutate
    said = f"{before} {m.group(1)}"  # its sentence is the line before (`_states`)
    if before.endswith(":") and _states(said, len(before) + 1, len(said)) is not True:
        return None
    return fmt.letters[int(m.group(1)) - 1]


def numbered_line(fmt: Choice) -> AuthorsFormat:
    """PRD's reviewer: the preferred option's number alone on the last line (1 for the first
    answer, 2 for the second, 3 for equal answers, in their three-class prompts)."""
    named = ", ".join(f'{i} for "{o}"' for i, o in enumerate(fmt.options, 1))
    # pragma: no mutate start (wording)
    ask = (
        f"End your reply with a last line holding only the number of your choice: {named}. "
        "Write nothing else on that line."
    )
    # pragma: no mutate end
    write = _closing(lambda answer: str(fmt.letters.index(answer) + 1))
    return AuthorsFormat(fmt, ask, lambda text: read_numbered(text, fmt), write)


# -- MALLM's final solution -----------------------------------------------------------------------

# MALLM's marker: its prompts ask for the final solution "after the text 'Final Solution:'" and its
# evaluator reads `Final Solution\s*:`; any case, emphasis allowed before the colon
_FINAL_SOLUTION = re.compile(r"(?i)final[^\S\n]*+solution[*_ \t]*+:")
_QUOTES = "\"'`“‘«"
# an option's letter as a choice lists it, "B)" or "(B)": a second one in a solution joins two
_OPTION_MARK = re.compile(r"\(?\b([A-Z])\)")


def read_final_solution(text: str, fmt: AnswerFormat) -> str | None:
    """The answer after the last `Final Solution:` the reply states, read as an answer of `fmt`:
    the rest of the marker's line, or the next line with text when the marker ends its line. A
    marker in quotes, given as an example or reported from another is passed over (at most
    `MAX_MARKS` judged); None when there is none, or when the one read is hedged, negated, joined
    to another option, unreadable or on a line that runs past `_solution_span`'s window (no
    earlier marker stands in for it). MALLM's evaluator reads the first marker, then falls back to
    any capital letter before `)`, `]`, `:` or the end; here only a marked solution counts."""
    marks = list(_FINAL_SOLUTION.finditer(text))[-MAX_MARKS:]
    for m in reversed(marks):
        before = text[max(0, m.start() - WINDOW) : m.start()].rstrip("*_ \t")
        if before[-1:] and before[-1] in _QUOTES:  # pragma: no mutate (equivalent: [-2:] is as empty)  # fmt: skip
            continue
        start, end = _solution_span(text, m.end())
        states = _states(text, m.start(), end)
        if states is None:
            continue
        said = text[start:end].strip().strip("*_`\"' ").strip()
        # a line cut at the window (`_solution_span`) runs on: no answer, and its start is no whole
        cut = text[end : end + 1] not in ("", "\n")
        if not states or not said or len(said) > MAX_ANSWER_CHARS or cut:
            return None
        if isinstance(fmt, Choice):
            letters = {x.group(1) for x in _OPTION_MARK.finditer(said)} & set(fmt.letters)
            if len(letters) > 1:
                return None
        return fmt.parse(said)
    return None


def _solution_span(text: str, after: int) -> tuple[int, int]:
    """Where the solution after a marker ending at `after` stands: the rest of its line, or the
    next line with text; each at most `MAX_ANSWER_CHARS` + 1 long (a longer one is no answer)."""
    bound = after + MAX_ANSWER_CHARS + 1
    end = text.find("\n", after, bound)
    end = min(len(text), bound) if end == -1 else end
    if text[after:end].strip("*_`\"' \t"):
        return after, end
    start = end + 1
    while start < min(len(text), bound) and text[start].isspace():
        start += 1
    limit = min(len(text), start + MAX_ANSWER_CHARS + 1)
    stop = text.find("\n", start, limit)
    return start, limit if stop == -1 else stop


def final_solution(fmt: AnswerFormat) -> AuthorsFormat:
    """MALLM's solution (Kaesberg et al.'s decision protocols): stated after the text `Final
    Solution:`, as their prompts ask for it and their evaluator reads it, a choice by its letter
    (their task instructions); for every answer format (their tasks include all five)."""
    if isinstance(fmt, Choice):
        what = f"the letter of your choice, one of {', '.join(fmt.letters)}"
    else:
        what = {
            "yesno": "yes or no",
            "number": "the number alone (digits only, no units)",
            "math": "only the final result, a number or a LaTeX expression in simplest form",
        }.get(fmt.name, "your answer alone")
    # pragma: no mutate start (wording)
    ask = (
        "Mark your final solution clearly: end your reply with a line that begins with the text "
        f"'Final Solution:' followed by {what}."
    )
    # pragma: no mutate end
    write = _closing(lambda answer: f"Final Solution: {answer}")
    return AuthorsFormat(fmt, ask, lambda text: read_final_solution(text, fmt), write)
