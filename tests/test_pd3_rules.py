"""PD³ rules and readers (protocols/pd3.py; spec seed-000 sections 1.3-1.5, 4.2, 7 and 8 tests 1 and
3-8): labels, the seeded partition, the round-robin groups and their balance, the sliding and random
ablations, the `[RESULT]` list on messy lines, an expert's picks, the fill of a short decision, the
vote and its tie-break chain (every order), the retrieval metrics against the paper's Table 1, the
1-10 score and the pairwise accuracies."""

from __future__ import annotations

import random
import re
from collections import Counter
from itertools import combinations, product

import pytest

from mad_tasks.engine.protocols.pd3 import (
    GROUPINGS,
    LABEL_NUMBERS,
    TIE_RULES,
    Filled,
    fill,
    groups,
    labels,
    match_counts,
    origin,
    overlap,
    partition,
    prec_at_k,
    read_picks,
    read_result,
    read_score,
    side_score,
    traversal,
    vote,
    weighted,
)
from mad_tasks.engine.retrieval import lcs_length, rouge_l

IDS = [f"c{i:02d}" for i in range(30)]
GOLD = ["c03", "c11", "c17", "c22", "c29"]
# a group's labels as the method gives them
GROUP = ("P123", "P456", "P789", "P234", "P567", "P345", "P678", "P901")

# -- labels ----------------------------------------------------------------------------------------


def test_labels_are_distinct_three_digit_names_without_ids_or_ranks() -> None:
    named = labels(IDS, 0)
    assert list(named) == IDS
    assert len(set(named.values())) == 30
    assert all(re.fullmatch(r"P[1-9][0-9]{2}", label) for label in named.values())
    # not the retrieval rank in disguise
    assert [named[i] for i in IDS] != sorted(named.values())


def test_labels_are_seeded() -> None:
    # pinned: a run is reproducible from its recorded seed on any machine
    assert labels(["a", "b", "c"], 0) == {"a": "P964", "b": "P494", "c": "P876"}
    assert labels(IDS, 7) == labels(IDS, 7)
    assert labels(IDS, 7) != labels(IDS, 8)
    assert labels(IDS, 0) == labels(list(IDS), 0)


def test_labels_cover_at_most_every_number() -> None:
    many = [str(i) for i in range(len(LABEL_NUMBERS))]
    assert {int(label[1:]) for label in labels(many, 3).values()} == set(LABEL_NUMBERS)
    with pytest.raises(ValueError, match="at most 900"):
        labels([*many, "one more"], 3)
    with pytest.raises(ValueError, match="not distinct"):
        labels(["a", "b", "a"], 0)


# -- partition -------------------------------------------------------------------------------------


def test_partition_cuts_a_seeded_shuffle_into_consecutive_sets() -> None:
    sets = partition(IDS, 5, 0)
    assert [len(s) for s in sets] == [5] * 6
    assert sorted(c for s in sets for c in s) == IDS
    # pinned: a run is reproducible from its recorded seed on any machine
    assert sets[0] == ("c03", "c10", "c18", "c17", "c05")
    flat = [c for s in sets for c in s]
    assert flat != IDS  # shuffled


def test_partition_same_seed_same_sets_other_seed_other_sets() -> None:
    assert partition(IDS, 5, 11) == partition(IDS, 5, 11)
    assert partition(IDS, 5, 11) != partition(IDS, 5, 12)
    assert partition(IDS, 5, 11) == partition(tuple(IDS), 5, 11)


@pytest.mark.parametrize(("count", "size"), [(31, 5), (30, 0), (30, 7), (4, 5)])
def test_partition_refuses_uneven_sets(count: int, size: int) -> None:
    with pytest.raises(ValueError, match="multiple of the set size"):
        partition(IDS[:count] if count <= 30 else [*IDS, "x"], size, 0)


# -- groups ----------------------------------------------------------------------------------------

SETS = partition(IDS, 5, 0)


