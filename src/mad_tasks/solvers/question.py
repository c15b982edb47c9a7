"""The sample of an answer-producing method: its question as the task's setup left it, and the
drop-in output (the final answer, the chosen option marked)."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.solver import TaskState

from .._inspect_sample import answer_format_for, question_of
from ..engine.answers import AnswerFormat, Choice
from ..engine.content import Question
from ..engine.options import Answering
from ..engine.records import DebateResult
from ..engine.session import Problem, Session
from ..engine.spec import Run
from ..inspect_acting import act, check_acting
from ..inspect_runtime import InspectRuntime


def problem_for(state: TaskState, fmt: AnswerFormat, opts: Answering) -> Problem:
    """The question as the task's setup left it (its template, system message and every part of
    the input), with the options."""
    question = question_of(state, opts.allow_text_only)
    system = "\n\n".join(m.text for m in state.messages if m.role == "system")
    return Problem(with_options(question, fmt), fmt, system, opts.templates)


def with_options(question: Question, fmt: AnswerFormat) -> Question:
    """A choice question lacking its lettered options, with them listed at its end."""
    if not isinstance(fmt, Choice):
        return question
    lines = [f"{letter}) {option}" for letter, option in zip(fmt.letters, fmt.options)]
    if all(line in question.text for line in lines):
        return question
    parts = list(question.parts)
    if parts and isinstance(parts[-1], str):
        parts[-1] = parts[-1].rstrip()
    return Question((*parts, "\n\n" + "\n".join(lines)), question.turns)


async def answer_sample(
    state: TaskState, opts: Answering, run: Run, declared: Sequence[str]
) -> DebateResult:
    """`run` (whose calls run on the roles `declared`) on the sample's question; the record
    (which the solver keeps), the answer as the output."""
    fmt = answer_format_for(state, opts.answer_format)
    result = await debate(state.sample_id, problem_for(state, fmt, opts), opts, run, declared)
    write_output(state, result, fmt)
    return result


async def debate(
    sample_id: str | int | None,
    problem: Problem,
    opts: Answering,
    run: Run,
    declared: Sequence[str],
) -> DebateResult:
    """`run` on `problem` in an Inspect runtime of its own: what the agents act with and the
    roles bound to lists (`declared`: the roles its calls run on) checked before any call, every
    option of the run and each role's model recorded."""
    runtime = InspectRuntime(sample_id, act, declared=declared)
    acting = opts.acting()
    if acting is not None:
        check_acting(acting, getattr(opts, "agents", None))
    session = Session(
        runtime,
        problem,
        retries=opts.retries,
        temperature=opts.temperature,
        max_tokens=opts.max_tokens,
        budget=opts.new_budget(),
        acting=acting,
    )
    result = await run(session)
    # every option of the run, as the method recorded it where it did, and each role's model
    result.options = {
        **opts.record(),
        **result.options,
        "answer_format": problem.fmt.name,
        "roles": runtime.resolved_roles(),
    }
    return result


def write_output(state: TaskState, result: DebateResult, fmt: AnswerFormat) -> None:
    """Drop-in output: mark the chosen option and end the completion with the final answer.

    An abstention leaves the completion empty, so no scorer can read a correct answer into it.
    """
    completion = fmt.render(result.final) if result.final is not None else ""
    if isinstance(fmt, Choice):
        for i, letter in enumerate(fmt.letters):
            state.choices.mark_choice(i, letter == result.final)
    state.output = ModelOutput.from_content(model=str(state.model), content=completion)
    state.messages.append(
        ChatMessageAssistant(content=completion or "(no answer: all agents abstained)")
    )
