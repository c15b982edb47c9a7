"""`group_debate` (GroupDebate): calls, critical path, what each agent and summarizer reads,
abstentions, ties and option checks."""

from __future__ import annotations

import pytest
from scripted import ScriptedRuntime, by_round, last_user, tag
from scripted import debate as scripted_debate
from testdata import STRATEGYQA

from mad_tasks.engine.answers import YesNo
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.group_debate import GroupDebateOptions
from mad_tasks.engine.requests import AnswerRequest, GroupSummaryRequest
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem
from mad_tasks.solvers import group_debate as group_debate_solver
from mad_tasks.tasks.strategyqa import strategyqa

QUESTION = "Can a camel cross the Sahara without water?"
PROBLEM = Problem(Question.of([QUESTION]), YesNo())


def summary_tag(group: str, round: int) -> str:
    return f"<summary by {group} after round {round}>"


def scripted(answers: dict[tuple[str, int], str | None] | None = None, default: str = "yes"):
    """Answers by (agent, round); a summarizer names its group and round."""
    answering = by_round(answers, default)

    def reply(call: Call) -> str:
        if isinstance(call.asks, GroupSummaryRequest):
            return f"{summary_tag(call.agent, call.round)} They said {call.asks.answers}."
        assert isinstance(call.asks, AnswerRequest)
        return answering(call)

    return reply


def debate(reply, retries: int = 2, **options):
    return scripted_debate("group_debate", reply, PROBLEM, retries, **options)


def debate_call(rt: ScriptedRuntime, agent: str, round: int) -> Call:
    [call] = [c for c in rt.calls_of(agent, round) if c.attempt == 0]
    return call


# -- calls and critical path ----------------------------------------------------------------------------


async def test_defaults_four_agents_two_groups_two_stages_of_two_rounds() -> None:
    rt, result = await debate(scripted())
    # 4 agents x 4 rounds, and one summary per group between the stages
    assert (len(rt.calls), rt.critical_path) == (16 + 2, 4 + 1)
    summaries = [c for c in rt.calls if c.purpose == "summary"]
    assert sorted((c.agent, c.role, c.round) for c in summaries) == [
        ("summarizer_1", "summarizer", 2), ("summarizer_2", "summarizer", 2),
    ]  # fmt: skip
    assert rt.spans == [
        "round 1", "group 1 r.1", "group 2 r.1", "round 2", "group 1 r.2", "group 2 r.2",
        "summary s.1", "round 3", "group 1 r.3", "group 2 r.3", "round 4", "group 1 r.4",
        "group 2 r.4",
    ]  # fmt: skip
    assert all(r.span == "summary s.1" for r in rt.recorded if r.call.purpose == "summary")
    assert rt.info_titles() == ["groups", "round 1", "round 2", "summary s.1", "round 3", "round 4", "vote"]  # fmt: skip
    assert (result.method, result.final, result.rounds) == ("group_debate", "yes", 4)
    assert result.options["groups_of_agents"] == [["agent_1", "agent_2"], ["agent_3", "agent_4"]]


@pytest.mark.parametrize(
    ("options", "calls", "path"),
    [
        # 6 agents x 6 rounds, 3 summaries after stages 1 and 2
        ({"agents": 6, "groups": 3, "stages": 3, "rounds": 2}, 36 + 6, 6 + 2),
        # one stage: no summary at all
        ({"agents": 5, "groups": 2, "stages": 1, "rounds": 3}, 15, 3),
        # seed 001's 5 agents as `mad-tasks reproduce` runs them: 3 stages of 2 rounds, 2 pools
        # of 2 summaries
        ({"agents": 5, "groups": 2, "stages": 3, "rounds": 2}, 30 + 4, 6 + 2),
        # a single round: the independent answers only
        ({"agents": 4, "groups": 2, "stages": 1, "rounds": 1}, 4, 1),
    ],
)
async def test_calls_and_critical_path(options: dict, calls: int, path: int) -> None:
    rt, result = await debate(scripted(), **options)
    assert (len(rt.calls), rt.critical_path) == (calls, path)
    assert result.rounds == options["stages"] * options["rounds"]


# -- what each agent reads -------------------------------------------------------------------------------


async def test_within_a_stage_an_agent_reads_only_its_own_groups_previous_replies() -> None:
    rt, _ = await debate(scripted())
    for agent, peer, others in [
        ("agent_1", "agent_2", ("agent_3", "agent_4")),
        ("agent_4", "agent_3", ("agent_1", "agent_2")),
    ]:
        update = last_user(debate_call(rt, agent, 2))
        assert tag(peer, 1) in update and tag(agent, 1) not in update
        assert not any(tag(o, 1) in update for o in others)
        assert debate_call(rt, agent, 2).asks.shown == ("yes",)
        late = last_user(debate_call(rt, agent, 4))  # stage 2, round 2: its group again
        assert tag(peer, 3) in late and not any(tag(o, 3) in late for o in others)
        assert "summary" not in late


