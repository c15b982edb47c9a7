"""The engine on a scripted runtime: call counts, who sees what, retries, abstentions and records."""

from __future__ import annotations

import asyncio
import json

import pytest
from scripted import ScriptedRuntime, by_round, debate, last_user, tag

from mad_tasks.engine import prompts
from mad_tasks.engine.answers import Choice, YesNo
from mad_tasks.engine.content import Msg, Question
from mad_tasks.engine.methods.baselines import Spend, debate_budget, self_consistency, single
from mad_tasks.engine.records import AgentAnswer, CallRecord, DebateResult, RecordError, Tally
from mad_tasks.engine.runtime import Call, Reply, Usage
from mad_tasks.engine.session import Problem, Session

QUESTION = "Can a camel cross the Sahara without water?"
YESNO = Problem(Question.of([QUESTION]), YesNo())
AGENTS = ("agent_1", "agent_2", "agent_3")


def always(answer: str | None):
    return by_round(default=answer)


def run_debate(reply, problem=YESNO, retries=2, **options):
    return debate("du_debate", reply, problem, retries, **options)


# -- single / cot ----------------------------------------------------------------------------------


@pytest.mark.parametrize("cot", [False, True])
async def test_single_and_cot_make_one_call_with_their_prompt(cot: bool) -> None:
    rt = ScriptedRuntime(lambda call: "Camels store fat, not water.\nANSWER: no")
    problem = Problem(Question.of([QUESTION]), YesNo(), system="You are a careful assistant.")
    session = Session(rt, problem, temperature=0.3, max_tokens=99)
    result = await single(session, cot=cot)

    [call] = rt.calls
    expected = prompts.step_by_step if cot else prompts.direct
    assert call.messages == (
        Msg("system", "You are a careful assistant."),
        Msg("user", expected(QUESTION, YesNo())),
    )
    assert ("step by step" in call.messages[1].content) is cot
    assert (call.agent, call.role, call.purpose, call.round, call.attempt) == (
        "agent_1",
        "agent",
        "answer",
        1,
        0,
    )
    assert (call.temperature, call.max_tokens) == (0.3, 99)
    assert (result.method, result.final, result.rounds) == ("cot" if cot else "single", "no", 1)
    # one call, which waited for none
    assert result.calls == [CallRecord("agent_1", "agent", "answer", 1, 0, 10, 2, depth=1)]


async def test_system_prompt_is_omitted_when_empty() -> None:
    rt = ScriptedRuntime(lambda call: "ANSWER: yes")
    await single(Session(rt, YESNO), cot=False)
    assert [m.role for m in rt.calls[0].messages] == ["user"]


# -- retries and abstentions -----------------------------------------------------------------------


async def test_unparseable_reply_is_retried_then_abstains() -> None:
    rt = ScriptedRuntime(lambda call: f"Thinking, attempt {call.attempt}, no commitment.")
    result = await single(Session(rt, YESNO, retries=2), cot=False)

    assert [c.attempt for c in rt.calls] == [0, 1, 2]
    first, second, third = rt.calls
    reminder = prompts.reminder(YesNo())
    assert second.messages == (
        *first.messages,
        Msg("assistant", "Thinking, attempt 0, no commitment."),
        Msg("user", reminder),
    )
    assert third.messages == (
        *second.messages,
        Msg("assistant", "Thinking, attempt 1, no commitment."),
        Msg("user", reminder),
    )
    [answer] = result.answers
    assert (answer.answer, answer.attempts, result.final) == (None, 3, None)
    assert len(result.calls) == 3


async def test_retry_that_answers_ends_the_follow_ups() -> None:
    reminder = prompts.reminder(YesNo())

    def reply(call: Call) -> str:
        return "ANSWER: yes" if last_user(call) == reminder else "Let me ponder."

    rt = ScriptedRuntime(reply)
    result = await single(Session(rt, YESNO, retries=5), cot=False)
    assert len(rt.calls) == 2
    [answer] = result.answers
    assert answer == AgentAnswer("agent_1", 1, "Let me ponder.\n\nANSWER: yes", "yes", attempts=2)


async def test_zero_retries_means_one_call() -> None:
    rt = ScriptedRuntime(lambda call: "I cannot decide.")
    result = await single(Session(rt, YESNO, retries=0), cot=False)
    assert len(rt.calls) == 1
    assert result.final is None


# -- self-consistency ------------------------------------------------------------------------------


