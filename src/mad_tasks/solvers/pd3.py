"""PD³ (Bao et al.): project duplication detection by a round-robin tournament of debates, its
feedback module, and the baselines it is compared with.

A retrieval sample (`project_dedup`) holds the project under detection as its input (every part of
it) and, in its metadata, the query (`query`: id, title, text) and the candidates (`candidates`: a
list of id, title, text, in their fixed order); the output is `[RESULT] id1, ..., id5` (corpus ids),
empty only when a method returned nothing. A pair sample (`project_dup_pairs`) holds two queries
with their references (metadata `a` and `b`); `pd3_feedback` scores both and answers A, B or tie.
Calls run on the roles `expert`, `senior` and `feedback`, each the main model unless bound with
`--model-role`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from .._inspect_sample import question_of, save_result
from ..engine.answers import FreeText
from ..engine.methods import pd3 as method
from ..engine.methods.pd3 import (
    FeedbackOptions,
    LexicalOptions,
    ListwiseOptions,
    PD3Options,
    Project,
)
from ..engine.options import Generation, OptionError, Options
from ..engine.records import DebateResult
from ..engine.session import Problem, Session
from ..inspect_runtime import InspectRuntime
from ._shell import takes

Run = Callable[[Session], Awaitable[DebateResult]]


def project_of(value: Any, where: str) -> Project:
    """A project of the sample's metadata: an object with text fields id, title and text."""
    if not isinstance(value, Mapping) or not all(
        isinstance(value.get(k), str) for k in ("id", "title", "text")
    ):
        raise ValueError(f"{where} must be an object with text fields 'id', 'title' and 'text'")
    return Project(value["id"], value["title"], value["text"])


def projects_of(value: Any, where: str) -> list[Project]:
    if not isinstance(value, Sequence) or isinstance(value, str) or not value:
        raise ValueError(f"{where} must be a non-empty list of projects")
    return [project_of(p, f"{where}[{i}]") for i, p in enumerate(value)]


def retrieval_inputs(state: TaskState) -> tuple[Project, list[Project]]:
    """The query and its candidates, from the sample's metadata (the project_dedup shape)."""
    where = f"sample {state.sample_id}: metadata"
    meta = state.metadata
    return project_of(meta.get("query"), f"{where} 'query'"), projects_of(
        meta.get("candidates"), f"{where} 'candidates'"
    )


async def run_sample(
    state: TaskState, opts: Options, generation: Generation | None, run: Run
) -> TaskState:
    """`run` in a session with the solver's generation settings (none: it makes no call)."""
    runtime = InspectRuntime(state.sample_id)
    system = "\n\n".join(m.text for m in state.messages if m.role == "system")
    g = generation or Generation(retries=0, allow_text_only=True)
    question = question_of(state, g.allow_text_only)
    session = Session(
        runtime,
        Problem(question, FreeText(), system),
        retries=g.retries,
        temperature=g.temperature,
        max_tokens=g.max_tokens,
    )
    result = await run(session)
    result.options = {**opts.record(), **result.options, "roles": runtime.resolved_roles()}
    save_result(state, result)
    # no answer leaves the output empty, so no scorer can read one into it
    completion = result.final or ""
    state.output = ModelOutput.from_content(model=str(state.model), content=completion)
    state.messages.append(ChatMessageAssistant(content=completion or "(no answer)"))
    return state


def retrieval_solver(
    opts: ListwiseOptions,
    run: Callable[[Session, Project, list[Project]], Awaitable[DebateResult]],
) -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        query, candidates = retrieval_inputs(state)
        try:  # the sample's candidates against the options, before any call
            opts.check_candidates(len(candidates))
        except OptionError as e:
            raise e.of("solver") from None
        return await run_sample(state, opts, opts, lambda s: run(s, query, candidates))

    return solve


@solver
@takes(PD3Options)
def pd3(o: PD3Options) -> Solver:
    """PD³: candidates in sets, groups of sets debated by experts and decided by a senior, the
    groups' decisions voted into the top k."""
    return retrieval_solver(o, lambda s, q, c: method.pd3(s, q, c, o))


@solver
@takes(PD3Options, decider="single", agents=1, debate_rounds=0)
def llm_voting(o: PD3Options) -> Solver:
    """PD³'s LLM-voting ablation: the same groups, each decided by one call, then the vote."""
    return retrieval_solver(o, lambda s, q, c: method.pd3(s, q, c, o))


@solver
@takes(ListwiseOptions)
def listwise(o: ListwiseOptions) -> Solver:
    """One call chooses the top k among all the candidates (the paper's list-wise LLMs)."""
    return retrieval_solver(o, lambda s, q, c: method.listwise(s, q, c, o))


@solver
@takes(LexicalOptions)
def bm25(o: LexicalOptions) -> Solver:
    """The lexical floor: the top k candidates by BM25 against the query, no model call."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        query, candidates = retrieval_inputs(state)
        if o.top_k > len(candidates):
            raise OptionError(
                "top_k",
                o.top_k,
                f"an integer from 1 to the number of candidates ({len(candidates)})",
            ).of("solver")
        return await run_sample(
            state, o, None, lambda s: method.lexical(s, query, candidates, o.top_k)
        )

    return solve


def side_of(state: TaskState, key: str) -> method.Side:
    where = f"sample {state.sample_id}: metadata '{key}'"
    side = state.metadata.get(key)
    if not isinstance(side, Mapping):
        raise ValueError(
            f"{where} is missing: pd3_feedback compares two projects' references (metadata 'a' "
            "and 'b', each with 'query' and 'refs', as project_dup_pairs gives them)"
        )
    return project_of(side.get("query"), f"{where}.query"), projects_of(
        side.get("refs"), f"{where}.refs"
    )


@solver
@takes(FeedbackOptions)
def pd3_feedback(o: FeedbackOptions) -> Solver:
    """PD³'s feedback module on a pair: for each side a similarity conclusion and the mean of
    independent 1-10 duplication scores; the more duplicated side (A, B or tie)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        a, b = side_of(state, "a"), side_of(state, "b")
        return await run_sample(state, o, o, lambda s: method.feedback_pair(s, a, b, o))

    return solve
