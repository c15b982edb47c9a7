"""Tree-of-Debate's judges: the paper's three human criteria, applied by a grader model.

The paper evaluates comparative summaries by people only (seed 003 spec, section 6); section 9
turns its rubric into an automated judge, which this module is (prompts, readers, the rules):

- factuality: the summary is split into sentences (`protocols.tod.sentences`), and one call marks
  each numbered sentence 1 (accurate) or 0 (any factual error); the score is the mean x 100;
- breadth and contextualization: one call each gives a level from 0 to 4 against the paper's level
  descriptions; the score is the level x 25 (the paper's min-max normalisation x 100);
- pairwise: one call per answer order prefers summary A, B or neither ("tie") on one criterion;
  the tested summary's value is 1 (preferred), 0.5 (tie) or 0 per order, averaged over the orders.

The judge sees the topic (every part of it), the kind of pair (method or task) and both papers'
title, abstract and introduction (a full text, where a sample has one, is left out: the paper's
judges read the papers, and a whole paper is more than a grading call should carry; spec 9 makes it
optional). An unreadable grade is no grade: the rules return None and the
scorer leaves the sample out of the mean, never scoring it 0 or as a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...checks import OptionError, boolean, integer, one_of
from ...content import Content, Msg, compose
from ...options import MAX_RETRIES, Generation, option
from ...protocols.tod import json_object, sentences
from ...records import CallRecord
from ...requests import PreferenceRequest, RubricRequest
from ...session import Asked, Sampling, Session
from ..d3.court import block
from ..d3.options import GRADER_FALLBACKS
from .papers import Paper, PaperPair

LEVEL_POINTS = 25  # a level of 0-4 as a score of 0-100
GRADER = "grader"  # the model role (and agent) of every judge call

# The paper's pair labels (its App. L), as the judge is told them.
KINDS = {
    "method": "a method pair: both papers address the same task, with different methods",
    "task": "a task pair: the papers address different tasks, with a similar motivation or method",
}

# The paper's level descriptions (section 6 of the spec), in our wording.
LEVELS = {
    "breadth": (
        "it misses several major points of similarity or difference",
        "it misses one major point",
        "it covers the major points but misses minor ones",
        "it covers the major points, yet is still not what an expert would expect",
        "it is fully comprehensive",
    ),
    "contextualization": (
        "it is purely extractive: it restates what each paper does without relating them or "
        "justifying any comparison",
        "it attempts a synthesis of the papers, but not a meaningful one",
        "it meaningfully synthesises at most one point",
        "it meaningfully synthesises a minority of the points",
        "it meaningfully synthesises the papers across all the major points",
    ),
}
MEANINGS = {
    "factuality": "how accurately it states what the papers say and do, without attributing one "
    "paper's content to the other",
    "breadth": "how completely it covers the major similarities and differences an expert would "
    "expect",
    "contextualization": "how meaningfully it relates the papers to each other, explaining why they "
    "are similar or differ rather than restating each one",
}
PREFERENCES = ("A", "B", "tie")


# -- options ------------------------------------------------------------------------------------

BASELINES = ("two_stage", "single_stage")
METADATA = "metadata:"


def _baseline(name: str, value: Any) -> str:
    if value in BASELINES or (
        isinstance(value, str) and value.startswith(METADATA) and value[len(METADATA) :].strip()
    ):
        return str(value)
    raise OptionError(
        name,
        value,
        "two_stage or single_stage (run within the scorer, once per sample), or metadata:<field> "
        "(a summary in the sample's metadata)",
    )


@dataclass(frozen=True)
class JudgeOptions(Generation):
    """The options of the Tree-of-Debate judge scorers."""

    retries: int = option(
        1,
        "follow-ups for an unreadable grade before the sample is left unscored.",
        lambda name, v: integer(name, v, 0, MAX_RETRIES),
    )
    structured: bool = option(
        True,
        "send each grade's JSON schema (structured output where the provider has it); replies "
        "are read and validated either way.",
        boolean,
    )
    grader_fallback: str = option(
        "warn",
        "when the grader role is unbound and so falls back to the model under evaluation: warn "
        "(once per run, and the log says so), error (fail the sample before the first grading "
        "call) or allow (on purpose).",
        lambda name, v: one_of(name, v, GRADER_FALLBACKS),
    )


@dataclass(frozen=True)
class PairwiseOptions(JudgeOptions):
    baseline: str = option(
        "two_stage",
        "the summary compared with the output: two_stage or single_stage (that baseline run "
        "within the scorer on its summarizer role, the main model unless bound, once per sample "
        "for all three criteria), or metadata:<field> (a summary in the sample's metadata).",
        _baseline,
    )


# -- prompts ------------------------------------------------------------------------------------


def paper_block(paper: Paper) -> str:
    """A paper labelled by its title, as a summary names it (never "Paper 1" or "Author 0"), so
    the grader can check each statement against the paper it names."""
    parts = [f"Abstract: {paper.abstract.strip()}"]
    if paper.introduction.strip():
        parts.append(f"Introduction: {paper.introduction.strip()}")
    title = " ".join(paper.title.split())  # one line, for the block's markers
    return block(f'Paper "{title}"', "\n\n".join(parts))


def sources(pair: PaperPair, kind: str | None) -> Content:
    """What every grading call of a sample shows first: the task, the topic and both papers."""
    label = f"The pair is {KINDS[kind]}.\n\n" if kind in KINDS else ""
    return compose(
        "You are an expert reviewer in the papers' field. You grade comparative summaries of two "
        "scientific papers, written for a topic: a summary should present the papers' "
        "similarities and then their differences, with more weight on the differences."
        "\n\n[Topic]\n",
        pair.topic,
        f"\n[end of Topic]\n\n{label}The two papers follow, each labelled by its title.\n\n",
        paper_block(pair.papers[0]),
        "\n\n",
        paper_block(pair.papers[1]),
    )


def numbered(parts: Sequence[str]) -> str:
    return "\n".join(f"{i}. {s}" for i, s in enumerate(parts, 1))


def rubric_prompt(
    pair: PaperPair, kind: str | None, shown: Sequence[str], criterion: str
) -> Content:
    """A grade of one summary, shown as numbered sentences in every criterion, so the three calls of
    a sample share their prefix."""
    head = compose(sources(pair, kind), "\n\n", block("Summary", numbered(shown)), "\n\n")
    if criterion == "factuality":
        return compose(
            head,
            "Grade the summary's factuality against the two papers' texts above. Mark each "
            "numbered sentence 1 if everything it states is supported by the papers (a fair "
            "reading of them counts), or 0 if it holds any factual inaccuracy, such as a result, "
            "a method or a claim of one paper attributed to the other. Reply with only a JSON "
            'object: {"explanation": "<a short note on each sentence you mark 0>", "marks": '
            f"[<{len(shown)} marks, 1 or 0, one per numbered sentence, in order>]}}.",
        )
    levels = "\n".join(f"{i}: {text}." for i, text in enumerate(LEVELS[criterion]))
    first = (
        "first list the major similarities and differences an expert would expect, then say "
        "which the summary covers"
        if criterion == "breadth"
        else "say which points the summary relates to each other, and how"
    )
    return compose(
        head,
        f"Grade the summary's {criterion}: {MEANINGS[criterion]}. Choose the one level that fits "
        f"best:\n{levels}\n\nReply with only a JSON object: "
        f'{{"explanation": "<{first}>", "level": <0, 1, 2, 3 or 4>}}.',
    )


def preference_prompt(pair: PaperPair, kind: str | None, a: str, b: str, criterion: str) -> Content:
    return compose(
        sources(pair, kind),
        "\n\n",
        block("Summary A", a),
        "\n\n",
        block("Summary B", b),
        "\n\n",
        f"Two summaries of the papers are shown, A and B. Which is better on {criterion}: "
        f"{MEANINGS[criterion]}? Judge that criterion only; neither the order in which the "
        "summaries appear nor their length is a merit. Answer tie only when they are equally "
        'good on it. Reply with only a JSON object: {"explanation": "<your reasons>", '
        '"preference": "A", "B" or "tie"}.',
    )


REMINDER = "Reply with only the JSON object the instructions above describe, with every field."


def rubric_schema(criterion: str, count: int) -> dict[str, Any]:
    """The JSON schema of a grade (sent as structured output)."""
    grade: dict[str, Any] = (
        {
            "type": "array",
            "items": {"type": "integer", "enum": [0, 1]},
            "minItems": count,
            "maxItems": count,
        }
        if criterion == "factuality"
        else {"type": "integer", "minimum": 0, "maximum": len(LEVELS[criterion]) - 1}
    )
    key = "marks" if criterion == "factuality" else "level"
    return {
        "type": "object",
        "properties": {"explanation": {"type": "string"}, key: grade},
        "required": ["explanation", key],
    }


PREFERENCE_SCHEMA = {
    "type": "object",
    "properties": {
        "explanation": {"type": "string"},
        "preference": {"type": "string", "enum": list(PREFERENCES)},
    },
    "required": ["explanation", "preference"],
}


# -- readers (each linear in the reply and never raising: tests/adversarial.py) ------------------


@dataclass(frozen=True)
class Marks:
    """Factuality: 1 or 0 per numbered sentence, in order."""

    marks: tuple[int, ...]
    explanation: str


@dataclass(frozen=True)
class Level:
    """Breadth or contextualization: a level from 0 to 4."""

    level: int
    explanation: str


@dataclass(frozen=True)
class Preference:
    """The summary preferred: "A", "B" or "tie" (equally good)."""

    choice: str
    explanation: str


def _reply(text: str) -> dict[str, Any] | None:
    """The fields of a reply's first JSON object by their names stripped and lowercased."""
    obj = json_object(text)
    return None if obj is None else {key.strip().lower(): value for key, value in obj.items()}


