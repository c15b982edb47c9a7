"""The rules of seed 001's part-debate baselines (neighbour sets, group partitions) and the reader of
a PRD review's confidence, by value."""

from __future__ import annotations

import pytest

from mad_tasks.engine.protocols.peer_review import review_confidence
from mad_tasks.engine.protocols.topology import neighbours, partition

# -- neighbour sets -----------------------------------------------------------------------------------


def test_the_papers_ring_of_six_links_each_agent_to_the_agent_on_either_side() -> None:
    assert neighbours(6, "ring") == [(1, 5), (0, 2), (1, 3), (2, 4), (3, 5), (0, 4)]


def test_a_ring_of_degree_four_reaches_two_on_each_side() -> None:
    assert neighbours(6, "ring", 4) == [
        (1, 2, 4, 5), (0, 2, 3, 5), (0, 1, 3, 4), (1, 2, 4, 5), (0, 2, 3, 5), (0, 1, 3, 4),
    ]  # fmt: skip


@pytest.mark.parametrize("n", range(3, 33))
@pytest.mark.parametrize("degree", [2, 4, 6])
def test_every_ring_is_symmetric_regular_and_never_self(n: int, degree: int) -> None:
    if degree >= n:
        return
    graph = neighbours(n, "ring", degree)
    assert all(len(reads) == degree and i not in reads for i, reads in enumerate(graph))
    assert all(i in graph[j] for i, reads in enumerate(graph) for j in reads)
    # density 2|E| / (n (n - 1)) = degree / (n - 1): the paper's D = 2 / (n - 1) at degree 2
    assert sum(map(len, graph)) == n * degree


def test_a_ring_of_three_is_the_full_mesh() -> None:
    assert neighbours(3, "ring") == neighbours(3, "full") == [(1, 2), (0, 2), (0, 1)]


def test_full_and_star() -> None:
    assert neighbours(4, "full") == [(1, 2, 3), (0, 2, 3), (0, 1, 3), (0, 1, 2)]
    assert neighbours(4, "star") == [(1, 2, 3), (0,), (0,), (0,)]


def test_an_unknown_topology_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown topology 'mesh'"):
        neighbours(4, "mesh")


# -- group partitions ---------------------------------------------------------------------------------


def test_contiguous_and_round_robin_groups() -> None:
    assert partition(4, 2, "contiguous") == [(0, 1), (2, 3)]
    assert partition(4, 2, "round_robin") == [(0, 2), (1, 3)]
    assert partition(5, 2, "contiguous") == [(0, 1, 2), (3, 4)]
    assert partition(5, 2, "round_robin") == [(0, 2, 4), (1, 3)]
    assert partition(7, 3, "contiguous") == [(0, 1, 2), (3, 4), (5, 6)]
    assert partition(3, 1, "contiguous") == [(0, 1, 2)]


@pytest.mark.parametrize("rule", ["contiguous", "round_robin"])
@pytest.mark.parametrize("n", range(1, 33))
def test_every_partition_covers_each_agent_once_in_balanced_groups(rule: str, n: int) -> None:
    for groups in range(1, n + 1):
        parts = partition(n, groups, rule)
        assert len(parts) == groups
        assert sorted(i for p in parts for i in p) == list(range(n))
        sizes = [len(p) for p in parts]
        assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)
        assert all(list(p) == sorted(p) for p in parts)


def test_impossible_partitions_are_refused() -> None:
    with pytest.raises(ValueError, match="cannot split 3 agents into 4 groups"):
        partition(3, 4, "contiguous")
    with pytest.raises(ValueError, match="cannot split 3 agents into 0 groups"):
        partition(3, 0, "round_robin")
    with pytest.raises(ValueError, match="unknown partition rule 'random'"):
        partition(4, 2, "random")


# -- a review's confidence ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The step is wrong.\nCONFIDENCE: 8", 8),
        ("Fine.\nConfidence: 10", 10),
        ("Fine.\nconfidence = 1", 1),
        ("Fine.\n**Confidence:** 7/10", 7),
        ("Fine.\nConfidence score: 9 out of 10.", 9),
        ("Fine.\n- Confidence level: 6", 6),
        ("CONFIDENCE: 3\nlater text without one", 3),
        ("CONFIDENCE: 3\nCONFIDENCE: 5", 5),  # the last stated line counts
        ("Fine.\nCONFIDENCE: 0", None),
        ("Fine.\nCONFIDENCE: 11", None),
        ("Fine.\nCONFIDENCE: 100", None),
        ("Fine.\nCONFIDENCE: 7.5", None),
        ("Fine.\nCONFIDENCE: 7,5", None),
        ("Fine.\nCONFIDENCE: high", None),
        ("Fine.\nCONFIDENCE: no idea", None),
        ("Fine.\nCONFIDENCE:", None),
        ("CONFIDENCE: 4\nCONFIDENCE: unsure", None),  # the last one decides, unreadable
        ("Confidence in this answer is high, about 8", None),  # prose, not the stated line
        ("I rate 8/10.", None),
        ("", None),
        ("CONFIDENCE: 8.", 8),  # a sentence's full stop, not a fraction
        ("CONFIDENCE: 09", 9),
        ("CONFIDENCE: 007", None),  # three digits are a long number, whatever their value
        ("CONFIDENCE:8", 8),  # no space after the mark
        ("CONFIDENCE: 8 (scale: 1-10)", 8),  # the first mark's value, not the last one's
        ("CONFIDENCE = 7 (= high)", 7),
        ("CONFIDENCE: 7.5/10", None),  # a fraction, whatever follows it
        ("CONFIDENCE: 6\nConfidence is what I lack here.", 6),  # prose after the stated line
        # the documented grammar only: a sign, a range, another scale, an exponent, a hedge
        ("CONFIDENCE: -3", None),
        ("CONFIDENCE: 7-8", None),
        ("CONFIDENCE: 7 or 8", None),
        ("CONFIDENCE: 10/100", None),
        ("CONFIDENCE: 3e9", None),
        ("CONFIDENCE: maybe 7", None),
        ("CONFIDENCE: about 7", None),
        ("CONFIDENCE: 7?", None),
        ("CONFIDENCE: 7+", None),
        ("CONFIDENCE: 8, if the data hold", None),
        ("CONFIDENCE: 8, because the proof checks", 8),
        ("CONFIDENCE: 8, because about half the steps check", 8),  # a bound word in a reason
    ],
)
def test_review_confidence(text: str, expected: int | None) -> None:
    assert review_confidence(text) == expected


def test_review_confidence_ignores_prose_before_the_stated_line() -> None:
    assert review_confidence("Confidence matters here.\nCONFIDENCE: 6\n") == 6
