"""PD³'s Task-2 baselines (Table 2's MAX and AVG rows) on a scripted runtime: the similarity
scores without a model call, the point-wise judge's one call per reference, the aggregates, the
prediction, abstentions and the record.

Replies are chosen by the reference a call shows (`DuplicationRequest.ids`), never by call order."""

from __future__ import annotations

import asyncio
import json

import pytest
from scripted import ScriptedRuntime, transcript_text

from mad_tasks.engine.answers import FreeText
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.embeddings import HashingEmbedder
from mad_tasks.engine.methods.pd3.feedback import SidePair
from mad_tasks.engine.methods.pd3.pair_baselines import (
    MAX_REFERENCES,
    PairPointwiseOptions,
    PairScoresRecord,
    PairSimilarityOptions,
    judge_scorer,
    judged_pair,
    pair_scores,
    similarity_scorer,
)
from mad_tasks.engine.methods.pd3.records import Project
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import DuplicationRequest
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem, Session

QUESTION = "Which project do its references duplicate more, A or B?"
A = Project("qa", "", "fault location in power transformers")
B = Project("qb", "", "soup recipes for winter")
REFS_A = [
    Project("a1", "", "fault location in power transformers"),  # the same words: 1.0
    Project("a2", "", "bridge inspection by drones"),  # nothing shared: 0.0
]
REFS_B = [
    Project("b1", "", "soup recipes"),  # 2 of 4 and 2 of 2 words in order: F1 2/3
    Project("b2", "", "winter soup"),  # one word in order ("soup" or "winter"): F1 1/3
]


def session(rt: ScriptedRuntime, retries: int = 1) -> Session:
    return Session(rt, Problem(Question.of([QUESTION]), FreeText()), retries=retries)


def similarity(how: str = "max", kind: str = "rouge_l") -> tuple[ScriptedRuntime, DebateResult]:
    rt = ScriptedRuntime(lambda call: pytest.fail("no model call expected"))
    s = session(rt)
    opts = PairSimilarityOptions(similarity=kind, aggregate=how)
    score = similarity_scorer(s, opts, HashingEmbedder(), [*REFS_A, *REFS_B])
    result = asyncio.run(pair_scores(s, SidePair((A, REFS_A), (B, REFS_B)), kind, how, score))
    return rt, result


def test_rouge_l_max_and_avg_score_each_side_by_its_references() -> None:
    rt, result = similarity("max")
    record = result.record
    assert isinstance(record, PairScoresRecord) and rt.calls == []
    assert [s.scores for s in record.sides] == [
        pytest.approx((1.0, 0.0)),
        pytest.approx((2 / 3, 1 / 3)),
    ]
    assert [s.score for s in record.sides] == pytest.approx([1.0, 2 / 3])
    assert result.final == "A" and result.method == "pair_similarity"
    _, avg = similarity("avg")
    assert [s.score for s in avg.record.sides] == pytest.approx([0.5, 0.5])
    assert avg.final == "tie"  # equal aggregates: a tie, not a guess
    again = DebateResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again.record == result.record
    assert rt.info_titles() == ["prediction"] and {"side A", "side B"} <= set(rt.spans)


@pytest.mark.parametrize("kind", ["bm25", "dense"])
def test_bm25_and_dense_make_no_call_and_favour_the_duplicated_side(kind: str) -> None:
    rt, result = similarity("max", kind)
    assert rt.calls == [] and result.final == "A"
    assert result.record.similarity == kind and result.options["similarity"] == kind


def test_bm25_scores_both_sides_on_one_index() -> None:
    """Five near copies on one side, one near copy among unrelated references on the other: a
    per-side index would give the uniform side the lower IDF and the lower score."""
    query = Project("q", "", "fault location in power transformers by dissolved gas analysis")
    copies = [Project(f"c{i}", "", query.text + f" variant {i}") for i in range(5)]
    mixed = [copies[0], *(Project(f"u{i}", "", f"soup recipe number {i}") for i in range(4))]
    rt = ScriptedRuntime(lambda call: pytest.fail("no model call expected"))
    s = session(rt)
    opts = PairSimilarityOptions(similarity="bm25", aggregate="avg")
    score = similarity_scorer(s, opts, None, [*copies, *mixed])
    result = asyncio.run(
        pair_scores(s, SidePair((query, copies), (query, mixed)), "bm25", "avg", score)
    )
    assert result.final == "A"