def _appearances(found: list[tuple[str, ...]]) -> Counter[str]:
    return Counter(c for group in found for c in group)


def _together(found: list[tuple[str, ...]], a: tuple[str, ...], b: tuple[str, ...]) -> int:
    return sum(1 for group in found if set(a) <= set(group) and set(b) <= set(group))


def test_round_robin_balance_at_the_defaults() -> None:
    found = groups(SETS, 20, "round_robin", 0)
    assert len(found) == 15
    assert all(len(group) == len(set(group)) == 20 for group in found)
    assert set(_appearances(found).values()) == {10}
    for a, b in combinations(SETS, 2):
        assert _together(found, a, b) == 6
    # candidates of one set share all their groups
    for s in SETS:
        assert len({tuple(c in group for group in found) for c in s}) == 1


def test_round_robin_combination_order_and_partition_order_inside() -> None:
    found = groups(SETS, 20, "round_robin", 0)
    expected = [tuple(c for i in combo for c in SETS[i]) for combo in combinations(range(6), 4)]
    assert found == expected
    assert found[0] == SETS[0] + SETS[1] + SETS[2] + SETS[3]
    assert found[-1] == SETS[2] + SETS[3] + SETS[4] + SETS[5]


@pytest.mark.parametrize(
    ("size", "count", "each"), [(5, 6, 1), (10, 15, 5), (15, 20, 10), (20, 15, 10), (25, 6, 5)]
)
def test_group_size_sweep(size: int, count: int, each: int) -> None:
    found = groups(SETS, size, "round_robin", 0)
    assert len(found) == count
    assert all(len(group) == size for group in found)
    assert set(_appearances(found).values()) == {each}


def test_one_group_of_everything_is_mad_vanilla() -> None:
    flat = tuple(c for s in SETS for c in s)
    assert groups(SETS, 30, "round_robin", 0) == [flat]
    assert groups(SETS, 30, "sliding", 0) == [flat]


