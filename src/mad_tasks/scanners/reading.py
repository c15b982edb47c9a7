"""What every scanner reads of a transcript: the sample's debate record (its store, rebuilt from
the store events), whether an answer is right (the sample's target and choices, from its
`sample_init` event) and the question."""

from __future__ import annotations

from typing import Any

from inspect_ai.event import SampleInitEvent
from inspect_ai.util import store_from_events
from inspect_scout import Transcript

from .._inspect_sample import STORE_KEY
from ..engine.methods.d3.records import JudgeRecord
from ..engine.records import DebateResult
from ..scorers.transitions import task_gold
from .rules import Right

# the sample (its target and choices) and its store; `sample_init` is not among the names Scout's
# `EventType` lists, but its loader filters events by any name (typed loosely for that)
EVENTS: list[Any] = ["sample_init", "store"]


def debate_of(transcript: Transcript) -> DebateResult | str:
    """The sample's debate record; why there is none."""
    try:
        stored = store_from_events(transcript.events).get(STORE_KEY)
    except ValueError as error:  # a store event that does not apply
        return f"the sample's store cannot be rebuilt: {error!s:.200}"
    if stored is None:
        return "no debate record in the sample's store (not a mad_tasks solver)"
    try:
        return DebateResult.from_dict(stored)
    except (ValueError, TypeError, KeyError, AttributeError):
        return "a debate record this version of mad_tasks cannot read (an older version's)"


def right_of(transcript: Transcript, result: DebateResult) -> Right | str:
    """Whether an answer is right, by the task's own comparison with the sample's target; why it
    cannot be said (a judge, a method that answers with no answer, a target that is no answer)."""
    if isinstance(result.record, JudgeRecord):
        return "a judge: its record has no agents' answers to the question"
    if result.record is not None and result.record.answers_with is not None:
        return f"{result.method} answers with {result.record.answers_with}, not an answer"
    init = next((e for e in transcript.events if isinstance(e, SampleInitEvent)), None)
    if init is None:
        return "the transcript has no sample_init event (its sample and target)"
    sample = init.sample
    target = [sample.target] if isinstance(sample.target, str) else list(sample.target)
    readable = task_gold(sample.choices or [], sample.metadata or {}, target)
    if not isinstance(readable, tuple):
        return readable.reason
    fmt, gold = readable
    return lambda answer: answer is not None and fmt.key(answer) in gold


def question_of(transcript: Transcript) -> str:
    """The sample's input as text."""
    init = next((e for e in transcript.events if isinstance(e, SampleInitEvent)), None)
    if init is None:
        return "(not in the transcript)"
    given = init.sample.input
    return given if isinstance(given, str) else "\n\n".join(m.text for m in given)
