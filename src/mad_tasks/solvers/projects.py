"""The samples of PD³'s methods (Bao et al.): a query and its candidates, or two queries' references.

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
from inspect_ai.solver import TaskState

from .._inspect_sample import question_of
from ..engine.answers import FreeText
from ..engine.methods.pd3.feedback import Side, SidePair
from ..engine.methods.pd3.query import Retrieval
from ..engine.methods.pd3.records import Project
from ..engine.options import Generation, Options
from ..engine.records import DebateResult
from ..engine.session import Problem, Session
from ..engine.spec import Run
from ..inspect_runtime import InspectRuntime


def project_of(value: Any, where: str, facet: Any = None) -> Project:
    """A project of the sample's metadata: an object with text fields id, title and text; a
    query's `facet` (a text, where the sample gives one)."""
    if not isinstance(value, Mapping) or not all(
        isinstance(value.get(k), str) for k in ("id", "title", "text")
    ):
        raise ValueError(f"{where} must be an object with text fields 'id', 'title' and 'text'")
    if facet is not None and not isinstance(facet, str):
        raise ValueError(f"{where}: its facet must be a text, got {facet!r:.80}")
    return Project(value["id"], value["title"], value["text"], facet)


def projects_of(value: Any, where: str) -> list[Project]:
    if not isinstance(value, Sequence) or isinstance(value, str) or not value:
        raise ValueError(f"{where} must be a non-empty list of projects")
    return [project_of(p, f"{where}[{i}]") for i, p in enumerate(value)]


def retrieval_of(state: TaskState) -> Retrieval:
    """The query and its candidates, from the sample's metadata (the project_dedup shape)."""
    where = f"sample {state.sample_id}: metadata"
    meta = state.metadata
    query = project_of(meta.get("query"), f"{where} 'query'", meta.get("facet"))
    return Retrieval(query, tuple(projects_of(meta.get("candidates"), f"{where} 'candidates'")))


def side_of(state: TaskState, key: str) -> tuple[Side, bool]:
    """A side of a pair sample: its query and its references (`refs`), or under Method Retrieval
    its candidates (`candidates`; True), from which the method retrieves its own."""
    where = f"sample {state.sample_id}: metadata '{key}'"
    side = state.metadata.get(key)
    if not isinstance(side, Mapping):
        raise ValueError(
            f"{where} is missing: pd3_feedback compares two projects' references (metadata 'a' "
            "and 'b', each with 'query' and 'refs' or 'candidates', as project_dup_pairs gives "
            "them)"
        )
    query = project_of(side.get("query"), f"{where}.query", side.get("facet"))
    field = "refs" if "refs" in side or "candidates" not in side else "candidates"
    return (query, projects_of(side.get(field), f"{where}.{field}")), field == "candidates"


async def run_sample(
    state: TaskState,
    opts: Options,
    run: Callable[[Session], Awaitable[DebateResult]],
    declared: Sequence[str],
) -> DebateResult:
    """`run` in a session with the options' generation settings (none: the method makes no
    call); the record (which the solver keeps), the answer as the output."""
    runtime = InspectRuntime(state.sample_id, declared=declared)
    system = "\n\n".join(m.text for m in state.messages if m.role == "system")
    g = opts if isinstance(opts, Generation) else Generation(retries=0, allow_text_only=True)
    question = question_of(state, g.allow_text_only)
    session = Session(
        runtime,
        Problem(question, FreeText(), system),
        retries=g.retries,
        temperature=g.temperature,
        max_tokens=g.max_tokens,
        budget=g.new_budget(),
    )
    result = await run(session)
    result.options = {**opts.record(), **result.options, "roles": runtime.resolved_roles()}
    # no answer leaves the output empty, so no scorer can read one into it
    completion = result.final or ""
    state.output = ModelOutput.from_content(model=str(state.model), content=completion)
    state.messages.append(ChatMessageAssistant(content=completion or "(no answer)"))
    return result


async def retrieve_sample(
    state: TaskState, opts: Options, run: Run, declared: Sequence[str]
) -> DebateResult:
    """`run` on the sample's query and candidates (checked against the options before any
    call, by the method)."""
    retrieval = retrieval_of(state)
    return await run_sample(state, opts, lambda s: run(s, retrieval), declared)


async def compare_projects_sample(
    state: TaskState, opts: Options, run: Run, declared: Sequence[str]
) -> DebateResult:
    """`run` on the sample's two sides (`pd3_feedback`)."""
    (a, a_retrieves), (b, b_retrieves) = side_of(state, "a"), side_of(state, "b")
    if a_retrieves != b_retrieves:
        raise ValueError(
            f"sample {state.sample_id}: one side gives references and the other candidates"
        )
    pair = SidePair(a, b, retrieved=a_retrieves)
    return await run_sample(state, opts, lambda s: run(s, pair), declared)
