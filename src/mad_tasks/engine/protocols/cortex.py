"""CortexDebate's decision rules (Sun et al., 2025) as pure functions over plain lists.

Agents are indexed 0..n-1. `W[i][j]` is the weight of the edge i→j: tail j reads head i. Equation
numbers are the paper's; A1–A12 are the resolutions in research/seed-001-cortexdebate.md §6.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..records import Tally
from .majority import majority_vote

Matrix = list[list[float]]

RECALIBRATION = (0.8, 0.6, 0.3)
PARTICIPATION = ("in", "out")
# Eq. 11's pruning (each tail keeps the heads at or above its mean: AAT), Table 9's others: at
# or above the median (AMT), the three heaviest (Top-3), all but the three lightest (Bot-3); and
# App. E's for Table 2's evaluation strategies: at or above the mean of the whole graph
PRUNINGS = ("mean", "median", "top3", "bottom3", "global")
# Eq. 9's trust (C·R·I/S), its individual terms only (C·R: Table 2's "MDM w/o I and S"), the
# head's own latest confidence (Table 2's self-evaluation, after RECONCILE) or the mean rating the
# other agents give its latest answer (Table 2's peer evaluation, after PRD)
TRUSTS = ("full", "individual", "self", "peer")
TIE_BREAKS = ("lowest_agent_index", "none")


def recalibrate(h: float, bands: Sequence[float] = RECALIBRATION) -> float:
    """Eq. 2: >= high -> high; [mid, high) -> mid; [low, mid) unchanged; < low -> low.

    It damps over-confidence so that no agent's stated certainty dominates the weights.
    """
    high, mid, low = bands
    if h >= high:
        return high
    return min(max(h, low), mid)


def chinchilla_loss(params: float, tokens: float) -> float:
    """Eq. 3, Hoffmann et al.'s fit; N and M are raw counts (7.6e9, not 7.6)."""
    return 406.4 / params**0.34 + 410.7 / tokens**0.28 + 1.69


def credibility(params: float, tokens: float) -> float:
    """Eq. 4: C = 1 / L(N, M)."""
    return 1.0 / chinchilla_loss(params, tokens)


def running_mean(previous: float, latest: float, d: int) -> float:
    """Eqs. 5-6: the mean over rounds 0..d-1, from the mean over 0..d-2 and round d-1's value."""
    return (previous * (d - 1) + latest) / d


def self_orientation(d: int, n: int, participation: Sequence[int], smoothing: float) -> list[float]:
    """Eq. 8, S_i = (d-1)(n-1) - P_i, plus `smoothing` (A1: the printed formula is 0 in round 1)."""
    return [(d - 1) * (n - 1) - p + smoothing for p in participation]


def _divide(x: float, s: float) -> float:
    if s != 0:
        return x / s
    return math.inf if x > 0 else 0.0  # literal S (A1): x/0 is +inf, 0/0 is 0


def edge_weights(
    C: Sequence[float], R: Sequence[float], I: Sequence[Sequence[float]], S: Sequence[float]
) -> Matrix:
    """Eq. 9: W[i][j] = C_i * R_i * I_ij / S_i for i != j; the diagonal is NaN (no self-edge)."""
    n = len(C)
    return [
        [math.nan if i == j else _divide(C[i] * R[i] * I[i][j], S[i]) for j in range(n)]
        for i in range(n)
    ]


def tail_means(W: Matrix) -> list[float]:
    """Eq. 10: the mean of each tail's n-1 incoming weights."""
    n = len(W)
    return [sum(W[i][j] for i in range(n) if i != j) / (n - 1) for j in range(n)]


