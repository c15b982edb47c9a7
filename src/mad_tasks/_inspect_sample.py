"""What the solvers and the scorers share about an Inspect sample: the debate record in its store,
the answer format a sample asks for, and the session a D3 judge runs in."""

from __future__ import annotations

from inspect_ai.solver import TaskState

from .engine.answers import AnswerFormat, infer_format, make_format
from .engine.methods.d3 import VERDICT
from .engine.records import DebateResult
from .engine.session import Problem, Session
from .inspect_runtime import InspectRuntime

STORE_KEY = "mad_tasks:debate"  # only save_result and load_result use it
# why a scorer of the record leaves a sample unscored when load_result gives None
NO_RESULT = (
    "no debate record in the sample store that this version of mad_tasks can read (none, or one "
    "from an older version)"
)


def save_result(state: TaskState, result: DebateResult) -> None:
    """Keep the debate's record in the sample store, as JSON the log viewer shows."""
    state.store.set(STORE_KEY, result.to_dict())


def load_result(state: TaskState) -> DebateResult | None:
    """The debate record a solver of this package kept; None when there is none, or when it is one
    this version cannot read (an older version's log)."""
    stored = state.store.get(STORE_KEY)
    if stored is None:
        return None
    try:
        return DebateResult.from_dict(stored)
    except (ValueError, TypeError, KeyError, AttributeError):  # not a record of this version
        return None


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
