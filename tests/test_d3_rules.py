"""D3 decision rules (spec seed-002 section 8): judge-score parsing, SAMRE's stop rule, the jury and
its tie-breaks, the position swap, Cohen's kappa and anonymisation; plus the seeded simulation that
shows the paper's Theorem 2/3 (max over k advocates separates better) is not universal."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mad_tasks.engine.protocols.d3 import (
    MAX_PAIR_LINES,
    JudgeScores,
    StopRule,
    Verdict,
    anonymise,
    best_scores,
    cohen_kappa,
    converged,
    discussion_verdict,
    judge_gap,
    jury_verdict,
    parse_criteria,
    side_of,
    stop_reason,
    swap_verdict,
)

SCORES = JudgeScores()

CRITERIA_LINES = "\n".join(f"{i}. [{15 + i % 2}, {10 + i % 3}]" for i in range(1, 7))


# -- 1. judge scores -------------------------------------------------------------------------------


def test_last_marked_totals_win_over_the_echoed_example_and_the_criteria() -> None:
    reply = (
        "As the example says, a reply looks like ANSWER: (95, 87).\n"
        f"{CRITERIA_LINES}\nFeedback A: cite sources.\nFeedback B: be concise.\n"
        "ANSWER: (101, 77)"
    )
    assert SCORES.extract(reply) == "101, 77"


@pytest.mark.parametrize(
    "reply", ["ANSWER: (130, 80)", "ANSWER: (5, 80)", "ANSWER: [80, 0]", "ANSWER: (0, 0)"]
)
def test_out_of_range_totals_are_rejected(reply: str) -> None:
    assert SCORES.extract(reply) is None


def test_an_out_of_range_final_line_never_falls_back_to_an_earlier_tuple() -> None:
    assert SCORES.extract("Example: (95, 87)\nANSWER: (95, 870)") is None


@pytest.mark.parametrize(
    "reply, totals",
    [
        ("ANSWER: [88, 90]", "88, 90"),
        ("ANSWER: 88, 90", "88, 90"),
        ("Final answer: (60, 61)", "60, 61"),
        # no marked line: the last parenthesised pair outside the criterion lines
        (f"{CRITERIA_LINES}\nSo the totals are (93, 63).", "93, 63"),
        # no totals at all: the sum of six complete criterion lines
        (
            CRITERIA_LINES,
            f"{sum(15 + i % 2 for i in range(1, 7))}, {sum(10 + i % 3 for i in range(1, 7))}",
        ),
    ],
)
def test_totals_forms(reply: str, totals: str) -> None:
    assert SCORES.extract(reply) == totals


@pytest.mark.parametrize(
    "reply",
    ["I prefer the first answer.", "1. [15, 12]\n2. [14, 13]", "ANSWER: A is better", ""],
)
def test_no_readable_totals_is_none_never_zero(reply: str) -> None:
    assert SCORES.extract(reply) is None


def test_criteria_need_all_six_in_range() -> None:
    assert parse_criteria(CRITERIA_LINES) == [(15 + i % 2, 10 + i % 3) for i in range(1, 7)]
    assert parse_criteria(CRITERIA_LINES.replace("6. [15, 10]", "6. [25, 10]")) is None
    assert parse_criteria("1. [15, 12]") is None


def test_the_instruction_states_the_range() -> None:
    assert "ANSWER: (x, y)" in SCORES.instruction() and "6 and 120" in SCORES.instruction()


# criteria summing to (102, 79); the last one alone is (16, 12), a readable but wrong total
NAMED = [("Relevance", 18, 15), ("Accuracy", 17, 13), ("Depth", 16, 12), ("Clarity", 17, 14),
         ("Reasoning", 18, 13), ("Rebuttal", 16, 12)]  # fmt: skip


def test_named_criterion_lines_are_summed_not_read_as_the_totals() -> None:
    reply = "\n".join(f"{name}: ({a}, {b})" for name, a, b in NAMED)
    assert SCORES.extract(reply) == "102, 79"
    assert parse_criteria(reply) == [(a, b) for _, a, b in NAMED]


@pytest.mark.parametrize(
    "line",
    [
        "{n}. [{a}, {b}]",
        "{n}: [{a}, {b}]",
        "{n}) ({a}, {b})",
        "**{n}. {name}**: [{a}, {b}]",
        "{n}. {name} to the question: ({a}, {b})",
    ],
)
def test_criterion_line_forms(line: str) -> None:
    reply = "\n".join(
        line.format(n=n, name=name, a=a, b=b) for n, (name, a, b) in enumerate(NAMED, 1)
    )
    assert parse_criteria(reply) == [(a, b) for _, a, b in NAMED]
    assert SCORES.extract(reply) == "102, 79"


def test_a_stray_pair_after_six_criteria_does_not_stop_the_sum() -> None:
    assert SCORES.extract(f"{CRITERIA_LINES}\nClarity weighs double here (3, 4).") == (
        f"{sum(15 + i % 2 for i in range(1, 7))}, {sum(10 + i % 3 for i in range(1, 7))}"
    )


def test_a_totals_line_wins_over_the_criteria() -> None:
    assert SCORES.extract(f"{CRITERIA_LINES}\nTotal: (90, 70)") == "90, 70"


def test_a_reply_with_more_pair_lines_than_the_cap_is_unread() -> None:
    filler = "\n".join(["(50, 50)"] * (MAX_PAIR_LINES - 6))
    assert parse_criteria(f"{filler}\n{CRITERIA_LINES}") is not None
    assert parse_criteria(f"(50, 50)\n{filler}\n{CRITERIA_LINES}") is None
    assert SCORES.extract(f"(50, 50)\n{filler}\n{CRITERIA_LINES}") is None


def test_a_lone_pair_is_read_when_there_are_no_criteria() -> None:
    assert SCORES.extract("I would give them (93, 63).") == "93, 63"
    assert SCORES.extract("Relevance: (18, 15)\nClarity: (17, 13)") is None  # two of six criteria


def test_a_three_digit_total_in_the_parenthesised_fallback() -> None:
    assert SCORES.extract(f"{CRITERIA_LINES}\nSo the totals are (102, 99).") == "102, 99"


def test_a_pair_with_a_longer_number_is_not_cut_to_three_digits() -> None:
    assert SCORES.extract("ANSWER: (95, 1000)") is None
    assert SCORES.extract("ANSWER: 95, 1000") is None


def test_totals_at_the_bounds_are_read() -> None:
    assert SCORES.extract("ANSWER: (6, 120)") == "6, 120"
    assert SCORES.extract("ANSWER: (120, 6)") == "120, 6"


def test_criterion_scores_at_the_bounds_are_read_and_beyond_them_refused() -> None:
    edge = CRITERIA_LINES.replace("1. [16, 11]", "1. [1, 20]")
    assert parse_criteria(edge)[0] == (1, 20)
    assert parse_criteria(CRITERIA_LINES.replace("1. [16, 11]", "1. [0, 11]")) is None
    assert parse_criteria(CRITERIA_LINES.replace("1. [16, 11]", "1. [15, 21]")) is None


def test_a_named_criterion_may_score_the_maximum() -> None:
    named = [("Relevance", 20, 15), *NAMED[1:]]
    reply = "\n".join(f"{name}: ({a}, {b})" for name, a, b in named)
    assert parse_criteria(reply) == [(a, b) for _, a, b in named]
    assert SCORES.extract(reply) == "104, 79"
    # a pair above 20 is no criterion: five names are not six
    assert parse_criteria(reply.replace("(20, 15)", "(21, 15)")) is None


def test_named_criteria_may_carry_markdown_and_bullets() -> None:
    marks = ["**{}**: ", "- {}: ", "### {} ", "> *{}* - ", "__{}__:", "{} – "]
    reply = "\n".join(f"{mark.format(name)}({a}, {b})" for mark, (name, a, b) in zip(marks, NAMED))
    assert parse_criteria(reply) == [(a, b) for _, a, b in NAMED]
    assert SCORES.extract(reply) == "102, 79"


def test_numbered_criteria_are_read_in_number_order() -> None:
    reply = "\n".join(reversed(CRITERIA_LINES.splitlines()))
    assert parse_criteria(reply) == [(15 + i % 2, 10 + i % 3) for i in range(1, 7)]
    assert parse_criteria(reply.replace("3. [16, 10]\n", "")) is None  # number 3 is missing


# -- 2./3. SAMRE's stop rule -----------------------------------------------------------------------


SIGNED = StopRule()  # window 2, min_rounds 2, eps 5
CODE = StopRule(stopping="code", window=3, min_rounds=3, eps=5.0)


def first_stop(
    gaps: list[int | None], rule: StopRule, tokens_per_round: int = 0
) -> tuple[int, str]:
    """Feed the gaps round by round, as SAMRE does; return (round, reason) of the first stop."""
    for r in range(1, len(gaps) + 1):
        reason = stop_reason(gaps[:r], tokens_per_round * r, rule)
        if reason:
            return r, reason
    raise AssertionError("never stopped")


def test_steady_gaps_stop_at_round_two_under_the_signed_rule() -> None:
    assert first_stop([10, 12, 11, 40, 40], SIGNED) == (2, "converged")


def test_the_code_preset_needs_three_rounds() -> None:
    assert first_stop([10, 12, 11, 40, 40], CODE) == (3, "converged")


def test_a_sign_flip_is_not_convergence() -> None:
    assert not converged([4, -4], SIGNED)
    assert not converged([2, -1], SIGNED)  # within eps, yet the winner changed
    # the reference code's absolute gaps call the flip steady
    assert converged([4, -4, 4], CODE)


def test_the_code_preset_refuses_a_strictly_moving_gap() -> None:
    assert not converged([10, 11, 12], CODE)
    assert not converged([12, 11, 10], CODE)
    assert converged([11, 11, 11], CODE)


def test_eps_is_strict_and_the_window_is_the_latest_rounds() -> None:
    assert not converged([10, 15], SIGNED)
    assert converged([10, 14], SIGNED)
    assert converged([50, 10, 14], SIGNED)
    assert not converged([10, 14], StopRule(window=3, min_rounds=2))


def test_eps_is_strict_under_the_code_preset_too() -> None:
    assert not converged([10, 15, 10], CODE)  # the absolute gaps span exactly eps
    assert converged([10, 14, 10], CODE)


def test_a_one_point_lead_that_changes_sides_is_a_sign_flip() -> None:
    assert not converged([1, -1], SIGNED)
    assert not converged([-1, 1], SIGNED)
    assert converged([1, 1], SIGNED)


def test_min_rounds_delays_convergence() -> None:
    assert first_stop([10, 10, 10, 10, 10], StopRule(min_rounds=4)) == (4, "converged")


def test_an_unscored_round_in_the_window_blocks_convergence() -> None:
    assert first_stop([10, None, 10, 11, 60], SIGNED) == (4, "converged")


def test_the_round_limit_stops() -> None:
    assert first_stop([10, 30, 50], StopRule(max_rounds=3)) == (3, "max_rounds")


def test_token_budget_is_checked_after_the_round() -> None:
    # 1,000 tokens a round, budget 2,500: round 3 crosses it and is the last one
    rule = StopRule(token_budget=2500)
    assert first_stop([10, 30, 50, 70, 90], rule, tokens_per_round=1000) == (3, "token_budget")
    assert stop_reason([10, 30], 2500, rule) is None  # not exceeded yet


def test_decisive_gap() -> None:
    rule = StopRule(decisive_gap=30)
    assert first_stop([10, -35, 0, 20, 40], rule) == (2, "decisive")


def test_a_gap_exactly_at_the_decisive_gap_stops() -> None:
    rule = StopRule(decisive_gap=30)
    assert stop_reason([30], 0, rule) == "decisive"
    assert stop_reason([-30], 0, rule) == "decisive"  # either side's lead
    assert stop_reason([29], 0, rule) is None


def test_a_tied_round_is_not_a_sign_flip() -> None:
    # a gap of 0 has no winner, so it changes no winner into the other
    assert converged([0, -2], SIGNED)
    assert converged([2, 0], SIGNED)
    assert converged([0, 0], SIGNED)
    assert not converged([2, 0, -2], StopRule(window=3))  # the flip is across the tie


def test_the_default_round_limit_is_five() -> None:
    assert StopRule().max_rounds == 5
    assert first_stop([10, 30, 50, 70, 90, 110], StopRule()) == (5, "max_rounds")


def test_convergence_is_reported_before_the_budget() -> None:
    assert stop_reason([10, 10], 10_000, StopRule(token_budget=1)) == "converged"


def test_before_any_round_nothing_stops() -> None:
    assert stop_reason([], None, StopRule(decisive_gap=30, token_budget=100)) is None


# -- 4. the jury and its tie-breaks ----------------------------------------------------------------


def test_jury_three_two_is_a_majority() -> None:
    assert jury_verdict(["A", "B", "A", "B", "A"], gap=-40) == Verdict(
        "A", {"A": 3, "B": 2}, 0, tiebreak_used=False, judge_gap=-40
    )


def test_two_two_with_an_abstention_goes_to_the_judge() -> None:
    verdict = jury_verdict(["B", "A", None, "B", "A"], gap=judge_gap([(80, 70), (70, 75)]))
    assert verdict == Verdict("A", {"A": 2, "B": 2}, 1, tiebreak_used=True, judge_gap=5)


def test_a_jury_majority_for_b_wins_over_the_judge() -> None:
    assert jury_verdict(["B", "A", "B", None], gap=40) == Verdict(
        "B", {"A": 1, "B": 2}, 1, tiebreak_used=False, judge_gap=40
    )


def test_an_abstention_is_never_a_vote_for_b() -> None:
    verdict = jury_verdict(["A", None, None, None, None], gap=-10)
    assert (verdict.winner, verdict.abstentions, verdict.tiebreak_used) == ("A", 4, False)


def test_a_tied_jury_and_a_tied_judge_give_a_tie() -> None:
    assert jury_verdict(["A", "B", None], gap=judge_gap([(80, 70), (70, 80)])).winner == "tie"


def test_a_one_point_judge_lead_settles_a_tied_jury() -> None:
    assert jury_verdict(["A", "B", None], gap=judge_gap([(71, 70)])).winner == "A"
    assert jury_verdict(["A", "B", None], gap=judge_gap([(70, 71)])).winner == "B"


def test_a_tied_jury_with_an_unscored_judge_is_a_tie() -> None:
    # the jurors who voted split evenly: a real tie, though nobody can break it
    verdict = jury_verdict(["A", "B", None], gap=None)
    assert (verdict.winner, verdict.tiebreak_used) == ("tie", True)


def test_no_vote_and_no_judge_score_is_an_abstention_never_a_tie() -> None:
    verdict = jury_verdict([None, None, None], gap=None)
    assert verdict == Verdict(None, {"A": 0, "B": 0}, 3, tiebreak_used=True, judge_gap=None)


def test_cumulative_and_final_tie_breaks_differ() -> None:
    scores = [(90, 70), (70, 75), None]
    assert judge_gap(scores, "cumulative") == 15
    assert judge_gap(scores, "final") == -5  # the last scored round
    assert judge_gap([None, None]) is None


def test_the_final_tie_break_reads_the_last_of_several_scored_rounds() -> None:
    scores = [(90, 70), None, (70, 75), (80, 60), None]
    assert judge_gap(scores, "final") == 20
    assert judge_gap(scores) == judge_gap(scores, "cumulative") == 35  # the default sums


@pytest.mark.parametrize(
    "gap, side", [(3, "A"), (1, "A"), (0.5, "A"), (-0.5, "B"), (-1, "B"), (0, "tie"), (None, None)]
)
def test_side_of(gap, side: str | None) -> None:
    assert side_of(gap) == side


def test_best_scores_take_each_sides_maximum() -> None:
    assert best_scores([(80, 90), None, (95, 60)]) == (95, 90)
    assert best_scores([None]) is None


# -- 5. position swap ------------------------------------------------------------------------------


def test_a_verdict_that_follows_the_answers_is_consistent() -> None:
    # A wins as given; reversed, the same answer is B
    assert swap_verdict("A", "B", gap_sum=None, resolution="tie") == ("A", True)
    assert swap_verdict("tie", "tie", gap_sum=None, resolution="tie") == ("tie", True)


def test_a_verdict_that_follows_the_position_is_inconsistent() -> None:
    assert swap_verdict("A", "A", gap_sum=10, resolution="tie") == ("tie", False)
    assert swap_verdict("A", "A", gap_sum=10, resolution="gap") == ("A", False)
    assert swap_verdict("B", "B", gap_sum=-3, resolution="gap") == ("B", False)
    assert swap_verdict("A", "A", gap_sum=0, resolution="gap") == ("tie", False)
    # two real verdicts that disagree with no judge score to sum: a tie
    assert swap_verdict("A", "A", gap_sum=None, resolution="gap") == ("tie", False)


@pytest.mark.parametrize("resolution", ["tie", "gap"])
def test_an_order_that_abstained_makes_the_swapped_judgment_abstain(resolution: str) -> None:
    # nothing to compare: no verdict, and the consistency is unknown
    assert swap_verdict(None, "B", gap_sum=10, resolution=resolution) == (None, None)
    assert swap_verdict("A", None, gap_sum=10, resolution=resolution) == (None, None)
    assert swap_verdict(None, None, gap_sum=None, resolution=resolution) == (None, None)


# -- 6. Cohen's kappa ------------------------------------------------------------------------------


def test_kappa_on_the_spec_vectors() -> None:
    human = [1, 1, 0, 1, 0, 0, 1, 1, 0, 1]
    model = [1, 1, 0, 0, 0, 1, 1, 1, 0, 1]
    gold, judged = ["AB"[h] for h in human], ["AB"[m] for m in model]
    assert sum(g == j for g, j in zip(gold, judged)) / len(gold) == 0.8
    assert cohen_kappa(gold, judged) == pytest.approx(0.5833, abs=5e-5)


def test_kappa_edge_cases() -> None:
    assert cohen_kappa(["A", "B"], ["A", "B"]) == 1.0
    assert cohen_kappa(["A", "B"], ["B", "A"]) == -1.0
    assert cohen_kappa(["A", "A"], ["A", "A"]) == 0.0  # chance agreement is certain
    assert math.isnan(cohen_kappa([], []))
    # a judge's tie is a class of its own: it never agrees with A or B
    # p_o = 3/4; p_e = P(A)P(A) + P(B)P(B) = 1/2 * 1/4 + 1/2 * 1/2 = 3/8
    assert cohen_kappa(["A", "B", "A", "B"], ["A", "B", "tie", "B"]) == pytest.approx(
        (0.75 - 0.375) / (1 - 0.375)
    )
    with pytest.raises(ValueError):
        cohen_kappa(["A"], [])


# -- 8. anonymisation ------------------------------------------------------------------------------


def test_anonymise_hides_names_whole_and_case_insensitively() -> None:
    text = "GPT-4 says; gpt-4-turbo agrees; advocate_a_1 wrote it; a gpt-4ish word stays."
    hidden = anonymise(text, ["gpt-4", "gpt-4-turbo", "advocate_a_1", "x"])
    assert hidden == "[hidden] says; [hidden] agrees; [hidden] wrote it; a gpt-4ish word stays."


def test_anonymise_hides_the_longer_of_two_overlapping_names_whole() -> None:
    # "judge" sorts after "a-judge", yet the longer name goes first, so it is hidden whole
    assert (
        anonymise("a-judge and judge agree", ["judge", "a-judge"]) == "[hidden] and [hidden] agree"
    )


def test_anonymise_hides_a_two_character_name_but_no_single_letter() -> None:
    assert anonymise("A2 wrote it and a b saw it", ["A2", "a", "b "]) == (
        "[hidden] wrote it and a b saw it"
    )


# -- 9. Theorem 2/3 is not universal (seeded simulation) -------------------------------------------


def separation(
    draw_1, draw_2, k: int, rng: np.random.Generator, n: int = 200_000
) -> tuple[float, float]:
    """E|M1 - M2| and the mis-rank rate P(M1 <= M2) (a tie fails to rank the better side first),
    for M_i = the max of k judge scores of side i; side 1 is the better one."""
    m1 = draw_1(rng, (n, k)).max(axis=1)
    m2 = draw_2(rng, (n, k)).max(axis=1)
    return float(np.abs(m1 - m2).mean()), float((m1 <= m2).mean())


def test_max_over_advocates_can_shrink_separation_and_raise_mis_ranking() -> None:
    rng = np.random.default_rng(0)

    def ceiling(mean: float, sd: float):
        return lambda r, size: np.clip(np.rint(r.normal(mean, sd, size)), 1, 20)

    table = {k: separation(ceiling(19, 1.5), ceiling(15, 3), k, rng) for k in (1, 3, 5)}
    # the better side sits at the ceiling: more advocates let the worse one catch up
    assert table[1][0] > table[3][0] > table[5][0]
    assert table[1][1] < table[3][1] < table[5][1]
    # the spec's figures: 4.12 -> 2.45 in separation, 15.6% -> 23.1% mis-ranked
    assert table[1][0] == pytest.approx(4.12, abs=0.05) and table[3][0] == pytest.approx(
        2.45, abs=0.05
    )
    assert table[1][1] == pytest.approx(0.156, abs=0.005) and table[3][1] == pytest.approx(
        0.231, abs=0.005
    )


def test_max_over_advocates_helps_when_the_better_side_varies_more() -> None:
    rng = np.random.default_rng(1)

    def wide(r: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
        return r.normal(1, 2, size)

    def narrow(r: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
        return r.normal(0, 0.5, size)

    one, three = (separation(wide, narrow, k, rng)[0] for k in (1, 3))
    assert three > one
    assert one == pytest.approx(1.83, abs=0.05) and three == pytest.approx(2.34, abs=0.05)


def test_cohen_kappa_weighs_each_pair_by_its_weight() -> None:
    # a pair of weight 0 counts for nothing; weights of 2 each are weights of 1
    assert cohen_kappa(["A", "B", "A"], ["A", "B", "B"], weights=[1, 1, 0]) == 1.0
    assert cohen_kappa(["A", "B", "A"], ["A", "B", "B"], weights=[2, 2, 2]) == cohen_kappa(
        ["A", "B", "A"], ["A", "B", "B"]
    )
    with pytest.raises(ValueError, match="same length"):
        cohen_kappa(["A", "B"], ["A", "B"], weights=[1.0])


@pytest.mark.parametrize(
    ("final", "stated", "verdict"),
    [
        ("last_turn", [(1, "A"), (2, "B"), (1, "B")], "B"),
        ("last_turn", [(1, "A"), (2, None)], "A"),
        ("last_turn", [(1, None), (2, None)], None),
        ("agreement", [(1, "A"), (2, "B"), (1, "B")], "B"),
        ("agreement", [(1, "A"), (2, "B")], None),
        ("agreement", [(1, "A"), (2, None)], None),  # one reviewer never readable
        ("agreement", [(1, "tie"), (2, "tie")], "tie"),
    ],
)
def test_a_peer_discussions_verdict_rules(final: str, stated: list, verdict: str | None) -> None:
    assert discussion_verdict(final, stated) == verdict


@pytest.mark.parametrize(
    ("stated", "verdict"),
    [
        ([(1, "A"), (2, "B")], "tie"),  # no turn: a split between the reviews is a tie
        ([(1, "A"), (2, "A")], "A"),
        ([(1, "B"), (2, None)], "B"),
        ([(1, None), (2, None)], None),
    ],
)
def test_without_a_turn_the_reviews_decide_as_a_first_verdict(
    stated: list, verdict: str | None
) -> None:
    assert discussion_verdict("last_turn", stated, discussed=False) == verdict
