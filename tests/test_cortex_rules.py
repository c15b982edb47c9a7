"""CortexDebate's pure rules: the golden vector of spec §1.6, the properties of §1.7, parse cases."""

from __future__ import annotations

import math
import random

import pytest

from mad_tasks.engine.answers import Choice, FreeText
from mad_tasks.engine.confidence import parse_confidence, without_confidence
from mad_tasks.engine.protocols import cortex as rules
from mad_tasks.engine.records import Tally

# spec §1.6: four agents, round 1, equal C = 0.5, S smoothed to 1
CONFIDENCES = [0.95, 0.7, 0.45, 0.1]
SIM = [
    [1.0, 0.9, 0.6, 0.5],
    [0.9, 1.0, 0.8, 0.7],
    [0.6, 0.8, 1.0, 0.4],
    [0.5, 0.7, 0.4, 1.0],
]
GOLDEN_W = [  # W[head][tail], hand-checked in the spec
    [None, 0.04, 0.16, 0.20],
    [0.03, None, 0.06, 0.09],
    [0.09, 0.045, None, 0.135],
    [0.075, 0.045, 0.09, None],
]
GOLDEN_MEANS = [0.065, 0.13 / 3, 0.31 / 3, 0.425 / 3]
GOLDEN_HEADS = [[2, 3], [2, 3], [0], [0]]


def golden_weights(C: float = 0.5) -> rules.Matrix:
    R = [rules.running_mean(0.0, rules.recalibrate(h), 1) for h in CONFIDENCES]
    I = [[1 - s for s in row] for row in SIM]
    S = rules.self_orientation(1, 4, [0, 0, 0, 0], smoothing=1.0)
    return rules.edge_weights([C] * 4, R, I, S)


# -- recalibration and credibility -------------------------------------------------------------------


@pytest.mark.parametrize(
    "h, expected",
    [
        (1.0, 0.8), (0.95, 0.8), (0.8, 0.8),  # >= 0.8 -> 0.8
        (0.7999, 0.6), (0.7, 0.6), (0.6, 0.6),  # [0.6, 0.8) -> 0.6
        (0.5999, 0.5999), (0.45, 0.45), (0.3, 0.3),  # [0.3, 0.6) unchanged
        (0.2999, 0.3), (0.1, 0.3), (0.0, 0.3),  # < 0.3 -> 0.3
    ],
)  # fmt: skip
def test_recalibration_bands_are_closed_on_the_left(h: float, expected: float) -> None:
    assert rules.recalibrate(h) == expected


def test_recalibration_with_other_bands() -> None:
    assert [rules.recalibrate(h, (0.9, 0.7, 0.2)) for h in (0.95, 0.8, 0.5, 0.1)] == [
        0.9, 0.7, 0.5, 0.2,
    ]  # fmt: skip


def test_chinchilla_credibility_of_known_models() -> None:
    # the spec's §2 values, N and M as raw counts
    assert rules.credibility(7.61e9, 18e12) == pytest.approx(0.5135, abs=1e-4)  # Qwen2.5-7B
    assert rules.credibility(8.03e9, 15e12) == pytest.approx(0.5133, abs=1e-4)  # Llama-3.1-8B
    assert rules.credibility(9.24e9, 8e12) == pytest.approx(0.5112, abs=1e-4)  # Gemma-2-9B
    loss = 406.4 / 1e9**0.34 + 410.7 / 1e12**0.28 + 1.69
    assert rules.chinchilla_loss(1e9, 1e12) == pytest.approx(loss)
    assert rules.credibility(1e9, 1e12) == pytest.approx(1 / loss)


def test_running_mean_over_three_rounds() -> None:
    r = 0.0
    seen = []
    for d, h in enumerate([0.8, 0.3, 0.6], start=1):
        r = rules.running_mean(r, h, d)
        seen.append(r)
    assert seen == pytest.approx([0.8, 0.55, 1.7 / 3])


# -- the golden vector ---------------------------------------------------------------------------


