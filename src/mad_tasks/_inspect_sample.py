"""What the solvers, the scorers and the simulated model share about an Inspect sample: the store
key of the debate record, the answer format a sample asks for, and the session a D3 judge runs in."""

from __future__ import annotations

from inspect_ai.solver import TaskState

from .engine.answers import AnswerFormat, infer_format, make_format
from .engine.methods.d3 import VERDICT
from .engine.session import Problem, Session
from .inspect_runtime import InspectRuntime

STORE_KEY = "mad_tasks:debate"


def answer_format_for(state: TaskState, answer_format: str) -> AnswerFormat:
    """auto: the task's choices, else the task's declared format, else what the target looks like."""
    options = tuple(c.value for c in state.choices)
    if answer_format == "auto":
        if options:
            answer_format = "choice"
        else:
            answer_format = state.metadata.get("answer_format") or infer_format(state.target.text)
    return make_format(answer_format, options)


def judge_session(
    sample_id: str | int | None,
    question: str,
    retries: int,
    temperature: float | None,
    max_tokens: int | None,
) -> Session:
    return Session(
        InspectRuntime(sample_id),
        Problem(question, VERDICT),
        retries=retries,
        temperature=temperature,
        max_tokens=max_tokens,
    )
