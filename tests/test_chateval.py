"""ChatEval on a scripted runtime: call counts and critical path of each communication strategy,
what each agent and the summarizer read, roles, the vote and abstentions.

Replies depend on the call's agent and turn only, never on call order; each agent's message
carries its marker (`scripted.tag`) so a prompt shows whose message it holds, and the summarizer's
reply one of its own so a prompt shows which summary it holds.
"""

from __future__ import annotations

import pytest
from scripted import by_round, last_user, tag
from scripted import debate as scripted_debate

from mad_tasks.engine.answers import YesNo
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.chateval import ROLES, SUMMARIZER, ChatEvalOptions
from mad_tasks.engine.requests import AnswerRequest, GroupSummaryRequest
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem

QUESTION = "Can a camel cross the Sahara without water?"
YESNO = Problem(Question.of([QUESTION]), YesNo())


def scripted(answers: dict[tuple[str, int], str | None], default: str | None = "yes"):
    """(agent, turn) -> answer (None: a message without one); the summarizer writes a marker."""

    answering = by_round(answers, default)

    def reply(call: Call) -> str:
        if call.agent == SUMMARIZER:
            return f"{tag('summary', call.round)} The referees said what they said."
        return answering(call)

    return reply


def debate(reply, retries: int = 2, **options):
    return scripted_debate("chateval", reply, YESNO, retries, **options)


def names(n: int) -> list[str]:
    return [f"agent_{i}" for i in range(1, n + 1)]


# -- calls, critical path, spans -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "calls", "path"),
    [
        ({}, 4, 4),  # the defaults: 2 agents, 2 turns, one by one
        ({"agents": 3, "turns": 2}, 6, 6),
        ({"agents": 3, "turns": 2, "strategy": "simultaneous"}, 6, 2),
        # 9 messages and a summary after turns 1 and 2 (none after the last); each summary waits
        ({"agents": 3, "turns": 3, "strategy": "simultaneous_summarizer"}, 11, 5),
        ({"agents": 5, "turns": 5, "strategy": "one_by_one"}, 25, 25),  # seed 001's setting
        ({"agents": 5, "turns": 1, "strategy": "simultaneous_summarizer"}, 5, 1),
    ],
)
async def test_golden_calls_and_critical_path(options: dict, calls: int, path: int) -> None:
    rt, result = await debate(scripted({}), **options)
    assert (len(rt.calls), rt.critical_path) == (calls, path)
    turns = options.get("turns", 2)
    assert result.rounds == turns and result.final == "yes"
    assert all(r.span == f"round {r.call.round}" for r in rt.recorded if r.call.agent != SUMMARIZER)
    assert all(
        c.role == c.agent and c.purpose == "discussion" for c in rt.calls if c.agent != SUMMARIZER
    )


async def test_the_summarizer_runs_in_its_own_span_after_each_turn_but_the_last() -> None:
    rt, _ = await debate(scripted({}), agents=3, turns=3, strategy="simultaneous_summarizer")
    assert rt.spans == ["round 1", "summary r.1", "round 2", "summary r.2", "round 3"]
    assert rt.info_titles() == [
        "round 1",
        "summary r.1",
        "round 2",
        "summary r.2",
        "round 3",
        "vote",
    ]
    summaries = [r for r in rt.recorded if r.call.agent == SUMMARIZER]
    assert [(r.call.round, r.span, r.call.role, r.call.purpose) for r in summaries] == [
        (1, "summary r.1", SUMMARIZER, "summary"),
        (2, "summary r.2", SUMMARIZER, "summary"),
    ]
    assert summaries[0].call.asks == GroupSummaryRequest(YESNO.fmt, ("yes", "yes", "yes"))


# -- what each agent read ---------------------------------------------------------------------------


async def test_one_by_one_each_agent_reads_every_message_said_before_it() -> None:
    rt, _ = await debate(scripted({("agent_1", 1): "no"}), agents=3, turns=2)
    said = [(a, t) for t in (1, 2) for a in names(3)]  # the speaking order
    for i, (agent, turn) in enumerate(said):
        call = rt.first_call(agent, turn)
        prompt = last_user(call)
        assert len(call.messages) == 1 and prompt.startswith(QUESTION)
        before = said[:i]
        assert [tag(a, t) in prompt for a, t in said] == [s in before for s in said]
        if (agent, 1) in before:  # its own earlier message, marked as its own
            assert f"--- {agent} (you), turn 1 ---" in prompt
        # the answers of the others' messages it read, for the simulated model
        others = tuple("no" if (a, t) == ("agent_1", 1) else "yes" for a, t in before if a != agent)
        assert call.asks == AnswerRequest(YESNO.fmt, shown=others)
    assert "Nobody has spoken yet." in last_user(rt.first_call("agent_1", 1))


async def test_simultaneous_agents_read_the_earlier_turns_only() -> None:
    rt, _ = await debate(scripted({}), agents=3, turns=3, strategy="simultaneous")
    for turn in (1, 2, 3):
        for agent in names(3):
            prompt = last_user(rt.first_call(agent, turn))
            for a in names(3):
                for t in (1, 2, 3):
                    assert (tag(a, t) in prompt) == (t < turn)