def prune(W: Matrix, rule: str = "mean") -> list[list[bool]]:
    """Eqs. 11-12: tail j keeps head i when W[i][j] >= the mean of j's incoming weights; Table
    9's alternatives with `rule` (`PRUNINGS`).

    A threshold allows a relative 1e-12 for rounding (A4), so equal weights keep every edge and
    every tail keeps at least one head (its maximum is never below its mean or median). Infinite
    weights (literal S) make an infinite threshold: then exactly the infinite edges are kept.
    Top-3 and Bot-3 rank a tail's heads by weight, the lower agent index first among equals;
    Bot-3 keeps at least the heaviest head. `global` (App. E) keeps every edge at or above the
    mean weight of the whole graph; a tail left with no head keeps its heaviest (ours: App. E
    does not say, and a tail that read no one would answer alone).
    """
    n = len(W)
    keep = [[False] * n for _ in range(n)]
    edges = [W[i][j] for i in range(n) for j in range(n) if i != j]
    graph_mean = sum(edges) / len(edges) if edges else 0.0
    for j in range(n):
        incoming = [i for i in range(n) if i != j]
        if rule == "global":  # a tail no head passes keeps its heaviest (as Eq. 11's always does)
            passing = [i for i in incoming if _at_least(W[i][j], graph_mean)]
            for i in passing or sorted(incoming, key=lambda i: (-W[i][j], i))[:1]:
                keep[i][j] = True
            continue
        if rule in ("top3", "bottom3"):
            ranked = sorted(incoming, key=lambda i: (-W[i][j], i))
            kept = ranked[:3] if rule == "top3" else ranked[: max(1, len(ranked) - 3)]
            for i in kept:
                keep[i][j] = True
            continue
        values = [W[i][j] for i in incoming]
        threshold = statistics.median(values) if rule == "median" else sum(values) / len(values)
        for i in incoming:
            keep[i][j] = _at_least(W[i][j], threshold)
    return keep


def _at_least(w: float, threshold: float) -> bool:
    """`w` >= `threshold`, allowing a relative 1e-12 for rounding; an infinite threshold keeps
    exactly the infinite weights."""
    if math.isinf(threshold):
        return math.isinf(w)
    return w >= threshold - 1e-12 * max(1.0, abs(threshold))


def full_mesh(n: int) -> list[list[bool]]:
    """Every agent reads every other one (topology=full, the paper's fully connected ablation)."""
    return [[i != j for j in range(n)] for i in range(n)]


def heads(keep: list[list[bool]], j: int) -> list[int]:
    """Deb_j (Eq. 12): the agents tail j reads, in agent order."""
    return [i for i in range(len(keep)) if keep[i][j]]


def participation(keep: list[list[bool]], mode: str) -> list[int]:
    """One round's P increment per agent (A2, A3).

    `in`: how many heads the agent read (its in-degree, the paper's "A_i debated with others").
    `out`: how many tails read the agent (its out-degree).
    """
    n = len(keep)
    if mode == "in":
        return [sum(keep[i][j] for i in range(n)) for j in range(n)]
    if mode == "out":
        return [sum(keep[i][j] for j in range(n)) for i in range(n)]
    raise ValueError(f"unknown participation mode {mode!r}: use one of {', '.join(PARTICIPATION)}")


def unanimous(answers: Sequence[str | None], key: Callable[[str], str] = lambda a: a) -> bool:
    """The stop rule: every agent gave an answer and all answers are the same (an abstention is
    not an answer, so it never agrees)."""
    if not answers or any(a is None for a in answers):
        return False
    return len({key(a) for a in answers if a is not None}) == 1


def all_distinct(tally: Tally) -> bool:
    """No answer got a second vote though several were given: the paper counts this as wrong."""
    return len(tally.counts) > 1 and max(tally.counts.values()) == 1


def final_vote(
    answers: Sequence[str | None],
    key: Callable[[str], str] = lambda a: a,
    tie_break: str = "lowest_agent_index",
) -> Tally:
    """Eq. 14: plurality of the last round, with no fallback.

    All-distinct answers give no winner. A tie between the leaders goes to the answer of the agent
    with the lowest index (A12), or to no winner with tie_break="none"; `tie` records it.
    """
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"unknown tie_break {tie_break!r}: use one of {', '.join(TIE_BREAKS)}")
    tally = majority_vote(answers, key=key)  # no earlier rounds: ties go to agent order
    if all_distinct(tally) or (tally.tie and tie_break == "none"):
        return replace(tally, winner=None)
    return tally


def medoid(similarity: Matrix) -> int:
    """The item with the highest mean similarity to the others; the lowest index wins a tie (A11).

    Every item has n-1 others, so the highest sum is the highest mean."""
    n = len(similarity)
    sums = [sum(similarity[i][k] for k in range(n) if k != i) for i in range(n)]
    return sums.index(max(sums))
