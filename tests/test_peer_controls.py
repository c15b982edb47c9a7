"""The control conditions `-S peers=self|noise` (engine/peers.py): what each agent of every
round-based method saw, that the noise carries no answer and is deterministic, that the calls are
the method's, that the record names the condition, and that every other method refuses it."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from scripted import ScriptedRuntime, last_user, tag
from scripted import debate as scripted_debate

from mad_tasks.engine import prompts
from mad_tasks.engine.answers import FORMATS, make_format
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.confidence import without_confidence
from mad_tasks.engine.content import Question, text_of
from mad_tasks.engine.methods import chateval, cortex, group_debate, peer_review, reconcile
from mad_tasks.engine.methods.cortex.options import CortexOptions
from mad_tasks.engine.methods.reconcile_records import ConfidentAnswer
from mad_tasks.engine.peers import PEERS, WORDS, Peers, noise
from mad_tasks.engine.protocols.reconcile import recalibrate
from mad_tasks.engine.records import AgentAnswer, DebateResult
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem

QUESTION = Question.of(["How many legs do a spider and an ant have together?"])
FMT = make_format("number")
PROBLEM = Problem(QUESTION, FMT)
# and the decision-protocol debates (test_peer_controls_decision.py)
DECISION = ("voting", "consensus", "aad", "collective_improvement")
PD3 = ("pd3",)  # and PD³'s tournament (test_peer_controls_pd3.py)
PRD = ("peer_discussion",)  # test_peer_discussion.py
COVERED = (
    "du_debate",
    "neighbor_debate",
    "group_debate",
    "reconcile",
    "cortex",
    "chateval",
    "peer_review",
)
# small runs of each method, several rounds where a round reads the one before
RUNS: dict[str, dict[str, Any]] = {
    "du_debate": {"agents": 3, "rounds": 3},
    "neighbor_debate": {"agents": 4, "rounds": 2, "degree": 2},
    "group_debate": {"agents": 4, "groups": 2, "stages": 2, "rounds": 2},
    "reconcile": {"agents": 3, "max_rounds": 2},
    "cortex": {"agents": 3, "max_rounds": 2, "topology": "full"},
    "chateval": {"agents": 3, "turns": 2},
    "peer_review": {"agents": 3, "cycles": 1},
}


def number(agent: str) -> str:
    """Each agent keeps its own answer (111, 222, ...), so no debate stops at an agreement."""
    return str(111 * int(agent.rpartition("_")[2]))


def review_tag(call: Call) -> str:
    return f"<review by {call.agent} in round {call.round}>"


def reply(call: Call) -> str:
    if call.purpose == "summary":
        return f"<summary by {call.agent} in round {call.round}> They said 111 and 222."
    if call.purpose == "review":
        return f"{review_tag(call)} The reasoning holds.\nCONFIDENCE: 8"
    return (
        f"{tag(call.agent, call.round)} I counted the legs.\nCONFIDENCE: 0.9\n"
        f"ANSWER: {number(call.agent)}"
    )


async def run(method: str, peers: str, **more: Any) -> tuple[ScriptedRuntime, DebateResult]:
    return await scripted_debate(method, reply, PROBLEM, peers=peers, **{**RUNS[method], **more})


def answering(rt: ScriptedRuntime) -> list[Call]:
    """The agents' first attempts at an answer after round 1 (what reads the others)."""
    return [
        c
        for c in rt.calls
        if c.attempt == 0 and c.round > 1 and c.agent.startswith("agent") and c.purpose != "review"
    ]


def tags_of_others(text: str, me: str) -> list[str]:
    """Every trace of another agent's reply, review or answer in `text`."""
    found = re.findall(r"<(?:(agent_\d+) says|review by (agent_\d+)) in round \d+>", text)
    others = [a or b for a, b in found if (a or b) != me]
    answers = [n for n in ("111", "222", "333", "444") if n != number(me) and n in text]
    return others + answers


