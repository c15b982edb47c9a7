"""PD³'s scorers: `retrieval_at_k` (Prec@k, hit rate, Match@1..k) reproduces the paper's Table 1
arithmetic and scores a malformed list 0 with its reason; `dup_origin` and `dup_weighted` give the
spec's golden accuracies and read an abstention as 0, never a tie; samples lacking what a score
needs are left unscored; both rescore a finished log through `inspect score`. `pd3_stats` reads
each figure from a scripted record, and a figure the record lacks is unscored with its reason."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest
from inspect_ai import Task, score
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import SampleScore, Score
from inspect_ai.solver import Generate, Solver, TaskState, solver

from mad_tasks._inspect_sample import NO_RESULT, save_result
from mad_tasks.engine.methods.pd3.records import (
    Cut,
    Decision,
    FeedbackRecord,
    FeedbackResult,
    Group,
    PD3Record,
    Statement,
)
from mad_tasks.engine.protocols.pd3 import match_counts, prec_at_k
from mad_tasks.engine.records import AgentAnswer, DebateResult
from mad_tasks.scorers._options import ScorerOptionError
from mad_tasks.scorers.pd3 import (
    FEEDBACK_FIGURES,
    NOT_FEEDBACK,
    NOT_PD3,
    NOT_RETRIEVAL,
    RETRIEVAL_FIGURES,
    dup_pairwise,
    hit_rate,
    match_at_k,
    pd3_stats,
    read_listed,
    read_prediction,
    read_votes,
    retrieval_at_k,
)

# -- the paper's arithmetic (Table 1, PD³ row: n = 331) ------------------------------------------

PD3_MATCH = [310, 238, 133, 41, 10]  # Match@1..5 counts
N = 331


def pd3_overlaps() -> list[int]:
    """331 overlaps whose Match@K counts are the PD³ row: exactly K gold ids in count(K) - count(K+1)
    samples."""
    at_least = [N, *PD3_MATCH, 0]
    return [k for k in range(6) for _ in range(at_least[k] - at_least[k + 1])]


def sample_scores(overlaps: list[int], k: int = 5, epochs: int = 1) -> list[SampleScore]:
    return [
        SampleScore(
            score=Score(value=o / k, metadata={"overlap": o, "k": k}),
            sample_id=f"q{i // epochs}",
        )
        for i, o in enumerate(overlaps)
    ]


def test_table_1_pd3_row_prec_at_5_from_its_match_counts() -> None:
    overlaps = pd3_overlaps()
    assert len(overlaps) == N and match_counts(overlaps) == PD3_MATCH
    gold = ["g1", "g2", "g3", "g4", "g5"]
    values = [
        prec_at_k([*gold[:o], *("x1", "x2", "x3", "x4", "x5")[: 5 - o]], gold) for o in overlaps
    ]
    assert sum(PD3_MATCH) == 732 and sum(values) * 5 == pytest.approx(732)
    assert round(100 * sum(values) / N, 2) == 44.23  # = 732 / (5 x 331)
    # the metrics give shares: the paper's counts are share x n
    scores = sample_scores(overlaps)
    shares = match_at_k()(scores)
    assert [round(shares[f"match_{k}"] * N) for k in range(1, 6)] == PD3_MATCH
    assert shares["match_1"] == pytest.approx(310 / N)
    assert hit_rate()(scores) == {"hit_rate": pytest.approx(310 / N)}


def test_match_shares_weigh_each_sample_once_over_its_epochs() -> None:
    # q0: 5 gold in one epoch, none in the other; q1: 2 gold in both
    scores = sample_scores([5, 0, 2, 2], epochs=2)
    assert match_at_k()(scores) == {
        "match_1": 0.75,  # q0 half, q1 whole
        "match_2": 0.75,
        "match_3": 0.25,
        "match_4": 0.25,
        "match_5": 0.25,
    }
    assert hit_rate()(scores) == {"hit_rate": 0.75}
    assert match_at_k()([]) == {} and hit_rate()([]) == {}


def test_match_at_k_follows_k() -> None:
    assert match_at_k()(sample_scores([3, 1], k=3)) == {
        "match_1": 1.0,
        "match_2": 0.5,
        "match_3": 0.5,
    }


# -- reading a [RESULT] list -----------------------------------------------------------------------

IDS = [f"{1000 + i}" for i in range(30)]  # corpus ids, numeric like CSFCube's
GOLD = IDS[:5]


@pytest.mark.parametrize(
    "completion, ids",
    [
        ("[RESULT] 1000, 1001, 1002, 1003, 1004", ("1000", "1001", "1002", "1003", "1004")),
        ("Done.\n[result]1010 ,1001,  1020,1003 , 1029  \nThat is all.", ("1010", "1001", "1020", "1003", "1029")),
        ("[RESULT] 1, 2\n[RESULT] 1004, 1003, 1002, 1001, 1000", ("1004", "1003", "1002", "1001", "1000")),
        ("[RESULT] 1000, 1001, 1002, 1003, 1004,", ("1000", "1001", "1002", "1003", "1004")),
    ],
)  # fmt: skip
def test_a_valid_list_is_five_distinct_candidate_ids_on_the_last_result_line(
    completion: str, ids: tuple[str, ...]
) -> None:
    assert read_listed(completion, IDS, 5).ids == ids
    assert read_listed(completion, IDS, 5).invalid is None


@pytest.mark.parametrize(
    "completion, why",
    [
        ("1000, 1001, 1002, 1003, 1004", "the output has no [RESULT] line"),
        ("", "the output has no [RESULT] line"),
        ("[RESULT]", "its [RESULT] line lists 0 ids, not 5"),
        ("[RESULT] 1000, 1001, 1002, 1003", "its [RESULT] line lists 4 ids, not 5"),
        ("[RESULT] 1000, 1001, 1002, 1003, 1004, 1005", "its [RESULT] line lists 6 ids, not 5"),
        ("[RESULT] 1000 1001 1002 1003 1004", "its [RESULT] line lists 1 ids, not 5"),
        ("[RESULT] 1000, 1001, 1002, 1003,\n1004", "its [RESULT] line lists 4 ids, not 5"),
        ("[RESULT] 1000, 1001, 9999, 1003, 1004", "'9999' on its [RESULT] line is not a candidate id"),
        ("[RESULT] P101, P102, P103, P104, P105", "'P101' on its [RESULT] line is not a candidate id"),
        ("[RESULT] 1000, 1001, 1000, 1003, 1004", "its [RESULT] line lists '1000' twice"),
        ("[RESULT] 1000, 1001, 1002, 1003, 1004\n[RESULT] none", "its [RESULT] line lists 1 ids, not 5"),
    ],
)  # fmt: skip
def test_anything_else_is_no_valid_list_and_says_why(completion: str, why: str) -> None:
    assert read_listed(completion, IDS, 5).invalid == why


def test_an_offending_item_is_quoted_short() -> None:
    listed = read_listed("[RESULT] " + "x" * 1000 + ", 1001, 1002, 1003, 1004", IDS, 5)
    assert listed.invalid == f"'{'x' * 40}...' on its [RESULT] line is not a candidate id"


@pytest.mark.parametrize(
    "text",
    [
        "[RESULT] " + "1000, " * 40_000,
        "[RESULT]" * 25_000,
        "[RESULT] " + "," * 200_000,
        "[RESULT] 1000, 1001, 1002, 1003, " + "1" * 200_000,
        "[result " * 25_000,
    ],
)
def test_the_list_reader_is_linear_on_a_long_reply(text: str) -> None:
    start = time.perf_counter()
    assert read_listed(text, IDS, 5).invalid is not None
    assert time.perf_counter() - start < 2.0


# -- retrieval_at_k in an eval -------------------------------------------------------------------


@solver
def says(outputs: dict[str, str | list[str]]) -> Solver:
    """The output is the sample's text, by sample id (a list: one per epoch); no debate."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        text = outputs[str(state.sample_id)]
        text = text if isinstance(text, str) else text[state.epoch - 1]
        state.output = ModelOutput.from_content(model="none", content=text)
        return state

    return solve