def _explanation(fields: dict[str, Any]) -> str:
    text = fields.get("explanation")
    return text.strip() if isinstance(text, str) else ""


def _mark(value: Any) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float) and value in (0, 1):
        return int(value)
    if isinstance(value, str) and len(value) < 10 and value.strip() in ("0", "1"):
        return int(value.strip())
    return None


def read_marks(text: str, count: int) -> Marks | None:
    """`{explanation, marks}`: exactly `count` marks, each 1 or 0 (true/false and "1"/"0" too);
    else None."""
    fields = _reply(text)
    raw = None if fields is None else fields.get("marks")
    if fields is None or not isinstance(raw, list) or len(raw) != count:
        return None
    marks = [_mark(v) for v in raw]
    if any(m is None for m in marks):
        return None
    return Marks(tuple(m for m in marks if m is not None), _explanation(fields))


LEVEL_DIGITS = ("0", "1", "2", "3", "4")


def read_level(text: str) -> Level | None:
    """`{explanation, level}`: a level 0 to 4, an integer (3, 3.0) or its digit as text ("3");
    else None."""
    fields = _reply(text)
    if fields is None:
        return None
    raw = fields.get("level")
    if isinstance(raw, str) and len(raw) < 10 and raw.strip() in LEVEL_DIGITS:
        raw = int(raw.strip())
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= 4:
        return None
    return Level(raw, _explanation(fields))


