"""Round-one reuse: the debates whose agents start from independent answers to the step-by-step
prompt take the first answers given before them (`Session.openings`, on_demand's first stage)
instead of asking again: exact call counts, who continues from what, what the others read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from scripted import ScriptedRuntime, last_user

from mad_tasks.engine import prompts
from mad_tasks.engine.answers import YesNo
from mad_tasks.engine.content import Msg, Question
from mad_tasks.engine.methods.du_debate import du_debate
from mad_tasks.engine.methods.group_debate import GroupDebateOptions, group_debate
from mad_tasks.engine.methods.neighbor_debate import NeighborDebateOptions, neighbor_debate
from mad_tasks.engine.methods.peer_review import PeerReviewOptions, peer_review
from mad_tasks.engine.records import AgentAnswer, DebateResult
from mad_tasks.engine.requests import AnswerRequest, GroupSummaryRequest, ReviewRequest
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Opening, Problem, Session

PROBLEM = Problem(Question.of(["Can a camel cross the Sahara without water?"]), YesNo())
STEP_BY_STEP = (Msg("user", prompts.step_by_step(PROBLEM.question, PROBLEM.fmt)),)
DIRECT = (Msg("user", prompts.direct(PROBLEM.question, PROBLEM.fmt)),)


def opening(i: int, prompt: tuple[Msg, ...] = STEP_BY_STEP) -> Opening:
    """The i-th first-stage answer: "no", where every debate agent answers "yes"."""
    text = f"<first stage sample {i}> A camel stores fat, not water.\nANSWER: no"
    return Opening(prompt, AgentAnswer(f"sample_{i}", 1, text, "no"))


def reply(call: Call) -> str:
    """By what the call asks: an answer (always yes), a review or a group summary."""
    if isinstance(call.asks, ReviewRequest):
        return f"<review by {call.agent}> Fine.\nCONFIDENCE: 7"
    if isinstance(call.asks, GroupSummaryRequest):
        return f"<summary by {call.agent}> They agree."
    assert isinstance(call.asks, AnswerRequest)
    return f"<{call.agent} in round {call.round}> I reasoned.\nANSWER: yes"


Run = Callable[[Session], Awaitable[DebateResult]]

# method: (run with its defaults, agents, golden calls, the agents that read agent_1's round-one
# reply in round two: its debate peers, or the reviewers of its solution)
METHODS: dict[str, tuple[Run, int, int, list[str]]] = {
    "du_debate": (lambda s: du_debate(s, 3, 2, False), 3, 3 * 2, ["agent_2", "agent_3"]),
    "neighbor_debate": (
        lambda s: neighbor_debate(s, NeighborDebateOptions()),
        6,
        6 * 3,
        ["agent_2", "agent_6"],
    ),
    "group_debate": (lambda s: group_debate(s, GroupDebateOptions()), 4, 4 * 4 + 2, ["agent_2"]),
    "peer_review": (
        lambda s: peer_review(s, PeerReviewOptions()),
        3,
        3 + 6 + 3,
        ["agent_2", "agent_3"],
    ),
}


async def run(
    method: str, openings: list[Opening]
) -> tuple[ScriptedRuntime, Session, DebateResult]:
    rt = ScriptedRuntime(reply)
    session = Session(rt, PROBLEM)
    session.openings = list(openings)
    result = await METHODS[method][0](session)
    return rt, session, result


@pytest.mark.parametrize("method", METHODS)
async def test_one_opening_is_agent_1s_round_one_and_costs_no_call(method: str) -> None:
    _, agents, golden, readers = METHODS[method]
    rt, session, result = await run(method, [opening(1)])
    taken = opening(1).answer
    assert len(rt.calls) == len(session.calls) == golden - 1
    assert session.openings == []
    assert [c.agent for c in rt.calls if c.round == 1] == [
        f"agent_{i}" for i in range(2, agents + 1)
    ]
    # its answer in the record, under its debate name, and every agent's round one beside it
    round1 = result.answers_in_round(1)
    assert [a.agent for a in round1] == [f"agent_{i}" for i in range(1, agents + 1)]
    assert round1[0] == AgentAnswer("agent_1", 1, taken.text, "no")
    # agent_1 goes on from the reused reply as if it had been asked
    for call in rt.calls_of("agent_1", 2):
        assert call.messages[:2] == (STEP_BY_STEP[0], Msg("assistant", taken.text))
    # the agents that read agent_1 in round two read the reused reply
    read = sorted({c.agent for c in rt.calls if c.round == 2 and taken.text in last_user(c)})
    assert read == readers
    # the log says which round-one answer cost no call here
    reused = dict(rt.infos)["reused"]
    assert "first stage" in reused and "agent_1" in reused and "agent_2" not in reused
    assert rt.info_titles().count("reused") == 1


@pytest.mark.parametrize("method", METHODS)
async def test_as_many_openings_as_agents_make_round_one_free(method: str) -> None:
    _, agents, golden, _ = METHODS[method]
    given = [opening(i) for i in range(1, agents + 2)]  # one more than the agents: left over
    rt, session, result = await run(method, given)
    assert len(rt.calls) == golden - agents
    assert not [c for c in rt.calls if c.round == 1]
    # in agent order: agent_i takes the i-th opening; the extra one stays
    assert [a.text for a in result.answers_in_round(1)] == [o.answer.text for o in given[:agents]]
    assert session.openings == given[agents:]
    assert all(f"agent_{i}" in dict(rt.infos)["reused"] for i in range(1, agents + 1))


@pytest.mark.parametrize("method", METHODS)
async def test_an_opening_asked_by_another_prompt_is_not_reused(method: str) -> None:
    _, agents, golden, _ = METHODS[method]
    direct = opening(1, DIRECT)
    rt, session, result = await run(method, [direct])
    assert len(rt.calls) == golden
    assert [c.agent for c in rt.calls if c.round == 1] == [
        f"agent_{i}" for i in range(1, agents + 1)
    ]
    assert session.openings == [direct]
    assert all(a.answer == "yes" for a in result.answers_in_round(1))
    assert "reused" not in rt.info_titles()


async def test_a_sequential_du_debate_takes_the_opening_too() -> None:
    rt = ScriptedRuntime(reply)
    session = Session(rt, PROBLEM)
    session.openings = [opening(1)]
    await du_debate(session, 3, 2, True)
    assert [(c.agent, c.round) for c in rt.calls] == [
        ("agent_2", 1), ("agent_3", 1), ("agent_1", 2), ("agent_2", 2), ("agent_3", 2)
    ]  # fmt: skip
    own = rt.first_call("agent_1", 2)
    assert own.messages[1] == Msg("assistant", opening(1).answer.text)
    # in round two agent_2 reads agent_1's new reply, not the reused one
    assert opening(1).answer.text not in last_user(rt.first_call("agent_2", 2))
