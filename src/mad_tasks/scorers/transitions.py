"""`transitions`: did the debate help? The first answers' vote against the final answer, per sample.

One figure scorer each (see `figures`), read from the sample's debate record and its target with
the task's own answer comparison (`final_answer`'s), no model call; the rules are
`engine/transitions.py`'s. An answer method's first figure is `first_majority_correct` (its mean is
the accuracy of the vote without debate), a judge's `first_verdict_correct` (its round-1 verdict
against the human label); the final and the transition figures mean the same for both, so they
share their names. `final_correct`'s metadata holds the sample's detail: the first answers and
final answers per agent, the first vote and the rule that broke its tie, the final answer and the
transition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from inspect_ai.scorer import Scorer, Target
from inspect_ai.solver import TaskState

from .._inspect_sample import NO_RESULT, load_result
from ..engine.answers import AnswerFormat
from ..engine.methods.d3.records import JudgeRecord
from ..engine.methods.d3.transitions import verdict_transitions
from ..engine.protocols.d3 import SIDES, TIE
from ..engine.records import DebateResult
from ..engine.transitions import TRANSITIONS, Transitions, answer_transitions
from .answers import gold_keys, task_format
from .figures import Figure, Missing, NotApplicable, Reading, family

FIGURES = [
    Figure("first_majority_correct", "1 when the vote of the agents' first answers (round 1, ties "
           "broken by the method's own rule) is right: its mean is the accuracy without debate."),
    Figure("first_verdict_correct", "A judge: 1 when its round-1 verdict (the judge's first "
           "scores, before later rounds and the jury) equals the human label."),
    Figure("final_correct", "1 when the final answer (a judge: the final verdict) is right; no "
           "answer is wrong."),
    Figure("right_to_right", "1 when the first vote and the final answer are both right."),
    Figure("wrong_to_right", "1 when the debate turned a wrong first vote into a right answer."),
    Figure("right_to_wrong", "1 when the debate turned a right first vote into a wrong answer."),
    Figure("wrong_to_wrong", "1 when the first vote and the final answer are both wrong."),
    Figure("agent_fixes", "Agents whose wrong (or missing) first answer became a right final one."),
    Figure("agent_breaks", "Agents whose right first answer became a wrong (or missing) final one."),
]  # fmt: skip

NOT_A_JUDGE = "not a judge: an answer method's first figure is first_majority_correct"
A_JUDGE = "a judge: its first figure is first_verdict_correct, and it has no agents' answers"


def reading_of(
    result: DebateResult | None,
    choices: Sequence[str],
    metadata: Mapping[str, Any],
    target: Sequence[str],
) -> Reading | Missing:
    """The figures of one sample from its record, its choices, metadata and target (what an
    Inspect sample holds, live or in a log)."""
    if result is None:
        return Missing(NO_RESULT)
    text = "".join(target)
    if isinstance(result.record, JudgeRecord):
        gold = text.strip()
        if gold not in (*SIDES, TIE):  # no label to compare with: nothing to measure
            return NotApplicable(f"the target {gold[:40]!r} is no verdict label (A, B or tie)")
        return _reading(verdict_transitions(result, result.record, gold), judge=True)
    readable = task_gold(choices, metadata, target)
    if isinstance(readable, NotApplicable):
        return readable
    fmt, gold_set = readable
    got = answer_transitions(result, fmt, gold_set)
    if isinstance(got, str):  # a method whose answer is no answer to the question: never applies
        return (NotApplicable if result.record and result.record.answers_with else Missing)(got)
    return _reading(got, judge=False)


def task_gold(
    choices: Sequence[str], metadata: Mapping[str, Any], target: Sequence[str]
) -> tuple[AnswerFormat, set[str]] | NotApplicable:
    """The task's answer format and the keys of its right answers; why there are none."""
    text = "".join(target)
    try:
        fmt = task_format(tuple(choices), metadata, text)
    except ValueError as e:  # a format name this version does not know
        return NotApplicable(f"the task's answer format cannot be read: {e}")
    gold = gold_keys(fmt, target)
    if not gold:  # a task whose targets are no answers (free-form references)
        return NotApplicable(f"the target {text[:40]!r} cannot be read as an answer ({fmt.name})")
    return fmt, gold


def _reading(t: Transitions, judge: bool) -> Reading:
    values: dict[str, int | float | Missing] = {
        "first_majority_correct": NotApplicable(A_JUDGE) if judge else int(t.first_correct),
        "first_verdict_correct": int(t.first_correct) if judge else NotApplicable(NOT_A_JUDGE),
        "final_correct": int(t.final_correct),
        **{name: int(t.transition == name) for name in TRANSITIONS},
        "agent_fixes": NotApplicable(A_JUDGE) if judge else t.fixes,
        "agent_breaks": NotApplicable(A_JUDGE) if judge else t.breaks,
    }
    detail = {**asdict(t), "agents": [asdict(a) for a in t.agents], "transition": t.transition}
    return Reading(values, {"final_correct": detail})


def read(state: TaskState, target: Target) -> Reading | Missing:
    choices = [c.value for c in state.choices]
    return reading_of(load_result(state), choices, state.metadata, target.target)


COLUMNS = {
    "first_majority_correct": "first vote",
    "first_verdict_correct": "first verdict",
    "wrong_to_right": "wrong→right",
    "right_to_wrong": "right→wrong",
}
SCORERS = family(FIGURES, read, rank=0, columns=COLUMNS)


def transitions() -> list[Scorer]:
    """The transition figures' scorers: the first vote's and the final answer's correctness, the
    four transitions (right/wrong to right/wrong) and the agents' fixes and breaks."""
    return [make() for make in SCORERS]