async def test_self_consistency_samples_n_times_and_takes_the_majority() -> None:
    votes = {
        "sample_1": "yes",
        "sample_2": "no",
        "sample_3": "no",
        "sample_4": None,
        "sample_5": "yes",
    }
    rt = ScriptedRuntime(
        lambda call: f"ANSWER: {votes[call.agent]}" if votes[call.agent] else "hmm"
    )
    result = await self_consistency(Session(rt, YESNO, retries=1), Spend("calls", 5))

    first_attempts = [c for c in rt.calls if c.attempt == 0]
    assert sorted(c.agent for c in first_attempts) == list(votes)
    assert len({c.messages for c in first_attempts}) == 1  # the same prompt for every sample
    assert "step by step" in first_attempts[0].messages[0].content
    assert len(rt.calls) == 6  # five samples + one retry of the abstaining sample_4
    # 2-2 tie between yes and no: no history, so agent order decides (sample_1 said yes)
    assert result.tally == Tally(counts={"yes": 2, "no": 2}, winner="yes", tie=True, abstentions=1)
    assert result.final == "yes"
    assert result.options == {"samples": 5}
    assert rt.info_titles() == ["vote"]


@pytest.mark.parametrize(
    "spec, spend",
    [
        ("3x2", Spend("calls", 6)),
        ("4X3", Spend("calls", 12)),
        (" 2 x 5 ", Spend("calls", 10)),
        ("1*1", Spend("calls", 1)),
        ("tokens:842", Spend("tokens", 842)),
        ("Dollars:0.00017", Spend("dollars", 0.00017)),
        ("tokens:842.0", Spend("tokens", 842)),
    ],
)
def test_debate_budget(spec: str, spend: Spend) -> None:
    assert debate_budget(spec) == spend


@pytest.mark.parametrize(
    "spec",
    ["banana", "3x", "0x2", "3x0", "-1x2", "3x2x1", "tokens:0", "tokens:-5", "tokens:1e3",
     "tokens:", "dollars:1001", "tokens:1.2.3", "tokens:²", "euros:3", "tokens:nan",
     "tokens:2.5", "tokens:.5", "tokens:841.5"],
)  # fmt: skip
def test_debate_budget_rejects_bad_specs(spec: str) -> None:
    with pytest.raises(ValueError, match="'match_debate'"):
        debate_budget(spec)


async def test_self_consistency_at_a_matched_token_spend_samples_in_waves_until_it_is_spent() -> (
    None
):
    """12 tokens a call: one chain measures the spend, then (120 - 12) / 12 = 9 at once; the
    spend is then met exactly, so no wave follows."""
    rt = ScriptedRuntime(lambda call: "ANSWER: yes")
    result = await self_consistency(Session(rt, YESNO, retries=0), Spend("tokens", 120))
    assert len(rt.calls) == 10 and rt.critical_path == 2  # two waves: 1, then 9 concurrently
    assert result.options == {"samples": 10, "matched": "tokens:120"}
    assert sum(c.tokens or 0 for c in result.calls) == 120
    # a spend below one chain's still samples one; a chain's spend unknown ends the waves
    rt = ScriptedRuntime(lambda call: "ANSWER: yes")
    assert len((await self_consistency(Session(rt, YESNO), Spend("tokens", 5))).calls) == 1
    rt = ScriptedRuntime(lambda call: "ANSWER: yes")  # no price: dollars cannot be measured
    assert len((await self_consistency(Session(rt, YESNO), Spend("dollars", 1.0))).calls) == 1


# -- du_debate: calls and who sees what ------------------------------------------------------------


async def test_three_agents_two_rounds_make_six_calls() -> None:
    rt, result = await run_debate(always("yes"))
    assert len(rt.calls) == 6
    assert sorted((c.agent, c.round) for c in rt.calls) == [(a, r) for a in AGENTS for r in (1, 2)]
    assert all(c.role == c.agent and c.purpose == "debate" and c.attempt == 0 for c in rt.calls)
    assert all(r.span == f"round {r.call.round}" for r in rt.recorded)
    assert rt.spans == ["round 1", "round 2"]
    assert rt.info_titles() == ["round 1", "round 2", "vote"]
    assert (result.final, result.rounds, len(result.calls)) == ("yes", 2, 6)


@pytest.mark.parametrize(("sequential", "path"), [(False, 3), (True, 7)])
async def test_critical_path_is_one_call_per_round_unless_sequential(
    sequential: bool, path: int
) -> None:
    # simultaneous: the three agents of a round wait only for the round before (3 rounds -> 3);
    # sequential: round 1 at once, then every agent waits for the one before it (1 + 2 * 3)
    rt, _ = await run_debate(always("yes"), rounds=3, sequential=sequential)
    assert (len(rt.calls), rt.critical_path) == (9, path)


