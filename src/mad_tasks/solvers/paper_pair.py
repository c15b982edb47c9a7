"""The sample of a paper comparison (Tree-of-Debate, Kargupta et al., ACL 2025, its ablations and
baselines): a topic and two papers.

A sample's input is the root topic (every part of it); its metadata holds the two papers
(`paper_a`, Author 0, and `paper_b`, each with a title, an abstract and, where known, an
introduction and a full text: see the `paper_compare` task). The output is the summary, or empty
when the moderator gave none that could be read; the whole tree goes into the sample store. Calls
run on the roles `author_0` and `author_1` (each falling back to a shared `author` role) and
`moderator`, each the main model unless bound with `--model-role`.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.solver import TaskState

from .._inspect_sample import question_of
from ..engine.answers import FreeText
from ..engine.methods.tod.options import SamplingOptions
from ..engine.methods.tod.papers import PaperPair, pair_of_metadata
from ..engine.records import DebateResult
from ..engine.session import Problem, Session
from ..engine.spec import Run
from ..inspect_runtime import InspectRuntime


def paper_pair(state: TaskState, allow_text_only: bool) -> PaperPair:
    """The sample's topic (its input as the task's setup left it) and its two papers."""
    return pair_of_metadata(state.metadata, question_of(state, allow_text_only))


async def compare_sample(
    state: TaskState, opts: SamplingOptions, run: Run, declared: Sequence[str]
) -> DebateResult:
    """`run` on the sample's papers; the record (which the solver keeps), the summary as the output."""
    pair = paper_pair(state, opts.allow_text_only)
    runtime = InspectRuntime(state.sample_id, declared=declared)
    system = "\n\n".join(m.text for m in state.messages if m.role == "system")
    # each stage sets its own temperature and length (opts.stage), so the session sets none
    problem = Problem(pair.topic, FreeText(), system)
    session = Session(runtime, problem, retries=opts.retries, budget=opts.new_budget())
    result = await run(session, pair)
    result.options = {**opts.record(), **result.options, "roles": runtime.resolved_roles()}
    # no summary leaves the output empty, so no scorer can grade one into it
    summary = result.final or ""
    state.output = ModelOutput.from_content(model=str(state.model), content=summary)
    state.messages.append(
        ChatMessageAssistant(content=summary or "(no summary: the moderator's was unreadable)")
    )
    return result
