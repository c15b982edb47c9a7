"""The baselines PD³ is compared with (Bao et al., seed 000, Table 1): `listwise`, one call choosing
the top k among all the candidates (the paper's list-wise LLMs), `pointwise`, one call scoring each
candidate (its LLM-as-a-Judge row), and the rankings that make no model call: `bm25` and `rouge_l`
(its WF rows, over the candidates' texts), `dense` (its VD rows, embedding similarity to the query),
`reranker` (its pretrained rerankers, a cross-encoder's score of query and candidate together) and
`random_k` (its Random row)."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from ... import viewer_text
from ...checks import OptionError
from ...content import Msg, compose
from ...embeddings import Embedder, PairScorer
from ...protocols.pd3 import read_score, vote
from ...records import AgentAnswer, DebateResult
from ...requests import DuplicationRequest
from ...retrieval import LexicalRetriever, rouge_l
from ...session import Session
from ...spec import MethodSpec
from . import prompts
from .options import (
    DenseOptions,
    LexicalOptions,
    ListwiseOptions,
    PointwiseOptions,
    RandomOptions,
    RerankerOptions,
)
from .query import Decider, Retrieval, full_text, prepare_query, query_seed, result_of
from .records import Group, PD3Record, Project


async def listwise(
    session: Session, query: Project, candidates: Sequence[Project], opts: ListwiseOptions
) -> DebateResult:
    """The list-wise baseline: one call chooses the top_k among all candidates, shown in their
    preliminary order; a short list is filled in that order."""
    opts.check_candidates(len(candidates))
    seed = query_seed(opts.seed, query.id)
    q = prepare_query(session, query, candidates, opts, seed)
    run = Decider(session, q, opts.top_k)
    prompt = compose(q.opening, q.block(q.order), prompts.decide(opts.top_k))
    async with session.runtime.span("listwise"):
        decision = await run.decide("listwise", "listwise", 0, q.order, prompt, ())
        session.runtime.info("decision", run.decision_markdown(decision))
    group = Group(1, q.order, (), decision)
    outcome = vote([decision.picks], opts.top_k, None, None, q.order)
    record = PD3Record(
        variant="listwise",
        query=query.id,
        k=opts.top_k,
        seed=seed,
        order=q.order,
        labels=q.labels,
        groups=[group],
        votes=outcome.votes,
        points=outcome.points,
        rule=outcome.rule,
        top=outcome.top,
        cuts=q.cuts,
        query_cut=q.query_cut,
    )
    return result_of(session, "listwise", record, run.answers(group, 1), opts.record())


def lexical_scores(query: Project, candidates: Sequence[Project]) -> list[float]:
    """Each candidate's BM25 score against the query (title and text, whole), in the
    candidates' order."""
    texts = [full_text(c) for c in candidates]
    found = LexicalRetriever(texts, 0).search(full_text(query), len(texts))
    by_text = {e.text: e.score for e in found}  # the retriever indexes equal texts once
    return [by_text.get(t, 0.0) for t in texts]


def dense_run(
    o: DenseOptions, embedder: Embedder
) -> Callable[[Session, Retrieval], Awaitable[DebateResult]]:
    """The dense baseline with its embedder loaded (before any sample)."""
    return lambda s, r: dense(s, r.query, r.candidates, o.top_k, embedder, o.instruction)


def reranker_run(
    o: RerankerOptions, scorer: PairScorer
) -> Callable[[Session, Retrieval], Awaitable[DebateResult]]:
    """The reranker baseline with its cross-encoder loaded (before any sample)."""
    return lambda s, r: reranker(s, r.query, r.candidates, o.top_k, scorer)


def top_ids(
    candidates: Sequence[Project], scores: Sequence[float | None], k: int
) -> tuple[str, ...]:
    """The ids of the k candidates of highest score, ties in the candidates' order; a candidate
    without a score ranks below every scored one."""
    order = sorted(
        range(len(candidates)),
        key=lambda i: (scores[i] is None, -(scores[i] or 0.0), i),
    )
    return tuple(candidates[i].id for i in order[:k])


def lexical_top_k(query: Project, candidates: Sequence[Project], k: int) -> tuple[str, ...]:
    """The k candidates of highest BM25 score (bm25s, as Tree-of-Debate's retriever: lower-cased
    words, English stop words), ties in the candidates' order."""
    return top_ids(candidates, lexical_scores(query, candidates), k)