def prompt_of(rt: ScriptedRuntime, agent: str, round: int, purpose: str | None = None) -> str:
    [call] = [
        c
        for c in rt.calls_of(agent, round)
        if c.attempt == 0 and (purpose is None or c.purpose == purpose)
    ]
    return last_user(call)


def reply_of(result: DebateResult, agent: str, round: int) -> AgentAnswer:
    return next(a for a in result.answers if (a.agent, a.round) == (agent, round))


# -- the noise itself ------------------------------------------------------------------------------


def test_noise_has_the_length_asked_and_is_the_same_on_every_run() -> None:
    for length in (0, 1, 2, 3, 7, 80, 1999):
        text = noise(length, "a question", "agent_2", 1, "")
        assert len(text) == length
        assert text == noise(length, "a question", "agent_2", 1, "")
    # a golden value: Python's seeded generator is the same on every run and machine
    assert noise(40, "q", "agent_1", 1, "") == "feather granite saddle desert thistle..."
    assert noise(40, "q", "agent_2", 1, "") != noise(40, "q", "agent_1", 1, "")


@pytest.mark.parametrize("length", [0, 1, 3, 5, 12, 60, 400, 1000, 1001, 5000])
def test_noise_carries_no_answer_for_any_reader(length: int) -> None:
    options = ("river", "meadow stone", "Paris", "yes")
    for seed in range(30):
        text = noise(length, "sample", "agent_1", seed)
        for name in FORMATS:
            assert make_format(name, options).extract(text) is None, (name, text)
        words = text.replace(".", " ").split()
        assert set(words) <= set(WORDS)
        assert not re.search(r"[0-9A-Z:]|answer|\byes\b|\bno\b", text)
        assert all(len(w) >= 3 for w in words)  # no option letter


# -- what each agent saw ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", COVERED)
async def test_the_calls_are_the_methods_under_every_condition(method: str) -> None:
    calls = {}
    for peers in PEERS:
        rt, result = await run(method, peers)
        calls[peers] = Counter((c.agent, c.round, c.purpose, c.attempt) for c in rt.calls)
        assert result.options["peers"] == peers  # the record names the condition
        assert rt.info_titles().count("vote") <= 1  # the viewer's tables were made
    assert calls["self"] == calls["others"] == calls["noise"]


@pytest.mark.parametrize("method", COVERED)
async def test_under_self_an_agent_reads_its_own_replies_only(method: str) -> None:
    rt_others, _ = await run(method, "others")
    rt, _ = await run(method, "self")
    assert any(tags_of_others(last_user(c), c.agent) for c in answering(rt_others))
    for call in answering(rt):
        assert tags_of_others(last_user(call), call.agent) == [], (call.agent, call.round)
    review_prompts = [c for c in rt.calls if c.purpose == "review"]
    for call in review_prompts:
        assert tags_of_others(last_user(call), call.agent) == []


@pytest.mark.parametrize("method", COVERED)
async def test_under_noise_no_reply_of_another_agent_is_readable(method: str) -> None:
    rt_others, _ = await run(method, "others")
    rt, _ = await run(method, "noise")
    again, _ = await run(method, "noise")
    assert [c.messages for c in rt.calls] == [c.messages for c in again.calls]  # deterministic
    others = {(c.agent, c.round, c.purpose): last_user(c) for c in answering(rt_others)}
    for call in answering(rt) + [c for c in rt.calls if c.purpose == "review"]:
        seen = last_user(call)
        assert tags_of_others(seen, call.agent) == [], (call.agent, call.round, seen)
        if call.purpose != "review":  # as long as the method's prompt, give or take labels
            real = others[(call.agent, call.round, call.purpose)]
            assert abs(len(seen) - len(real)) <= 60, (call.agent, call.round)


# -- exact prompts ---------------------------------------------------------------------------------


