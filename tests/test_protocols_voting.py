"""Voting rules (protocols/voting.py): ballot parsing, validity, points, tallies and ties."""

from __future__ import annotations

import pytest

from mad_tasks.engine.protocols.voting import (
    MAX_ENTRIES,
    BallotRules,
    Simple,
    VoteTally,
    ballot_kind,
    ballot_kinds,
    ballot_points,
    parse_ballot,
    register_ballot_kind,
    tally,
    unregister_ballot_kind,
    winner_of,
)

SIMPLE = BallotRules("simple", 3)
RANKED = BallotRules("ranked", 3)
CUMULATIVE = BallotRules("cumulative", 3)
APPROVAL = BallotRules("approval", 3)


# -- simple ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, index",
    [
        ("0", 0),
        ("2", 2),
        ("Solution 1", 1),
        ("I vote for solution 1.", 1),
        ("1, because it is the best supported", 1),
        ("**2**", 2),
        ("3", None),  # out of range (0-indexed: 0..2)
        ("-1", None),
        ("none of them", None),
        ("", None),
    ],
)
def test_simple_ballot_reads_the_first_number(text: str, index: int | None) -> None:
    assert parse_ballot(text, SIMPLE) == index


def test_simple_ballot_both_parses_of_two_numbers() -> None:
    # spec 8.9: the first integer (default) vs MALLM's joined digits, where "1 or 2" is 12: invalid
    assert parse_ballot("1 or 2", SIMPLE) == 1
    assert parse_ballot("1 or 2", BallotRules("simple", 3, simple_parse="all_digits")) is None
    assert parse_ballot("Solution 2", BallotRules("simple", 3, simple_parse="all_digits")) == 2


def test_all_digits_joins_every_digit_of_the_reply() -> None:
    rules = BallotRules("simple", 13, simple_parse="all_digits")
    assert parse_ballot("1 or 2", rules) == 12
    assert parse_ballot("Solution 1, no, 3", rules) is None  # 13 of 13 candidates


def test_an_index_may_have_leading_zeros() -> None:
    assert parse_ballot("Solution 02", SIMPLE) == 2
    assert parse_ballot("02, 00", RANKED) == [2, 0]
    assert parse_ballot('{"01": 010}', CUMULATIVE) == [0, 10, 0]
    assert parse_ballot("03", SIMPLE) is None


def test_simple_tally_golden() -> None:
    assert tally([0, 0, 1], SIMPLE) == VoteTally([2, 1, 0], winner=0, tie=False, valid=3)
    assert tally([0, 1, 2], SIMPLE) == VoteTally([1, 1, 1], winner=None, tie=True, valid=3)
    # the paper's G.1 example: everyone votes 2
    assert tally([2, 2, 2], SIMPLE).winner == 2


# -- ranked ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, ranking",
    [
        ("0 1 2", [0, 1, 2]),
        ("Ranking: 2, 0, 1 because solution 2 cites the source", [2, 0, 1]),
        ("1 > 0 > 2", [1, 0, 2]),
        ("1", [1]),  # partial rankings are allowed
        ("0 0 1", None),  # duplicates are re-prompted (spec 8.10)
        ("0 1 3", None),  # out of range
        ("no ranking", None),
    ],
)
def test_ranked_ballot(text: str, ranking: list[int] | None) -> None:
    assert parse_ballot(text, RANKED) == ranking


def test_ranked_ballot_respects_max_ranks() -> None:
    rules = BallotRules("ranked", 7, max_ranks=5)
    assert parse_ballot("0 1 2 3 4", rules) == [0, 1, 2, 3, 4]
    assert parse_ballot("0 1 2 3 4 5", rules) is None


def test_borda_points_golden() -> None:
    # spec 9.7: "0 1 2", "1 0 2", "0 2 1" -> [8, 6, 4], winner 0
    assert ballot_points([0, 1, 2], RANKED) == [3, 2, 1]
    result = tally([[0, 1, 2], [1, 0, 2], [0, 2, 1]], RANKED)
    assert result == VoteTally([8, 6, 4], winner=0, tie=False, valid=3)
    # min(5, N) - position: with 7 candidates the top gets 5, a partial ranking scores its part
    assert ballot_points([6, 2], BallotRules("ranked", 7)) == [0, 0, 4, 0, 0, 0, 5]
    # the paper's G.1 example: all three rank "0 1 2"
    assert tally([[0, 1, 2]] * 3, RANKED).winner == 0