async def test_the_first_round_of_a_stage_reads_every_groups_summary_and_no_reply() -> None:
    rt, _ = await debate(scripted())
    for agent in ("agent_1", "agent_2", "agent_3", "agent_4"):
        call = debate_call(rt, agent, 3)
        update = last_user(call)
        assert summary_tag("summarizer_1", 2) in update and summary_tag("summarizer_2", 2) in update
        assert "says in round" not in update
        assert call.asks.shown == ("yes",) * 4  # the pool summarises every agent's answer
        # its own conversation goes on: question, then each round's update and reply
        assert [m.role for m in call.messages] == ["user", "assistant", "user", "assistant", "user"]


async def test_a_summary_reads_the_question_and_its_groups_latest_replies_only() -> None:
    answers = {("agent_1", 2): "no", ("agent_3", 2): None}
    rt, _ = await debate(scripted(answers), retries=0, partition="round_robin")
    by_group = {c.agent: c for c in rt.calls if c.purpose == "summary"}
    first = by_group["summarizer_1"]  # round robin: agents 1 and 3
    prompt = last_user(first)
    assert prompt.startswith(QUESTION)
    assert tag("agent_1", 2) in prompt and tag("agent_3", 2) in prompt
    assert not any(tag(a, r) in prompt for a in ("agent_2", "agent_4") for r in (1, 2))
    assert tag("agent_1", 1) not in prompt
    assert first.asks == GroupSummaryRequest(PROBLEM.fmt, ("no",))  # agent_3 abstained
    assert by_group["summarizer_2"].asks == GroupSummaryRequest(PROBLEM.fmt, ("yes", "yes"))


async def test_the_first_round_is_independent() -> None:
    rt, _ = await debate(scripted())
    first = [debate_call(rt, f"agent_{i}", 1) for i in range(1, 5)]
    assert all(len(c.messages) == 1 and c.messages == first[0].messages for c in first)
    assert all(c.asks.shown == () for c in first)


# -- abstentions and ties --------------------------------------------------------------------------------


async def test_abstentions_never_vote_and_a_tie_goes_to_the_earlier_rounds() -> None:
    # last round: yes, no, an abstention, no
    answers = {("agent_1", 4): "yes", ("agent_2", 4): "no", ("agent_3", 4): None, ("agent_4", 4): "no"}  # fmt: skip
    _, result = await debate(scripted(answers), retries=0)
    assert (result.final, result.tally.tie, result.tally.abstentions) == ("no", False, 1)

    tied = {("agent_1", 4): "yes", ("agent_2", 4): "no", ("agent_3", 4): "yes", ("agent_4", 4): "no"}  # fmt: skip
    tied |= {(f"agent_{i}", 3): "no" for i in range(1, 5)}
    _, result = await debate(scripted(tied))
    # agent order would pick "yes"; round 3 preferred "no"
    assert (result.final, result.tally.tie) == ("no", True)


# -- options ------------------------------------------------------------------------------------------


def test_every_group_needs_two_agents_and_rounds_are_capped() -> None:
    with pytest.raises(OptionError) as err:
        GroupDebateOptions(agents=5, groups=3)
    assert str(err.value) == (
        "invalid option 'groups': got 3, allowed: an integer from 1 to 2 (every group needs 2 of "
        "the 5 agents)"
    )
    with pytest.raises(OptionError) as err:
        GroupDebateOptions(stages=1, rounds=21)
    assert str(err.value) == "invalid option 'rounds': got 21, allowed: an integer from 1 to 20"
    with pytest.raises(OptionError) as err:
        GroupDebateOptions(stages=3, rounds=7)
    assert str(err.value) == (
        "invalid option 'rounds': got 7, allowed: an integer from 2 to 6 (stages x rounds at most "
        "20; at least 2 when stages > 1, or no agent would read its group's replies)"
    )
    GroupDebateOptions(agents=32, groups=16, stages=4, rounds=5)
    GroupDebateOptions(stages=1, rounds=20)
    GroupDebateOptions(stages=10, rounds=2)


@pytest.mark.parametrize("stages", [2, 5, 10])
def test_from_two_stages_on_a_stage_of_one_round_is_refused(stages: int) -> None:
    # with one round a stage, every round after the first reads only the summaries: no agent
    # would ever read its group's replies
    with pytest.raises(OptionError) as err:
        GroupDebateOptions(agents=5, stages=stages, rounds=1)
    assert str(err.value) == (
        f"invalid option 'rounds': got 1, allowed: an integer from 2 to {20 // stages} (stages x "
        "rounds at most 20; at least 2 when stages > 1, or no agent would read its group's "
        "replies)"
    )


def test_more_than_ten_stages_cannot_have_two_rounds_each() -> None:
    with pytest.raises(OptionError) as err:
        GroupDebateOptions(stages=11, rounds=1)
    assert str(err.value) == (
        "invalid option 'stages': got 11, allowed: an integer from 1 to 10 (from 2 stages on "
        "every stage has at least 2 rounds, and stages x rounds is at most 20)"
    )


# -- end to end on the simulated model ------------------------------------------------------------------


def test_an_eval_on_madsim_makes_the_golden_calls(run) -> None:
    task = strategyqa(data_path=str(STRATEGYQA), subset=2)
    log = run(task, solver=group_debate_solver(), model="madsim/x")
    for sample in log.samples:
        calls = [e for e in sample.events if e.event == "model"]
        assert len(calls) == 18
        summaries = [e for e in calls if "Simulated summary by summarizer_" in e.output.completion]
        assert len(summaries) == 2
