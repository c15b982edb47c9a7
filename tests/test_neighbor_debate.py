"""`neighbor_debate` (sparse topology): calls, critical path, who reads whom, abstentions, ties and
option checks."""

from __future__ import annotations

import asyncio
import contextvars

import pytest
from scripted import ScriptedRuntime, by_round, last_user, tag
from scripted import debate as scripted_debate
from testdata import STRATEGYQA

from mad_tasks.engine.answers import YesNo
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.du_debate import du_debate
from mad_tasks.engine.methods.neighbor_debate import NeighborDebateOptions
from mad_tasks.engine.session import Problem, Session
from mad_tasks.solvers import neighbor_debate as neighbor_debate_solver
from mad_tasks.tasks.strategyqa import strategyqa

PROBLEM = Problem(Question.of(["Can a camel cross the Sahara without water?"]), YesNo())
SIX = [f"agent_{i}" for i in range(1, 7)]


def debate(reply, retries: int = 2, **options):
    return scripted_debate("neighbor_debate", reply, PROBLEM, retries, **options)


def read_by(rt: ScriptedRuntime, agent: str, round: int, agents: list[str]) -> list[str]:
    """The agents whose previous-round replies `agent` read in `round`."""
    [call] = [c for c in rt.calls_of(agent, round) if c.attempt == 0]
    return [a for a in agents if tag(a, round - 1) in last_user(call)]


# -- calls and critical path ----------------------------------------------------------------------------


async def test_defaults_six_agents_on_a_ring_three_rounds() -> None:
    rt, result = await debate(by_round(default="yes"))
    assert (len(rt.calls), rt.critical_path) == (18, 3)
    assert rt.spans == ["round 1", "round 2", "round 3"]
    assert rt.info_titles() == ["topology", "round 1", "round 2", "round 3", "vote"]
    assert (result.method, result.final, result.rounds) == ("neighbor_debate", "yes", 3)
    assert result.options["neighbours"]["agent_1"] == ["agent_2", "agent_6"]
    assert (result.options["topology"], result.options["degree"]) == ("ring", 2)
    _, star = await debate(by_round(default="yes"), agents=4, rounds=1, topology="star")
    assert "degree" not in star.options


@pytest.mark.parametrize(
    ("options", "calls", "path"),
    [
        ({"agents": 5, "rounds": 4, "degree": 4}, 20, 4),
        ({"agents": 4, "rounds": 2, "topology": "star"}, 8, 2),
        ({"agents": 5, "rounds": 6}, 30, 6),  # seed 001: 5 agents, up to 5 debate rounds
    ],
)
async def test_calls_and_critical_path(options: dict, calls: int, path: int) -> None:
    rt, _ = await debate(by_round(default="yes"), **options)
    assert (len(rt.calls), rt.critical_path) == (calls, path)


# -- who reads whom --------------------------------------------------------------------------------------


async def test_on_the_ring_each_agent_reads_only_its_two_neighbours() -> None:
    rt, _ = await debate(by_round(default="yes"))
    expected = {
        "agent_1": ["agent_2", "agent_6"], "agent_2": ["agent_1", "agent_3"],
        "agent_3": ["agent_2", "agent_4"], "agent_4": ["agent_3", "agent_5"],
        "agent_5": ["agent_4", "agent_6"], "agent_6": ["agent_1", "agent_5"],
    }  # fmt: skip
    for t in (2, 3):
        assert {a: read_by(rt, a, t, SIX) for a in SIX} == expected
    # an agent keeps its own conversation, and reads nothing from two rounds back
    call = rt.first_call("agent_3", 3)
    assert [m.role for m in call.messages] == ["user", "assistant", "user", "assistant", "user"]
    assert tag("agent_3", 2) in call.messages[3].text
    assert not any(tag(a, 1) in last_user(call) for a in SIX)


async def test_the_star_hub_reads_everyone_and_the_others_read_the_hub() -> None:
    four = SIX[:4]
    rt, _ = await debate(by_round(default="yes"), agents=4, rounds=2, topology="star")
    assert {a: read_by(rt, a, 2, four) for a in four} == {
        "agent_1": ["agent_2", "agent_3", "agent_4"],
        "agent_2": ["agent_1"], "agent_3": ["agent_1"], "agent_4": ["agent_1"],
    }  # fmt: skip