def ranked(
    session: Session,
    variant: str,
    title: str,
    candidates: Sequence[Project],
    scores: Sequence[float | None],
    query: Project,
    k: int,
    how: str,
    seed: int = 0,
    answers: Sequence[AgentAnswer] = (),
) -> DebateResult:
    """A ranking by one score per candidate: the k candidates of highest score, ties in the
    preliminary order, with a table of every score for the viewer (under `title`, the method's
    name; `variant` names it in the record); `answers`: the replies that gave the scores."""
    if not 1 <= k <= len(candidates):
        raise OptionError(
            "top_k", k, f"an integer from 1 to the number of candidates ({len(candidates)})"
        )
    top = top_ids(candidates, scores, k)
    place = {c: i for i, c in enumerate(top, 1)}
    rows = [
        (c.id, i, "unreadable" if s is None else f"{s:.3f}", place.get(c.id, ""))
        for i, (c, s) in enumerate(zip(candidates, scores), 1)
    ]
    calls = f"{len(answers)} model calls" if answers else "no model call"
    session.runtime.info(
        title,
        f"**{title}** ({calls})\n\n"
        f"{viewer_text.table(['id', 'prelim', 'score', 'chosen'], rows, right={1, 2, 3})}\n\n"
        f"score: {how}; ties go to the preliminary order"
        + (", and a candidate without a score ranks last." if answers else "."),
    )
    record = PD3Record(
        variant=variant,
        query=query.id,
        k=k,
        seed=seed,
        order=tuple(c.id for c in candidates),
        top=top,
        scores={c.id: s for c, s in zip(candidates, scores)},
    )
    return result_of(session, variant, record, list(answers), {"top_k": k})


async def lexical(
    session: Session, query: Project, candidates: Sequence[Project], k: int
) -> DebateResult:
    """The lexical floor: the BM25 ranking of `lexical_top_k`, no model call."""
    how = "BM25 of the candidate's title and text against the query's"
    scores = lexical_scores(query, candidates)
    return ranked(session, "lexical", "bm25", candidates, scores, query, k, how)


async def rouge(
    session: Session, query: Project, candidates: Sequence[Project], k: int
) -> DebateResult:
    """The other word-frequency floor: ROUGE-L's F1 of each candidate's title and text against
    the query's, no model call."""
    scores = [rouge_l(full_text(query), full_text(c)) for c in candidates]
    how = "ROUGE-L F1 (longest common subsequence of words) against the query's title and text"
    return ranked(session, "rouge_l", "rouge_l", candidates, scores, query, k, how)


async def pointwise(
    session: Session, query: Project, candidates: Sequence[Project], opts: PointwiseOptions
) -> DebateResult:
    """LLM-as-a-Judge, point-wise (after Zheng et al. 2023): one call per candidate, all at once,
    scores its relevance to the query from 1 to 10, seeing that candidate alone; a reply without a
    readable score is asked again (`retries`) and then leaves its candidate unscored, never
    guessed."""
    opts.check_candidates(len(candidates))
    q = prepare_query(session, query, candidates, opts, 0)
    rt = session.runtime
    async with rt.span("pointwise"):
        judged = await rt.gather(
            *(
                session.ask(
                    f"judge {c.id}",
                    "judge",
                    [Msg("user", compose(q.opening, prompts.pointwise(q.views[c.id])))],
                    "score",
                    0,
                    read_score,
                    prompts.SCORE_REMINDER,
                    opts.retries,
                    asks=DuplicationRequest((c.id,)),
                )
                for c in candidates
            )
        )
    scores = [None if a.value is None else float(a.value) for a in judged]
    answers = [
        AgentAnswer(f"judge {c.id}", 1, a.replies[-1], None if a.value is None else str(a.value),
                    len(a.replies))
        for c, a in zip(candidates, judged)
    ]  # fmt: skip
    how = "a judge's 1-10 relevance of the candidate alone to the query"
    result = ranked(session, "pointwise", "pointwise", candidates, scores, query, opts.top_k, how,
                    answers=answers)  # fmt: skip
    return replace(result, options=opts.record())