def test_sliding_windows_are_cyclic_with_step_one() -> None:
    found = groups(SETS, 20, "sliding", 0)
    windows = [(0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (0, 3, 4, 5), (0, 1, 4, 5), (0, 1, 2, 5)]
    assert found == [tuple(c for i in w for c in SETS[i]) for w in windows]
    assert set(_appearances(found).values()) == {4}
    assert groups(SETS, 5, "sliding", 0) == list(SETS)


def test_random_groups_are_seeded_and_unbalanced() -> None:
    found = groups(SETS, 20, "random", 4)
    flat = [c for s in SETS for c in s]
    assert len(found) == 15
    for group in found:
        assert len(set(group)) == 20
        assert list(group) == sorted(group, key=flat.index)  # partition order
    assert found == groups(SETS, 20, "random", 4)
    assert found != groups(SETS, 20, "random", 5)
    assert set(_appearances(found).values()) != {10}  # no balance constraint
    assert len(groups(SETS, 10, "random", 4)) == 15


@pytest.mark.parametrize(
    ("sets", "size", "grouping", "message"),
    [
        (SETS, 20, "traversal", "grouping 'traversal' has no fixed groups"),
        (SETS, 20, "spiral", "grouping 'spiral' has no fixed groups"),
        (SETS, 12, "round_robin", "multiple of the set size 5"),
        (SETS, 35, "round_robin", "between 5 and 30"),
        (SETS, 0, "sliding", "between 5 and 30"),
        ([SETS[0], SETS[1][:4]], 5, "round_robin", "of one size"),
        ([], 5, "round_robin", "non-empty"),
    ],
)
def test_groups_refuse(sets: list[tuple[str, ...]], size: int, grouping: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        groups(sets, size, grouping, 0)


def test_a_grouping_without_fixed_groups_is_refused_naming_those_allowed() -> None:
    with pytest.raises(ValueError) as refused:
        groups(SETS, 20, "traversal", 0)
    assert str(refused.value).endswith("no fixed groups: allowed round_robin, sliding, random")


def test_every_grouping_is_known() -> None:
    assert GROUPINGS == ("round_robin", "sliding", "random", "traversal")


def test_traversal_adds_group_size_minus_k_new_candidates_per_step() -> None:
    """Table 7's Traversal: 5 of 10, then 5 new each step, 30 candidates in 5 steps."""
    order = [f"c{i}" for i in range(30)]
    steps = traversal(order, 10, 5)
    assert [len(s) for s in steps] == [10, 5, 5, 5, 5]
    assert [c for s in steps for c in s] == order  # each candidate new once, in order
    assert [len(s) for s in traversal(order[:27], 10, 5)] == [10, 5, 5, 5, 2]  # the last fewer
    assert [len(s) for s in traversal(order, 10, 7)] == [10, *[3] * 6, 2]
    assert traversal(order, 30, 5) == [tuple(order)]  # one group holds them all
    assert traversal(order, 30, 30) == [tuple(order)]  # then k picks nothing: any k will do
    assert [len(s) for s in traversal(order, 10, 1)] == [10, 9, 9, 2]  # the least k: 1
    for k in (0, 10):
        with pytest.raises(ValueError, match=re.escape(f"k ({k}) must be 1 to 9 (below")):
            traversal(order, 10, k)


# -- the [RESULT] list -----------------------------------------------------------------------------

NUMBERS = ("12", "7", "3", "19", "5", "8", "40")


@pytest.mark.parametrize(
    ("reply", "names", "read"),
    [
        # spec section 8, test 4: mixed separators, full-width ones and "and"
        ("[RESULT] 12, 7，3、19 and 5", NUMBERS, ("12", "7", "3", "19", "5")),
        ("[RESULT] P123, P456，P789、P234 and P567", GROUP, GROUP[:5]),
        ("The consensus is clear.\n[RESULT] P123; P456; P789; P234; P567.", GROUP, GROUP[:5]),
        ("[RESULT]\nP123\nP456\nP789\nP234\nP567\n", GROUP, GROUP[:5]),
        ("[RESULT] [P123, P456, P789] (P234) **P567**", GROUP, GROUP[:5]),
        ("[RESULT] P123/P456 > P789 | P234 & P567", GROUP, GROUP[:5]),
        # duplicates, out of the group, fewer than five
        ("[RESULT] P123, P456, P123, P789, P456, P234, P567", GROUP, GROUP[:5]),
        ("[RESULT] P123, P999, P456, P100, P789", GROUP, ("P123", "P456", "P789")),
        ("[RESULT] P567, P123", GROUP, ("P567", "P123")),
        # any case, leading zeros, a bare number, ordinal suffixes and glued tokens not read
        ("[result] p123, P0456, 789, P234", GROUP, ("P123", "P456", "P789", "P234")),
        ("[ Result ] P123, 12th, P456x, 1P789", GROUP, ("P123",)),
        ("【RESULT】P123、P456", GROUP, ("P123", "P456")),
        # the last tag wins
        ("[RESULT] P901, P678\nOn reflection:\n[RESULT] P123, P456", GROUP, ("P123", "P456")),
        ("I will answer after [RESULT].\n[RESULT] P123 and P456", GROUP, ("P123", "P456")),
        # a numbered list: the list numbers are not labels, even when they could be
        ("[RESULT]\n1. P123\n2. P456\n3) P789", GROUP, ("P123", "P456", "P789")),
        ("[RESULT]\n1. 12\n2. 7\n  - 3) 3\n", ("1", "2", "3", "12", "7"), ("12", "7", "3")),
        ("[RESULT]\n12.\n7.\n", NUMBERS, ("12", "7")),
        ("[RESULT] 12. 7. 3.", NUMBERS, ("12", "7", "3")),
        # prose before the list is skipped, prose after it ends the list
        ("[RESULT]\nThe final ranking:\n\nP123, P456", GROUP, ("P123", "P456")),
        ("[RESULT] P123, P456\nI am confident.\nP789 came close.", GROUP, ("P123", "P456")),
        ("[RESULT] P123\nSee Table2 and Fig3.\nP456", GROUP, ("P123",)),
        ("[RESULT] P123\nP" + "1" * 20 + "\nP456", GROUP, ("P123",)),
        ("[RESULT]\n1. P123\n  \t\n2. P456", GROUP, ("P123", "P456")),
        # only the labels' own letters: another prefix is no label
        ("[RESULT] X123, ID456, P789", GROUP, ("P789",)),
        # a line of prose ends the list even when it names a label or a bare number
        ("[RESULT]\n1. P123\n\n2. P456\n\nP999 is another group's.\n3. P789", GROUP,
         ("P123", "P456")),
        ("[RESULT] P123, P456, P789\nThese serve 220 kV substations.", (*GROUP, "P220"),
         ("P123", "P456", "P789")),
        ("[RESULT] P123, P456, P789\nP555 was a close call but excluded.", (*GROUP, "P555"),
         ("P123", "P456", "P789")),
        ("[RESULT]\nP123 and P456\nP789 AND P234", GROUP, ("P123", "P456", "P789", "P234")),
    ],
)  # fmt: skip
def test_read_result(reply: str, names: tuple[str, ...], read: tuple[str, ...]) -> None:
    assert read_result(reply, names) == read


def test_a_bare_number_two_labels_share_is_not_read() -> None:
    names = ("P12", "Q12", "P7")
    assert read_result("[RESULT] 12, 07", names) == ("P7",)
    assert read_result("[RESULT] 12, Q012, p12", names) == ("Q12", "P12")
    assert read_result("[RESULT] P012, P12", ("P12", "P012")) is None  # labels that read alike
    assert read_result("[RESULT] P012, P12", ("P12", "P13")) == ("P12",)


@pytest.mark.parametrize(
    "reply",
    [
        "P123, P456, P789, P234, P567",  # no tag
        "RESULT: P123, P456",
        "[RESULT]",
        "[RESULT] none of them",
        "[RESULT] P999, P100",  # only other groups' labels
        "[RESULT] P123 ... [RESULT] ",  # the last tag has nothing after it
        "[RESULT] ١٢٣, ٤٥٦",  # non-ASCII digits
        "[RESULT] P" + "1" * 20,
        "",
    ],
)
def test_read_result_unreadable(reply: str) -> None:
    assert read_result(reply, GROUP) is None


def test_read_result_ignores_labels_that_are_not_letters_then_digits() -> None:
    assert read_result("[RESULT] alpha, P123", ("alpha", "P123")) == ("P123",)


# -- an expert's picks -----------------------------------------------------------------------------


def test_read_picks_in_order_of_first_mention() -> None:
    text = (
        "I select P456 and p0123 because they share the sensing method; P999 is not ours. "
        "Unlike Expert 2, I keep P456 over P789, and 123 cities is no label."
    )
    assert read_picks(text, GROUP) == ("P456", "P123", "P789")


def test_read_picks_prefers_a_result_list() -> None:
    text = "P901 was tempting, but [RESULT] P123, 456"
    assert read_picks(text, GROUP) == ("P123", "P456")


def test_read_picks_of_nothing() -> None:
    assert read_picks("No project is relevant.", GROUP) == ()
    assert read_picks("", GROUP) == ()


# -- fill ------------------------------------------------------------------------------------------

PRELIM = ("a", "b", "c", "d", "e", "f", "g", "h")


def test_a_full_list_is_not_filled() -> None:
    assert fill(("h", "g", "f", "e", "d"), 5, [("a", "b")], PRELIM) == Filled(
        ("h", "g", "f", "e", "d"), ()
    )


def test_a_long_list_is_cut_after_cleaning() -> None:
    parsed = ("h", "x", "h", "g", "f", "e", "d", "c")  # x: not in the group
    assert fill(parsed, 5, [], PRELIM) == Filled(("h", "g", "f", "e", "d"), ())


def test_fill_from_the_experts_most_named_first_then_preliminary() -> None:
    experts = [
        ("g", "f", "c", "x", "b", "a"),  # x is no member; "a" is past the expert's five
        ("c", "f", "h"),
        ("f", "h", "c"),
    ]
    # named: f 3, c 3, h 2, g 1, b 1; ties in preliminary order (c before f, b before g)
    filled = fill(("e",), 5, experts, PRELIM)
    assert filled == Filled(("e", "c", "f", "h", "b"), ("experts",) * 4)
    # with k = 7 the first expert's seven picks hold "a" too
    filled = fill(("e", "f", "b"), 7, experts, PRELIM)
    assert filled == Filled(("e", "f", "b", "c", "h", "a", "g"), ("experts",) * 4)
    filled = fill(("e", "f", "b"), 8, experts[1:], PRELIM)
    assert filled == Filled(
        ("e", "f", "b", "c", "h", "a", "d", "g"), ("experts",) * 2 + ("preliminary",) * 3
    )


def test_fill_without_a_parse_or_experts() -> None:
    assert fill(None, 3, [], PRELIM) == Filled(("a", "b", "c"), ("preliminary",) * 3)
    assert fill((), 3, [("d",), ()], PRELIM) == Filled(
        ("d", "a", "b"), ("experts", "preliminary", "preliminary")
    )
    # fewer members than k: as many as there are, never an invented one
    assert fill(("b",), 5, [("a",)], ("a", "b")) == Filled(("b", "a"), ("experts",))


# -- vote ------------------------------------------------------------------------------------------


def _oracle(group: tuple[str, ...]) -> tuple[str, ...]:
    """A senior who ranks the gold members first, then the others in partition order."""
    return tuple(sorted(group, key=lambda c: c not in GOLD))


@pytest.mark.parametrize(("seed", "rule"), [(0, "votes"), (1, "rank_points")])
def test_an_oracle_senior_gives_the_gold_set(seed: int, rule: str) -> None:
    found = groups(partition(IDS, 5, seed), 20, "round_robin", seed)
    outcome = vote([_oracle(g) for g in found], 5, None, {}, IDS)
    assert set(outcome.top) == set(GOLD)
    assert {outcome.votes[c] for c in GOLD} == {10}
    assert sum(outcome.votes.values()) == 15 * 5
    # with seed 1 a filler also wins all its 10 groups: the gold ranked first wins on rank points
    assert outcome.rule == rule


def test_votes_and_rank_points_are_counted_over_each_top_k() -> None:
    decisions = [("a", "b", "c", "d"), ("b", "a", "e"), ("c", "c", "b")]
    outcome = vote(decisions, 3, None, {}, ("a", "b", "c", "d", "e", "f"))
    assert outcome.votes == {"a": 2, "b": 3, "c": 2, "d": 0, "e": 1, "f": 0}
    # c twice in one decision counts once, at its first rank; d is past the top 3
    assert outcome.points == {"a": 5, "b": 7, "c": 4, "d": 0, "e": 1, "f": 0}
    assert outcome.top == ("b", "a", "c")
    assert outcome.rule == "votes"


def test_candidates_without_votes_complete_the_top_k() -> None:
    outcome = vote([("d", "b")], 3, None, {"e": 2}, ("a", "b", "c", "d", "e"))
    assert outcome.top == ("d", "b", "e")
    assert outcome.rule == "initial_picks"
    outcome = vote([("d", "b")], 3, None, {}, ("a", "b", "c", "d", "e"))
    assert outcome.top == ("d", "b", "a")
    assert outcome.rule == "prelim_rank"


def test_a_candidate_missing_from_the_preliminary_order_comes_after_it() -> None:
    outcome = vote([("z", "y")], 2, {"z": 1, "y": 1}, {}, ())
    assert outcome.top == ("z", "y")
    outcome = vote([("z",), ("y",)], 1, {"z": 1, "y": 1}, {}, ("y",))
    assert (outcome.top, outcome.rule) == (("y",), "prelim_rank")


def test_no_boundary_is_a_votes_decision() -> None:
    assert vote([("a", "b")], 5, None, {}, ("a", "b")) == vote([("a", "b")], 5)
    outcome = vote([("a", "b")], 5, None, {}, ("a", "b"))
    assert (outcome.top, outcome.rule) == (("a", "b"), "votes")


# two candidates x and y compete for the second place behind a leader; each tie-break key favours
# x, neither or y (the preliminary rank never ties): the first key that is not level decides
LEVELS = ("x", "=", "y")


@pytest.mark.parametrize(("by_votes", "by_points", "by_initial", "x_first"), [
    (v, p, i, f) for v, p, i in product(LEVELS, repeat=3) for f in (True, False)
])  # fmt: skip
def test_the_tie_break_chain(by_votes: str, by_points: str, by_initial: str, x_first: bool) -> None:
    def pair(better: str, high: int, low: int) -> tuple[int, int]:
        return {"x": (high, low), "=": (low, low), "y": (low, high)}[better]

    votes_x, votes_y = pair(by_votes, 2, 1)
    decisions = [("L", "x")] * votes_x + [("L", "y")] * votes_y
    points_x, points_y = pair(by_points, 9, 4)
    initial_x, initial_y = pair(by_initial, 3, 0)
    outcome = vote(
        decisions,
        2,
        {"L": 100, "x": points_x, "y": points_y},
        {"x": initial_x, "y": initial_y},
        ("L", "x", "y") if x_first else ("L", "y", "x"),
    )
    keys = [by_votes, by_points, by_initial, "x" if x_first else "y"]
    decided = next(i for i, key in enumerate(keys) if key != "=")
    assert outcome.top == ("L", keys[decided])
    assert outcome.rule == TIE_RULES[decided]
    assert outcome.points["x"] == points_x  # given points are the table's


def test_tie_rules_are_named_in_order() -> None:
    assert TIE_RULES == ("votes", "rank_points", "initial_picks", "prelim_rank")


# -- metrics ---------------------------------------------------------------------------------------


def test_overlap_and_prec_at_k() -> None:
    assert overlap(["a", "b", "b", "z"], ["b", "a", "c"]) == 2
    assert prec_at_k(["a", "b", "c", "d", "e"], ["a", "b", "x", "y", "z"]) == 0.4
    # the first five distinct predictions count
    assert prec_at_k(["a", "a", "q", "r", "s", "b", "t"], ["a", "b"]) == 0.4
    assert prec_at_k(["a", "q", "r", "s", "t", "b"], ["a", "b"]) == 0.2
    assert prec_at_k(["a", "b"], ["a", "b", "c"], k=2) == 1.0
    assert prec_at_k([], ["a"]) == 0.0


# Table 1 rows, Match@1..5 counts over n = 331 and the printed Prec@5
TABLE_1 = {
    "PD3": ((310, 238, 133, 41, 10), 44.23),
    "BM25": ((273, 145, 52, 5, 0), 28.70),
    "Random": ((209, 64, 5, 0, 0), 16.80),
}


@pytest.mark.parametrize("row", TABLE_1)
def test_match_counts_reproduce_table_1(row: str) -> None:
    counts, printed = TABLE_1[row]
    # items with exactly j gold in their top five, from the cumulative counts
    exact = [331 - counts[0]] + [counts[j] - (counts[j + 1] if j < 4 else 0) for j in range(5)]
    overlaps = [j for j, n in enumerate(exact) for _ in range(n)]
    assert len(overlaps) == 331
    assert match_counts(overlaps) == list(counts)
    gold = ["g1", "g2", "g3", "g4", "g5"]
    preds = [gold[:j] + ["x1", "x2", "x3", "x4", "x5"][j:] for j in overlaps]
    mean = sum(prec_at_k(p, gold) for p in preds) / 331
    assert round(100 * mean, 2) == printed
    assert mean == pytest.approx(sum(counts) / (5 * 331))


def test_match_counts_at_other_k() -> None:
    assert match_counts([0, 1, 3, 3], k=3) == [3, 2, 2]
    assert match_counts([]) == [0, 0, 0, 0, 0]


# -- the duplication score -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("The references share the core method.\n[RESULT]8", 8),
        ("[RESULT] 8", 8),
        ("[result]: **7**", 7),
        ("[RESULT] 8/10", 8),
        ("[RESULT] 8 / 10.", 8),
        ("[RESULT]\n10", 10),
        ("[RESULT] 1", 1),
        ("[RESULT] 09", 9),
        ("[RESULT] 6 out of 10", 6),
        ("[RESULT] 6 Out Of 10.\nThree of 5 references overlap.", 6),
        ("An example: [RESULT]3. My score:\n[RESULT] 9", 9),
        # unreadable: out of range, not an integer, another scale, no number or no tag
        ("[RESULT] 0", None),
        ("[RESULT] 11", None),
        ("[RESULT] 100", None),
        ("[RESULT] 0010", 10),
        ("[RESULT] 000", None),
        ("[RESULT] -3", None),
        ("[RESULT] 7.5", None),
        # a hedge or a decimal: any other digit on the score's line is an abstention
        ("[RESULT] 7 or 8", None),
        ("[RESULT] 7-8", None),
        ("[RESULT] 7 to 8", None),
        ("[RESULT] 7,5", None),
        ("[RESULT] 1 0", None),
        ("[RESULT] 8/10 (or 9)", None),
        ("[RESULT] 6 out of 9", None),
        ("[RESULT] 8/100", None),
        ("[RESULT] 4/5", None),
        ("[RESULT] 8/1000", None),
        ("[RESULT]score", None),
        ("[RESULT] eight", None),
        ("[RESULT] 9" + "9" * 5_000, None),
        ("Score: 8", None),
        ("[RESULT]8 earlier, then [RESULT]", None),
        ("", None),
    ],
)
def test_read_score(reply: str, score: int | None) -> None:
    assert read_score(reply) == score