async def test_full_reads_every_other_agent() -> None:
    rt, _ = await debate(by_round(default="yes"), agents=4, rounds=2, topology="full")
    assert read_by(rt, "agent_2", 2, SIX) == ["agent_1", "agent_3", "agent_4"]


async def test_what_a_call_shows_is_its_neighbours_answers() -> None:
    answers = {("agent_2", 1): "no", ("agent_6", 1): None}
    rt, _ = await debate(by_round(answers, "yes"), retries=0)
    assert rt.first_call("agent_1", 2).asks.shown == ("no",)  # agent_6 abstained
    assert rt.first_call("agent_4", 2).asks.shown == ("yes", "yes")


# -- abstentions and ties --------------------------------------------------------------------------------


@pytest.mark.parametrize("ties, final", [("first_agent", "no"), ("earlier_rounds", "yes")])
async def test_abstentions_never_vote(ties: str, final: str) -> None:
    answers = {(a, 3): None for a in SIX[:4]} | {("agent_5", 3): "no"}
    _, result = await debate(by_round(answers, "yes"), retries=0, ties=ties)
    # 1 no (agent_5), 1 yes (agent_6): a tie, settled by agent order (agent_5 first) or by round
    # 2, where all six said yes
    assert (result.final, result.tally.abstentions) == (final, 4)
    assert result.tally.tie


@pytest.mark.parametrize("ties, final", [("first_agent", "yes"), ("earlier_rounds", "no")])
async def test_a_last_round_tie_goes_to_the_first_agent_or_the_previous_round(
    ties: str, final: str
) -> None:
    answers = {(a, 3): ("no" if i % 2 else "yes") for i, a in enumerate(SIX)}
    answers |= {(a, 2): "no" for a in SIX}
    _, result = await debate(by_round(answers, "yes"), ties=ties)
    assert (result.final, result.tally.tie) == (final, True)


# -- options ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("agents", "degree"), [(6, 3), (6, 6), (4, 4), (3, 4)])
def test_the_ring_degree_is_even_and_below_the_agents(agents: int, degree: int) -> None:
    with pytest.raises(OptionError) as err:
        NeighborDebateOptions(agents=agents, degree=degree)
    highest = {6: 4, 4: 2, 3: 2}[agents]  # the largest even number below `agents`
    assert str(err.value) == (
        f"invalid option 'degree': got {degree}, allowed: an even integer from 2 to "
        f"{highest} (below agents = {agents})"
    )


def test_the_degree_only_matters_on_the_ring() -> None:
    NeighborDebateOptions(agents=4, degree=4, topology="star")
    NeighborDebateOptions(agents=32, degree=30)
    # and is recorded only there
    assert "degree" not in NeighborDebateOptions(topology="star").record()
    assert "degree" not in NeighborDebateOptions(topology="full").record()
    assert NeighborDebateOptions(degree=4).record()["degree"] == 4


async def test_the_full_topology_is_du_debate_call_for_call() -> None:
    answers = {
        ("agent_1", 1): "no",
        ("agent_3", 1): None,
        ("agent_2", 2): "no",
        ("agent_4", 3): "no",
    }
    rt_full, full = await debate(by_round(answers, "yes"), agents=4, rounds=3, topology="full")
    rt_du = ScriptedRuntime(by_round(answers, "yes"))
    # a fresh context: the scripted runtime counts the critical path in a context variable
    du = await asyncio.create_task(
        du_debate(Session(rt_du, PROBLEM, retries=2), 4, 3, False), context=contextvars.Context()
    )

    def seen(rt: ScriptedRuntime) -> list[tuple]:
        return [
            (c.agent, c.role, c.round, c.attempt, c.purpose, c.messages, c.asks) for c in rt.calls
        ]

    assert seen(rt_full) == seen(rt_du) and len(rt_full.calls) == 4 * 3 + 2  # two follow-ups
    assert rt_full.critical_path == rt_du.critical_path == 3 + 2
    assert (full.final, full.tally, full.answers) == (du.final, du.tally, du.answers)
    assert dict(rt_full.infos)["vote"] == dict(rt_du.infos)["vote"]


# -- end to end on the simulated model ------------------------------------------------------------------


def test_an_eval_on_madsim_makes_the_golden_calls(run) -> None:
    task = strategyqa(data_path=str(STRATEGYQA), subset=2)
    log = run(task, solver=neighbor_debate_solver(agents=4, rounds=2), model="madsim/x")
    for sample in log.samples:
        assert len([e for e in sample.events if e.event == "model"]) == 8
