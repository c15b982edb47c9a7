"""Replies to the requests of a project duplication detection (PD³): an expert's or a decider's
picks (`PicksRequest`: each gold candidate shown, the sample's target ids, picked with probability
`accuracy`, the `k` picks filled from the others, named by the labels the request gives; a decision
ends in `[RESULT] P101, P204, ...`), a judge's duplication score (`DuplicationRequest`: the
references' level 1 + 9 x their mean relevance, rounded up with probability its fraction and, with
probability 1 - `accuracy`, mirrored to 11 - n, then `[RESULT]<n>`) and a similarity conclusion
(`ConclusionRequest`: how many references have relevance at least one half).

A reference's relevance, 0 to 1: its grade / 3 where the sample grades it (`grades` in the
metadata, or in the metadata of the Task-2 side, `a` or `b`, whose `refs` hold more of the
request's ids); else 1 for a gold id and 0 for another (Task 1), or the side's share of the expert
`votes` (Task 2). So the more duplicated side of a pair scores higher, and a set with more gold
scores higher."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from ...engine.requests import ConclusionRequest, DuplicationRequest, PicksRequest
from ..simulated import Sample, Turn, responds


@responds(PicksRequest)
def picks(turn: Turn, asks: PicksRequest) -> str:
    """Each gold candidate shown (the running sample's target ids) is picked with probability
    `accuracy`, the other picks drawn from the rest; written by label, gold picks first."""
    agent, rng = turn.agent, turn.rng
    state = turn.sample
    if state is None or not asks.ids or turn.unreadable():
        return "(This expert weighs the candidates but names none.)"
    picks = _choose(asks.ids, set(state.target.target), asks.k, turn.accuracy, rng)
    label = dict(zip(asks.ids, asks.labels))
    named = ", ".join(label[x] for x in picks)
    if asks.final:
        return (
            f"Simulated decision of {agent}: the experts' picks converge on these "
            f"candidates, in order of relevance.\n[RESULT] {named}"
        )
    if asks.round:
        return (
            f"Simulated statement of {agent} in debate round {asks.round}: I hold that "
            f"{named} are the most relevant; the other choices overlap the project less."
        )
    return (
        f"Simulated expert {agent}: I select {named}, as their research content and key "
        "technologies overlap the project under detection the most."
    )


@responds(ConclusionRequest, DuplicationRequest)
def duplication(turn: Turn, asks: ConclusionRequest | DuplicationRequest) -> str:
    """The references' duplication level (`_level`): stated in a conclusion; as a 1-10 score,
    the level rounded up with probability its fraction (so a mean of samples approaches it),
    then with probability 1 - `accuracy` mirrored (11 - level: a wrong judge ranks the more
    duplicated references lower, so an always-wrong one reverses every pair)."""
    agent, rng = turn.agent, turn.rng
    exact, count = _level(asks.ids, turn.sample)
    duplicated = "some" if count is None else str(count)
    if isinstance(asks, ConclusionRequest):
        return (
            f"Simulated conclusion of {agent}: {duplicated} of the {len(asks.ids)} reference "
            "projects share the research content and key technologies of the project under "
            "detection. The others overlap it only in their application area."
        )
    analysis = (
        f"Simulated analysis of {agent}: {duplicated} of the {len(asks.ids)} references "
        "duplicate the project under detection in some dimension."
    )
    if turn.unreadable():
        return analysis + " The score depends on details I cannot judge."
    level = math.floor(exact) + (rng.random() < exact - math.floor(exact))
    if rng.random() >= turn.accuracy:
        level = 11 - level
    return f"{analysis}\n[RESULT]{level}"


GRADE_TOP = 3  # the graded PD³ data (CSFCube) grades a candidate 0 to 3, 3 a near duplicate


def _choose(
    ids: Sequence[str], gold: set[str], k: int, accuracy: float, rng: random.Random
) -> list[str]:
    """`k` of `ids` (all of them if fewer): each gold id kept with probability `accuracy`, the rest
    drawn from the others (a missed gold id only when no other is left)."""
    kept = [x for x in ids if x in gold and rng.random() < accuracy]
    others = [x for x in ids if x not in gold]
    rng.shuffle(others)
    missed = gold.difference(kept)
    return (kept + others + [x for x in ids if x in missed])[:k]


def _duplication_of(ids: Sequence[str], state: Sample | None) -> list[float] | None:
    """How much each reference of `ids` duplicates the running sample's query, 0 to 1; None when
    the sample does not say. A grade / GRADE_TOP where the sample grades it (`grades`, {id: grade},
    in the metadata of a Task-1 sample or of the Task-2 side the references belong to); else, on a
    Task-1 sample, 1 for a gold id (the target) and 0 for another; on a Task-2 sample without
    grades, the side's share of the expert votes (`votes`, [A, B]) for each of its references."""
    if state is None:
        return None
    meta = state.metadata
    if not _sides(meta):  # Task 1: references among the query's own candidates
        grades = meta.get("grades")
        if isinstance(grades, dict):
            return [_graded(grades.get(x)) for x in ids]
        gold = set(state.target.target)
        return [float(x in gold) for x in ids]
    side = _side(meta, ids)
    if side is None:
        return None
    grades = meta[side].get("grades")
    if isinstance(grades, dict):
        return [_graded(grades.get(x)) for x in ids]
    votes = meta.get("votes")
    if (
        isinstance(votes, list | tuple)
        and len(votes) == 2
        and all(type(v) is int and v >= 0 for v in votes)
        and sum(votes)
    ):
        return [votes["ab".index(side)] / sum(votes)] * len(ids)
    return None


def _sides(meta: dict[str, Any]) -> list[str]:
    """The Task-2 sides of a sample's metadata: "a" and "b" when both are dicts."""
    return ["a", "b"] if all(isinstance(meta.get(s), dict) for s in "ab") else []


def _side(meta: dict[str, Any], ids: Sequence[str]) -> str | None:
    """The Task-2 side ("a" or "b") whose references (`refs`, [{id, ...}]; under Method Retrieval
    its `candidates`) hold more of `ids`; None when neither holds more than the other."""
    held = []
    for side in "ab":
        refs = meta[side].get("refs", meta[side].get("candidates"))
        own = {r.get("id") for r in refs if isinstance(r, dict)} if isinstance(refs, list) else ()
        held.append(sum(x in own for x in ids))
    if held[0] == held[1]:
        return None
    return "a" if held[0] > held[1] else "b"


def _graded(grade: Any) -> float:
    ok = isinstance(grade, int | float) and not isinstance(grade, bool) and math.isfinite(grade)
    return min(1.0, max(0.0, grade / GRADE_TOP)) if ok else 0.0


def _level(ids: Sequence[str], state: Sample | None) -> tuple[float, int | None]:
    """The references' duplication level, 1 + 9 x their mean relevance (1 to 10), and how many of
    them duplicate the query (relevance at least one half); 5.5 and None when the sample does not
    say. The mean, not the best reference as the paper's rubric has it: in the graded data nearly
    every set holds a grade-3 reference, so the best one would not tell sets apart."""
    found = _duplication_of(ids, state)
    if not found:
        return 5.5, None
    return 1 + 9 * sum(found) / len(found), sum(r >= 0.5 for r in found)