# -- Task 2 accuracies -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prediction", "votes", "origin_value", "weighted_value"),
    [
        ("B", (2, 1), 0.0, 1 / 3),  # spec: 2A:1B and B earns 0.33
        ("A", (2, 1), 1.0, 2 / 3),
        ("A", (3, 0), 1.0, 1.0),
        ("B", (3, 0), 0.0, 0.0),
        ("B", (0, 3), 1.0, 1.0),
        ("tie", (3, 0), 0.0, 0.0),
        ("tie", (2, 1), 0.0, 1 / 3),
        ("tie", (1, 2), 0.0, 1 / 3),
        ("A", (1, 1), 0.0, 0.5),  # no majority: nothing to match
    ],
)
def test_pairwise_accuracies(
    prediction: str, votes: tuple[int, int], origin_value: float, weighted_value: float
) -> None:
    assert origin(prediction, votes) == origin_value
    assert weighted(prediction, votes) == pytest.approx(weighted_value)


def test_the_spec_split_rounds_to_0_33() -> None:
    assert round(weighted("B", (2, 1)), 2) == 0.33


@pytest.mark.parametrize(
    ("prediction", "votes", "message"),
    [
        ("a", (2, 1), "prediction 'a'"),
        ("", (2, 1), "allowed A, B, tie"),
        ("A", (-1, 3), "none negative"),
        ("tie", (0, 0), "not both zero"),
    ],
)
def test_pairwise_refuses(prediction: str, votes: tuple[int, int], message: str) -> None:
    for rule in (origin, weighted):
        with pytest.raises(ValueError, match=re.escape(message)):
            rule(prediction, votes)


