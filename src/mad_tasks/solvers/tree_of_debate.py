"""Tree-of-Debate (Kargupta et al., ACL 2025): two paper personas debate a tree of subtopics, a
moderator expands the nodes that progress and writes the comparative summary; with its No-Tree and
No-SD ablations and the single-stage and two-stage baselines.

A sample's input is the root topic (every part of it); its metadata holds the two papers
(`paper_a`, Author 0, and `paper_b`, each with a title, an abstract and, where known, an
introduction and a full text: see the `paper_compare` task). The output is the summary, or empty
when the moderator gave none that could be read; the whole tree goes into the sample store. Calls
run on the roles `author_0` and `author_1` (each falling back to a shared `author` role) and
`moderator`, each the main model unless bound with `--model-role`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from .._inspect_sample import question_of, save_result
from ..engine.answers import FreeText
from ..engine.methods import tod
from ..engine.methods.tod_options import SamplingOptions, TreeOptions
from ..engine.methods.tod_papers import (
    PaperPair,
    load_retriever,
    pair_of_metadata,
    retrievers_for,
)
from ..engine.options import OptionError
from ..engine.records import DebateResult
from ..engine.session import Problem, Session
from ..inspect_runtime import InspectRuntime
from ._shell import takes

Compare = Callable[[Session, PaperPair], Awaitable[DebateResult]]


def paper_pair(state: TaskState, allow_text_only: bool, swap: bool = False) -> PaperPair:
    """The sample's topic (its input as the task's setup left it) and its two papers; `swap` makes
    `paper_b` Author 0."""
    pair = pair_of_metadata(state.metadata, question_of(state, allow_text_only))
    a, b = pair.papers
    return PaperPair(pair.topic, (b, a)) if swap else pair


async def compare_sample(
    state: TaskState, opts: SamplingOptions, compare: Compare, swap: bool = False
) -> TaskState:
    pair = paper_pair(state, opts.allow_text_only, swap)
    runtime = InspectRuntime(state.sample_id)
    system = "\n\n".join(m.text for m in state.messages if m.role == "system")
    # each stage sets its own temperature and length (opts.stage), so the session sets none
    session = Session(runtime, Problem(pair.topic, FreeText(), system), retries=opts.retries)
    result = await compare(session, pair)
    result.options = {**opts.record(), **result.options, "roles": runtime.resolved_roles()}
    save_result(state, result)
    # no summary leaves the output empty, so no scorer can grade one into it
    summary = result.final or ""
    state.output = ModelOutput.from_content(model=str(state.model), content=summary)
    state.messages.append(
        ChatMessageAssistant(content=summary or "(no summary: the moderator's was unreadable)")
    )
    return state


def tree_solver(opts: TreeOptions) -> Solver:
    if opts.self_deliberation:
        try:  # the embedding model of retriever=bge:<path>, loaded before any eval starts
            load_retriever(opts.retriever)
        except Exception as e:  # noqa: BLE001 - a missing library, path or hub model: all one to a user
            raise OptionError(
                "retriever", opts.retriever, f"a retriever that loads here ({e})", "solver"
            ) from None

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await compare_sample(
            state,
            opts,
            lambda s, pair: tod.tree_of_debate(s, pair, opts, retrievers_for(pair, opts)),
            opts.swap_papers,
        )

    return solve


@solver
@takes(TreeOptions)
def tree_of_debate(o: TreeOptions) -> Solver:
    """Tree-of-Debate: self-deliberation, a three-stage debate per subtopic, breadth-first
    expansion within a budget, and a synthesis of the tree."""
    return tree_solver(o)


@solver
@takes(TreeOptions, tree=False, max_expansions=5)
def tod_no_tree(o: TreeOptions) -> Solver:
    """The No-Tree ablation: one combined subtopic per expansion (a chain), budget 5."""
    return tree_solver(o)


@solver
@takes(TreeOptions, self_deliberation=False)
def tod_no_sd(o: TreeOptions) -> Solver:
    """The No-SD ablation: claims from title, abstract and introduction, no retrieval."""
    return tree_solver(o)


@solver
@takes(SamplingOptions, groups=("",))
def single_stage(o: SamplingOptions) -> Solver:
    """One call compares the two papers from their titles, abstracts and introductions."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await compare_sample(state, o, lambda s, pair: tod.single_stage(s, pair, o))

    return solve


@solver
@takes(SamplingOptions, groups=("",))
def two_stage(o: SamplingOptions) -> Solver:
    """Each paper summarised (motivation and novelties), then the two summaries compared."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await compare_sample(state, o, lambda s, pair: tod.two_stage(s, pair, o))

    return solve