# -- cumulative ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, points",
    [
        ('{"1": 9, "2": 1}', [0, 9, 1]),
        ("{0: 2, 1: 4, 2: 4}", [2, 4, 4]),  # Python-style keys, no eval needed
        ('Here is my allocation: {"0": 1, "1": 2, "2": 7}. Thanks!', [1, 2, 7]),
        ('{"Solution 0": 5, "Solution 2": 5}', [5, 0, 5]),
        ('{"0": 10.0}', [10, 0, 0]),
        ('{"0": 4, "1": 5}', None),  # sums to 9: must be exactly 10
        ('{"0": 11, "1": -1}', None),  # negative points
        ('{"0": 5, "3": 5}', None),  # out of range
        ('{"0": 5, "0": 5}', None),  # the same solution twice
        ('{"0": 5.5, "1": 4.5}', None),  # fractions of a point
        ('{"0": "five", "1": 5}', None),
        ("0: 5, 1: 5", None),  # no object
    ],
)
def test_cumulative_ballot(text: str, points: list[int] | None) -> None:
    assert parse_ballot(text, CUMULATIVE) == points


def test_cumulative_worked_example_of_the_paper() -> None:
    # App. G.1: A->{1: 9, 2: 1}, B->{0: 2, 1: 4, 2: 4}, C->{0: 1, 1: 2, 2: 7} -> [3, 15, 12]
    ballots = [
        parse_ballot(t, CUMULATIVE)
        for t in ('{"1": 9, "2": 1}', '{"0": 2, "1": 4, "2": 4}', '{"0": 1, "1": 2, "2": 7}')
    ]
    assert tally(ballots, CUMULATIVE) == VoteTally([3, 15, 12], winner=1, tie=False, valid=3)


def test_cumulative_budget_of_25_with_fewer_allowed() -> None:
    rules = BallotRules("cumulative", 3, points=25, allow_fewer=True)
    assert parse_ballot('{"0": 20, "1": 5}', rules) == [20, 5, 0]
    assert parse_ballot('{"0": 3}', rules) == [3, 0, 0]
    assert parse_ballot('{"0": 26}', rules) is None
    assert parse_ballot('{"0": 0}', rules) is None  # no points at all is no ballot
    assert parse_ballot('{"0": 3}', BallotRules("cumulative", 3, points=25)) is None


# -- approval --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, approved",
    [
        ("0,1,2", [0, 1, 2]),
        ("0, 2", [0, 2]),
        ("I approve solutions 0 and 2.", [0, 2]),
        ("1, 5", [1]),  # out-of-range indices are dropped
        ("1, 1", [1]),
        ("5, 7", None),  # nothing left
        ("all of them", None),
    ],
)
def test_approval_ballot(text: str, approved: list[int] | None) -> None:
    assert parse_ballot(text, APPROVAL) == approved


def test_approval_tally_golden() -> None:
    assert tally([[0, 1], [1], [1]], APPROVAL) == VoteTally([1, 3, 0], winner=1, tie=False, valid=3)
    assert tally([[0, 1, 2]] * 3, APPROVAL) == VoteTally([3, 3, 3], winner=None, tie=True, valid=3)


# -- tallies ---------------------------------------------------------------------------------------


def test_invalid_ballots_are_dropped() -> None:
    assert tally([None, 1, None], SIMPLE) == VoteTally([0, 1, 0], winner=1, tie=False, valid=1)


def test_no_valid_ballot_gives_no_winner_and_no_tie() -> None:
    assert tally([None, None, None], SIMPLE) == VoteTally(
        [0, 0, 0], winner=None, tie=False, valid=0
    )
    assert winner_of([], 0) == VoteTally([], winner=None, tie=False, valid=0)


def test_a_tie_is_never_broken() -> None:
    assert winner_of([4, 6, 6], 3) == VoteTally([4, 6, 6], winner=None, tie=True, valid=3)
    assert winner_of([7, 6, 6], 3).winner == 0


def test_unknown_protocol() -> None:
    with pytest.raises(ValueError, match="unknown voting protocol"):
        parse_ballot("0", BallotRules("borda", 3))


# -- the registry of ballot kinds, and the ballots they write ----------------------------------------


def test_the_built_in_kinds_are_registered_in_order() -> None:
    assert ballot_kinds() == ("simple", "ranked", "cumulative", "approval")
    assert [ballot_kind(name).name for name in ballot_kinds()] == list(ballot_kinds())
    with pytest.raises(
        ValueError, match=r"'borda': use one of simple, ranked, cumulative, approval"
    ):
        ballot_kind("borda")