def candidates(ids: list[str] = IDS) -> list[dict[str, str]]:
    return [{"id": i, "title": f"Project {i}", "text": f"The aims of project {i}."} for i in ids]


def query(id: str, gold: list[str] = GOLD, **meta: Any) -> Sample:
    metadata = {"query_id": id, "candidates": candidates(), **meta}
    return Sample(id=id, input=f"Project {id}: its aims.", target=gold, metadata=metadata)


def result(*ids: str) -> str:
    return "Reasoning of the method.\n[RESULT] " + ", ".join(ids)


OUTPUTS = {
    "q1": result(*GOLD),  # 5 gold
    "q2": result("1000", "1001", "1002", "1020", "1021"),  # 3 gold
    "q3": result("1020", "1021", "1022", "1023", "1024"),  # none
    "q4": result("1000", "1001", "1002"),  # too short: 0, never partly right
}


def dedup_task(**options: Any) -> Task:
    return Task(
        dataset=MemoryDataset([query(q) for q in OUTPUTS]),
        solver=says(OUTPUTS),
        scorer=retrieval_at_k(**options),
    )


def metrics(log: EvalLog, name: str) -> dict[str, float]:
    """A scorer's metrics by name (Inspect lists those a metric returns by name apart)."""
    return {m: v.value for s in log.results.scores if s.name == name for m, v in s.metrics.items()}


