"""Consensus rules (protocols/consensus.py): the agreement signal, the count and the thresholds."""

from __future__ import annotations

import pytest

from mad_tasks.engine.protocols.consensus import (
    ConsensusRule,
    agrees,
    consensus_count,
    consensus_rule,
    consensus_rules,
    reached,
    register_consensus_rule,
    unregister_consensus_rule,
)


@pytest.mark.parametrize(
    "message, agreement",
    [
        ("[AGREE] The solution is right.", True),
        ("I agree with the current solution.", True),
        ("Agreed.", True),
        ("[DISAGREE] It is B.", False),
        ("I disagree.", False),
        ("I agree with part of it but DISAGREE with the conclusion.", False),
        ("The answer is B.", False),  # neither word: disagreement
        ("", False),
    ],
)
def test_agreement_is_the_substring_rule(message: str, agreement: bool) -> None:
    assert agrees(message) is agreement


# agreements per message in speaking order: None/False = a proposal, True = an agreement
@pytest.mark.parametrize(
    "agreements, count",
    [
        ([], 0),
        ([None], 1),
        ([None, True], 2),
        ([None, True, True], 3),
        ([None, True, False], 1),  # a disagreement is the new latest proposal
        ([None, True, False, True], 2),
        ([None, True, False, True, True], 3),
        ([None, False, True], 2),
        ([None, True, True, True, True], 3),  # never more than N
        ([None, None, None], 1),  # AAD drafts: each is a proposal
    ],
)
def test_count_is_the_latest_proposal_and_the_agreements_after_it(
    agreements: list[bool | None], count: int
) -> None:
    assert consensus_count(agreements, 3) == count


def test_count_looks_back_at_most_n_messages() -> None:
    # the proposal lies outside the last 3 messages: the window itself agrees
    assert consensus_count([False, True, True, True], 3) == 3
    assert consensus_count([False, True, True], 2) == 2


@pytest.mark.parametrize(
    "protocol, count, decided",
    [
        ("majority", 1, False),
        ("majority", 2, True),
        ("supermajority", 1, False),
        ("supermajority", 2, True),  # 2/3 = 0.667 >= 0.66: the same rule as majority at N=3
        ("unanimity", 2, False),
        ("unanimity", 3, True),
    ],
)
def test_thresholds_with_three_agents(protocol: str, count: int, decided: bool) -> None:
    assert consensus_rule(protocol).reached(count, 3) is decided
    assert reached(count, 3, consensus_rule(protocol).threshold) is decided


def test_the_built_in_rules_are_registered_in_order() -> None:
    assert consensus_rules() == ("majority", "supermajority", "unanimity")
    assert [consensus_rule(name).threshold for name in consensus_rules()] == [0.5, 0.66, 1.0]
    with pytest.raises(ValueError, match=r"'plurality': use one of majority, supermajority"):
        consensus_rule("plurality")


def test_a_rule_can_be_registered_and_removed() -> None:
    register_consensus_rule(ConsensusRule("three_quarters", 0.75))
    try:
        assert consensus_rules()[-1] == "three_quarters"
        rule = consensus_rule("three_quarters")
        assert (rule.reached(3, 4), rule.reached(2, 4), rule.reached(3, 4, strict=True)) == (
            True, False, False
        )  # fmt: skip
    finally:
        unregister_consensus_rule("three_quarters")
    assert "three_quarters" not in consensus_rules()
    unregister_consensus_rule("three_quarters")  # removing an absent rule is no error


def test_majority_equals_supermajority_at_three_agents() -> None:
    for count in range(4):
        assert reached(count, 3, 0.5) == reached(count, 3, 0.66)


def test_strict_reads_more_than() -> None:
    assert reached(2, 4, 0.5) is True
    assert reached(2, 4, 0.5, strict=True) is False
    assert reached(3, 4, 0.5, strict=True) is True
    assert reached(3, 5, 0.66, strict=False) is False  # 0.6
    # "more than 100%" is impossible: strict unanimity still means every agent
    assert reached(3, 3, 1.0, strict=True) is True
    assert reached(2, 3, 1.0, strict=True) is False
