"""The baselines of PD³'s Task 2 (Bao et al., seed 000, Table 2): which of two projects its
references duplicate more, each side scored by its references' similarity to it, taken at their
MAX or their AVG.

- `pair_similarity`: no model call; each reference's ROUGE-L F1 (`rouge_l`), BM25 score over both
  sides' references (`bm25`, one index so the sides compare) or embedding cosine (`dense`)
  against the side's project (the paper's WF and VD rows).
- `pair_pointwise`: LLM-as-a-Judge MAX / AVG, one judge call per reference, each scoring 1-10
  how far that one reference duplicates the project (the feedback module's judge, shown one
  reference, no conclusion); a score still unreadable after `retries` is left out.
The side with the higher aggregate is the prediction ("tie" when equal, none when a side has no
score), as `pd3_feedback` predicts. In the paper's Method Retrieval setting (the sides give their
candidates) each method scores every candidate the same way and aggregates its own top 5.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from ... import viewer_text
from ...checks import OptionError, one_of
from ...embeddings import Embedder
from ...options import Options, embedder_option, option
from ...protocols.pd3 import AGGREGATES, side_score
from ...records import AgentAnswer, DebateResult, MethodRecord
from ...retrieval import rouge_l
from ...session import Session
from ...spec import MethodSpec
from .baselines import lexical_scores, top_ids
from .feedback import SidePair, feedback, predict
from .options import FeedbackOptions, ProjectOptions
from .query import full_text
from .records import Project

SIMILARITIES = ("rouge_l", "bm25", "dense")
MAX_REFERENCES = 100  # per side: pair_pointwise makes one call per reference (the paper's: 5)
OWN_REFERENCES = 5  # Method Retrieval: the top 5 a method keeps of a side's candidates


def _aggregate() -> Any:
    return option(
        "max",
        "how a side's reference scores make its score: max (the most duplicated reference) or "
        "avg (their mean).",
        lambda name, v: one_of(name, v, AGGREGATES),
    )


@dataclass(frozen=True)
class PairSimilarityOptions(Options):
    similarity: str = option(
        "rouge_l",
        "each reference's similarity to its project: rouge_l (F1 of the longest common "
        "subsequence of words), bm25 (over the side's references) or dense (embedding cosine).",
        lambda name, v: one_of(name, v, SIMILARITIES),
    )
    aggregate: str = _aggregate()
    embedder: str = embedder_option(
        "the embedding model of similarity dense: hashing (offline), sentence-transformers/<model> "
        "(the paper's gte-Qwen2-1.5B-instruct) or openai[/<model>]."
    )

    def validate(self) -> None:
        if self.similarity != "dense" and self.embedder != "hashing":  # the default: unused
            raise OptionError("embedder", self.embedder, "set only with similarity dense")


@dataclass(frozen=True)
class PairPointwiseOptions(ProjectOptions):
    aggregate: str = _aggregate()


@dataclass(frozen=True)
class SideScores:
    """One side: its project, its references, each reference's score (None: unreadable), the
    side's aggregate (None when no score was readable) and the judge's replies per reference
    (follow-ups included; none without a model call); `candidates`, under Method Retrieval, how
    many candidates the references were the top of by score (0: the references were given)."""

    side: str
    query: str
    references: tuple[str, ...]
    scores: tuple[float | None, ...]
    score: float | None
    replies: tuple[tuple[str, ...], ...] = ()
    candidates: int = 0


@dataclass
class PairScoresRecord(MethodRecord):
    kind: ClassVar[str] = "pd3_pair_scores"
    answers_with: ClassVar[str] = "a pair's scores"
    similarity: str  # rouge_l, bm25, dense or judge
    aggregate: str
    sides: list[SideScores]
    prediction: str | None

    def stats(self) -> dict[str, int | float | None]:
        """unscored (references without a readable score) and each side's score."""
        out: dict[str, int | float | None] = {
            "unscored": sum(x is None for s in self.sides for x in s.scores)
        }
        out.update({f"score_{s.side.lower()}": s.score for s in self.sides})
        return out


# a side's references scored: each one's score, and the replies behind it (none without a call)
Scored = list[tuple[float | None, tuple[str, ...]]]
Scorer = Callable[[str, Project | None, Sequence[Project]], Awaitable[Scored]]


async def pair_scores(
    session: Session, pair: SidePair, similarity: str, how: str, score: Scorer
) -> DebateResult:
    """Both sides scored at once, each reference by `score`, aggregated by `how`; under Method
    Retrieval every candidate is scored and the top OWN_REFERENCES by score are aggregated."""
    rt = session.runtime

    async def one(side: str, query: Project | None, given: Sequence[Project]) -> SideScores:
        async with rt.span(f"side {side}"):
            scored = await score(side, query, given)
        refs, chosen_from = list(given), 0
        if pair.retrieved:
            top = top_ids(given, [x for x, _ in scored], min(OWN_REFERENCES, len(given)))
            place = {r.id: i for i, r in enumerate(given)}
            refs, chosen_from = [given[place[c]] for c in top], len(given)
            scored = [scored[place[c]] for c in top]
        ids, scores = tuple(r.id for r in refs), tuple(x for x, _ in scored)
        replies = tuple(texts for _, texts in scored) if similarity == "judge" else ()
        return SideScores(side, query.id if query else "", ids, scores, side_score(scores, how),
                          replies, chosen_from)  # fmt: skip

    sides = await rt.gather(one("A", *pair.a), one("B", *pair.b))
    prediction = predict(sides[0].score, sides[1].score)
    rt.info("prediction", _markdown(sides, similarity, how, prediction))
    answers = [  # the judge's reply on each reference (no answer without a model call)
        AgentAnswer(f"{s.side} judge {ref}", 1, texts[-1], None if x is None else f"{x:g}",
                    len(texts))
        for s in sides
        for ref, x, texts in zip(s.references, s.scores, s.replies)
    ]  # fmt: skip
    record = PairScoresRecord(similarity, how, list(sides), prediction)
    return DebateResult(
        method=f"pair_{'pointwise' if similarity == 'judge' else 'similarity'}",
        final=prediction,
        answers=answers,
        calls=session.calls,
        options={"similarity": similarity, "aggregate": how},
        record=record,
    )