async def test_with_a_summarizer_agents_read_every_summary_so_far_and_no_message() -> None:
    answers = {("agent_1", 1): "no", ("agent_2", 2): "no"}
    rt, _ = await debate(scripted(answers), agents=3, turns=3, strategy="simultaneous_summarizer")
    for turn in (1, 2, 3):
        for agent in names(3):
            call = rt.first_call(agent, turn)
            prompt = last_user(call)
            assert not any(tag(a, t) in prompt for a in names(3) for t in (1, 2, 3))
            # the paper appends each turn's summary to every agent's history: all are kept
            assert (tag("summary", 1) in prompt) == (turn >= 2)
            assert (tag("summary", 2) in prompt) == (turn == 3)
            # shown: the other agents' answers of the turn the latest summary summarises
            previous = [(a, turn - 1) for a in names(3) if a != agent and turn > 1]
            shown = tuple("no" if key in answers else "yes" for key in previous)
            assert call.asks == AnswerRequest(YESNO.fmt, shown=shown)
    third = last_user(rt.first_call("agent_1", 3))
    assert third.index(tag("summary", 1)) < third.index(tag("summary", 2))
    assert "--- summary after turn 1 ---" in third and "--- summary after turn 2 ---" in third
    # the summarizer reads the question, the summary so far and the turn's messages only
    first, second = rt.first_call(SUMMARIZER, 1), rt.first_call(SUMMARIZER, 2)
    assert last_user(first).startswith(QUESTION) and last_user(second).startswith(QUESTION)
    assert all(tag(a, 1) in last_user(first) for a in names(3))
    assert tag("summary", 1) in last_user(second)
    assert all(
        tag(a, 2) in last_user(second) and tag(a, 1) not in last_user(second) for a in names(3)
    )


async def test_every_agent_has_its_own_role() -> None:
    rt, _ = await debate(scripted({}), agents=len(ROLES), turns=1)
    for agent, (role, description) in zip(names(len(ROLES)), ROLES):
        prompt = last_user(rt.first_call(agent, 1))
        assert f"You are {agent}, one of {len(ROLES)} referees" in prompt
        assert f"Your role: {role}. {description}" in prompt
        assert all(other == role or f"Your role: {other}." not in prompt for other, _ in ROLES)


async def test_the_first_turn_reads_the_same_under_every_strategy() -> None:
    first = {}
    for strategy in ("one_by_one", "simultaneous", "simultaneous_summarizer"):
        rt, _ = await debate(scripted({}), agents=3, turns=2, strategy=strategy)
        first[strategy] = last_user(rt.first_call("agent_1", 1))
        assert rt.first_call("agent_1", 1).asks == AnswerRequest(YESNO.fmt, shown=())
    assert len(set(first.values())) == 1
    assert "Nobody has spoken yet." in first["simultaneous_summarizer"]
    assert "summary" not in first["simultaneous_summarizer"].lower()


def test_more_agents_than_roles_are_refused() -> None:
    with pytest.raises(
        OptionError, match=f"'agents': got 9, allowed: an integer from 1 to {len(ROLES)}"
    ):
        ChatEvalOptions(agents=9)


# -- the vote ------------------------------------------------------------------------------------


async def test_the_final_answer_is_the_majority_of_the_last_turn() -> None:
    answers = {("agent_1", 2): "no", ("agent_2", 2): "no", ("agent_3", 2): "yes"}
    rt, result = await debate(scripted(answers), agents=3, turns=2, strategy="simultaneous")
    assert result.final == "no" and result.tally.counts == {"no": 2, "yes": 1}
    assert "**Majority vote** → **no**" in dict(rt.infos)["vote"]
    assert [a.round for a in result.answers] == [1, 1, 1, 2, 2, 2]


async def test_a_tie_goes_to_the_answer_with_more_votes_in_the_turn_before() -> None:
    # turn 2: agent_1 yes, agent_2 no, agent_3 abstains; turn 1 had two no's
    answers = {("agent_1", 1): "yes", ("agent_1", 2): "yes", ("agent_3", 2): None}
    answers |= {("agent_2", 1): "no", ("agent_3", 1): "no", ("agent_2", 2): "no"}
    _, result = await debate(
        scripted(answers), retries=0, agents=3, turns=2, strategy="simultaneous"
    )
    assert (result.final, result.tally.tie, result.tally.abstentions) == ("no", True, 1)


async def test_all_abstaining_gives_no_answer_after_the_follow_ups() -> None:
    rt, result = await debate(scripted({}, default=None), retries=1, agents=2, turns=1)
    assert result.final is None and result.tally.abstentions == 2
    assert (len(rt.calls), rt.critical_path) == (4, 4)  # one by one, each with one follow-up


# -- inside an Inspect eval ---------------------------------------------------------------------------


def test_an_eval_with_a_summarizer_on_its_own_model_role(run) -> None:
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample

    from mad_tasks.solvers import chateval as solver

    task = Task(
        dataset=MemoryDataset([Sample(input=QUESTION, target="yes")]),
        solver=solver(agents=3, turns=2, strategy="simultaneous_summarizer"),
    )
    log = run(task, model="madsim/x", model_roles={"summarizer": "madsim/s"})
    [sample] = log.samples
    models = [e.model for e in sample.events if e.event == "model"]
    assert len(models) == 7 and models.count("madsim/s") == 1
    stored = sample.store["mad_tasks:debate"]
    assert stored["options"]["strategy"] == "simultaneous_summarizer"
    assert stored["options"]["roles"]["summarizer"]["model"] == "madsim/s"
    assert [a["round"] for a in stored["answers"]] == [1, 1, 1, 2, 2, 2]


@pytest.mark.parametrize("strategy", ["one_by_one", "simultaneous", "simultaneous_summarizer"])
async def test_every_message_is_asked_to_explain_its_judgement_before_its_answer(
    strategy: str,
) -> None:
    # the authors' closing instruction (thunlp/ChatEval's config) asks for the evaluation's
    # explanation first, then the verdict
    rt, _ = await debate(scripted({}), strategy=strategy)
    asks = [last_user(c) for c in rt.calls if c.agent != SUMMARIZER]
    assert len(asks) == 4
    for text in asks:
        assert "explain your judgement first, then give your own answer" in text
        assert text.index("explain your judgement first") < text.index('"ANSWER: ')
