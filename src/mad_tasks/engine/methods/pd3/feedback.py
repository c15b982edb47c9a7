"""PD³'s feedback module (Bao et al., seed 000, spec 1.6): a project's duplication score against its
references, and a pair of projects compared by it (`pd3_feedback`).

Feedback (`feedback`, `feedback_pair`, spec 1.6): an optional similarity conclusion over the query
and its references, then `samples` independent judge calls, each ending in `[RESULT]<1..10>`; the
score is the mean of the readable ones. A pair predicts the side with the higher score ("tie" when
equal; no prediction when a side has no readable score).

In the paper's Method Retrieval setting (a pair whose sides give their candidates, not their
references), each side's references are first retrieved by PD³ itself (`pd3` at its defaults, with
the feedback's project and generation options: the top 5 of its round-robin debates, the side's
project as the question, its agents named as PD³'s inside the span `side A > retrieval`), then
scored.

A feedback call presents the question too: as the project under detection when no project is
given, else as the task (a pair's instruction) before the project's view. Calls are made by the
agents "conclusion" and "judge 1".."judge n" (role `feedback`; a pair's sides prefix "A " and "B ").
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from ... import viewer_text
from ...content import Msg, Question, compose
from ...protocols.pd3 import read_score
from ...records import AgentAnswer, DebateResult
from ...requests import ConclusionRequest, DuplicationRequest
from ...runtime import LimitReached
from ...session import Problem, Session
from ...spec import MethodSpec, members
from . import prompts
from .options import FeedbackOptions, PD3Options, ProjectOptions
from .prompts import project_view
from .query import full_text
from .records import Cut, FeedbackRecord, FeedbackResult, PD3Record, Project
from .tournament import pd3

Side = tuple[Project | None, Sequence[Project]]  # a query (None: the question) and its references


def _text(reply: str) -> str | None:
    return reply.strip() or None


async def feedback(
    session: Session,
    query: Project | None,
    references: Sequence[Project],
    opts: FeedbackOptions,
    side: str = "",
) -> FeedbackResult:
    """The duplication score of `query` against its `references` (spec 1.6): the similarity
    conclusion (`conclusion`), then `samples` judge calls at once, each read by `read_score`;
    the mean of the readable scores. `query` None: the session's question is the project under
    detection; else the question is shown as the task, then the query's view. `side` ("A", "B")
    prefixes the agents' names, so a pair's two sides never share a cache scope or seed."""
    rt = session.runtime
    prefix = f"{side} " if side else ""
    question, chars, shown = prompts.question_view(session.problem.question, opts.query_tokens)
    cuts = []
    if shown < chars:
        cuts.append(Cut(query.id if query else "", chars, shown))
    view = None
    if query is not None:
        view, cut = project_view(query, opts.query_tokens)
        if cut:
            cuts.append(Cut(query.id, len(full_text(query)), len(view)))
    refs = []
    for r in references:
        ref, cut = project_view(r, opts.candidate_tokens)
        refs.append(ref)
        if cut:
            cuts.append(Cut(r.id, len(full_text(r)), len(ref)))
    ids = tuple(r.id for r in references)
    facet = query.facet if query is not None else None
    opening = prompts.feedback_opening(question, view, refs, opts.domain, facet)
    conclusion = None
    if opts.conclusion:
        async with rt.span("conclusion"):
            written = await session.ask(
                f"{prefix}conclusion",
                "feedback",
                [Msg("user", compose(opening, prompts.CONCLUSION))],
                "conclusion",
                0,
                _text,
                prompts.CONCLUSION_REMINDER,
                asks=ConclusionRequest(ids),
            )
        conclusion = written.value
    prompt = compose(opening, prompts.judge(conclusion))
    async with rt.span("scores"):
        judged = await rt.gather(
            *(
                session.ask(
                    f"{prefix}judge {i}",
                    "feedback",
                    [Msg("user", prompt)],
                    f"score {i}",
                    0,
                    read_score,
                    prompts.SCORE_REMINDER,
                    asks=DuplicationRequest(ids),
                )
                for i in range(1, opts.samples + 1)
            )
        )
        scores = tuple(a.value for a in judged)
        readable = [s for s in scores if s is not None]
        mean = statistics.fmean(readable) if readable else None
        rt.info(f"{prefix}scores", _scores_markdown(prefix, scores, judged, mean, conclusion))
    return FeedbackResult(
        side=side,
        query=query.id if query else "",
        references=ids,
        conclusion=conclusion,
        replies=tuple(tuple(a.replies) for a in judged),
        scores=scores,
        mean=mean,
        cuts=tuple(cuts),
    )


def _scores_markdown(
    prefix: str,
    scores: Sequence[int | None],
    judged: Sequence[Any],
    mean: float | None,
    conclusion: str | None,
) -> str:
    rows = [
        (f"{prefix}judge {i}", "unreadable" if s is None else s, len(a.replies))
        for i, (s, a) in enumerate(zip(scores, judged), 1)
    ]
    result = "no readable score" if mean is None else f"{mean:.2f}"
    shown = "with" if conclusion else "without"
    return (
        f"**Duplication score** → **{result}** (judges {shown} a similarity conclusion)\n\n"
        f"{viewer_text.table(['judge', 'score', 'attempts'], rows, right={1, 2})}\n\n"
        "The score is the mean of the readable scores (1 to 10); an unreadable one is left out, "
        "never counted as any score. attempts: 1 + the follow-ups asking for a readable score."
    )


def predict(a: float | None, b: float | None) -> str | None:
    """The pair's prediction: the side with the higher mean score, "tie" when equal; None when
    a side has no readable score (no prediction is guessed)."""
    if a is None or b is None:
        return None
    return "A" if a > b else "B" if b > a else "tie"


async def feedback_pair(session: Session, pair: SidePair, opts: FeedbackOptions) -> DebateResult:
    """Task 2: which of two queries its references duplicate more, each side scored by
    `feedback` (at once, each in its span); the final answer "A", "B" or "tie". A pair that gives
    candidates has each side's references retrieved by PD³ first (`retrieved`)."""
    rt = session.runtime
    found: dict[str, PD3Record] = {}
    retrieval = retrieval_options(opts)
    if pair.retrieved:  # both sides checked before any call
        for side, (query, given) in zip("AB", (pair.a, pair.b)):
            if query is None:
                raise ValueError(f"side {side}: Method Retrieval needs the side's project")
            retrieval.check_candidates(len(given))

    pending: list[Session] = []  # the retrievals' sessions whose calls are not yet the pair's

    def merge(own: Session) -> None:
        if own in pending:
            pending.remove(own)
            session.calls.extend(own.calls)

    async def one(side: str, query: Project | None, given: Sequence[Project]) -> FeedbackResult:
        async with rt.span(f"side {side}"):
            refs = given
            if pair.retrieved and query is not None:
                own = retrieval_session(session, query)
                pending.append(own)
                try:
                    refs, found[side] = await retrieved(own, query, given, retrieval)
                finally:
                    merge(own)
            return await feedback(session, query, refs, opts, side)

    try:
        sides = await rt.gather(one("A", *pair.a), one("B", *pair.b))
    finally:  # a limit in one side: the other side's retrieval calls so far are the pair's too
        for own in list(pending):
            merge(own)
    prediction = predict(sides[0].mean, sides[1].mean)
    means = ", ".join(
        f"{s.side} {'unreadable' if s.mean is None else f'{s.mean:.2f}'}" for s in sides
    )
    rt.info(
        "prediction",
        f"**Prediction** → **{prediction or 'none'}** ({means})\n\nThe side with the higher mean "
        "duplication score; equal means: tie; a side without a readable score: no prediction.",
    )
    answers = [
        AgentAnswer(
            f"{s.side} judge {i}",
            1,
            replies[0] if len(replies) == 1 else f"{replies[0]}\n\n{replies[-1]}",
            None if score is None else str(score),
            len(replies),
        )
        for s in sides
        for i, (replies, score) in enumerate(zip(s.replies, s.scores), 1)
    ]
    return DebateResult(
        method="pd3_feedback",
        final=prediction,
        answers=answers,
        calls=session.calls,
        options=opts.record(),
        record=FeedbackRecord(list(sides), prediction, [found[s] for s in sorted(found)]),
    )