def test_an_embedder_is_refused_where_it_would_not_be_used() -> None:
    with pytest.raises(OptionError, match=r"'embedder'.*only with similarity dense"):
        PairSimilarityOptions(similarity="rouge_l", embedder="sentence-transformers/x")
    PairSimilarityOptions(similarity="dense", embedder="hashing/64")


def test_the_pointwise_judge_scores_each_reference_alone() -> None:
    """One feedback judge call per reference, shown that reference only; a reference whose score
    stays unreadable after the follow-up is left out of its side's MAX and AVG."""
    given = {"a1": "[RESULT]9", "a2": "[RESULT]2", "b1": "[RESULT]6", "b2": "no idea"}

    def reply(call: Call) -> str:
        assert isinstance(call.asks, DuplicationRequest)
        (ref,) = call.asks.ids
        return given[ref]

    for how, scores in (("max", [9.0, 6.0]), ("avg", [5.5, 6.0])):
        rt = ScriptedRuntime(reply)
        s = session(rt)
        opts = PairPointwiseOptions(aggregate=how)
        result = asyncio.run(pair_scores(s, SidePair((A, REFS_A), (B, REFS_B)), "judge", how,
                                         judge_scorer(s, opts)))  # fmt: skip
        first = [c for c in rt.calls if c.attempt == 0]
        assert len(first) == 4 and [c.asks.ids for c in rt.calls if c.attempt] == [("b2",)]
        for call in first:
            (ref,) = call.asks.ids
            shown = transcript_text(call)
            others = [r for r in REFS_A + REFS_B if r.id != ref and r.text not in A.text + B.text]
            assert not any(o.text in shown for o in others), ref
        record = result.record
        assert [s.score for s in record.sides] == scores
        assert record.sides[1].scores == (6.0, None) and record.stats()["unscored"] == 1
        assert result.final == ("A" if how == "max" else "B")
        assert result.method == "pair_pointwise"
        # the record keeps every reply behind a score, the follow-up too
        assert record.sides[1].replies == (("[RESULT]6",), ("no idea", "no idea"))
        assert [(a.agent, a.answer, a.attempts) for a in result.answers][-1] == (
            "B judge b2",
            None,
            2,
        )


def test_too_many_references_are_refused_before_any_call() -> None:
    many = [Project(f"r{i}", "", f"reference {i}") for i in range(MAX_REFERENCES + 1)]
    rt = ScriptedRuntime(lambda call: pytest.fail("no model call expected"))
    pair = SidePair((A, REFS_A), (B, many))
    with pytest.raises(ValueError, match=f"side B has {MAX_REFERENCES + 1} references"):
        asyncio.run(judged_pair(session(rt), pair, PairPointwiseOptions()))
    assert rt.calls == []


def test_under_method_retrieval_each_side_aggregates_its_own_top_5_of_its_candidates() -> None:
    """The paper's Method Retrieval: every candidate scored the same way, the top 5 by score
    (ties in the candidates' order) are the side's references and make its score."""
    words = ["fault location", "power transformers", "fault", "bridge", "drones", "location",
             "soup", "winter"]  # fmt: skip
    candidates = [Project(f"c{i}", "", w) for i, w in enumerate(words)]
    rt = ScriptedRuntime(lambda call: pytest.fail("no model call expected"))
    s = session(rt)
    opts = PairSimilarityOptions(similarity="rouge_l", aggregate="avg")
    score = similarity_scorer(s, opts, None, candidates)
    pair = SidePair((A, candidates), (B, candidates), retrieved=True)
    result = asyncio.run(pair_scores(s, pair, "rouge_l", "avg", score))
    record = result.record
    assert isinstance(record, PairScoresRecord)
    side_a, side_b = record.sides
    # A's text shares words with c0, c1, c2, c5 (in order of F1), then the zero-score ties in
    # the candidates' order: c3
    assert side_a.references == ("c0", "c1", "c2", "c5", "c3") and side_a.candidates == 8
    assert side_a.scores[-1] == 0.0 and side_a.score == pytest.approx(sum(side_a.scores) / 5)
    assert side_b.references[:2] == ("c6", "c7") and len(side_b.references) == 5
    assert "own top 5" in rt.infos[-1][1]