async def test_round_one_prompts_are_identical_and_independent() -> None:
    rt, _ = await run_debate(always("yes"))
    round1 = [rt.first_call(a, 1) for a in AGENTS]
    assert all(
        c.messages == (Msg("user", prompts.step_by_step(QUESTION, YesNo())),) for c in round1
    )


async def test_round_two_shows_the_other_agents_and_keeps_the_own_reply_as_history() -> None:
    rt, _ = await run_debate(always("yes"))
    for agent in AGENTS:
        call = rt.first_call(agent, 2)
        own_round1 = rt.first_call(agent, 1)
        assert [m.role for m in call.messages] == ["user", "assistant", "user"]
        assert call.messages[0] == own_round1.messages[0]
        assert tag(agent, 1) in call.messages[1].content  # its own reply, as an assistant turn
        update = last_user(call)
        assert tag(agent, 1) not in update  # never shown to itself as a peer
        for peer in AGENTS:
            if peer != agent:
                assert tag(peer, 1) in update
        # anonymous, as in the authors' code: no agent's name in the update
        assert update.count("--- one agent's reply ---") == 2
        assert not any(f"--- {peer} ---" in update for peer in AGENTS)


async def test_round_t_shows_only_round_t_minus_one() -> None:
    rt, result = await run_debate(always("no"), rounds=3)
    assert len(rt.calls) == 9 and result.rounds == 3
    for agent in AGENTS:
        call = rt.first_call(agent, 3)
        assert [m.role for m in call.messages] == ["user", "assistant", "user", "assistant", "user"]
        update = last_user(call)
        peers = [p for p in AGENTS if p != agent]
        assert all(tag(p, 2) in update for p in peers)
        assert not any(tag(p, 1) in update for p in AGENTS)
        assert tag(agent, 2) not in update


async def test_sequential_agents_see_replies_already_given_this_round() -> None:
    rt, _ = await run_debate(always("yes"), sequential=True)
    seen = {a: last_user(rt.first_call(a, 2)) for a in AGENTS}

    assert tag("agent_2", 1) in seen["agent_1"] and tag("agent_3", 1) in seen["agent_1"]

    assert tag("agent_1", 2) in seen["agent_2"]  # agent 1 already spoke in round 2
    assert tag("agent_3", 1) in seen["agent_2"]  # agent 3 has not: its round-1 reply
    assert tag("agent_1", 1) not in seen["agent_2"]
    assert "agent_2 says" not in seen["agent_2"]

    assert tag("agent_1", 2) in seen["agent_3"] and tag("agent_2", 2) in seen["agent_3"]
    assert "round 1>" not in seen["agent_3"]


async def test_simultaneous_agents_never_see_this_rounds_replies() -> None:
    rt, _ = await run_debate(always("yes"), rounds=3)
    for agent in AGENTS:
        assert "round 2>" not in last_user(rt.first_call(agent, 2))
        assert "round 3>" not in last_user(rt.first_call(agent, 3))


# -- du_debate: retries, abstentions, ties -----------------------------------------------------------


async def test_replaced_templates_word_every_prompt_and_keep_their_placeholders() -> None:
    replaced = {
        "step_by_step": "Q: {question}\nThink, then answer. {instruction}",
        "debate_update": "Peers said:\n{replies}\nYour move. {instruction}",
        "reminder": "Once more, please. {instruction}",
    }
    problem = Problem(Question.of([QUESTION]), YesNo(), templates=replaced)
    answers: dict[tuple[str, int], str | None] = {(a, r): "yes" for a in AGENTS for r in (1, 2)}
    answers[("agent_1", 1)] = None  # agent_1's first reply has no answer: it gets the reminder
    rt, result = await run_debate(by_round(answers), problem=problem, retries=1)

    instruction = YesNo().instruction()
    first = rt.first_call("agent_2", 1)
    assert last_user(first) == f"Q: {QUESTION}\nThink, then answer. {instruction}"
    [retry] = [c for c in rt.calls_of("agent_1", 1) if c.attempt == 1]
    assert last_user(retry) == f"Once more, please. {instruction}"
    update = last_user(rt.first_call("agent_2", 2))
    assert update.startswith("Peers said:\n--- one agent's reply ---\n")
    assert tag("agent_3", 1) in update and update.endswith(f"Your move. {instruction}")
    assert result.final == "yes"