def test_golden_vector_weights_means_and_kept_edges() -> None:
    W = golden_weights()
    for i in range(4):
        for j in range(4):
            if i == j:
                assert math.isnan(W[i][j])
            else:
                assert W[i][j] == pytest.approx(GOLDEN_W[i][j])
    assert rules.tail_means(W) == pytest.approx(GOLDEN_MEANS)
    keep = rules.prune(W)
    assert [rules.heads(keep, j) for j in range(4)] == GOLDEN_HEADS


def test_golden_vector_participation_and_round_two_s() -> None:
    keep = rules.prune(golden_weights())
    p_in, p_out = rules.participation(keep, "in"), rules.participation(keep, "out")
    assert p_in == [2, 2, 1, 1]
    assert p_out == [2, 0, 2, 2]
    assert rules.self_orientation(2, 4, p_in, smoothing=0.0) == [1, 1, 2, 2]
    assert rules.self_orientation(2, 4, p_in, smoothing=1.0) == [2, 2, 3, 3]
    assert rules.self_orientation(2, 4, p_out, smoothing=1.0) == [2, 4, 2, 2]


def test_participation_rejects_unknown_mode() -> None:
    with pytest.raises(ValueError, match="'both'"):
        rules.participation(rules.full_mesh(3), "both")


# -- properties (spec §1.7) -----------------------------------------------------------------------


def random_weights(rng: random.Random, n: int) -> rules.Matrix:
    # a few exact ties and zeros, as identical outputs produce
    pool = [0.0, 0.1, 0.25, 0.5]
    return [
        [math.nan if i == j else rng.choice([rng.random(), rng.choice(pool)]) for j in range(n)]
        for i in range(n)
    ]


def test_pruning_is_invariant_to_scaling_each_tail() -> None:
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(2, 7)
        W = random_weights(rng, n)
        scale = [rng.uniform(0.01, 100.0) for _ in range(n)]
        scaled = [[w * scale[j] for j, w in enumerate(row)] for row in W]
        assert rules.prune(scaled) == rules.prune(W)


def test_equal_credibility_has_no_effect_and_round_one_smoothing_cancels() -> None:
    base = rules.prune(golden_weights(C=0.5))
    assert rules.prune(golden_weights(C=0.0137)) == base
    R = [rules.recalibrate(h) for h in CONFIDENCES]
    I = [[1 - s for s in row] for row in SIM]
    for s0 in (0.1, 1.0, 42.0):
        S = rules.self_orientation(1, 4, [0] * 4, smoothing=s0)
        assert rules.prune(rules.edge_weights([1.0] * 4, R, I, S)) == base


def test_every_tail_keeps_at_least_one_and_at_most_n_minus_one_heads() -> None:
    rng = random.Random(11)
    for _ in range(300):
        n = rng.randint(2, 7)
        keep = rules.prune(random_weights(rng, n))
        for j in range(n):
            assert 1 <= len(rules.heads(keep, j)) <= n - 1
            assert not keep[j][j]


def test_equal_weights_keep_every_edge_despite_rounding() -> None:
    # 0.1 + 0.2 style rounding must not prune an equal edge (A4)
    w = 0.1 + 0.2
    W = [[math.nan, w, 0.3], [0.3, math.nan, w], [w, 0.3, math.nan]]
    assert rules.prune(W) == rules.full_mesh(3)
    zeros = [[math.nan if i == j else 0.0 for j in range(3)] for i in range(3)]
    assert rules.prune(zeros) == rules.full_mesh(3)


def head_pair(a: float, b: float) -> rules.Matrix:
    """Three agents; tail 2 reads heads 0 and 1 with weights a and b."""
    return [[math.nan, 1.0, a], [1.0, math.nan, b], [1.0, 1.0, math.nan]]


def test_equal_weights_keep_every_edge_at_a_large_scale() -> None:
    # the rounding allowance grows with the mean: two weights one rounding step apart stay equal
    a, b = 12345.678 * (0.1 + 0.2), 12345.678 * 0.3
    assert a != b
    assert rules.heads(rules.prune(head_pair(a, b)), 2) == [0, 1]
    assert rules.heads(rules.prune(head_pair(b, a)), 2) == [0, 1]