def read_preference(text: str) -> Preference | None:
    """`{explanation, preference}`: A, B or tie, in any case ("Summary A" too); anything else, a
    hedge ("both", "unsure") included, is None."""
    fields = _reply(text)
    raw = None if fields is None else fields.get("preference")
    if fields is None or not isinstance(raw, str) or len(raw) > 20:
        return None
    choice = {"a": "A", "b": "B", "tie": "tie"}.get(
        raw.strip().lower().removeprefix("summary").strip()
    )
    return Preference(choice, _explanation(fields)) if choice else None


# -- the rules ----------------------------------------------------------------------------------


def factuality_score(marks: Sequence[int]) -> float:
    """The share of sentences marked accurate, x 100 (the paper's factuality)."""
    return 100 * sum(marks) / len(marks)


def level_score(level: int) -> float:
    """A level 0-4 normalised to 0-100, as the paper reports its Likert scores."""
    return float(level * LEVEL_POINTS)


OUTPUT_SIDES = ("A", "B")  # where the tested summary is shown in the first and second order


def order_value(choice: str | None, output_side: str) -> float | None:
    """The tested summary's value in one order: 1 preferred, 0.5 tie, 0 not; None unreadable."""
    if choice is None:
        return None
    return 0.5 if choice == "tie" else float(choice == output_side)