# -- edge cases of the readers and the vote (each one a rule a mutant would break) ---------------


def test_a_nine_digit_label_is_read_and_a_ten_digit_one_is_not() -> None:
    assert read_picks("P123456789 is the closest.", ["P123456789"]) == ("P123456789",)
    assert read_picks("P1234567890 is the closest.", ["P1234567890"]) == ()


def test_a_result_list_goes_on_over_lines_of_bare_numbers() -> None:
    assert read_result("[RESULT]\nP101\n205", ["P101", "P205"]) == ("P101", "P205")


def test_without_a_result_list_bare_numbers_name_no_label() -> None:
    assert read_picks("I pick 205 and P101.", ["P101", "P205"]) == ("P101",)


def test_a_score_reads_only_the_rest_of_its_own_line() -> None:
    assert read_score("Analysis.\n[RESULT]8, or 2 less") is None  # a newline before the tag
    assert read_score("[RESULT]8\nThe second reason has 2 parts.\nEnd.") == 8


def test_sets_of_one() -> None:
    assert sorted(partition(["a", "b"], 1, 0)) == [("a",), ("b",)]


def test_a_candidate_without_rank_points_or_initial_picks_has_none() -> None:
    # given rank points cover "a" only: "b" has 0, so the tie goes to the preliminary order
    tied = vote([["a"], ["b"]], 1, rank_points={"a": 0})
    assert (tied.top, tied.points, tied.rule) == (("a",), {"a": 0, "b": 0}, "prelim_rank")
    with_points = vote([["a"], ["b"]], 1, rank_points={"a": 1})
    assert (with_points.top, with_points.rule) == (("a",), "rank_points")
    # initial picks cover "b" only (with 0): "a" has 0 too, so the preliminary order decides
    initial = vote([["b"], ["a"]], 1, rank_points={}, initial_picks={"b": 0})
    assert (initial.top, initial.rule) == (("b",), "prelim_rank")