def similarity_scorer(
    session: Session,
    o: PairSimilarityOptions,
    embedder: Embedder | None,
    corpus: Sequence[Project],
) -> Scorer:
    """Each reference's similarity to the side's project (its title and text; the question's
    text when the side gives no project), no model call. BM25 indexes `corpus`, both sides'
    references, so the two sides' scores share one IDF and compare."""

    async def score(side: str, query: Project | None, refs: Sequence[Project]) -> Scored:
        text = full_text(query) if query else session.problem.question.text
        if o.similarity == "rouge_l":
            values = [rouge_l(text, full_text(r)) for r in refs]
        elif o.similarity == "bm25":
            found = dict(zip(corpus, lexical_scores(Project("", "", text), corpus)))
            values = [found[r] for r in refs]
        else:
            assert embedder is not None  # loaded for similarity dense
            vectors = await embedder.embed([text, *(full_text(r) for r in refs)])
            values = [float(v) for v in vectors[1:] @ vectors[0]]
        return [(x, ()) for x in values]

    return score


def judge_scorer(session: Session, o: PairPointwiseOptions) -> Scorer:
    """One feedback judge call per reference, shown that reference alone (no conclusion)."""
    shared = {f.name for f in fields(ProjectOptions)}
    one_ref = FeedbackOptions(
        **{k: v for k, v in asdict(o).items() if k in shared}, samples=1, conclusion=False
    )

    async def score(side: str, query: Project | None, refs: Sequence[Project]) -> Scored:
        judged = await session.runtime.gather(
            *(feedback(session, query, [r], one_ref, f"{side} {r.id}") for r in refs)
        )
        return [(j.mean, j.replies[0]) for j in judged]

    return score


async def judged_pair(session: Session, pair: SidePair, o: PairPointwiseOptions) -> DebateResult:
    """LLM-as-a-Judge MAX / AVG on a pair, refused before any call when a side has more
    references than MAX_REFERENCES (each one is a call)."""
    for side, (_, refs) in zip("AB", (pair.a, pair.b)):
        if len(refs) > MAX_REFERENCES:
            raise ValueError(
                f"side {side} has {len(refs)} references; pair_pointwise judges at most "
                f"{MAX_REFERENCES} per side (one call each)"
            )
    return await pair_scores(session, pair, "judge", o.aggregate, judge_scorer(session, o))


def _markdown(
    sides: Sequence[SideScores], similarity: str, how: str, prediction: str | None
) -> str:
    rows = [
        (s.side, ref, "unreadable" if x is None else f"{x:.3f}")
        for s in sides
        for ref, x in zip(s.references, s.scores)
    ]
    totals = ", ".join(f"{s.side} {'none' if s.score is None else f'{s.score:.3f}'}" for s in sides)
    own = [f"{s.side} of {s.candidates}" for s in sides if s.candidates]
    if own:
        totals += f"; each side's own top {OWN_REFERENCES} by score ({', '.join(own)} candidates)"
    return (
        f"**Prediction** → **{prediction or 'none'}** ({how} of {similarity}: {totals})\n\n"
        f"{viewer_text.table(['side', 'reference', 'score'], rows, right={2})}\n\n"
        "The side whose references duplicate it more (the higher score); equal: tie; a side "
        "without a readable score: no prediction."
    )


SPECS = (
    MethodSpec(
        "pair_similarity",
        "PD³'s Task-2 WF and VD baselines: each side scored by its references' ROUGE-L, BM25 or "
        "embedding similarity to it (max or avg), no model call.",
        PairSimilarityOptions,
        lambda o, setup: _similarity_run(
            o, setup.embedder(o.embedder) if o.similarity == "dense" else None
        ),
        reads=SidePair,
        roles=lambda o: (),
    ),
    MethodSpec(
        "pair_pointwise",
        "PD³'s Task-2 LLM-as-a-Judge baseline: each reference scored 1-10 on its own, a side's "
        "score the max or avg of its references'.",
        PairPointwiseOptions,
        lambda o, setup: lambda s, p: judged_pair(s, p, o),
        reads=SidePair,
        roles=lambda o: ("feedback",),
    ),
)


def _similarity_run(
    o: PairSimilarityOptions, embedder: Embedder | None
) -> Callable[[Session, SidePair], Awaitable[DebateResult]]:
    """The similarity baseline with its embedder loaded (before any sample)."""
    return lambda s, p: pair_scores(
        s,
        p,
        o.similarity,
        o.aggregate,
        similarity_scorer(s, o, embedder, [*p.a[1], *p.b[1]]),
    )