def test_retrieval_at_k_scores_prec_at_5_and_match_shares(run) -> None:
    log = run(dedup_task(), model="madsim/x")
    by_id = {s.id: s.scores["retrieval_at_k"] for s in log.samples}
    assert {q: s.value for q, s in by_id.items()} == {"q1": 1.0, "q2": 0.6, "q3": 0.0, "q4": 0.0}
    got = metrics(log, "retrieval_at_k")
    assert got["mean"] == pytest.approx(1.6 / 4) and got["stderr"] > 0
    assert got["hit_rate"] == 0.5
    assert {k: got[f"match_{k}"] for k in range(1, 6)} == {
        1: 0.5, 2: 0.5, 3: 0.5, 4: 0.25, 5: 0.25
    }  # fmt: skip
    two = by_id["q2"]
    assert two.answer == "1000, 1001, 1002, 1020, 1021"
    assert two.explanation == (
        "3 of the 5 ids listed are among the 5 gold ids: Prec@5 = 3/5; the sample counts toward "
        "Match@1 to Match@3."
    )
    assert two.metadata == {"k": 5, "gold": GOLD, "ids": two.answer.split(", "), "overlap": 3}
    assert by_id["q3"].explanation.endswith("Prec@5 = 0/5; the sample counts toward no Match@K.")
    short = by_id["q4"]
    assert short.answer == "" and short.metadata["overlap"] == 0
    assert short.metadata["invalid"] == "its [RESULT] line lists 3 ids, not 5"
    assert short.explanation.startswith(
        "No valid list of 5 distinct candidate ids: its [RESULT] line lists 3 ids, not 5. Scored 0"
    )


def test_k_sets_how_many_ids_the_list_holds(run) -> None:
    log = run(dedup_task(k=3), model="madsim/x")
    values = {s.id: s.scores["retrieval_at_k"].value for s in log.samples}
    # five ids are not the three asked for; three ids with three gold are all right
    assert values == {"q1": 0.0, "q2": 0.0, "q3": 0.0, "q4": 1.0}
    assert set(metrics(log, "retrieval_at_k")) == {
        "mean", "stderr", "hit_rate", "match_1", "match_2", "match_3"
    }  # fmt: skip


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: retrieval_at_k(k=0), "invalid scorer option 'k': got 0, allowed: an integer from 1 to 100"),
        (lambda: retrieval_at_k(k=101), "invalid scorer option 'k': got 101"),
        (lambda: retrieval_at_k(k="five"), "invalid scorer option 'k': got 'five'"),
        (lambda: retrieval_at_k(k=True), "invalid scorer option 'k': got True"),
        (lambda: retrieval_at_k(top=5), "invalid scorer option 'top': .*no such option"),
    ],
)  # fmt: skip
def test_bad_options_raise_an_error_inspect_score_shows(make, message: str) -> None:
    with pytest.raises(ScorerOptionError, match=message):
        make()