def test_a_kind_can_be_registered_and_removed() -> None:
    class Again(Simple):
        name = "again"

    register_ballot_kind(Again())
    try:
        assert ballot_kinds()[-1] == "again"
        assert parse_ballot("Solution 2", BallotRules("again", 3)) == 2
    finally:
        unregister_ballot_kind("again")
    assert "again" not in ballot_kinds()
    unregister_ballot_kind("again")  # removing an absent kind is no error


@pytest.mark.parametrize(
    "rules, written, points",
    [
        (BallotRules("simple", 4), "2", [0, 0, 1, 0]),
        (BallotRules("ranked", 4, max_ranks=3), "2 0 1", [2, 1, 3, 0]),
        (BallotRules("ranked", 4), "2 0 1 3", [3, 2, 4, 1]),
        (BallotRules("cumulative", 4), '{"2": 5, "0": 5}', [5, 0, 5, 0]),
        (BallotRules("cumulative", 4, points=7), '{"2": 4, "0": 3}', [3, 0, 4, 0]),
        (BallotRules("approval", 4), "2, 0", [1, 0, 1, 0]),
    ],
)
def test_each_kind_writes_a_ballot_it_reads_back(
    rules: BallotRules, written: str, points: list[int]
) -> None:
    # a voter who likes 2 best, then 0, then 1 and 3
    kind = ballot_kind(rules.protocol)
    assert kind.write([2, 0], [1, 3], rules) == written
    assert ballot_points(parse_ballot(written, rules), rules) == points


@pytest.mark.parametrize("protocol", ballot_kinds())
def test_each_request_shows_an_example_its_kind_wrote(protocol: str) -> None:
    rules = BallotRules(protocol, 3)
    kind = ballot_kind(protocol)
    examples = [kind.write(p, o, rules) for p, o in (([1], [0]), ([0, 2], [1]))]
    assert any(e in kind.request(rules) for e in examples)
    assert kind.task(rules) and kind.task(rules) != kind.request(rules)


# -- reading the whole list as written --------------------------------------------------------------


@pytest.mark.parametrize(
    "text, ranking",
    [
        ("1. Solution 2\n2. Solution 0\n3. Solution 1", [2, 0, 1]),  # list numbers are not votes
        ("I read all 3.\n\n1. Solution 2\n2. Solution 0\n3. Solution 1", [2, 0, 1]),
        ("- Solution 2\n- Solution 0", [2, 0]),
        ("Ranking: 2 0 1\n\nWhy:\n- Solution 2 cites sources\n- Solution 0 is vague", [2, 0, 1]),
        ("1. 2\n2. 0\n3. 1", [2, 0, 1]),
        ("1) Solution 2 - the clearest\n2) Solution 0\n3) Solution 1", [2, 0, 1]),
        ("2 then 0 then 1", [2, 0, 1]),
        ("2 > 0 > 1", [2, 0, 1]),
        ("2 -> 0 -> 1", [2, 0, 1]),
        ("Solution 2, Solution 0", [2, 0]),
        ("**2**, **0**, **1**", [2, 0, 1]),
        ("2\n0\n1", [2, 0, 1]),
        ("Solution 2.\nSolution 0.\nSolution 1.", [2, 0, 1]),
        ("My ranking: 2, 0 and 1. Solution 2 is best because 3 sources agree.", [2, 0, 1]),
    ],
)
def test_ranked_ballot_reads_the_whole_list(text: str, ranking: list[int]) -> None:
    assert parse_ballot(text, RANKED) == ranking


def test_approval_ballot_reads_a_numbered_list() -> None:
    assert parse_ballot("1. Solution 0\n2. Solution 2", APPROVAL) == [0, 2]


def test_a_numbered_list_ends_at_the_first_line_of_other_text() -> None:
    reply = "1. Solution 2\n2. Solution 0\n\nWhy:\n1. Solution 2 cites sources"
    assert parse_ballot(reply, RANKED) == [2, 0]
    assert parse_ballot("1. Solution 1\nand then\n2. Solution 2", APPROVAL) == [1]
    # blank lines and the rest of an item's line do not end it
    assert parse_ballot("1. Solution 1, clear\n\n2. Solution 2", APPROVAL) == [1, 2]


def test_approval_index_equal_to_n_is_dropped() -> None:
    assert parse_ballot("0 and 3", APPROVAL) == [0]  # 3 candidates: indices 0..2
    assert tally([parse_ballot("0 and 3", APPROVAL)], APPROVAL).totals == [1, 0, 0]
    assert parse_ballot("3", APPROVAL) is None