def test_a_weight_below_the_mean_by_more_than_rounding_is_pruned() -> None:
    # 1.5e-12 below the mean: beyond the relative 1e-12 allowance
    assert rules.heads(rules.prune(head_pair(0.5, 0.5 - 3e-12)), 2) == [0]


def test_a_weight_exactly_at_the_rounding_allowance_is_kept() -> None:
    b = 1.0 - 1e-12  # the mean is exactly 1.0, so b is exactly the mean minus the allowance
    assert rules.tail_means(head_pair(2.0 - b, b))[2] == 1.0
    assert rules.heads(rules.prune(head_pair(2.0 - b, b)), 2) == [0, 1]


def test_identical_outputs_give_zero_weight_and_are_pruned() -> None:
    I = [[0.0, 0.0, 0.5], [0.0, 0.0, 0.5], [0.5, 0.5, 0.0]]  # agents 0 and 1 said the same
    W = rules.edge_weights([1.0] * 3, [0.6, 0.6, 0.6], I, [1.0] * 3)
    assert W[0][1] == 0.0 and W[1][0] == 0.0
    assert rules.heads(rules.prune(W), 0) == [2]
    assert rules.heads(rules.prune(W), 1) == [2]


# -- literal vs smoothed S in round 1 (A1) ---------------------------------------------------------


def test_literal_s_in_round_one_is_a_full_mesh() -> None:
    R = [rules.recalibrate(h) for h in CONFIDENCES]
    I = [[1 - s for s in row] for row in SIM]
    S = rules.self_orientation(1, 4, [0] * 4, smoothing=0.0)
    assert S == [0, 0, 0, 0]
    W = rules.edge_weights([0.5] * 4, R, I, S)
    assert all(math.isinf(W[i][j]) for i in range(4) for j in range(4) if i != j)
    assert rules.prune(W) == rules.full_mesh(4)
    # smoothed S prunes the same round
    assert rules.prune(golden_weights()) != rules.full_mesh(4)


def test_literal_s_zero_over_zero_is_zero_and_only_infinite_edges_are_kept() -> None:
    I = [[0.0, 0.0, 0.5], [0.0, 0.0, 0.5], [0.5, 0.5, 0.0]]
    W = rules.edge_weights([1.0] * 3, [0.6] * 3, I, [0.0] * 3)
    assert W[0][1] == 0.0 and math.isinf(W[2][1])
    keep = rules.prune(W)
    assert rules.heads(keep, 0) == [2] and rules.heads(keep, 1) == [2]
    assert rules.heads(keep, 2) == [0, 1]


def test_literal_s_once_an_agent_has_full_participation() -> None:
    # agent 0 read everyone in round 1: S_0 = 0 in round 2, so it dominates every tail it can
    S = rules.self_orientation(2, 3, [2, 1, 1], smoothing=0.0)
    assert S == [0, 1, 1]
    W = rules.edge_weights([1.0] * 3, [0.5] * 3, [[0.5] * 3] * 3, S)
    keep = rules.prune(W)
    assert rules.heads(keep, 1) == [0] and rules.heads(keep, 2) == [0]
    assert rules.heads(keep, 0) == [1, 2]  # finite and equal


# -- stop rule and vote ------------------------------------------------------------------------------


def test_unanimity() -> None:
    assert rules.unanimous(["yes", "yes", "yes"])
    assert not rules.unanimous(["yes", "no", "yes"])
    assert not rules.unanimous(["yes", None, "yes"])  # an abstention never agrees
    assert not rules.unanimous([])
    assert rules.unanimous(["Paris", "paris."], key=lambda a: a.lower().rstrip("."))


def test_final_vote_majority() -> None:
    assert rules.final_vote(["B", "A", "B", "C", "B"]) == Tally(
        counts={"B": 3, "A": 1, "C": 1}, winner="B", tie=False, abstentions=0
    )


