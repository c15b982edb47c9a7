"""The baselines PD³ is compared with (Bao et al., seed 000): `listwise`, one call choosing the top
k among all the candidates (the paper's list-wise LLMs), and the rankings that make no model call:
`bm25` (the paper's WF row, BM25 over the candidates' texts), `dense` (its VD rows, embedding
similarity to the query) and `random_k` (its Random row)."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence

from .. import viewer_text
from ..checks import OptionError
from ..content import compose
from ..embeddings import Embedder
from ..protocols.pd3 import vote
from ..records import DebateResult
from ..retrieval import LexicalRetriever
from ..session import Session
from ..spec import MethodSpec
from . import pd3_prompts as prompts
from .pd3_options import DenseOptions, LexicalOptions, ListwiseOptions, RandomOptions
from .pd3_query import Decider, Retrieval, full_text, prepare_query, query_seed, result_of
from .pd3_records import Group, PD3Record, Project


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
    return lambda s, r: dense(s, r.query, r.candidates, o.top_k, embedder)


def top_ids(candidates: Sequence[Project], scores: Sequence[float], k: int) -> tuple[str, ...]:
    """The ids of the k candidates of highest score, ties in the candidates' order."""
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
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
    scores: Sequence[float],
    query: Project,
    k: int,
    how: str,
    seed: int = 0,
) -> DebateResult:
    """A ranking that makes no model call: the k candidates of highest score, ties in the
    preliminary order, with a table of every score for the viewer (under `title`, the method's
    name; `variant` names it in the record)."""
    if not 1 <= k <= len(candidates):
        raise OptionError(
            "top_k", k, f"an integer from 1 to the number of candidates ({len(candidates)})"
        )
    top = top_ids(candidates, scores, k)
    place = {c: i for i, c in enumerate(top, 1)}
    rows = [
        (c.id, i, f"{s:.3f}", place.get(c.id, ""))
        for i, (c, s) in enumerate(zip(candidates, scores), 1)
    ]
    session.runtime.info(
        title,
        f"**{title}** (no model call)\n\n"
        f"{viewer_text.table(['id', 'prelim', 'score', 'chosen'], rows, right={1, 2, 3})}\n\n"
        f"score: {how}; ties go to the preliminary order.",
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
    return result_of(session, variant, record, [], {"top_k": k})


async def lexical(
    session: Session, query: Project, candidates: Sequence[Project], k: int
) -> DebateResult:
    """The lexical floor: the BM25 ranking of `lexical_top_k`, no model call."""
    how = "BM25 of the candidate's title and text against the query's"
    scores = lexical_scores(query, candidates)
    return ranked(session, "lexical", "bm25", candidates, scores, query, k, how)


async def dense(
    session: Session,
    query: Project,
    candidates: Sequence[Project],
    k: int,
    embedder: Embedder,
) -> DebateResult:
    """The vector-distance baseline: cosine similarity of each candidate's embedding (title and
    text) to the query's, no model call."""
    vectors = await embedder.embed([full_text(query), *(full_text(c) for c in candidates)])
    scores = [float(v) for v in vectors[1:] @ vectors[0]]
    how = f"cosine similarity of the candidate's {embedder.name} embedding to the query's"
    return ranked(session, "dense", "dense", candidates, scores, query, k, how)


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
        "bm25",
        "The lexical floor: the top k candidates by BM25 against the query, no model call.",
        LexicalOptions,
        lambda o, setup: lambda s, r: lexical(s, r.query, r.candidates, o.top_k),
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
        "random_k",
        "The random floor: top k candidates drawn at random, seeded by the query, no model call.",
        RandomOptions,
        lambda o, setup: lambda s, r: random_k(s, r.query, r.candidates, o.top_k, o.seed),
        reads=Retrieval,
        roles=lambda o: (),
    ),
)