def win_value(first: str | None, second: str | None) -> float | None:
    """The tested summary's value over both orders (shown as A first, then as B): the mean of the
    readable orders; None when neither is readable. Preferring A both times (position bias) gives
    0.5, as a tie would."""
    values = [v for v in map(order_value, (first, second), OUTPUT_SIDES) if v is not None]
    return sum(values) / len(values) if values else None


# -- the judgments ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grading:
    """One summary graded on one criterion: `value` 0-100, None when the grade was unreadable.
    `grade` is what was read (None: unreadable, or no call: a summary without sentences)."""

    criterion: str
    value: float | None
    sentences: tuple[str, ...]
    grade: Marks | Level | None
    replies: tuple[str, ...]
    calls: tuple[CallRecord, ...]


@dataclass(frozen=True)
class Comparison:
    """The tested summary against a baseline on one criterion, in both orders: `choices` the
    preference in each (None: unreadable, or no call), `value` their mean for the tested summary."""

    criterion: str
    value: float | None
    choices: tuple[str | None, str | None]
    explanations: tuple[str, str]
    replies: tuple[tuple[str, ...], tuple[str, ...]]
    calls: tuple[CallRecord, ...]


def sampling(schema: dict[str, Any], structured: bool) -> Sampling:
    return Sampling(schema=schema if structured else None)


async def grade(
    session: Session,
    pair: PaperPair,
    kind: str | None,
    summary: str,
    criterion: str,
    structured: bool = True,
) -> Grading:
    """Grade `summary` on `criterion` with one call (and its follow-ups) on the grader role. A
    summary without a sentence is no answer: 0, without a call (never a pass)."""
    shown = tuple(sentences(summary))
    if not shown:
        return Grading(criterion, 0.0, shown, None, (), ())
    factual = criterion == "factuality"
    count = len(shown)
    read: Callable[[str], Marks | Level | None] = (
        (lambda t: read_marks(t, count)) if factual else read_level
    )
    asked: Asked[Marks | Level] = await session.ask(
        GRADER, GRADER, [Msg("user", rubric_prompt(pair, kind, shown, criterion))], criterion, 1,
        read, REMINDER,
        asks=RubricRequest(criterion, count if factual else 0),
        sampling=sampling(rubric_schema(criterion, count), structured),
    )  # fmt: skip
    got = asked.value
    value = (
        None if got is None
        else factuality_score(got.marks) if isinstance(got, Marks)
        else level_score(got.level)
    )  # fmt: skip
    return Grading(criterion, value, shown, got, tuple(asked.replies), tuple(session.calls))


async def prefer(
    session: Session,
    pair: PaperPair,
    kind: str | None,
    output: str,
    baseline: str,
    criterion: str,
    structured: bool = True,
) -> Comparison:
    """Compare the tested summary with the baseline's on `criterion`, shown first as A, then as B
    (the two orders run at once). A tested summary without a sentence loses: 0, without a call."""
    if not sentences(output):
        return Comparison(criterion, 0.0, (None, None), ("", ""), ((), ()), ())

    async def order(i: int) -> tuple[Preference | None, list[str]]:
        a, b = (output, baseline) if OUTPUT_SIDES[i] == "A" else (baseline, output)
        async with session.runtime.span(f"order {i + 1}"):
            asked = await session.ask(
                GRADER, GRADER,
                [Msg("user", preference_prompt(pair, kind, a, b, criterion))],
                f"{criterion} order {i + 1}", 1, read_preference, REMINDER,
                asks=PreferenceRequest(criterion, a, b),
                sampling=sampling(PREFERENCE_SCHEMA, structured),
            )  # fmt: skip
        return asked.value, asked.replies

    (first, r1), (second, r2) = await session.runtime.gather(order(0), order(1))
    choices = (first.choice if first else None, second.choice if second else None)
    return Comparison(
        criterion,
        win_value(*choices),
        choices,
        (first.explanation if first else "", second.explanation if second else ""),
        (tuple(r1), tuple(r2)),
        tuple(session.calls),
    )
