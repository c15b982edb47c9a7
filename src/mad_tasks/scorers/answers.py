"""`final_answer`: reads the final answer from any solver's output in the task's answer format."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

from ..engine.answers import FORMATS, AnswerFormat, infer_format, make_format
from ..engine.checks import one_of, optional
from ._options import scorer_options


@scorer(metrics=[accuracy(), stderr()])
def final_answer(answer_format: str | None = None) -> Scorer:
    """Correct when the answer extracted from the output equals the target; no answer is incorrect."""
    with scorer_options():
        optional(
            one_of, "answer_format", answer_format, FORMATS, null="the task's format", kind="scorer"
        )

    async def score(state: TaskState, target: Target) -> Score:
        options = tuple(c.value for c in state.choices)
        fmt = task_format(options, state.metadata, target.text, answer_format)
        answer = fmt.extract(state.output.completion)
        gold = gold_keys(fmt, target.target)
        correct = answer is not None and fmt.key(answer) in gold
        return Score(
            value=CORRECT if correct else INCORRECT,
            answer=answer if answer is not None else "",
            explanation=(
                f"answer {answer!r} vs target {target.text!r}"
                if answer is not None
                else "no answer could be read from the output (counted incorrect)"
            ),
        )

    return score


def task_format(
    options: tuple[str, ...],
    metadata: Mapping[str, Any],
    target: str,
    answer_format: str | None = None,
) -> AnswerFormat:
    """The format a sample's answer is read in: the one given, else the task's declared format,
    else the choices', else what the target looks like."""
    name = (
        answer_format
        or metadata.get("answer_format")
        or ("choice" if options else infer_format(target))
    )
    return make_format(name, options)


def gold_keys(fmt: AnswerFormat, targets: Sequence[str]) -> set[str]:
    """The keys an answer may have to be correct: each target read as an answer."""
    return {fmt.key(g) for t in targets if (g := fmt.extract(f"ANSWER: {t}")) is not None}