def retrieval_options(opts: FeedbackOptions) -> PD3Options:
    """PD³ at its defaults for Method Retrieval, with the feedback's project and generation
    options (domain, criteria, text budgets, temperature, ...) but its own follow-ups."""
    shared = {f.name for f in fields(ProjectOptions)} - {"retries"}
    return PD3Options(**{k: v for k, v in asdict(opts).items() if k in shared})


def project_question(query: Project) -> Question:
    """The project under detection as a retrieval task shows it: the title, a blank line, the
    text."""
    return Question.of(["\n\n".join(p for p in (query.title, query.text) if p)])


def retrieval_session(session: Session, query: Project) -> Session:
    """The session of a side's retrieval: the side's project as its question (as a retrieval
    task asks it), the pair's runtime, settings and budget."""
    return Session(
        session.runtime,
        Problem(project_question(query), session.problem.fmt, session.problem.system),
        retries=session.retries,
        temperature=session.temperature,
        max_tokens=session.max_tokens,
        budget=session.budget,  # both sides spend the pair's one budget
    )


async def retrieved(
    own: Session, query: Project, candidates: Sequence[Project], opts: PD3Options
) -> tuple[list[Project], PD3Record]:
    """A side's own references (Method Retrieval): PD³'s top 5 of its candidates, in the side's
    retrieval session; a retrieval a limit cut ends the pair (`within_limits`: no prediction)."""
    async with own.runtime.span("retrieval"):
        result = await pd3(own, query, candidates, opts)
    record, stop = result.record, result.stopped
    if stop is not None:
        raise LimitReached(stop.kind, stop.value, stop.limit)
    assert isinstance(record, PD3Record)  # a retrieval no limit cut has its record
    by_id = {c.id: c for c in candidates}
    return [by_id[c] for c in record.top], record


@dataclass(frozen=True)
class SidePair:
    """What a pair sample gives: two projects under detection, each with its references, or with
    its candidates (`retrieved`: the paper's Method Retrieval, each method retrieving its own top
    5 of them)."""

    WHAT: ClassVar[str] = "two queries' references"  # what a sample must carry for a pair

    a: Side
    b: Side
    retrieved: bool = False


SPEC = MethodSpec(
    "pd3_feedback",
    "PD³'s feedback module on a pair: for each side a similarity conclusion and the mean of "
    "independent 1-10 duplication scores; the more duplicated side (A, B or tie).",
    FeedbackOptions,
    lambda o, setup: lambda s, pair: feedback_pair(s, pair, o),
    reads=SidePair,
    # expert and senior: PD³'s own retrieval under Method Retrieval
    roles=lambda o: ("feedback", *members("expert", PD3Options().agents), "senior"),
)