def test_a_result_list_is_read_for_as_many_lines_as_there_are_labels_and_two() -> None:
    labels = ["P101", "P102", "P103"]
    # a heading and 4 lines are read (3 + 2 non-blank lines); the 6th, P103, is past them
    text = "[RESULT]\nMy list:\n\n\nP101\nP101\nP101\nP102\nP103"
    assert read_result(text, labels) == ("P101", "P102")
    assert read_result("[RESULT]\nP101\n\n\n\nP102\nP103", labels) == ("P101", "P102", "P103")
    assert read_result("[RESULT]\r\n1. P102\r\n2. P103", labels) == ("P102", "P103")


def test_a_task_2_sides_score_reads_only_readable_scores() -> None:
    """Table 2's MAX and AVG over a side's references; an unreadable score is left out, and a
    side with none has no score (then no prediction), never a guessed one."""
    assert side_score([3.0, None, 5.0], "max") == 5.0
    assert side_score([3.0, None, 5.0], "avg") == 4.0
    assert side_score([2.0], "avg") == side_score([2.0], "max") == 2.0
    assert side_score([None, None], "max") is None and side_score([], "avg") is None


def _lcs_table(a: list[str], b: list[str]) -> int:
    t = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            t[i + 1][j + 1] = t[i][j] + 1 if x == y else max(t[i][j + 1], t[i + 1][j])
    return t[-1][-1]


def test_the_bit_parallel_lcs_equals_the_textbook_table() -> None:
    """ROUGE-L's LCS (PD³'s ROUGE-L rows), against the dynamic-programming table on random
    word sequences, and its F1 on a hand-counted pair."""
    rng = random.Random(7)
    for _ in range(500):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        b = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        assert lcs_length(a, b) == _lcs_table(a, b), (a, b)
    assert lcs_length(["x"] * 70, ["x"] * 65) == 65  # past one machine word
    # "the cat sat on the mat" / "the cat on a mat": the cat on mat, 2 x 4 / (6 + 5)
    assert rouge_l("The cat sat on the mat.", "the cat on a mat") == pytest.approx(8 / 11)
    assert rouge_l("", "words") == 0.0 and rouge_l("same words", "same words") == 1.0