async def test_du_debate_self_shows_the_own_reply_where_the_others_stood() -> None:
    rt, result = await run("du_debate", "self")
    for agent in ("agent_1", "agent_2", "agent_3"):
        for r in (2, 3):
            own = reply_of(result, agent, r - 1)
            assert prompt_of(rt, agent, r) == prompts.debate_update([own], FMT)
            [call] = rt.calls_of(agent, r)
            assert call.asks.shown == (number(agent),)  # type: ignore[union-attr]


async def test_du_debate_noise_keeps_each_reply_length_and_shows_no_answer() -> None:
    rt_others, _ = await run("du_debate", "others")
    rt, result = await run("du_debate", "noise")
    head = "--- one agent's reply ---\n"
    for r in (2, 3):
        seen, real = prompt_of(rt, "agent_2", r), prompt_of(rt_others, "agent_2", r)
        assert len(seen) == len(real)
        blocks = [b.split("\n\n")[0] for b in seen.split(head)[1:]]
        for block, author in zip(blocks, ("agent_1", "agent_3")):
            assert len(block) == len(reply_of(result, author, r - 1).text.strip())
            assert set(block.replace(".", " ").split()) <= set(WORDS)
        [call] = rt.calls_of("agent_2", r)
        assert call.asks.shown == ()  # type: ignore[union-attr]


async def test_du_debate_sequential_self_reads_the_previous_own_reply() -> None:
    rt, result = await run("du_debate", "self", sequential=True)
    own = reply_of(result, "agent_3", 1)
    assert prompt_of(rt, "agent_3", 2) == prompts.debate_update([own], FMT)


async def test_neighbor_debate_self_and_noise() -> None:
    rt, result = await run("neighbor_debate", "self")
    own = reply_of(result, "agent_1", 1)
    assert prompt_of(rt, "agent_1", 2) == prompts.debate_update([own], FMT)
    rt, _ = await run("neighbor_debate", "noise")
    assert prompt_of(rt, "agent_1", 2).count("--- one agent's reply ---") == 2  # its 2 neighbours


async def test_group_debate_self_reads_its_own_reply_in_place_of_the_pool() -> None:
    rt, result = await run("group_debate", "self")
    own = reply_of(result, "agent_2", 1)
    assert prompt_of(rt, "agent_2", 2) == prompts.debate_update([own], FMT)  # intra-group
    own = reply_of(result, "agent_2", 2)
    assert prompt_of(rt, "agent_2", 3) == group_debate.pool_update([own.text], FMT)  # stage 2
    rt, _ = await run("group_debate", "noise")
    pool = prompt_of(rt, "agent_2", 3)
    assert "summary by" not in pool and pool.count("--- group ") == 2


async def test_reconcile_self_and_noise_prompts() -> None:
    rt, result = await run("reconcile", "self")
    own = reply_of(result, "agent_2", 1)
    mine = ConfidentAnswer("agent_2", 1, "222", 0.9, recalibrate(0.9))
    expected = reconcile.discussion_prompt(QUESTION, FMT, [[(mine, without_confidence(own.text))]])
    assert prompt_of(rt, "agent_2", 2) == text_of(expected)
    # agent_3's answer is not among the top two the method shows: under self it reads its own
    assert tag("agent_3", 1) in prompt_of(rt, "agent_3", 2)
    rt, _ = await run("reconcile", "noise", shown="all")
    seen = prompt_of(rt, "agent_2", 2)
    # the two noised replies have no answer and no confidence; its own keeps both
    assert "=== 2 agents: no readable answer ===" in seen
    assert seen.count("(no confidence stated)") == 2 and "(confidence 0.9)" in seen
    rt, _ = await run("reconcile", "self", own_reply="apart")
    assert reconcile.OWN_HEADING in prompt_of(rt, "agent_2", 2)