def test_a_sample_without_candidates_or_gold_is_left_unscored(run) -> None:
    dataset = MemoryDataset(
        [
            query("q1", candidates=None),
            query("q2", candidates=candidates(IDS[:4])),
            query("q3", gold=[""]),
            query("q4"),
        ]
    )
    outputs = dict.fromkeys(("q1", "q2", "q3", "q4"), result(*GOLD))
    log = run(Task(dataset=dataset, solver=says(outputs), scorer=retrieval_at_k()),
              model="madsim/x")  # fmt: skip
    scores = {s.id: s.scores["retrieval_at_k"] for s in log.samples}
    assert all(math.isnan(scores[q].value) for q in ("q1", "q2", "q3")) and scores["q4"].value == 1
    assert scores["q1"].reason.startswith("the sample lists 0 candidates (metadata `candidates`")
    assert scores["q2"].reason.startswith("the sample lists 4 candidates")
    assert scores["q3"].reason == "the sample has no gold ids (its target is empty)"
    assert {(s.scored_samples, s.unscored_samples) for s in log.results.scores} == {(1, 3)}
    assert metrics(log, "retrieval_at_k")["match_5"] == 1.0


def test_epochs_count_each_sample_once(run) -> None:
    outputs = {"q1": [result(*GOLD), result(*IDS[20:25])], "q2": [result(*GOLD)] * 2}
    task = Task(dataset=MemoryDataset([query("q1"), query("q2")]), solver=says(outputs),
                scorer=retrieval_at_k(), epochs=2)  # fmt: skip
    got = metrics(run(task, model="madsim/x"), "retrieval_at_k")
    assert got["mean"] == 0.75 and got["hit_rate"] == 0.75 and got["match_5"] == 0.75


# -- dup_pairwise ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prediction, votes, origin, weighted",
    [
        ("A", [2, 1], 1.0, 2 / 3),
        ("B", [2, 1], 0.0, 1 / 3),  # the spec's golden case: 2A:1B, predicting B earns 0.33
        ("B", [0, 3], 1.0, 1.0),
        ("A", [0, 3], 0.0, 0.0),
        ("tie", [3, 0], 0.0, 0.0),
        ("tie", [2, 1], 0.0, 1 / 3),
        ("tie", [1, 2], 0.0, 1 / 3),
    ],
)
def test_pairwise_accuracies_golden(prediction: str, votes, origin, weighted, run) -> None:
    log = run(pairs_task({"p1": prediction}, {"p1": votes}), model="madsim/x")
    scores = log.samples[0].scores
    assert scores["dup_origin"].value == origin
    assert scores["dup_weighted"].value == pytest.approx(weighted)
    assert scores["dup_origin"].answer == prediction


@pytest.mark.parametrize(
    "output, read",
    [("A", "A"), (" b\n", "B"), ("TIE", "tie"), ("Tie", "tie"), ("A.", None), ("A or B", None),
     ("no idea", None), ("", None), ("ANSWER: A", None), ("both", None), ("C", None)],
)  # fmt: skip
def test_the_prediction_is_read_strictly(output: str, read: str | None) -> None:
    assert read_prediction(output) == read


@pytest.mark.parametrize(
    "votes, read",
    [([2, 1], (2, 1)), ((0, 3), (0, 3)), ([3, 0, 0], None), ([True, 2], None), (["2", "1"], None),
     ([2.0, 1.0], None), ([0, 0], None), ([-1, 4], None), (None, None), ("2:1", None)],
)  # fmt: skip
def test_votes_are_two_whole_numbers(votes, read) -> None:
    assert read_votes({"votes": votes}) == read


def pairs_task(outputs: dict[str, str], votes: dict[str, Any], scored: bool = True) -> Task:
    dataset = MemoryDataset(
        [
            Sample(id=p, input="Which project is more duplicated?", target="A",
                   metadata={"votes": v} if v is not None else {})
            for p, v in votes.items()
        ]
    )  # fmt: skip
    return Task(dataset=dataset, solver=says(outputs), scorer=dup_pairwise() if scored else None)