async def test_debate_retries_count_as_calls_and_end_in_abstention() -> None:
    answers = {(a, r): "yes" for a in AGENTS for r in (1, 2)}
    answers[("agent_2", 1)] = answers[("agent_2", 2)] = None
    rt, result = await run_debate(by_round(answers), retries=2)

    assert len(rt.calls) == 4 + 2 * 3  # agent_2 asks three times in each round
    assert [c.attempt for c in rt.calls_of("agent_2", 1)] == [0, 1, 2]
    retry = rt.calls_of("agent_2", 1)[1]
    assert last_user(retry) == prompts.reminder(YesNo())
    assert (
        retry.messages[-2].role == "assistant" and tag("agent_2", 1) in retry.messages[-2].content
    )

    abstained = [a for a in result.answers if a.agent == "agent_2"]
    assert [(a.answer, a.attempts) for a in abstained] == [(None, 3), (None, 3)]
    assert result.tally == Tally(counts={"yes": 2}, winner="yes", tie=False, abstentions=1)
    assert len(result.calls) == 10


async def test_abstentions_never_win() -> None:
    answers = {("agent_1", 1): "no", ("agent_1", 2): "no"}  # agents 2 and 3 never answer
    rt, result = await run_debate(by_round(answers), retries=1)
    assert result.final == "no"
    assert result.tally.abstentions == 2
    assert len(rt.calls) == 2 + 2 * 2 * 2


async def test_all_abstain_gives_no_final_answer() -> None:
    rt, result = await run_debate(always(None), retries=0)
    assert len(rt.calls) == 6
    assert result.final is None
    assert result.tally == Tally(counts={}, winner=None, tie=False, abstentions=3)
    vote_text = dict(rt.infos)["vote"]
    assert "all abstained" in vote_text


@pytest.mark.parametrize("ties, final", [("first_agent", "yes"), ("earlier_rounds", "no")])
async def test_last_round_tie_goes_to_the_first_agent_or_the_previous_round(
    ties: str, final: str
) -> None:
    answers = {
        ("agent_1", 1): "no", ("agent_2", 1): "no", ("agent_3", 1): "yes",
        ("agent_1", 2): "yes", ("agent_2", 2): "no", ("agent_3", 2): None,
    }  # fmt: skip
    _, result = await run_debate(by_round(answers), retries=0, ties=ties)
    # agent order (the authors' most_frequent) picks "yes"; round 1 preferred "no"
    assert (result.final, result.tally.tie) == (final, True)


# -- records -----------------------------------------------------------------------------------------


def usage_by_length(reply):
    """Token usage set explicitly: 10 input tokens per message, 5 output tokens."""

    def with_usage(call: Call) -> Reply:
        return Reply(reply(call), Usage(input_tokens=10 * len(call.messages), output_tokens=5))

    return with_usage


async def test_debate_record_golden_values() -> None:
    answers = {
        ("agent_1", 1): "yes", ("agent_2", 1): "no", ("agent_3", 1): "yes",
        ("agent_1", 2): "no", ("agent_2", 2): "no", ("agent_3", 2): "yes",
    }  # fmt: skip
    _, result = await run_debate(usage_by_length(by_round(answers)))

    assert result.method == "du_debate"
    assert result.rounds == 2
    assert result.final == "no"
    assert result.tally == Tally(counts={"no": 2, "yes": 1}, winner="no", tie=False, abstentions=0)
    assert result.answer_changes() == 1  # only agent_1 changed its mind
    # round 1: one message (10 tokens); round 2: question, own reply, update (30 tokens)
    spent = {"calls": 2, "input_tokens": 40, "output_tokens": 10}
    none = {"calls_without_usage": 0, "cached_calls": 0, "cached_input_tokens": 0, "tool_calls": 0}
    assert result.tokens_by_role() == {
        a: {**spent, **none, "cached_output_tokens": 0} for a in AGENTS
    }
    assert [a.answer for a in result.answers_in_round(2)] == ["no", "no", "yes"]
    assert result.options == {
        "agents": 3, "rounds": 2, "sequential": False, "ties": "first_agent", "peers": "others",
        "stop": "fixed",
    }  # fmt: skip


async def test_answer_changes_counts_every_flip() -> None:
    answers = {
        ("agent_1", 1): "yes", ("agent_1", 2): "no", ("agent_1", 3): "yes",
        ("agent_2", 1): "no", ("agent_2", 2): "no", ("agent_2", 3): "no",
    }  # fmt: skip
    _, result = await run_debate(by_round(answers), agents=2, rounds=3)
    assert result.answer_changes() == 2


