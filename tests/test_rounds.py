"""The round-batching runtime (hosts/batch_runtime.py): every debate's calls of a round go out as one batch,
and each debate gets exactly the result it gets on its own."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest
from scripted import DEFAULT_USAGE, ScriptedRuntime
from test_decision import Script, msg

from mad_tasks.engine.answers import Choice, YesNo
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.baselines import Spend, self_consistency
from mad_tasks.engine.methods.decision.debate import decision_debate
from mad_tasks.engine.methods.decision.options import DecisionConfig
from mad_tasks.engine.methods.du_debate import du_debate
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.runtime import Call, Reply, Runtime
from mad_tasks.engine.session import Problem, Session
from mad_tasks.hosts.batch_runtime import RoundRuntime

QUESTIONS = [f"Is {n} an even number?" for n in (2, 3, 4, 7)]


def problem(question: str) -> Problem:
    return Problem(Question.of([question]), YesNo())


def parity(call: Call) -> str:
    """Right about every number but 7 in round 1, right about all of them from round 2 on; the
    question of a call is in its first user message."""
    first = next(m.text for m in call.messages if m.role == "user")
    n = int(first.split("Is ", 1)[1].split(" ", 1)[0])
    even = n % 2 == 0 or (n == 7 and call.round == 1)
    return f"{call.agent} checked {n}.\nANSWER: {'yes' if even else 'no'}"


def batched(reply) -> tuple[RoundRuntime, list[list[Call]]]:
    sent: list[list[Call]] = []

    def generate(calls: list[Call]) -> list[Reply]:
        sent.append(calls)
        return [Reply(reply(c), DEFAULT_USAGE) for c in calls]

    return RoundRuntime(generate, "scripted"), sent


def du(question: str, rounds: int = 2, sequential: bool = False):
    def run(rt: Runtime):
        return du_debate(Session(rt, problem(question)), 3, rounds, sequential)

    return run


def alone(method, reply) -> DebateResult:
    """The debate on its own runtime, as the Inspect host runs it."""
    return asyncio.run(method(ScriptedRuntime(reply)))


def test_each_round_of_every_debate_is_one_batch() -> None:
    rt, sent = batched(parity)
    results = rt.run([du(q) for q in QUESTIONS])

    assert rt.batches == [12, 12]  # 3 agents x 4 questions, per round
    assert [{c.round for c in batch} for batch in sent] == [{1}, {2}]
    assert [r.final for r in results] == ["yes", "no", "yes", "no"]
    assert [r.answers_in_round(1)[0].answer for r in results] == ["yes", "no", "yes", "yes"]
    assert results == [alone(du(q), parity) for q in QUESTIONS]


def test_a_follow_up_joins_the_next_batch_and_the_debate_catches_up() -> None:
    def reply(call: Call) -> str:
        if "7" in call.messages[0].text and call.round == 1 and call.attempt == 0:
            return "Hard to say."  # unreadable: one follow-up each
        return parity(call)

    rt, sent = batched(reply)
    results = rt.run([du(q) for q in QUESTIONS])

    # the 3 follow-ups go out with the other debates' round 2; the late debate's round 2 after
    assert rt.batches == [12, 12, 3]
    assert sorted((c.round, c.attempt) for c in sent[1]) == [(1, 1)] * 3 + [(2, 0)] * 9
    assert {(c.round, c.attempt) for c in sent[2]} == {(2, 0)}
    assert results == [alone(du(q), reply) for q in QUESTIONS]
    assert results[3].answers_in_round(1)[0].attempts == 2


def test_sequential_rounds_batch_each_speaker_across_debates() -> None:
    rt, _ = batched(parity)
    results = rt.run([du(q, sequential=True) for q in QUESTIONS[:2]])
    assert rt.batches == [6, 2, 2, 2]  # round 1 at once, then one agent at a time, both debates
    assert results == [alone(du(q, sequential=True), parity) for q in QUESTIONS[:2]]


def test_nested_gathers_and_other_methods_give_their_own_results() -> None:
    # a decision debate (turns, nested gathers for the vote) and self-consistency, side by side
    script = Script(
        {
            ("agent_1", 1): msg("a1", "A"),
            ("agent_2", 1): msg("a2", "B"),
            ("agent_3", 1): msg("a3", "A"),
        },
        ballots={("agent_1", 1): "0", ("agent_2", 1): "1", ("agent_3", 1): "0"},  # 0-based
    )
    choice = Problem(Question.of(["Which option is right?"]), Choice(("alpha", "beta", "gamma")))
    cfg = DecisionConfig(personas="none", vote_turn=1, max_turns=2)

    def vote(rt: Runtime):
        return decision_debate(Session(rt, choice), cfg)

    def sc(rt: Runtime):
        return self_consistency(Session(rt, problem(QUESTIONS[0])), Spend("calls", 5))

    def reply(call: Call) -> str:
        return parity(call) if call.purpose == "answer" else script(call)

    rt, sent = batched(reply)
    voted, sampled = rt.run([vote, sc])

    assert voted == alone(vote, reply) and sampled == alone(sc, reply)
    assert voted.final == "A" and sampled.final == "yes"
    # the five samples and the first speaker go out together
    assert sorted(c.purpose for c in sent[0]) == ["answer"] * 5 + ["discussion"]


def test_an_error_in_one_debate_stops_the_run_with_that_error() -> None:
    async def broken(rt: Runtime) -> DebateResult:
        await du(QUESTIONS[0], rounds=1)(rt)
        raise ValueError("a bug in one debate")

    rt, _ = batched(parity)
    with pytest.raises(ValueError, match="a bug in one debate"):
        rt.run([du(q) for q in QUESTIONS] + [broken])
    assert rt.batches == [15]  # the others waiting on round 2 are cancelled, never sent


def test_a_backend_error_stops_the_run_with_that_error() -> None:
    def reply(call: Call) -> str:
        if call.round == 2:
            raise ConnectionError("the backend went away")
        return parity(call)

    rt, _ = batched(reply)
    with pytest.raises(ConnectionError, match="went away"):
        rt.run([du(q) for q in QUESTIONS])


def test_a_failed_run_leaves_no_task_pending(caplog: pytest.LogCaptureFixture) -> None:
    """The agents' calls of every debate are cancelled with it: asyncio reports none destroyed
    while pending (a dozen lines after the backend's own error, before)."""

    def reply(call: Call) -> str:
        if call.round == 2:
            raise ConnectionError("the backend went away")
        return parity(call)

    rt, _ = batched(reply)
    with caplog.at_level(logging.ERROR, logger="asyncio"), pytest.raises(ConnectionError):
        rt.run([du(q) for q in QUESTIONS])
    gc.collect()  # a task destroyed while pending is reported when it is collected
    assert not [r for r in caplog.records if "destroyed but it is pending" in r.getMessage()]


def test_a_backend_returning_too_few_replies_is_an_error() -> None:
    rt = RoundRuntime(lambda calls: [Reply("ANSWER: yes")] * (len(calls) - 1), "scripted")
    with pytest.raises(RuntimeError, match="12 calls got 11 replies"):
        rt.run([du(q) for q in QUESTIONS])