def test_an_abstention_scores_zero_on_both_never_a_tie(run) -> None:
    # a tie on a 2:1 pair would earn 1/3 weighted; an unreadable output earns nothing
    outputs = {"p1": "I cannot tell.", "p2": "tie", "p3": "B", "p4": "A"}
    votes = {"p1": [2, 1], "p2": [2, 1], "p3": [1, 2], "p4": None}
    log = run(pairs_task(outputs, votes), model="madsim/x")
    by_id = {s.id: s.scores for s in log.samples}
    assert by_id["p1"]["dup_weighted"].value == 0.0 and by_id["p1"]["dup_origin"].value == 0.0
    assert by_id["p1"]["dup_origin"].explanation == (
        "The output is not A, B or tie: an abstention, scored 0 (never a tie)."
    )
    assert by_id["p1"]["dup_origin"].metadata == {"prediction": None, "votes": [2, 1]}
    assert by_id["p2"]["dup_weighted"].value == pytest.approx(1 / 3)
    assert by_id["p3"]["dup_weighted"].explanation.startswith(
        "Prediction B; expert votes 1 for A, 2 for B. Weighted"
    )
    missing = by_id["p4"]["dup_origin"]
    assert math.isnan(missing.value) and missing.reason.startswith(
        "the sample has no readable expert votes"
    )
    # p4 unscored: the means are over p1..p3
    assert metrics(log, "dup_origin")["mean"] == pytest.approx(1 / 3)
    assert metrics(log, "dup_weighted")["mean"] == pytest.approx((0 + 1 / 3 + 2 / 3) / 3)
    assert [(s.scored_samples, s.unscored_samples) for s in log.results.scores] == [(3, 1)] * 2


# -- inspect score on a finished log ---------------------------------------------------------------


def test_both_rescore_a_finished_log(run) -> None:
    log = run(Task(dataset=MemoryDataset([query(q) for q in OUTPUTS]), solver=says(OUTPUTS)),
              model="madsim/x")  # fmt: skip
    scored = score(log, retrieval_at_k(), display="none")
    got = metrics(scored, "retrieval_at_k")
    assert got["mean"] == pytest.approx(0.4) and got["match_3"] == 0.5
    pairs = run(pairs_task({"p1": "B"}, {"p1": [1, 2]}, scored=False), model="madsim/x")
    rescored = score(pairs, dup_pairwise(), display="none")
    assert metrics(rescored, "dup_origin")["mean"] == 1.0
    assert metrics(rescored, "dup_weighted")["mean"] == pytest.approx(2 / 3)


# -- pd3_stats -------------------------------------------------------------------------------------


def decision(n: int, replies: int, parsed: tuple[str, ...] | None, filled: tuple[str, ...]):
    picks = (*(parsed or ()), *IDS[20 : 20 + len(filled)])
    return Decision(f"group {n} senior", ("a reply",) * replies, parsed, picks, filled)


def group(n: int, replies: int, parsed: tuple[str, ...] | None, filled: tuple[str, ...]) -> Group:
    statements = tuple(Statement(e, r, "I pick P101.", (IDS[0],)) for r in (0, 1) for e in (1, 2))
    return Group(n, tuple(IDS[:20]), statements, decision(n, replies, parsed, filled))


RETRIEVAL = PD3Record(
    variant="pd3",
    query="q1",
    k=3,
    seed=7,
    order=tuple(IDS),
    groups=[
        group(1, 1, tuple(IDS[:3]), ()),  # a readable list: no fallback
        group(2, 2, tuple(IDS[:2]), ("experts",)),  # one place short, filled
        group(3, 2, None, ("experts", "experts", "preliminary")),  # unreadable, filled whole
    ],
    votes={IDS[0]: 3, IDS[1]: 2, IDS[2]: 2, IDS[20]: 2},
    rule="initial_picks",
    top=tuple(IDS[:3]),
    cuts=[Cut(IDS[4], 5000, 4096), Cut(IDS[9], 4200, 4096), Cut(IDS[11], 4500, 4096)],
    query_cut=Cut("q1", 9000, 8192),
)
LEXICAL = PD3Record(variant="lexical", query="q1", k=5, seed=0, order=tuple(IDS), top=tuple(GOLD),
                    scores=dict.fromkeys(IDS, 1.0))  # fmt: skip


def sides(*scores: tuple[int | None, ...], names: tuple[str, ...] = ("A", "B")):
    """Feedback results, one per side: its judges' scores and their mean (None: none readable)."""
    out = []
    for side, got in zip(names, scores):
        readable = [x for x in got if x is not None]
        mean = sum(readable) / len(readable) if readable else None
        out.append(FeedbackResult(side, f"q{side}", tuple(GOLD), None, ((),) * len(got), got, mean))
    return out