async def test_choice_debate_records_letters() -> None:
    fmt = Choice(("London", "Paris", "Rome"))
    problem = Problem(
        Question.of(["What is the capital of France?\n\nA) London\nB) Paris\nC) Rome"]), fmt
    )
    _, result = await run_debate(always("Paris"), problem=problem)  # option text, not a letter
    assert result.final == "B"


async def test_debate_result_round_trips_through_json() -> None:
    answers = {("agent_1", 1): "yes", ("agent_2", 1): None, ("agent_3", 1): "no"}
    _, result = await run_debate(usage_by_length(by_round(answers)), rounds=1, retries=1)
    data = json.loads(json.dumps(result.to_dict()))
    assert DebateResult.from_dict(data) == result
    assert data["tally"] == {
        "counts": {"yes": 1, "no": 1},
        "winner": "yes",
        "tie": True,
        "abstentions": 1,
    }

    rt = ScriptedRuntime(lambda call: "ANSWER: no")
    plain = await single(Session(rt, YESNO), cot=True)
    assert DebateResult.from_dict(json.loads(json.dumps(plain.to_dict()))) == plain


async def test_stats_count_answer_rounds_from_one_for_debates_and_baselines() -> None:
    answers = {
        ("agent_1", 1): "yes", ("agent_2", 1): "no", ("agent_3", 1): None,
        ("agent_1", 2): "no", ("agent_2", 2): "no", ("agent_3", 2): "no",
        ("agent_1", 3): "no", ("agent_2", 3): "yes", ("agent_3", 3): "no",
    }  # fmt: skip
    _, debate = await run_debate(usage_by_length(by_round(answers)), rounds=3, retries=0)
    assert debate.stats() == {
        "rounds": 3,
        "calls": 9, "tool_calls": 0, "calls_without_usage": 0, "cached_calls": 0,
        # three rounds, the agents of each at once: a chain of three calls
        "critical_path": 3,
        # round t: the question, then two messages per earlier round: 10 * (2t - 1) each
        "input_tokens": 3 * (10 + 30 + 50), "output_tokens": 9 * 5,
        "cached_input_tokens": 0, "cached_output_tokens": 0,
        # agent_1 yes -> no, agent_2 no -> yes, agent_3 abstained -> no
        "answer_changes": 3,
        "abstentions": 1,
    }  # fmt: skip

    rt = ScriptedRuntime(lambda call: "ANSWER: no" if call.agent != "sample_2" else "No idea.")
    sampled = await self_consistency(Session(rt, YESNO, retries=0), Spend("calls", 3))
    plain = await single(Session(ScriptedRuntime(lambda call: "ANSWER: no"), YESNO), cot=False)
    for result, calls, abstentions in ((sampled, 3, 1), (plain, 1, 0)):
        stats = result.stats()
        assert (stats["rounds"], stats["calls"], stats["answer_changes"]) == (1, calls, 0)
        assert stats["abstentions"] == abstentions


async def test_from_dict_refuses_a_record_of_any_other_shape() -> None:
    plain = await single(Session(ScriptedRuntime(lambda call: "ANSWER: no"), YESNO), cot=True)
    data = plain.to_dict()
    assert data["record"] is None and DebateResult.from_dict(data) == plain
    before_typed_records = {k: v for k, v in data.items() if k != "record"} | {"details": {}}
    for other in (
        before_typed_records,
        data | {"record": {"kind": "poll"}},  # a kind this version does not know
        data | {"record": {"kind": "cortex", "agents": 3}},  # a kind's record without its fields
        data | {"answers": [{"agent": "agent_1", "round": 1}]},
        data | {"record": "cortex"},
        [data],
    ):
        with pytest.raises(RecordError):
            DebateResult.from_dict(other)


def test_a_calls_own_sampling_replaces_the_sessions_settings_for_that_call_only() -> None:
    from mad_tasks.engine.session import Sampling

    runtime = ScriptedRuntime(lambda call: "ANSWER: yes")
    session = Session(
        runtime, Problem(Question.of(["Q?"]), YesNo()), temperature=0.7, max_tokens=50
    )
    schema = {"type": "object"}

    async def go() -> None:
        await session.call(
            "a", "a", [Msg("user", "x")], "p", 1, sampling=Sampling(0.1, 0.9, 9, schema)
        )
        await session.call("a", "a", [Msg("user", "x")], "q", 1, sampling=Sampling(top_p=0.5))
        await session.call("a", "a", [Msg("user", "x")], "r", 1)

    asyncio.run(go())
    got = [(c.temperature, c.top_p, c.max_tokens, c.schema) for c in runtime.calls]
    assert got == [(0.1, 0.9, 9, schema), (0.7, 0.5, 50, None), (0.7, None, 50, None)]