async def dense(
    session: Session,
    query: Project,
    candidates: Sequence[Project],
    k: int,
    embedder: Embedder,
    instruction: str | None = None,
) -> DebateResult:
    """The vector-distance baseline: cosine similarity of each candidate's embedding (title and
    text) to the query's, no model call; with an `instruction`, the query is embedded in
    gte-Qwen2's instructed form (the paper's "with instruction" rows)."""
    shown = full_text(query)
    if instruction:
        shown = f"Instruct: {instruction.strip()}\nQuery: {shown}"
    vectors = await embedder.embed([shown, *(full_text(c) for c in candidates)])
    scores = [float(v) for v in vectors[1:] @ vectors[0]]
    how = f"cosine similarity of the candidate's {embedder.name} embedding to the query's" + (
        " (instructed)" if instruction else ""
    )
    return ranked(session, "dense", "dense", candidates, scores, query, k, how)


async def reranker(
    session: Session,
    query: Project,
    candidates: Sequence[Project],
    k: int,
    scorer: PairScorer,
) -> DebateResult:
    """The pretrained-reranker baseline: a cross-encoder scores each (query, candidate) pair of
    titles and texts, no model call."""
    shown = full_text(query)
    scores = await scorer.score([(shown, full_text(c)) for c in candidates])
    how = f"the {scorer.name} cross-encoder's score of the query and the candidate together"
    return ranked(session, "reranker", "reranker", candidates, scores, query, k, how)


async def random_k(
    session: Session, query: Project, candidates: Sequence[Project], k: int, seed: int
) -> DebateResult:
    """The random floor: a uniform draw, seeded by the option's seed and the query's id."""
    drawn = query_seed(seed, query.id)
    rng = random.Random(drawn)
    scores = [rng.random() for _ in candidates]
    how = "a uniform random draw (seeded by the query)"
    return ranked(session, "random", "random_k", candidates, scores, query, k, how, drawn)


SPECS = (
    MethodSpec(
        "listwise",
        "One call chooses the top k among all the candidates (the paper's list-wise LLMs).",
        ListwiseOptions,
        lambda o, setup: lambda s, r: listwise(s, r.query, r.candidates, o),
        reads=Retrieval,
        roles=lambda o: ("senior",),
    ),
    MethodSpec(
        "pointwise",
        "LLM-as-a-Judge, point-wise: one call per candidate scores its relevance to the query "
        "from 1 to 10; the top k by score.",
        PointwiseOptions,
        lambda o, setup: lambda s, r: pointwise(s, r.query, r.candidates, o),
        reads=Retrieval,
        roles=lambda o: ("judge",),
    ),
    MethodSpec(
        "bm25",
        "The lexical floor: the top k candidates by BM25 against the query, no model call.",
        LexicalOptions,
        lambda o, setup: lambda s, r: lexical(s, r.query, r.candidates, o.top_k),
        reads=Retrieval,
        roles=lambda o: (),
    ),
    MethodSpec(
        "rouge_l",
        "The other word-frequency floor: the top k candidates by ROUGE-L F1 against the query, "
        "no model call.",
        LexicalOptions,
        lambda o, setup: lambda s, r: rouge(s, r.query, r.candidates, o.top_k),
        reads=Retrieval,
        roles=lambda o: (),
    ),
    MethodSpec(
        "dense",
        "The vector-distance baseline: the top k candidates by embedding similarity to the "
        "query, no model call.",
        DenseOptions,
        lambda o, setup: dense_run(o, setup.embedder(o.embedder)),
        reads=Retrieval,
        roles=lambda o: (),
    ),
    MethodSpec(
        "reranker",
        "The pretrained-reranker baseline: the top k candidates by a cross-encoder's score of "
        "the query and the candidate together, no model call.",
        RerankerOptions,
        lambda o, setup: reranker_run(o, setup.pair_scorer("reranker", o.reranker)),
        reads=Retrieval,
        roles=lambda o: (),
    ),
    MethodSpec(
        "random_k",
        "The random floor: top k candidates drawn at random, seeded by the query, no model call.",
        RandomOptions,
        lambda o, setup: lambda s, r: random_k(s, r.query, r.candidates, o.top_k, o.seed),
        reads=Retrieval,
        roles=lambda o: (),
    ),
)
