"""The control conditions `-S peers=self|noise` in the decision-protocol debates (voting,
consensus, aad, collective_improvement; decision/controls.py): the exact prompt each agent saw,
the same calls as under `others`, what an agreement supports, and that the votes are the method's."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from scripted import ScriptedRuntime, tag
from scripted import debate as scripted_debate

from mad_tasks.engine.answers import make_format
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Msg, Question, compose, text_of
from mad_tasks.engine.methods.decision import prompts
from mad_tasks.engine.peers import PEERS, noise
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem

QUESTION = Question.of(["How many legs do a spider and an ant have together?"])
FMT = make_format("number")
PROBLEM = Problem(QUESTION, FMT)
METHODS = ("voting", "consensus", "aad", "collective_improvement")
RUNS: dict[str, dict[str, Any]] = {
    "voting": {"max_turns": 3, "vote_turn": 2},
    "consensus": {"max_turns": 3},
    "aad": {"max_turns": 3, "vote_turn": 2},
    "collective_improvement": {"max_turns": 3, "vote_turn": 2},
}
SYSTEM = Msg("system", prompts.system("simple", None))


def number(agent: str) -> str:
    """Each agent keeps its own answer (111, 222, 333)."""
    return str(111 * int(agent.rpartition("_")[2]))


def keeps(call: Call) -> str:
    """Every agent disagrees and keeps its own answer; every ballot names solution 0."""
    if call.purpose == "vote":
        return "0"
    return f"[DISAGREE] {tag(call.agent, call.round)} I counted the legs.\nANSWER: {number(call.agent)}"


async def run(
    method: str, peers: str, reply=keeps, **more: Any
) -> tuple[ScriptedRuntime, DebateResult]:
    options = {"personas": "none", **RUNS[method], **more}
    return await scripted_debate(method, reply, PROBLEM, peers=peers, **options)


def text_of_message(result: DebateResult, agent: str, turn: int) -> str:
    return next(a.text for a in result.answers if (a.agent, a.round) == (agent, turn))


def discussion(rt: ScriptedRuntime, agent: str, turn: int) -> Call:
    [call] = [c for c in rt.calls_of(agent, turn) if c.purpose == "discussion"]
    return call


def texts(call: Call) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in call.messages]


def noised(result: DebateResult, author: str, turn: int) -> str:
    """The noise another agent reads in place of `author`'s message of `turn`."""
    return noise(len(text_of_message(result, author, turn)), QUESTION.text, author, turn, "")


def user(*pieces) -> tuple[str, str]:
    return ("user", text_of(compose(*pieces)))


PROPOSE = prompts.instruction("simple", False, FMT, True)
IMPROVE = prompts.instruction("simple", True, FMT, True)


# -- the calls are the method's -------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
async def test_the_calls_are_the_methods_under_every_condition(method: str) -> None:
    calls = {}
    for peers in PEERS:
        rt, result = await run(method, peers)
        calls[peers] = Counter((c.agent, c.round, c.purpose, c.attempt) for c in rt.calls)
        assert result.options["peers"] == peers  # the record names the condition
    assert calls["self"] == calls["others"] == calls["noise"]
    assert sum(calls["others"].values()) == 9  # 3 turns, or 2 turns and a decisive vote


@pytest.mark.parametrize("method", METHODS)
def test_an_unknown_condition_is_refused(method: str) -> None:
    with pytest.raises(OptionError, match="'peers': got 'mirror', allowed: others, self, noise"):
        CATALOGUE[method].factory("solver")(peers="mirror")


# -- what each agent saw: the memory paradigm -----------------------------------------------------


async def test_memory_self_shows_only_its_own_messages_and_solution() -> None:
    rt, result = await run("voting", "self")
    # turn 1: agent_2 sees nothing of agent_1's, so it proposes as the first speaker does
    assert texts(discussion(rt, "agent_2", 1)) == [
        ("system", SYSTEM.text),
        user(prompts.opening(QUESTION, None, False), "\n\n", PROPOSE),
    ]
    # turn 2: its own message, as its reply, and its own solution as the current one
    own = text_of_message(result, "agent_2", 1)
    assert texts(discussion(rt, "agent_2", 2)) == [
        ("system", SYSTEM.text),
        user(prompts.opening(QUESTION, "222", True)),
        ("assistant", own),
        ("user", IMPROVE),
    ]
    call = discussion(rt, "agent_2", 2)
    assert call.asks.current == "222"  # type: ignore[union-attr]
    # under others the same agent reads agent_1's message and agent_1's solution
    rt, result = await run("voting", "others")
    first = text_of_message(result, "agent_1", 1)
    assert texts(discussion(rt, "agent_2", 1)) == [
        ("system", SYSTEM.text),
        user(prompts.opening(QUESTION, "111", True), "\n\n", f"agent_1: {first}", "\n\n", IMPROVE),
    ]