def test_final_vote_tie_goes_to_lowest_agent_index_or_to_nobody() -> None:
    answers = ["C", "A", "A", "C", "B"]  # 2-2-1: agent 0 said C
    assert rules.final_vote(answers).winner == "C"
    assert rules.final_vote(answers).tie
    assert rules.final_vote(["A", "C", "A", "C", "B"]).winner == "A"
    none = rules.final_vote(answers, tie_break="none")
    assert (none.winner, none.tie) == (None, True)
    with pytest.raises(ValueError, match="'coin'"):
        rules.final_vote(answers, tie_break="coin")


def test_all_distinct_answers_give_no_answer() -> None:
    tally = rules.final_vote(["A", "B", "C", "D"])
    assert tally.winner is None and rules.all_distinct(tally)
    # a single voter among abstentions is a majority of one, not "all distinct"
    single = rules.final_vote([None, "B", None])
    assert single.winner == "B" and not rules.all_distinct(single)
    assert not rules.all_distinct(rules.final_vote(["A", "A", "B"]))


def test_medoid_picks_the_most_central_and_breaks_ties_by_index() -> None:
    sim = [[1.0, 0.9, 0.2], [0.9, 1.0, 0.5], [0.2, 0.5, 1.0]]
    assert rules.medoid(sim) == 1
    assert rules.medoid([[1.0, 0.3], [0.3, 1.0]]) == 0
    assert rules.medoid([[1.0]]) == 0


# -- parsing confidence (A13) -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, expected",
    [
        ("CONFIDENCE: 0.85", 0.85),
        ("Confidence Score: 0.85", 0.85),
        ("**Confidence score:** (0.85)", 0.85),
        ("confidence = .85", 0.85),
        ("Confidence: 85%", 0.85),
        ("Confidence: 85 %", 0.85),
        ("Confidence: 85", 0.85),
        ("Confidence: 85/100", 0.85),
        ("Confidence: 8/10", 0.8),
        ("Confidence: 1", 1.0),
        ("Confidence: 0", 0.0),
        ("Confidence: 5%", 0.05),
        ("Confidence: 0.9 (fairly sure)", 0.9),
        ("Confidence: 0.9, because the passage says so", 0.9),
        ("Confidence: 0.9, because about half the steps check", 0.9),  # a bound word in a reason
        ("Confidence: 1.5", 0.015),  # A13: a bare number above 1 is a percentage
        ("Confidence: 100", 1.0),
        ("Confidence: 100%", 1.0),
        ("Confidence: 1/1", 1.0),
        ("Confidence: 10/10", 1.0),
        ("Confidence: 0.5/1", 0.5),
    ],
)
def test_confidence_parse_cases(line: str, expected: float) -> None:
    text = f"Answer: yes\nExplanation: because.\n{line}"
    assert parse_confidence(text) == pytest.approx(expected)


@pytest.mark.parametrize(
    "text",
    [
        "Answer: yes\nExplanation: I am fairly confident: 90 of 100 experts agree.",  # no line
        "Answer: yes\nConfidence: high",
        "",
        # out of range, never clamped into it: no confidence
        "Confidence: 150",
        "Confidence: 150%",
        "Confidence: 9/8",
        "Confidence: 0/0",
        "Confidence: 100.5",
        "Confidence: 100.5%",
        "Confidence: -0.2",
        # stated with doubt, a condition or as a bound, a range or a list
        "Confidence: maybe 0.9",
        "Confidence: 0.9?",
        "Confidence: 0.9 if the data are right",
        "Confidence: about 0.9",
        "Confidence: ~0.9",
        "Confidence: 0.9+",
        "Confidence: 0.8-0.9",
        "Confidence: 0.8 or 0.9",
        "Confidence: 85% to 90%",
        # the last stated line decides, even when an earlier one was readable
        "Confidence: 0.4\nConfidence: unsure",
    ],
)
def test_missing_confidence_is_none(text: str) -> None:
    assert parse_confidence(text) is None


def test_last_confidence_wins_and_is_stripped_for_neighbours() -> None:
    text = "EXPLANATION: first thought\nCONFIDENCE: 0.4\nANSWER: no\n\nCONFIDENCE: 0.9\nANSWER: yes"
    assert parse_confidence(text) == 0.9
    assert without_confidence(text) == "EXPLANATION: first thought\nANSWER: no\n\nANSWER: yes"


