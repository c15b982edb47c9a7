"""The sample of an answer-producing method: its question as the task's setup left it, and the
drop-in output (the final answer, the chosen option marked)."""

from __future__ import annotations

from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.solver import TaskState

from .._inspect_sample import answer_format_for, question_of
from ..engine.answers import AnswerFormat, Choice
from ..engine.content import Question
from ..engine.options import Answering
from ..engine.records import DebateResult
from ..engine.session import Problem, Session
from ..engine.spec import Run, agent_roles
from ..inspect_acting import act, check_acting
from ..inspect_runtime import InspectRuntime


def problem_for(state: TaskState, fmt: AnswerFormat, opts: Answering) -> Problem:
    """The question as the task's setup left it (its template, system message and every part of
    the input), with the options; a choice question lacking its options gets them listed."""
    question = question_of(state, opts.allow_text_only)
    if isinstance(fmt, Choice):
        lines = [f"{letter}) {option}" for letter, option in zip(fmt.letters, fmt.options)]
        if not all(line in question.text for line in lines):
            parts = list(question.parts)
            if parts and isinstance(parts[-1], str):
                parts[-1] = parts[-1].rstrip()
            question = Question((*parts, "\n\n" + "\n".join(lines)), question.turns)
    system = "\n\n".join(m.text for m in state.messages if m.role == "system")
    return Problem(question, fmt, system, opts.templates)


async def answer_sample(state: TaskState, opts: Answering, run: Run) -> DebateResult:
    """`run` on the sample's question; the record (which the solver keeps), the answer as the output."""
    fmt = answer_format_for(state, opts.answer_format)
    runtime = InspectRuntime(state.sample_id, act)
    acting = opts.acting()
    if acting is not None:  # a model or sandbox the agents cannot act with, before any call
        check_acting(acting, agent_roles(opts), runtime)
    session = Session(
        runtime,
        problem_for(state, fmt, opts),
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
        "answer_format": fmt.name,
        "roles": runtime.resolved_roles(),
    }
    write_output(state, result, fmt)
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
