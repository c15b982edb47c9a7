"""What every solver does around its method: read the sample, run the engine, write the results."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.solver import TaskState

from .._inspect_sample import STORE_KEY, answer_format_for
from ..engine.answers import FORMATS, AnswerFormat, Choice
from ..engine.options import MAX_RETRIES, generation, integer, one_of
from ..engine.records import DebateResult
from ..engine.session import Problem, Session
from ..inspect_runtime import InspectRuntime

Method = Callable[[Session], Awaitable[DebateResult]]


def check_common(answer_format: Any, retries: Any, temperature: Any, max_tokens: Any) -> None:
    """The options every answer-producing solver shares, checked before any model call."""
    one_of("answer_format", answer_format, ("auto", *FORMATS))
    integer("retries", retries, 0, MAX_RETRIES)
    generation(temperature, max_tokens)


def problem_for(state: TaskState, fmt: AnswerFormat) -> Problem:
    """The prompt as the task's setup left it (its template and system message), with the options."""
    text = state.user_prompt.text if state.messages else state.input_text
    if isinstance(fmt, Choice):
        lines = [f"{letter}) {option}" for letter, option in zip(fmt.letters, fmt.options)]
        if not all(line in text for line in lines):
            text = text.rstrip() + "\n\n" + "\n".join(lines)
    system = "\n\n".join(m.text for m in state.messages if m.role == "system")
    return Problem(text, fmt, system)


async def run_method(
    state: TaskState,
    method: Method,
    answer_format: str,
    retries: int,
    temperature: float | None,
    max_tokens: int | None,
) -> TaskState:
    fmt = answer_format_for(state, answer_format)
    session = Session(
        InspectRuntime(state.sample_id),
        problem_for(state, fmt),
        retries=retries,
        temperature=temperature,
        max_tokens=max_tokens,
    )
    result = await method(session)
    result.options = {**result.options, "answer_format": fmt.name, "retries": retries}
    state.store.set(STORE_KEY, result.to_dict())
    write_output(state, result, fmt)
    return state


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
