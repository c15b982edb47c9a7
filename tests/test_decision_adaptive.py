"""`-S stop=adaptive` in the decision protocols (voting, consensus, aad, collective_improvement):
golden runs on scripted agents whose answers make each turn's count a constructed sequence.

A turn's count is how many agents back the most-held latest solution (decision/settling.py). The
scripts fix it by the first agent's answer: the other two always end a turn on A (the second
proposes it, the third agrees with it or proposes it too), so a turn where the first agent says B
counts 2 and one where it says A counts 3. Replies depend on the call's agent and turn only, never
on call order (ballots and CI turns run concurrently).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import choice
from scripted import ScriptedRuntime, debate, recorded

from mad_tasks.engine import viewer_text
from mad_tasks.engine.answers import Choice
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.limits import LimitReached
from mad_tasks.engine.methods.decision.records import DecisionRecord
from mad_tasks.engine.methods.decision.settling import TRACKED
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem
from mad_tasks.solvers import aad, collective_improvement, consensus, voting

CHOICE = Problem(Question.of(["Which option is right?"]), Choice(("alpha", "beta", "gamma")))
ADAPTIVE = {"stop": "adaptive"}
# the statistics of the counts 2, 3, 2, 3, 2 (three agents, the default window of 3): the latest
# three counts change every turn, so no turn is stable
ALTERNATING = [None, 0.2823, 0.1081, 0.2317, 0.2317]


def said(call: Call, answer: str, signal: str) -> str:
    return f"{signal} <{call.agent} in turn {call.round}> I weighed the options.\nANSWER: {answer}"


def agents(
    first: Callable[[int], str],
    ballots: Mapping[str, str] | None = None,
    limit_at: tuple[str, int] | None = None,
) -> Callable[[Call], str]:
    """agent_1 disagrees with `first(turn)`, agent_2 disagrees with A and agent_3 agrees (it keeps
    agent_2's A), so no consensus reaches unanimity; ballots by voter. A call of `limit_at`
    (agent, turn) hits a token limit."""

    def reply(call: Call) -> str:
        if (call.agent, call.round) == limit_at:
            raise LimitReached("token", 120, 100)
        if call.purpose == "discussion":
            answer = first(call.round) if call.agent == "agent_1" else "A"
            return said(call, answer, "[AGREE]" if call.agent == "agent_3" else "[DISAGREE]")
        if call.purpose == "vote":
            return (ballots or {}).get(call.agent, "0")
        raise AssertionError(f"unexpected call {call.purpose}")

    return reply


def always_b(turn: int) -> str:
    return "B"


def alternating(turn: int) -> str:
    return "B" if turn % 2 else "A"


def calls(rt: ScriptedRuntime) -> list[tuple[int, str, str]]:
    """What was asked, in a fixed order: (turn, purpose, agent)."""
    return sorted((c.round, c.purpose, c.agent) for c in rt.calls)


def discussion(turns: int) -> list[tuple[int, str, str]]:
    return [(t, "discussion", f"agent_{i}") for t in range(1, turns + 1) for i in (1, 2, 3)]


def votes(*turns: int) -> list[tuple[int, str, str]]:
    return [(t, "vote", f"agent_{i}") for t in turns for i in (1, 2, 3)]


def trace(result: DebateResult) -> tuple[list[int], list[float | None], list[int]]:
    stop = result.adaptive_stop
    assert stop is not None
    rounds = stop.rounds
    statistics = [None if r.statistic is None else round(r.statistic, 4) for r in rounds]
    return [r.count for r in rounds], statistics, [r.stable_streak for r in rounds]


def adaptive_events(rt: ScriptedRuntime, result: DebateResult) -> None:
    """Exactly one adaptive-stop event, showing the record."""
    assert rt.info_titles().count("adaptive stop") == 1
    assert result.adaptive_stop is not None
    assert dict(rt.infos)["adaptive stop"] == viewer_text.adaptive_stop(result.adaptive_stop)


async def run(method: str, reply: Callable[[Call], str], **options: Any):
    return await debate(method, reply, CHOICE, personas="none", **options)


# -- consensus ------------------------------------------------------------------------------------


async def test_consensus_stops_once_the_agreement_is_stable() -> None:
    rt, result = await run("consensus", agents(always_b), protocol="unanimity", **ADAPTIVE)

    assert calls(rt) == discussion(3)  # 9 calls, not max_turns' 15
    assert trace(result) == ([2, 2, 2], [None, 0.0, 0.0], [0, 1, 2])
    stop = result.adaptive_stop
    assert stop is not None
    assert (stop.stopped_at, stop.reason, stop.n, stop.tracked) == (3, "stable", 3, TRACKED)
    d = recorded(result)
    # no consensus: the protocol's rule for no decision gives the answer, as at max_turns
    assert result.final == "A" and d["fallback_used"] == "latest_proposal"
    assert (d["decision_success"], d["turns_used"], d["max_turns"]) == (False, 3, 5)
    assert d["winner_agent"] == "agent_2"  # its turn-3 proposal is the latest one
    assert result.options["stop"] == "adaptive"
    adaptive_events(rt, result)
    assert "in 3 turns" in dict(rt.infos)["decision"]  # the turns it had, not max_turns


async def test_consensus_runs_to_its_cap_while_the_agreement_keeps_moving() -> None:
    rt, result = await run("consensus", agents(alternating), protocol="unanimity", **ADAPTIVE)

    assert calls(rt) == discussion(5)
    assert trace(result) == ([2, 3, 2, 3, 2], ALTERNATING, [0, 0, 0, 0, 0])
    stop = result.adaptive_stop
    assert stop is not None and (stop.stopped_at, stop.reason) == (None, "rounds_exhausted")
    assert recorded(result)["turns_used"] == 5 and result.final == "A"
    adaptive_events(rt, result)
    assert "not stopped by it" in dict(rt.infos)["adaptive stop"]


async def test_an_early_disagreement_leaves_the_window_and_the_debate_stops_later() -> None:
    def first(turn: int) -> str:
        return "B" if turn == 1 else "A"

    rt, result = await run(
        "consensus", agents(first), protocol="unanimity", max_turns=8, **ADAPTIVE
    )

    assert calls(rt) == discussion(6)  # of 8
    counts, statistics, streaks = trace(result)
    assert counts == [2, 3, 3, 3, 3, 3]
    # from turn 4 on every window holds 3, 3, 3: turns 5 and 6 repeat turn 4's fit
    assert statistics[4:] == [0.0, 0.0] and streaks == [0, 0, 0, 0, 1, 2]
    assert result.adaptive_stop is not None and result.adaptive_stop.stopped_at == 6


async def test_a_consensus_within_the_turn_comes_first() -> None:
    """Supermajority: nobody agrees in turns 1-2 (each turn counts 2 of 3), then agent_2 agrees
    with agent_1's B in turn 3. The rule would fire after turn 3 (2, 2, 2), but the consensus
    is reached in the middle of it: agent_3 is not asked, and that turn gives no count."""

    def reply(call: Call) -> str:
        answer = "B" if call.agent == "agent_1" or call.round == 3 else "A"
        agree = call.agent == "agent_2" and call.round == 3
        return said(call, answer, "[AGREE]" if agree else "[DISAGREE]")

    for stop in ("fixed", "adaptive"):
        rt, result = await run("consensus", reply, protocol="supermajority", stop=stop)

        assert calls(rt) == [*discussion(2), *discussion(3)[6:8]]  # agent_3 not in turn 3
        d = recorded(result)
        assert d["decided_at"] == {"turn": 3, "after": "agent_2"} and result.final == "B"
    assert result.adaptive_stop is not None
    assert trace(result) == ([2, 2], [None, 0.0], [0, 1])
    assert (result.adaptive_stop.stopped_at, result.adaptive_stop.reason) == (
        None,
        "rounds_exhausted",
    )


# -- voting ---------------------------------------------------------------------------------------

TIE = {"agent_1": "0", "agent_2": "1", "agent_3": "2"}  # each votes for its own solution


@pytest.mark.parametrize("method", ["voting", "aad", "collective_improvement"])
async def test_a_tied_vote_on_a_stable_agreement_ends_the_debate(method: str) -> None:
    reply = agents(always_b, TIE)
    rt, result = await run(method, reply, no_decision="first_agent", **ADAPTIVE)

    assert calls(rt) == sorted(discussion(3) + votes(3))  # 12 calls, not 24
    assert trace(result) == ([2, 2, 2], [None, 0.0, 0.0], [0, 1, 2])
    assert result.adaptive_stop is not None and result.adaptive_stop.reason == "stable"
    d = recorded(result)
    assert [v["tie"] for v in d["votes"]] == [True]
    # the rule for no decision: the first agent's candidate of the last vote
    assert (result.final, d["fallback_used"], d["turns_used"]) == ("B", "first_agent", 3)
    adaptive_events(rt, result)
    assert "by turn 3" in dict(rt.infos)["decision"]
    assert "the turns are used up" in dict(rt.infos)["vote after turn 3"]  # no turn follows


async def test_a_stable_agreement_votes_before_vote_turn() -> None:
    ballots = dict.fromkeys(("agent_1", "agent_2", "agent_3"), "1")  # agent_2's A wins
    for stop, turns in (("adaptive", 3), ("fixed", 5)):
        rt, result = await run("voting", agents(always_b, ballots), vote_turn=5, stop=stop)

        assert calls(rt) == sorted(discussion(turns) + votes(turns))
        d = recorded(result)
        assert d["decided_at"] == {"turn": turns, "after": "vote"} and result.final == "A"
        assert d["decision_success"] is True


async def test_voting_runs_to_its_cap_while_the_agreement_keeps_moving() -> None:
    reply = agents(alternating, TIE)
    rt, result = await run("voting", reply, no_decision="first_agent", **ADAPTIVE)

    assert calls(rt) == sorted(discussion(5) + votes(3, 4, 5))
    assert trace(result) == ([2, 3, 2, 3, 2], ALTERNATING, [0, 0, 0, 0, 0])
    assert result.adaptive_stop is not None
    assert (result.adaptive_stop.stopped_at, result.adaptive_stop.reason) == (
        None,
        "rounds_exhausted",
    )
    assert result.final == "B"  # agent_1's turn-5 candidate
    adaptive_events(rt, result)


async def test_a_vote_with_a_winner_comes_first() -> None:
    """vote_turn=3: the vote after turn 3 has a winner; the rule fires at the same turn, the
    vote decides."""
    ballots = dict.fromkeys(("agent_1", "agent_2", "agent_3"), "2")
    rt, result = await run("voting", agents(always_b, ballots), **ADAPTIVE)

    assert calls(rt) == sorted(discussion(3) + votes(3))
    assert recorded(result)["decided_at"] == {"turn": 3, "after": "vote"}
    assert result.final == "A" and result.adaptive_stop is not None
    assert result.adaptive_stop.stopped_at == 3  # it fired too


# -- a limit, and stop=fixed ------------------------------------------------------------------------


async def test_a_limit_still_ends_the_debate_and_the_record_keeps_the_complete_turns() -> None:
    reply = agents(alternating, limit_at=("agent_2", 4))
    rt, result = await run("consensus", reply, protocol="unanimity", **ADAPTIVE)

    assert calls(rt) == discussion(4)[:11]  # agent_2's turn-4 call hit the limit
    assert result.stopped is not None and result.stopped.kind == "token"
    assert trace(result) == ([2, 3, 2], ALTERNATING[:3], [0, 0, 0])
    assert result.adaptive_stop is not None
    assert result.adaptive_stop.reason == "rounds_exhausted"


SCENARIOS = [
    ("consensus", agents(always_b), {"protocol": "unanimity"}, discussion(5)),
    ("consensus", agents(alternating), {"protocol": "unanimity"}, discussion(5)),
    ("voting", agents(always_b, TIE), {}, sorted(discussion(5) + votes(3, 4, 5))),
    ("aad", agents(always_b, TIE), {}, sorted(discussion(5) + votes(3, 4, 5))),
    (
        "collective_improvement",
        agents(always_b, TIE),
        {},
        sorted(discussion(5) + votes(3, 4, 5)),
    ),
]


@pytest.mark.parametrize(("method", "reply", "options", "expected"), SCENARIOS)
async def test_stop_fixed_is_the_debate_as_before(
    method: str, reply: Callable[[Call], str], options: dict[str, Any], expected: list[Any]
) -> None:
    """Without stop, or with stop=fixed: every turn up to max_turns, the same prompts, no
    adaptive record or event."""
    rt, result = await run(method, reply, **options)
    fixed_rt, fixed = await run(method, reply, stop="fixed", **options)

    assert calls(rt) == expected and calls(fixed_rt) == expected
    assert [(c.agent, c.round, c.messages) for c in fixed_rt.calls] == [
        (c.agent, c.round, c.messages) for c in rt.calls
    ]
    assert fixed.final == result.final and recorded(fixed) == recorded(result)
    for r, events in ((result, rt), (fixed, fixed_rt)):
        assert r.adaptive_stop is None and "adaptive stop" not in events.info_titles()
        assert r.options["stop"] == "fixed"
    assert dict(fixed_rt.infos) == dict(rt.infos)


@pytest.mark.parametrize("factory", [voting, consensus, aad, collective_improvement])
def test_a_stop_parameter_without_stop_adaptive_is_refused_by_name(factory: Any) -> None:
    with pytest.raises(OptionError) as err:
        factory(stop_window=0)
    assert err.value.option == "stop_window"
    assert "unless the method stops adaptively (stop=adaptive)" in str(err.value)
    factory(stop="adaptive", stop_window=0)  # with it, taken


# -- inside Inspect ------------------------------------------------------------------------------


def test_madsim_panels_without_consensus_stop_once_their_agreement_is_stable(run) -> None:
    """consensus_count=latest_solution (MALLM d9e66bc's count) never reaches a majority of 3, so
    with stop=fixed every debate runs all 5 turns; madsim's agents (accuracy 1.0) all hold the
    right answer from turn 1, so with stop=adaptive the count 3 of 3 is stable by turn 3: 9 calls
    instead of 15 per sample, the same answers."""
    samples = [
        Sample(input="Which planet is the largest?", choices=["Mars", "Jupiter"], target="B"),
        Sample(input="What is the capital of France?", choices=["Paris", "Rome"], target="A"),
    ]
    for stop, turns in (("fixed", 5), ("adaptive", 3)):
        log = run(
            Task(dataset=MemoryDataset(samples), scorer=choice()),
            solver=consensus(consensus_count="latest_solution", personas="none", stop=stop),
            model="madsim/x",
            model_args={"accuracy": 1.0},
        )
        assert log.results is not None and log.samples is not None
        assert log.results.scores[0].metrics["accuracy"].value == 1.0
        for sample in log.samples:
            result = DebateResult.from_dict(sample.store["mad_tasks:debate"])
            assert isinstance(result.record, DecisionRecord)
            assert (result.record.turns_used, len(result.calls)) == (turns, 3 * turns)
            assert result.options["stop"] == stop
            if stop == "fixed":
                assert result.adaptive_stop is None
            else:
                assert result.adaptive_stop is not None
                assert [r.count for r in result.adaptive_stop.rounds] == [3, 3, 3]
                assert result.adaptive_stop.reason == "stable"