@solver
def stores(records: dict[str, Any]) -> Solver:
    """Keeps the sample's record (None: a result without one; absent: no result at all)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if str(state.sample_id) in records:
            record = records[str(state.sample_id)]
            save_result(state, DebateResult("m", "x", [AgentAnswer("a", 1, "x", "x")], [],
                                            record=record), {})  # fmt: skip
        return state

    return solve


def figures_of(log: EvalLog) -> dict[str, dict[str, Any]]:
    """Per sample: each figure's value, or its reason when unscored."""
    return {
        s.id: {
            n: v.reason if math.isnan(v.value) else v.value
            for n, v in s.scores.items()
            if n in {f.name for f in (*RETRIEVAL_FIGURES, *FEEDBACK_FIGURES)}
        }
        for s in log.samples
    }


def test_pd3_stats_reads_each_figure_from_the_record(run) -> None:
    records = {
        "s1": RETRIEVAL,
        "s2": LEXICAL,
        "s3": FeedbackRecord(sides((7, None, 8), (None, None, None)), None),
        "s4": FeedbackRecord(sides((4, 6), names=("",)), None),  # one project alone: no sides
        "s5": None,
    }
    dataset = MemoryDataset([Sample(id=f"s{i}", input="q") for i in range(1, 7)])
    log = run(Task(dataset=dataset, solver=stores(records), scorer=pd3_stats()),
              model="madsim/x")  # fmt: skip
    got = figures_of(log)
    feedback = ("pd3_samples", "pd3_unscored", "pd3_score_a", "pd3_score_b")
    assert got["s1"] == {
        "groups": 3,
        "calls_per_group": pytest.approx((5 + 6 + 6) / 3),  # 4 statements + the replies
        "pd3_fallbacks": 2,
        "filled": 4,
        "unreadable": 1,
        "boundary_tie": 1,
        "kth_votes": 2,
        "truncated": 3,
        **dict.fromkeys(feedback, NOT_FEEDBACK),
    }
    retrieval = [n for n in got["s1"] if n not in feedback]
    no_groups = "the lexical baseline forms no groups: no call, vote or cut to count"
    assert got["s2"] == {**dict.fromkeys(retrieval, no_groups),
                         **dict.fromkeys(feedback, NOT_FEEDBACK)}  # fmt: skip
    assert got["s3"] == {
        **dict.fromkeys(retrieval, NOT_RETRIEVAL),
        "pd3_samples": 6,
        "pd3_unscored": 4,
        "pd3_score_a": 7.5,
        "pd3_score_b": "no judge sample of side B gave a readable score",
    }
    assert {n: got["s4"][n] for n in feedback} == {
        "pd3_samples": 2,
        "pd3_unscored": 0,
        "pd3_score_a": "the feedback scored no side A (not a pair)",
        "pd3_score_b": "the feedback scored no side B (not a pair)",
    }
    assert got["s5"] == dict.fromkeys(got["s1"], NOT_PD3)
    assert got["s6"] == dict.fromkeys(got["s1"], NO_RESULT)
    first, third = log.samples[0].scores, log.samples[2].scores
    assert first["pd3_fallbacks"].metadata == {"fallback_groups": [2, 3]}
    assert first["boundary_tie"].metadata == {"rule": "initial_picks"}
    assert first["kth_votes"].metadata == {"top": IDS[:3]}
    assert [c["id"] for c in first["truncated"].metadata["cuts"]] == [IDS[4], IDS[9], IDS[11]]
    assert first["groups"].metadata == {"variant": "pd3"}
    assert third["pd3_score_a"].metadata == {"scores": [7, None, 8]}
    assert all(type(first[n].value) is int for n in retrieval if n != "calls_per_group")
    for name in got["s1"]:
        [explanation] = {s.scores[name].explanation for s in log.samples}
        assert explanation.endswith("."), name


def test_pd3_stats_gives_each_task_its_part() -> None:
    from inspect_ai.util import registry_info

    from mad_tasks.scorers.pd3 import pd3_stats

    def names(part: str) -> list[str]:
        return [registry_info(s).name.removeprefix("mad_tasks/") for s in pd3_stats(part)]

    assert names("feedback") == ["pd3_samples", "pd3_unscored", "pd3_score_a", "pd3_score_b"]
    assert "groups" in names("retrieval") and not set(names("retrieval")) & set(names("feedback"))
    assert sorted(names("all")) == sorted(names("retrieval") + names("feedback"))
    with pytest.raises(ValueError, match="part must be all, retrieval or feedback"):
        pd3_stats("votes")