def test_paper_format_reply_parses_answer_and_confidence() -> None:
    text = "Answer: (B)\nExplanation: Paris is the capital.\nConfidence Score: 0.85"
    assert Choice(("London", "Paris", "Rome")).extract(text) == "B"
    assert parse_confidence(text) == 0.85


def test_two_distinct_answers_and_an_abstention_are_all_distinct() -> None:
    # spec: "if all n answers are distinct" there is no answer; an abstention is no answer
    tally = rules.final_vote(["Paris", "Rome", None])
    assert tally.winner is None and rules.all_distinct(tally)
    assert tally.counts == {"Paris": 1, "Rome": 1} and tally.abstentions == 1


def test_final_vote_groups_answers_by_the_key() -> None:
    tally = rules.final_vote(["Paris", "paris.", "Rome"], key=FreeText().key)
    assert tally.winner == "Paris" and tally.counts == {"Paris": 2, "Rome": 1}
    assert rules.final_vote(["Paris", "paris.", "Rome"]).winner is None  # exact: all distinct


def test_a_huge_confidence_never_raises() -> None:
    huge = "9" * 5000
    assert parse_confidence(f"Confidence: {huge}") is None  # above 100: no confidence, never 1
    assert parse_confidence(f"Confidence: 85/{huge}") == 0.0
    assert parse_confidence(f"Confidence: 0.{huge}") == pytest.approx(1.0)
    assert parse_confidence(f"Confidence: {huge}/{huge}") is None  # inf/inf: no value, never NaN


def test_table_9s_pruning_rules_keep_what_they_say() -> None:
    """Tail 0 reads heads 1-4 weighing 4, 3, 2, 1 (mean 2.5, median 2.5): AAT and AMT keep 1 and
    2; Top-3 keeps 1, 2, 3; Bot-3 drops the three lightest, keeping 1."""
    nan = math.nan
    W = [[nan, 0, 0, 0, 0], [4.0, nan, 1, 1, 1], [3.0, 1, nan, 1, 1], [2.0, 1, 1, nan, 1],
         [1.0, 1, 1, 1, nan]]  # fmt: skip
    kept = {rule: rules.heads(rules.prune(W, rule), 0) for rule in rules.PRUNINGS}
    # global: the mean of all 20 edges is 1.1
    assert kept == {
        "mean": [1, 2], "median": [1, 2], "top3": [1, 2, 3], "bottom3": [1], "global": [1, 2, 3]
    }  # fmt: skip
    # the median differs from the mean when one weight is far above the rest
    W[1][0] = 100.0
    assert rules.heads(rules.prune(W, "mean"), 0) == [1]
    assert rules.heads(rules.prune(W, "median"), 0) == [1, 2]
    # ties rank the lower agent first; Bot-3 of a three-head tail keeps its heaviest
    three = [[nan, 1.0, 1.0, 1.0], [1.0, nan, 1.0, 1.0], [1.0, 1.0, nan, 1.0], [1.0, 1.0, 1.0, nan]]
    assert rules.heads(rules.prune(three, "bottom3"), 3) == [0]
    assert rules.heads(rules.prune(three, "top3"), 3) == [0, 1, 2]


def test_global_pruning_keeps_the_edges_at_or_above_the_whole_graphs_mean() -> None:
    """App. E: one threshold for the whole graph, not one per tail; a tail that no head passes
    keeps its heaviest head (the lower index among equals)."""
    nan = math.nan
    W = [
        [nan, 0.9, 0.9],  # head 0 passes the mean (0.5) for tails 1 and 2
        [0.3, nan, 0.3],
        [0.3, 0.3, nan],
    ]
    keep = rules.prune(W, "global")
    assert [rules.heads(keep, j) for j in range(3)] == [[1], [0], [0]]  # tail 0: heaviest, 1
    equal = [[nan, 1.0], [1.0, nan]]
    assert rules.prune(equal, "global") == rules.full_mesh(2)