async def test_memory_noise_keeps_the_labels_and_lengths_and_shows_no_solution() -> None:
    rt, result = await run("voting", "noise")
    # turn 1: agent_3 reads agents 1 and 2 under their names, their text noised, no solution
    assert texts(discussion(rt, "agent_3", 1)) == [
        ("system", SYSTEM.text),
        user(
            prompts.opening(QUESTION, None, True), "\n\n",
            f"agent_1: {noised(result, 'agent_1', 1)}", "\n\n",
            f"agent_2: {noised(result, 'agent_2', 1)}", "\n\n", PROPOSE,
        ),
    ]  # fmt: skip
    # turn 2: agent_1 reads its own message as its reply, the others' noised; the latest proposal
    # is another's, noised, so it has no current solution
    call = discussion(rt, "agent_1", 2)
    assert texts(call) == [
        ("system", SYSTEM.text),
        user(prompts.opening(QUESTION, None, True)),
        ("assistant", text_of_message(result, "agent_1", 1)),
        user(
            f"agent_2: {noised(result, 'agent_2', 1)}", "\n\n",
            f"agent_3: {noised(result, 'agent_3', 1)}", "\n\n", PROPOSE,
        ),
    ]  # fmt: skip
    assert call.asks.current is None  # type: ignore[union-attr]
    for c in rt.calls:  # no other agent's answer or tag reaches anyone's discussion
        if c.purpose == "discussion":
            seen = "\n".join(m.text for m in c.messages if m.role != "assistant")
            others = [a for a in ("agent_1", "agent_2", "agent_3") if a != c.agent]
            assert not any(number(a) in seen or f"<{a} says" in seen for a in others)


async def test_the_votes_are_the_methods_under_a_control() -> None:
    rt_others, _ = await run("voting", "others")
    rt, result = await run("voting", "self")
    ballots = [[m.text for m in c.messages] for c in rt.calls if c.purpose == "vote"]
    assert ballots == [[m.text for m in c.messages] for c in rt_others.calls if c.purpose == "vote"]
    assert all("111" in b[-1] and "222" in b[-1] and "333" in b[-1] for b in ballots)
    assert result.final == "111"  # every ballot names solution 0


def agreeing(call: Call) -> str:
    """agents 1 and 2 hold 111, agent 3 holds 333; shown a current solution, each agrees."""
    answer = "333" if call.agent == "agent_3" else "111"
    shown = any(prompts.CURRENT in m.text for m in call.messages)
    return f"{'[AGREE] ' if shown else ''}{tag(call.agent, call.round)}\nANSWER: {answer}"


async def test_under_self_an_agreement_with_its_own_solution_is_no_support_for_anothers() -> None:
    rt, result = await run("consensus", "self", reply=agreeing)
    record = result.record
    kinds = [(c.agent, c.turn, c.kind, c.agreement) for c in record.transcript]  # type: ignore[attr-defined]
    assert kinds == [
        ("agent_1", 1, "draft", None),
        ("agent_2", 1, "draft", None),
        ("agent_3", 1, "draft", None),
        # agent_1 keeps its own 111 after agent_3's 333: it proposes 111 again
        ("agent_1", 2, "keep", False),
        # agent_2 keeps 111, which is now the latest proposal's: a majority of 2 of 3
        ("agent_2", 2, "agree", True),
    ]
    assert [(c.agent, c.count) for c in record.consensus_checks] == [  # type: ignore[attr-defined]
        ("agent_1", 1), ("agent_2", 1), ("agent_3", 1), ("agent_1", 1), ("agent_2", 2),
    ]  # fmt: skip
    assert result.final == "111" and record.winner_agent == "agent_1"  # type: ignore[attr-defined]
    turn_two = dict(rt.infos)["turn 2"]
    assert "keep" in turn_two and "proposes it again" in turn_two
    # under others agent_2 agrees with agent_1's proposal in turn 1 already
    rt, result = await run("consensus", "others", reply=agreeing)
    assert len(rt.calls) == 2 and result.final == "111"


async def test_under_noise_nobody_is_shown_anothers_solution_so_nobody_agrees() -> None:
    _, result = await run("consensus", "noise", reply=agreeing)
    transcript = result.record.transcript  # type: ignore[attr-defined]
    assert len(transcript) == 9 and {c.kind for c in transcript} == {"draft"}
    assert result.record.decision_success is False  # type: ignore[attr-defined]
    assert result.final == "333"  # the latest proposal, as at max_turns under others


# -- what each agent saw: Collective Improvement --------------------------------------------------


async def test_collective_improvement_self_puts_its_own_answer_in_the_others_place() -> None:
    rt, result = await run("collective_improvement", "self")
    own = text_of_message(result, "agent_2", 1)
    call = discussion(rt, "agent_2", 2)
    update = prompts.ci_update(QUESTION, own, [("agent_2", own)], FMT, True)
    assert texts(call) == [("system", SYSTEM.text), ("user", text_of(update))]
    assert call.asks.shown == ("222",)  # type: ignore[union-attr]


async def test_collective_improvement_noise_keeps_the_names_and_lengths() -> None:
    rt, result = await run("collective_improvement", "noise")
    own = text_of_message(result, "agent_2", 1)
    others = [("agent_1", noised(result, "agent_1", 1)), ("agent_3", noised(result, "agent_3", 1))]
    call = discussion(rt, "agent_2", 2)
    update = prompts.ci_update(QUESTION, own, others, FMT, True)
    assert texts(call) == [("system", SYSTEM.text), ("user", text_of(update))]
    assert call.asks.shown == ()  # type: ignore[union-attr]
    # the solutions context shows a noised solution line of the same length
    rt, result = await run("collective_improvement", "noise", ci_context="solutions")
    update = prompts.ci_update(
        QUESTION,
        "ANSWER: 222",
        [(a, noise(len("ANSWER: 111"), QUESTION.text, a, 1, "")) for a in ("agent_1", "agent_3")],
        FMT,
        True,
    )
    assert texts(discussion(rt, "agent_2", 2))[-1] == ("user", text_of(update))