# -- cumulative: what an object may hold -----------------------------------------------------------


def test_cumulative_ballot_with_a_non_index_key_is_invalid() -> None:
    # every entry must give points to a solution; a comment is re-prompted, not skipped
    assert parse_ballot('{"0": 6, "1": 4, "why": "clearer"}', CUMULATIVE) is None


def test_cumulative_ballot_with_explicit_zeros_is_valid() -> None:
    assert parse_ballot('{"0": 10, "1": 0}', CUMULATIVE) == [10, 0, 0]
    assert parse_ballot('{"0": 10, "1": 0, "2": 0}', CUMULATIVE) == [10, 0, 0]


def test_cumulative_ballot_naming_a_solution_twice_is_invalid_even_within_the_budget() -> None:
    # the second entry alone spends the 10 points: still the same solution twice
    assert parse_ballot('{"0": 5, "0": 10}', CUMULATIVE) is None
    assert parse_ballot('{"0": 5, "Solution 0": 5}', CUMULATIVE) is None


def test_cumulative_ballot_skips_empty_entries() -> None:
    # a trailing comma, or two in a row, leave no entry behind: however many there are
    assert parse_ballot('{"0": 4, "1": 6,}', CUMULATIVE) == [4, 6, 0]
    assert parse_ballot('{"0": 4,, "1": 6,,}', CUMULATIVE) == [4, 6, 0]
    assert parse_ballot('{"0": 10, , , , }', CUMULATIVE) == [10, 0, 0]


@pytest.mark.parametrize(
    "text, points",
    [
        ("{ '0' : 3 , 'solution 2' : 7.00 }", [3, 0, 7]),
        ('{\n  "0": 3,\n  "2": 7\n}', [3, 0, 7]),
        ('{" 1 ": 10}', [0, 10, 0]),
        ('{"X1": 10}', None),  # a key is an index, or "Solution" and an index
        ('{"1X": 10}', None),
        ('{"Solution: 1": 10}', None),
        ('{"0": 10: 0}', None),  # one colon an entry
        ('{"0" 10}', None),
        ('{"0": 10 points}', None),
    ],
)
def test_cumulative_entry_forms(text: str, points: list[int] | None) -> None:
    assert parse_ballot(text, CUMULATIVE) == points


def test_cumulative_ballot_of_a_single_point_when_fewer_are_allowed() -> None:
    rules = BallotRules("cumulative", 3, points=25, allow_fewer=True)
    assert parse_ballot('{"2": 1}', rules) == [0, 0, 1]


# -- absurd numbers are invalid ballots, never exceptions -------------------------------------------


HUGE = "9" * 5000  # more digits than int() accepts


@pytest.mark.parametrize(
    "text, rules",
    [
        (HUGE, SIMPLE),
        (HUGE, BallotRules("simple", 3, simple_parse="all_digits")),
        ("²", BallotRules("simple", 3, simple_parse="all_digits")),  # isdigit() but not int()
        ("Solution ٣", BallotRules("simple", 3, simple_parse="all_digits")),
        (f"0 {HUGE}", RANKED),
        (HUGE, APPROVAL),
        (f'{{"0": 10, "{HUGE}": 0}}', CUMULATIVE),
        (f'{{"0": {HUGE}}}', CUMULATIVE),
        ('{"0": 1' + "0" * 400 + "}", CUMULATIVE),  # float() overflows int()
        ('{"0": 1e400}', CUMULATIVE),
    ],
)
def test_absurd_numbers_make_an_invalid_ballot(text: str, rules: BallotRules) -> None:
    assert parse_ballot(text, rules) is None


def test_approval_drops_an_absurd_index_and_keeps_the_rest() -> None:
    assert parse_ballot(f"0, {HUGE}", APPROVAL) == [0]


def test_all_digits_reads_ascii_digits_only() -> None:
    rules = BallotRules("simple", 3, simple_parse="all_digits")
    assert parse_ballot("Solution ²2", rules) == 2


def test_a_list_longer_than_max_entries_is_no_ballot() -> None:
    assert parse_ballot(", ".join(["0"] * MAX_ENTRIES), APPROVAL) == [0]
    assert parse_ballot(", ".join(["0"] * (MAX_ENTRIES + 1)), APPROVAL) is None
    numbered = "\n".join(f"{i}. Solution 1" for i in range(1, MAX_ENTRIES + 2))
    assert parse_ballot(numbered, APPROVAL) is None
