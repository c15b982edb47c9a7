"""TourRank as PD³ ran it (`tourrank`, Table 1's TourRank row) on a scripted runtime: 40 calls in
10 tournaments of 4 stages, what each stage sees, the points, an unreadable stage (no point, no
guess), a limit, and the option checks.

Replies are chosen by the request (the pool's ids and labels), never by call order."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import Counter

import pytest
from scripted import ScriptedRuntime
from test_pd3_engine import CANDIDATES, GOLD, IDS, QUERY, Script, record_of, session_for

from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.methods.pd3.records import Project
from mad_tasks.engine.methods.pd3.tourrank import TourRankOptions, tourrank
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import PicksRequest
from mad_tasks.engine.runtime import Call, LimitReached


def run(script=None, **options):
    rt = ScriptedRuntime(script or Script())
    result = asyncio.run(tourrank(session_for(rt), QUERY, CANDIDATES, TourRankOptions(**options)))
    return result, rt


def test_ten_tournaments_narrow_30_to_2_and_points_rank_the_top_5() -> None:
    result, rt = run()
    assert len(rt.calls) == 40
    by_tournament = Counter(c.agent for c in rt.calls)
    assert by_tournament == {f"tournament {t}": 4 for t in range(1, 11)}
    for call in rt.calls:
        asks = call.asks
        assert isinstance(asks, PicksRequest) and asks.final
        stage = int(call.purpose.split()[1])
        assert (len(asks.ids), asks.k) == ((30, 20, 10, 5)[stage - 1], (20, 10, 5, 2)[stage - 1])
    # each stage's pool is the stage before's picks, in the tournament's own shuffled order
    record = record_of(result)
    groups = record.groups
    assert [g.number for g in groups] == list(range(1, 41))
    for before, after in itertools.pairwise(groups):
        if after.number % 4 != 1:  # the same tournament
            assert list(after.members) == [c for c in before.members if c in before.decision.picks]
    first_pools = [g.members for g in groups if g.number % 4 == 1]
    assert len(set(first_pools)) == 10 and all(set(p) == set(IDS) for p in first_pools)
    # the oracle keeps the gold: 3 points per tournament for each (stages 1-3), 30 in all
    assert set(record.top) == set(GOLD) and all(record.scores[c] >= 30 for c in GOLD)
    assert result.final == "[RESULT] " + ", ".join(record.top)
    again = DebateResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again.record == result.record


def test_an_unreadable_stage_ends_its_tournament_without_points() -> None:
    """Tournament 3's stage 2 never gives a list: no point for it, no stage 3 or 4, no fill."""

    def senior(call: Call) -> list[str] | None:
        if (call.agent, call.purpose) == ("tournament 3", "stage 2"):
            return None
        asks = call.asks
        return [c for c in asks.ids if c in GOLD] + [c for c in asks.ids if c not in GOLD]

    result, rt = run(Script(senior=lambda call: None if senior(call) is None
                            else senior(call)[: call.asks.k]))  # fmt: skip
    third = [c for c in rt.calls if c.agent == "tournament 3"]
    assert {c.purpose for c in third} == {"stage 1", "stage 2"}
    assert len([c for c in third if c.purpose == "stage 2"]) == 2  # asked again once
    assert len(rt.calls) == 36 + 2 + 1
    record = record_of(result)
    # 9 whole tournaments (5 gold in stages 1-3, 2 in stage 4) and tournament 3's stage 1
    assert sum(record.scores[c] for c in GOLD) == 9 * (5 * 3 + 2) + 5


def test_a_limit_keeps_the_points_of_the_stages_decided() -> None:
    def reply(call: Call) -> str:
        if call.purpose == "stage 3":
            raise LimitReached("token", 500, 400)
        return Script()(call)

    result, _ = run(reply)
    assert result.stopped is not None and result.stopped.kind == "token"
    assert result.stopped.where == "the tournaments (0 of 10 finished)"
    record = record_of(result)
    assert all(record.scores[c] == 20 for c in GOLD) and set(record.top) == set(GOLD)


def test_the_options_are_checked_before_any_call() -> None:
    for bad in ([20, 20], [0], [], "20,10", [20, 10.0]):
        with pytest.raises(OptionError, match="'stages'"):
            TourRankOptions(stages=bad)
    with pytest.raises(OptionError, match="'tournaments'"):
        TourRankOptions(tournaments=51)
    rt = ScriptedRuntime(Script())
    few = [Project(f"c{i}", "", f"text {i}") for i in range(20)]
    with pytest.raises(OptionError, match=r"'stages'.*a first stage below the candidates \(20\)"):
        asyncio.run(tourrank(session_for(rt), QUERY, few, TourRankOptions()))
    assert rt.calls == []
