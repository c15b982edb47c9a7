"""The sample of a judge (`more`, `samre`, `single_judge`): a pair of answers to a question.

The model under evaluation is the judge. A sample holds a question (its input, every part of it,
as the dataset gave it: a task's setup prompt is for the answer-producing solvers) and two answers
(metadata `answer_a` and `answer_b`, shown as written; no prompt names the models that wrote them).
The output is `ANSWER: A`, `ANSWER: B` or `ANSWER: tie`, or empty when the judge abstained (nothing
it said could be read), and the whole record goes into the sample store. Calls run on the roles
`advocate`, `judge` and `juror`, each the main model unless bound with `--model-role`.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.solver import TaskState

from .._inspect_sample import judge_session, question_of
from ..engine.methods.d3.court import Pair
from ..engine.methods.d3.options import CourtOptions
from ..engine.records import DebateResult
from ..engine.spec import Run
from ..inspect_runtime import InspectRuntime


def pair_of(state: TaskState, allow_text_only: bool) -> Pair:
    """The sample's input as given (every part; not the task's setup prompt) and its two answers."""
    meta = state.metadata
    missing = [k for k in ("answer_a", "answer_b") if not isinstance(meta.get(k), str)]
    if missing:
        raise ValueError(
            f"sample {state.sample_id}: the judge solvers compare the two answers in the sample "
            f"metadata 'answer_a' and 'answer_b'; missing: {', '.join(missing)}"
        )
    question = question_of(state, allow_text_only, as_given=True)
    return Pair(question, meta["answer_a"], meta["answer_b"])


async def judge_sample(
    state: TaskState, opts: CourtOptions, run: Run, declared: Sequence[str]
) -> DebateResult:
    """`run` on the sample's pair; the record (which the solver keeps), the verdict as the output."""
    pair = pair_of(state, opts.allow_text_only)
    runtime = InspectRuntime(state.sample_id, declared=declared)
    session = judge_session(
        runtime, pair.question, opts.retries, opts.temperature, opts.max_tokens, opts.new_budget()
    )
    result = await run(session, pair)
    result.options = {**opts.record(), **result.options, "roles": runtime.resolved_roles()}
    # an abstention leaves the output empty, so no scorer can read a verdict into it
    completion = f"ANSWER: {result.final}" if result.final is not None else ""
    state.output = ModelOutput.from_content(model=str(state.model), content=completion)
    state.messages.append(
        ChatMessageAssistant(content=completion or "(no verdict: the judge abstained)")
    )
    return result
