"""majority_vote golden cases: plurality, abstentions, deterministic tie-breaks, merged spellings."""

from __future__ import annotations

from mad_tasks.engine.answers import FreeText
from mad_tasks.engine.protocols import majority_vote
from mad_tasks.engine.records import Tally


def test_plain_majority() -> None:
    assert majority_vote(["yes", "no", "yes"]) == Tally(
        counts={"yes": 2, "no": 1}, winner="yes", tie=False, abstentions=0
    )


def test_abstentions_never_vote_and_are_counted() -> None:
    # two abstentions outnumber the single vote, yet only votes can win
    assert majority_vote([None, "no", None]) == Tally(
        counts={"no": 1}, winner="no", tie=False, abstentions=2
    )


def test_all_abstain_gives_no_winner() -> None:
    assert majority_vote([None, None, None]) == Tally(
        counts={}, winner=None, tie=False, abstentions=3
    )


def test_empty_ballot() -> None:
    assert majority_vote([]) == Tally(counts={}, winner=None, tie=False, abstentions=0)


def test_tie_without_history_goes_to_agent_order() -> None:
    assert majority_vote(["b", "a"]).winner == "b"
    assert majority_vote(["a", "b"]).winner == "a"
    tally = majority_vote(["a", None, "b"])
    assert (tally.winner, tally.tie, tally.abstentions) == ("a", True, 1)


def test_tie_broken_by_latest_earlier_round() -> None:
    # round 1 favoured "a", but round 2 (the latest earlier round) favoured "b"
    earlier = [["a", "a", "b"], ["b", "b", "a"]]
    tally = majority_vote(["a", "b", None], earlier=earlier)
    assert (tally.winner, tally.tie) == ("b", True)


def test_tie_in_latest_round_falls_back_to_the_round_before() -> None:
    earlier = [["b", "b", "a"], ["a", "b", "c"]]  # latest: a=1, b=1 -> still tied; before: b wins
    assert majority_vote(["a", "b"], earlier=earlier).winner == "b"


def test_tie_everywhere_falls_back_to_agent_order() -> None:
    earlier = [["b", "a"], [None, None]]
    tally = majority_vote(["b", "a"], earlier=earlier)
    assert (tally.winner, tally.tie) == ("b", True)


def test_earlier_rounds_only_break_ties_between_tied_answers() -> None:
    # "c" dominated the earlier round but is not tied for first now
    earlier = [["c", "c", "c", "b"]]
    tally = majority_vote(["a", "b", "c", "b", "a"], earlier=earlier)
    assert (tally.winner, tally.tie) == ("b", True)


def test_no_tie_ignores_history() -> None:
    tally = majority_vote(["a", "a", "b"], earlier=[["b", "b", "b"]])
    assert (tally.winner, tally.tie) == ("a", False)


def test_key_merges_spellings_into_one_vote() -> None:
    key = FreeText().key
    tally = majority_vote(["London", "Paris.", "paris"], key=key)
    assert tally == Tally(
        counts={"London": 1, "Paris.": 2}, winner="Paris.", tie=False, abstentions=0
    )


def test_key_applies_to_tie_breaks_in_earlier_rounds() -> None:
    key = FreeText().key
    tally = majority_vote(["Rome", "PARIS"], earlier=[["paris.", "Paris", "Rome"]], key=key)
    assert (tally.winner, tally.tie) == ("PARIS", True)  # reported in this round's spelling