async def test_cortex_self_and_noise_prompts() -> None:
    rt, result = await run("cortex", "self")
    own = without_confidence(reply_of(result, "agent_3", 1).text)
    expected = cortex.debate.regeneration_prompt(QUESTION, FMT, [own])
    assert prompt_of(rt, "agent_3", 2) == text_of(expected)
    rt, _ = await run("cortex", "noise")
    assert prompt_of(rt, "agent_3", 2).count(cortex.debate.NEIGHBOUR_HEADING) == 2
    with pytest.raises(OptionError, match=r"'include_self'.*false with peers=self"):
        CortexOptions(peers="self", include_self=True)


async def test_chateval_self_reads_its_own_messages_and_noise_keeps_the_labels() -> None:
    rt, result = await run("chateval", "self")
    said = [reply_of(result, "agent_2", 1)]
    expected = chateval.agent_prompt(QUESTION, FMT, "agent_2", 3, said)
    assert prompt_of(rt, "agent_2", 2) == text_of(expected)
    assert "Nobody has spoken yet." in prompt_of(rt, "agent_2", 1)  # one by one: none of its own
    rt, _ = await run("chateval", "noise")
    seen = prompt_of(rt, "agent_2", 2)
    assert "--- agent_1, turn 1 ---" in seen and "--- agent_2 (you), turn 1 ---" in seen
    rt, result = await run("chateval", "self", strategy="simultaneous_summarizer")
    said = [reply_of(result, "agent_1", 1)]
    expected = chateval.agent_prompt(QUESTION, FMT, "agent_1", 3, said)
    assert prompt_of(rt, "agent_1", 2) == text_of(expected)  # its message, not the summary
    rt, _ = await run("chateval", "noise", strategy="simultaneous_summarizer")
    seen = prompt_of(rt, "agent_1", 2)
    assert "--- summary after turn 1 ---" in seen and "summary by" not in seen


async def test_peer_review_self_reviews_its_own_solution_and_revises_from_its_reviews() -> None:
    rt, result = await run("peer_review", "self")
    own = reply_of(result, "agent_1", 1)
    reviews = [c for c in rt.calls_of("agent_1", 2) if c.purpose == "review"]
    assert len(reviews) == 2
    for call in reviews:
        assert last_user(call) == peer_review.review_prompt(own.text, True)
    revision = prompt_of(rt, "agent_1", 2, "revision")
    assert revision.count("<review by agent_1 in round 2>") == 2
    rt, _ = await run("peer_review", "noise")
    revision = prompt_of(rt, "agent_1", 2, "revision")
    assert revision.count("(reviewer's confidence: not stated)") == 2
    assert "review by" not in revision


# -- who takes the option -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", sorted(set(CATALOGUE.names()) - set(COVERED) - set(DECISION) - set(PD3) - set(PRD))
)
def test_every_other_method_refuses_peers_before_any_call(name: str) -> None:
    with pytest.raises(OptionError, match=r"'peers': got 'self'.*no such option"):
        CATALOGUE[name].factory("solver")(peers="self")


@pytest.mark.parametrize("name", COVERED)
def test_a_covered_method_refuses_an_unknown_condition(name: str) -> None:
    with pytest.raises(OptionError, match="'peers': got 'mirror', allowed: others, self, noise"):
        CATALOGUE[name].factory("solver")(peers="mirror")


def test_on_demand_passes_the_condition_to_its_debate() -> None:
    opts = CATALOGUE["on_demand"].factory("solver")(debate_args={"peers": "noise"})
    assert opts.record()["debate_options"]["peers"] == "noise"
    with pytest.raises(OptionError, match=r"'debate_args\.peers'"):
        CATALOGUE["on_demand"].factory("solver")(debate="voting", debate_args={"peers": "mine"})


def test_the_view_leaves_the_method_alone_under_others() -> None:
    a, b = AgentAnswer("agent_1", 1, "x 1", "1"), AgentAnswer("agent_2", 1, "y 2", "2")
    view = Peers("others", "q")
    assert view.seen([a, b], "agent_1") == [a, b] and view.instead(b, a) is b
    assert view.text("z", "agent_2", 1) == "z"
