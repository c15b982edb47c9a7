"""Decision-protocol debates on a scripted runtime (spec seed 004, section 9).

Replies are chosen by what a call is (its purpose, agent and turn) and what it contains, never by
call order: ballots, candidate extraction and CI turns run concurrently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np
import pytest
from scripted import (
    ScriptedRuntime,
    common_prefix,
    last_user,
    prefix_share,
    recorded,
    serialized,
    transcript_text,
)

from mad_tasks.engine.answers import Choice, YesNo
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.decision import prompts
from mad_tasks.engine.methods.decision.debate import _latest_solution_count, decision_debate
from mad_tasks.engine.methods.decision.options import DecisionConfig
from mad_tasks.engine.methods.decision.records import DecidedAt, DecisionRecord
from mad_tasks.engine.protocols.voting import BallotRules
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import (
    AnswerRequest,
    BallotRequest,
    ExtractRequest,
    ReasoningRequest,
)
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem, Session

T = TypeVar("T")
AGENTS = ("agent_1", "agent_2", "agent_3")
QUESTION = "Which option is right?"
CHOICE = Problem(Question.of([QUESTION]), Choice(("alpha", "beta", "gamma")))
TURN = Callable[[str, int], str]


def msg(tag: str, answer: str | None, signal: str = "") -> str:
    """A discussion message: a traceable tag, an optional [AGREE]/[DISAGREE], an answer line."""
    body = f"{signal} <{tag}> I considered the options.".strip()
    return f"{body}\nANSWER: {answer}" if answer is not None else f"{body} Still unsure."


class Script:
    """Replies by call purpose; discussion and ballots are looked up by (agent, turn)."""

    def __init__(
        self,
        discussion: dict[tuple[str, int], str] | TURN | None = None,
        ballots: dict[tuple[str, int], str | list[str]] | None = None,
        personas: dict[str, str] | None = None,
    ) -> None:
        self.discussion = discussion or {}
        self.ballots = ballots or {}
        self.personas = personas or {}

    def __call__(self, call: Call) -> str:
        if call.purpose == "persona":
            return self.personas.get(call.agent) or json.dumps(
                {"role": f"Expert {call.agent[-1]}", "description": f"field {call.agent[-1]}"}
            )
        if call.purpose == "personas":  # all in one call (persona_calls=one_call)
            return self.personas.get("all") or json.dumps(
                [{"role": f"Expert {i}", "description": f"field {i}"} for i in (1, 2, 3)]
            )
        if call.purpose == "discussion":
            if callable(self.discussion):
                return self.discussion(call.agent, call.round)
            return self.discussion.get(
                (call.agent, call.round), msg(f"{call.agent} t{call.round}", "A")
            )
        if call.purpose in ("extract", "candidate", "final"):
            # the whole call: a follow-up after an unreadable reply asks again below the text
            given = re.search(r"<<<\n(.*)\n>>>", transcript_text(call), re.DOTALL).group(1)
            letters = re.findall(r"\b([A-C])\b", given)  # the last option letter it names
            return f"ANSWER: {letters[-1]}" if letters else "I cannot tell."
        if call.purpose == "vote":
            ballot = self.ballots.get((call.agent, call.round), "0")
            return (
                ballot[min(call.attempt, len(ballot) - 1)] if isinstance(ballot, list) else ballot
            )
        raise AssertionError(f"unexpected call {call.purpose}")


class CountingRuntime(ScriptedRuntime):
    """Also records how many coroutines each `gather` ran together."""

    def __init__(self, reply: Callable[[Call], str]) -> None:
        super().__init__(reply)
        self.gathered: list[int] = []

    async def gather(self, *calls: Awaitable[T]) -> list[T]:
        self.gathered.append(len(calls))
        return await super().gather(*calls)


async def debate(script: Script, problem: Problem = CHOICE, embedder: Any = None, **options: Any):
    options.setdefault("personas", "none")
    rt = CountingRuntime(script)
    result = await decision_debate(Session(rt, problem), DecisionConfig(**options), embedder)
    return rt, result


def by_purpose(rt: ScriptedRuntime, purpose: str, turn: int | None = None) -> list[Call]:
    return [c for c in rt.calls if c.purpose == purpose and (turn is None or c.round == turn)]


def speakers(rt: ScriptedRuntime) -> list[tuple[str, int]]:
    return [(c.agent, c.round) for c in by_purpose(rt, "discussion")]


# -- consensus (spec 9, cases 1-5) -----------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["majority", "supermajority"])
async def test_majority_and_supermajority_stop_after_the_first_agreement(protocol: str) -> None:
    script = Script({("agent_1", 1): msg("a1", "A"), ("agent_2", 1): msg("a2", "A", "[AGREE]")})
    rt, result = await debate(script, protocol=protocol)

    assert speakers(rt) == [("agent_1", 1), ("agent_2", 1)]  # agent_3 is never called
    assert len(rt.calls) == 2  # marked answers: no extraction call
    assert result.final == "A"
    d = recorded(result)
    assert d["decision_success"] is True
    assert d["decided_at"] == {"turn": 1, "after": "agent_2"}
    assert (d["turns_used"], d["winner_agent"], d["fallback_used"]) == (1, "agent_1", None)
    assert [(c["count"], c["decided"]) for c in d["consensus_checks"]] == [(1, False), (2, True)]
    assert (
        d["consensus_checks"][1]["threshold"] == {"majority": 0.5, "supermajority": 0.66}[protocol]
    )
    assert result.method == "consensus"


async def test_unanimity_needs_every_agent_in_a_row() -> None:
    script = Script(
        {
            ("agent_1", 1): msg("a1", "A"),
            ("agent_2", 1): msg("a2", "A", "[AGREE]"),
            ("agent_3", 1): msg("a3", "B", "[DISAGREE]"),
            ("agent_1", 2): msg("a1 t2", "B", "[AGREE]"),
            ("agent_2", 2): msg("a2 t2", "B", "[AGREE]"),
        }
    )
    rt, result = await debate(script, protocol="unanimity")

    assert speakers(rt)[-2:] == [("agent_1", 2), ("agent_2", 2)]
    assert len(speakers(rt)) == 5
    assert result.final == "B"
    d = recorded(result)
    assert d["decided_at"] == {"turn": 2, "after": "agent_2"}
    assert [c["count"] for c in d["consensus_checks"]] == [1, 2, 1, 2, 3]
    assert [c["decided"] for c in d["consensus_checks"]] == [False] * 4 + [True]
    assert d["winner_agent"] == "agent_3"  # the proposal everyone agreed with


async def test_latest_solution_count_never_reaches_a_majority_of_three() -> None:
    # MALLM d9e66bc's count: an agreeing message holds the solution it agreed with, so counting
    # back to the latest message with a solution always gives 1; max_turns ends the debate
    script = Script({("agent_1", 1): msg("a1", "A"), ("agent_2", 1): msg("a2", "A", "[AGREE]")})
    rt, result = await debate(
        script, protocol="majority", consensus_count="latest_solution", max_turns=2
    )
    assert len(speakers(rt)) == 6
    d = recorded(result)
    assert {c["count"] for c in d["consensus_checks"]} == {1}
    assert (d["decision_success"], d["fallback_used"], result.final) == (
        False, "latest_proposal", "A",
    )  # fmt: skip
    # the default counts the agreements: the same replies decide after agent_2
    rt, result = await debate(script, protocol="majority", max_turns=2)
    assert len(speakers(rt)) == 2 and recorded(result)["decision_success"] is True


@pytest.mark.parametrize(
    "solutions, count",
    [(["A", "A", "A"], 1), (["A", None, None], 3), ([None, None], 0), (["A", None, "B", None], 2)],
)
def test_latest_solution_count(solutions: list[str | None], count: int) -> None:
    assert _latest_solution_count(solutions, 3) == count


@pytest.mark.parametrize(
    "reply",
    ["I disagree, it is A.", "I DISAGREE with that. I agree with nobody.", "Let me think again."],
)
async def test_disagreement_and_silence_are_not_agreement(reply: str) -> None:
    script = Script({("agent_1", 1): msg("a1", "A"), ("agent_2", 1): f"{reply}\nANSWER: A"})
    rt, result = await debate(script, protocol="majority", max_turns=1)
    assert recorded(result)["transcript"][1]["agreement"] is False
    assert recorded(result)["transcript"][1]["kind"] == "disagree"
    assert len(speakers(rt)) == 3  # no stop after agent_2


async def test_consensus_never_reached_falls_back_to_the_latest_proposal() -> None:
    def turn(agent: str, t: int) -> str:
        answer = "ABC"[(int(agent[-1]) + t) % 3]
        return msg(f"{agent} t{t}", answer, "[DISAGREE]" if (agent, t) != ("agent_1", 1) else "")

    rt, result = await debate(Script(turn), protocol="unanimity", max_turns=3)

    assert len(speakers(rt)) == 9 and len(rt.calls) == 9
    d = recorded(result)
    assert d["decision_success"] is False
    assert (d["fallback_used"], d["decided_at"], d["turns_used"]) == ("latest_proposal", None, 3)
    assert result.final == "ABC"[(3 + 3) % 3]  # agent_3's turn-3 proposal
    assert d["winner_agent"] == "agent_3"
    assert all(not c["decided"] for c in d["consensus_checks"])


async def test_agreeing_message_keeps_the_solution_it_agreed_with() -> None:
    # agent_2 says [AGREE] but its answer line names another option: the agreement counts
    script = Script({("agent_1", 1): msg("a1", "A"), ("agent_2", 1): msg("a2", "C", "[AGREE]")})
    _, result = await debate(script, protocol="majority")
    t = recorded(result)["transcript"]
    assert (t[1]["solution"], t[1]["extraction"]) == ("A", "none")
    assert result.final == "A"


async def test_strict_reads_more_than_the_threshold() -> None:
    # 4 agents, majority: 2/4 = 0.5 meets ">= 0.5" but not "> 0.5"
    script = Script({("agent_1", 1): msg("a1", "A")} | {
        (f"agent_{i}", t): msg(f"a{i}", "A", "[AGREE]") for i in range(1, 5) for t in (1, 2)
        if (i, t) != (1, 1)
    })  # fmt: skip
    _, loose = await debate(script, protocol="majority", agents=4)
    _, strict = await debate(script, protocol="majority", agents=4, strict=True)
    assert recorded(loose)["decided_at"] == {"turn": 1, "after": "agent_2"}
    assert recorded(strict)["decided_at"] == {"turn": 1, "after": "agent_3"}


# -- voting (spec 9, cases 6-9) --------------------------------------------------------------------


def three_candidates(agent: str, t: int) -> str:
    """agent_1 holds A, agent_2 B, agent_3 C in every turn (each disagrees with the current one)."""
    signal = "" if (agent, t) == ("agent_1", 1) else "[DISAGREE]"
    return msg(f"{agent} t{t}", "ABC"[int(agent[-1]) - 1], signal)


def ballots(turn: int, *texts: str) -> dict[tuple[str, int], str]:
    return {(agent, turn): text for agent, text in zip(AGENTS, texts)}


async def test_simple_vote_after_turn_three() -> None:
    rt, result = await debate(
        Script(three_candidates, ballots(3, "0", "0", "1")), protocol="simple"
    )

    assert len(by_purpose(rt, "discussion")) == 9
    assert len(by_purpose(rt, "vote")) == 3 and {c.round for c in by_purpose(rt, "vote")} == {3}
    assert len(rt.calls) == 12
    [vote] = recorded(result)["votes"]
    assert (vote["turn"], vote["tally"], vote["winner"], vote["tie"]) == (3, [2, 1, 0], 0, False)
    assert [c["answer"] for c in vote["candidates"]] == ["A", "B", "C"]
    assert [b["parsed"] for b in vote["ballots"]] == [0, 0, 1]
    assert {c.asks for c in by_purpose(rt, "vote")} == {
        BallotRequest(CHOICE.fmt, ("A", "B", "C"), BallotRules("simple", 3))
    }
    assert result.final == "A"
    d = recorded(result)
    assert (d["decided_at"], d["decision_success"], d["winner_agent"]) == (
        {"turn": 3, "after": "vote"}, True, "agent_1",
    )  # fmt: skip
    assert rt.spans == ["turn 1", "turn 2", "turn 3", "vote after turn 3"]
    assert rt.info_titles() == ["turn 1", "turn 2", "turn 3", "vote after turn 3", "decision"]
    table = dict(rt.infos)["vote after turn 3"]
    assert "solution 0 wins: **A) alpha**" in table  # numbered as the voters' prompt numbers it
    assert "\n       0  A) alpha  agent_1       2\n" in table  # candidate, answer, whose, points
    # voter, reply as written, points to solutions 0-2, retries
    assert "\nagent_3  1                     0   1   0        0\n" in table
    assert dict(rt.infos)["decision"] == (
        "**Decided** in turn 3 by the simple vote: solution 0 (from agent_1) has the unique "
        "highest total, 2 points: **A) alpha**"
    )


async def test_simple_vote_tie_runs_another_turn_then_votes_again() -> None:
    script = Script(three_candidates, ballots(3, "0", "1", "2") | ballots(4, "1", "1", "0"))
    rt, result = await debate(script, protocol="simple")

    assert len(by_purpose(rt, "discussion", 4)) == 3 and not by_purpose(rt, "discussion", 5)
    first, second = recorded(result)["votes"]
    assert (first["tally"], first["winner"], first["tie"]) == ([1, 1, 1], None, True)
    assert (second["turn"], second["tally"], second["winner"]) == (4, [1, 2, 0], 1)
    assert result.final == "B"
    assert recorded(result)["decided_at"] == {"turn": 4, "after": "vote"}
    assert len(rt.calls) == 12 + 3 + 3


async def test_ranked_vote_uses_borda_points() -> None:
    script = Script(three_candidates, ballots(3, "0 1 2", "1 0 2", "0 2 1"))
    _, result = await debate(script, protocol="ranked")
    [vote] = recorded(result)["votes"]
    assert (vote["tally"], vote["winner"]) == ([8, 6, 4], 0)
    assert [b["parsed"] for b in vote["ballots"]] == [[0, 1, 2], [1, 0, 2], [0, 2, 1]]


async def test_cumulative_vote_worked_example_of_the_paper() -> None:
    # App. G.1: {1: 9, 2: 1}, {0: 2, 1: 4, 2: 4}, {0: 1, 1: 2, 2: 7} -> totals [3, 15, 12]
    script = Script(
        three_candidates,
        ballots(3, '{"1": 9, "2": 1}', '{"0": 2, "1": 4, "2": 4}', '{"0": 1, "1": 2, "2": 7}'),
    )
    _, result = await debate(script, protocol="cumulative")
    [vote] = recorded(result)["votes"]
    assert (vote["tally"], vote["winner"]) == ([3, 15, 12], 1)
    assert result.final == "B" and recorded(result)["winner_agent"] == "agent_2"


async def test_cumulative_sum_of_nine_is_asked_again() -> None:
    script = Script(
        three_candidates,
        ballots(3, '{"0": 10}', '{"0": 5, "1": 5}', "x")
        | {("agent_3", 3): ['{"1": 4, "2": 5}', 'Fine: {"1": 5, "2": 5}']},
    )
    rt, result = await debate(script, protocol="cumulative")
    [vote] = recorded(result)["votes"]
    third = vote["ballots"][2]
    assert third["retries"] == 1 and third["parsed"] == [0, 5, 5]
    assert third["raw"] == ['{"1": 4, "2": 5}', 'Fine: {"1": 5, "2": 5}']
    retry = next(c for c in by_purpose(rt, "vote") if c.agent == "agent_3" and c.attempt == 1)
    assert last_user(retry) == prompts.ballot_reminder(BallotRules("cumulative", 3))
    assert (vote["tally"], vote["winner"], vote["invalid"], vote["retries"]) == (
        [15, 10, 5],
        0,
        0,
        1,
    )


async def test_ten_invalid_replies_drop_the_ballot() -> None:
    script = Script(three_candidates, ballots(3, '{"0": 10}', '{"1": 10}', "I like them all."))
    rt, result = await debate(script, protocol="cumulative")
    assert (
        len([c for c in by_purpose(rt, "vote", 3) if c.agent == "agent_3"]) == 11
    )  # 1 + 10 retries
    vote = recorded(result)["votes"][0]
    assert vote["ballots"][2]["parsed"] is None and vote["invalid"] == 1
    assert (vote["tally"], vote["tie"], vote["winner"]) == ([10, 10, 0], True, None)


async def test_approval_ties_until_the_end_then_the_first_agent_answers() -> None:
    script = Script(three_candidates, {(a, t): "0,1,2" for a in AGENTS for t in range(1, 6)})
    rt, result = await debate(script, protocol="approval", no_decision="first_agent")

    d = recorded(result)
    assert [v["turn"] for v in d["votes"]] == [3, 4, 5]
    assert all(v["tally"] == [3, 3, 3] and v["tie"] for v in d["votes"])
    assert (d["decision_success"], d["fallback_used"], d["winner_agent"]) == (
        False, "first_agent", "agent_1",
    )  # fmt: skip
    assert result.final == "A" and d["turns_used"] == 5
    assert len(rt.calls) == 15 + 9


async def test_approval_with_a_clear_winner() -> None:
    _, result = await debate(
        Script(three_candidates, ballots(3, "0,1", "1", "1")), protocol="approval"
    )
    [vote] = recorded(result)["votes"]
    assert (vote["tally"], vote["winner"]) == ([1, 3, 0], 1)


async def test_no_decision_none_leaves_the_sample_without_answer() -> None:
    # the default (MALLM's code; the paper's text falls back to the first agent)
    script = Script(three_candidates, {(a, t): "0,1,2" for a in AGENTS for t in range(1, 6)})
    _, result = await debate(script, protocol="approval")
    assert result.final is None
    assert recorded(result)["fallback_used"] == "none"


def agent_2_unsure(agent: str, t: int) -> str:
    """As three_candidates, but agent_2 never states a solution (nor can the extraction read one)."""
    return msg(f"{agent} t{t}", None) if agent == "agent_2" else three_candidates(agent, t)


async def test_an_agent_without_a_solution_is_no_candidate() -> None:
    # every voter picks "Solution 1": agent_3's answer, not an empty candidate for agent_2
    rt, result = await debate(Script(agent_2_unsure, ballots(3, "1", "1", "1")), protocol="simple")
    [vote] = recorded(result)["votes"]
    assert [(c["index"], c["answer"], c["agents"]) for c in vote["candidates"]] == [
        (0, "A", ["agent_1"]),
        (1, "C", ["agent_3"]),
    ]
    assert len(by_purpose(rt, "vote")) == 3  # agent_2 still votes
    ballot = last_user(by_purpose(rt, "vote")[0])
    assert "Solution 1: C) gamma" in ballot and "Solution 2" not in ballot
    assert "no solution" not in ballot
    assert (result.final, recorded(result)["winner_agent"]) == ("C", "agent_3")
    assert recorded(result)["decision_success"] is True


async def test_no_agent_with_a_solution_means_no_decision_and_no_answer() -> None:
    rt, result = await debate(
        Script(lambda agent, t: msg(f"{agent} t{t}", None)), no_decision="first_agent"
    )
    d = recorded(result)
    assert [v["candidates"] for v in d["votes"]] == [[], [], []]  # votes after turns 3, 4, 5
    assert not by_purpose(rt, "vote")  # nothing to vote on: no ballots asked
    assert result.final is None
    assert (d["decision_success"], d["fallback_used"], d["winner_agent"]) == (
        False, "first_agent", None,
    )  # fmt: skip


async def test_the_first_agent_fallback_without_its_solution_abstains() -> None:
    # agent_1 never states a solution: the fallback gives no answer, not another agent's
    def turn(agent: str, t: int) -> str:
        return msg(f"{agent} t{t}", None) if agent == "agent_1" else three_candidates(agent, t)

    script = Script(turn, {(a, t): "0, 1" for a in AGENTS for t in range(1, 6)})
    _, result = await debate(script, protocol="approval", no_decision="first_agent")
    d = recorded(result)
    assert all(v["tie"] for v in d["votes"])
    assert (result.final, d["decision_success"], d["winner_agent"]) == (None, False, None)


async def test_messy_ballots_from_a_small_model_are_read() -> None:
    script = Script(
        three_candidates,
        ballots(3, "I vote for solution 1.", "1, because it names the right option", "Solution 2"),
    )
    _, result = await debate(script, protocol="simple")
    [vote] = recorded(result)["votes"]
    assert [b["parsed"] for b in vote["ballots"]] == [1, 1, 2]
    assert [b["retries"] for b in vote["ballots"]] == [0, 0, 0]


async def test_all_digits_parse_rejects_two_numbers() -> None:
    script = Script(three_candidates, ballots(3, "0", "0", ["1 or 2", "1"]))
    _, first = await debate(script, protocol="simple")
    _, digits = await debate(script, protocol="simple", simple_parse="all_digits")
    assert recorded(first)["votes"][0]["ballots"][2]["parsed"] == 1  # first number: "1 or 2" -> 1
    third = recorded(digits)["votes"][0]["ballots"][2]
    assert (third["parsed"], third["retries"]) == (1, 1)  # "12" is out of range: asked again


async def test_dedupe_merges_identical_candidates() -> None:
    def two_answers(agent: str, t: int) -> str:
        signal = "" if (agent, t) == ("agent_1", 1) else "[DISAGREE]"
        return msg(f"{agent} t{t}", "A" if agent != "agent_2" else "B", signal)

    script = Script(two_answers, ballots(3, "1", "1", "0"))
    _, result = await debate(script, protocol="simple", dedupe=True)
    [vote] = recorded(result)["votes"]
    assert [(c["answer"], c["agents"]) for c in vote["candidates"]] == [
        ("A", ["agent_1", "agent_3"]), ("B", ["agent_2"]),
    ]  # fmt: skip
    winner = recorded(result)["winner_agent"]
    assert (vote["tally"], result.final, winner) == ([1, 2], "B", "agent_2")


async def test_solution_counting_asks_for_no_ballots() -> None:
    def answers(agent: str, t: int) -> str:
        signal = "" if (agent, t) == ("agent_1", 1) else "[DISAGREE]"
        return msg(f"{agent} t{t}", "B" if agent == "agent_1" else "C", signal)

    rt, result = await debate(Script(answers), protocol="counting")
    assert not by_purpose(rt, "vote")
    [vote] = recorded(result)["votes"]
    assert [(c["answer"], c["agents"]) for c in vote["candidates"]] == [
        ("B", ["agent_1"]), ("C", ["agent_2", "agent_3"]),
    ]  # fmt: skip
    assert (vote["tally"], vote["winner"], result.final) == ([1, 2], 1, "C")


async def test_solution_counting_tie_runs_another_turn() -> None:
    def answers(agent: str, t: int) -> str:
        signal = "" if (agent, t) == ("agent_1", 1) else "[DISAGREE]"
        held = {"agent_1": "A", "agent_2": "B", "agent_3": "A" if t >= 4 else "C"}[agent]
        return msg(f"{agent} t{t}", held, signal)

    _, result = await debate(Script(answers), protocol="counting")
    first, second = recorded(result)["votes"]
    assert (first["tie"], second["turn"], second["winner"]) == (True, 4, 0)
    assert result.final == "A"


# -- call counts -------------------------------------------------------------------------------------


async def test_one_message_costs_one_call_marked_and_two_with_extraction() -> None:
    script = Script({("agent_1", 1): msg("a1", "A"), ("agent_2", 1): msg("a2", "A", "[AGREE]")})
    rt, _ = await debate(script, protocol="majority")
    assert [c.purpose for c in rt.calls] == ["discussion"] * 2
    rt, result = await debate(script, protocol="majority", extraction="call")
    assert [(c.agent, c.purpose) for c in rt.calls] == [
        ("agent_1", "discussion"), ("agent_1", "extract"), ("agent_2", "discussion"),
        ("agent_2", "extract"),
    ]  # fmt: skip
    assert [c["calls"] for c in recorded(result)["transcript"]] == [2, 2]
    assert result.options["extraction"] == "call"


async def test_marked_mode_falls_back_to_extraction_only_when_the_answer_is_missing() -> None:
    script = Script(
        {
            ("agent_1", 1): "I would go with A) alpha, all things considered.",
            ("agent_2", 1): msg("a2", "A", "[AGREE]"),
        }
    )
    rt, result = await debate(script, protocol="majority")
    assert [(c.agent, c.purpose) for c in rt.calls] == [
        ("agent_1", "discussion"), ("agent_1", "extract"), ("agent_2", "discussion"),
    ]  # fmt: skip
    first = recorded(result)["transcript"][0]
    assert (first["solution"], first["extraction"], first["calls"]) == ("A", "call", 2)
    extract = by_purpose(rt, "extract")[0]
    assert "I would go with A) alpha" in last_user(extract)
    assert extract.asks == ExtractRequest(CHOICE.fmt, script.discussion[("agent_1", 1)])


async def test_one_vote_costs_n_ballots_marked_and_2n_calls_with_extraction() -> None:
    script = Script(three_candidates, ballots(3, "0", "0", "1"))
    rt, _ = await debate(script, protocol="simple")
    assert len(by_purpose(rt, "vote")) == 3 and not by_purpose(rt, "candidate")
    rt, result = await debate(script, protocol="simple", extraction="call")
    assert len(by_purpose(rt, "candidate", 3)) == 3 and len(by_purpose(rt, "vote", 3)) == 3
    assert [c["answer"] for c in recorded(result)["votes"][0]["candidates"]] == ["A", "B", "C"]
    # the candidates are extracted together, then the ballots are cast together
    assert rt.gathered == [3, 3]


async def test_with_extraction_calls_every_agent_that_spoke_gets_a_candidate_call() -> None:
    # MALLM extracts a candidate for every agent: agent_2's from its unreadable solution, which
    # names none, so it still offers no candidate
    script = Script(agent_2_unsure, ballots(3, "1", "1", "1"))
    rt, result = await debate(script, protocol="simple", extraction="call")
    candidates = by_purpose(rt, "candidate", 3)  # agent_2's also asked again: unreadable
    assert sorted({c.agent for c in candidates}) == ["agent_1", "agent_2", "agent_3"]
    unsure = next(c for c in candidates if c.agent == "agent_2")
    assert "(no readable solution)" in last_user(unsure)
    [vote] = recorded(result)["votes"]
    assert [c["agents"] for c in vote["candidates"]] == [["agent_1"], ["agent_3"]]
    assert result.final == "C"


@pytest.mark.parametrize("extraction, calls", [("marked", 3 + 9 + 3), ("call", 3 + 18 + 6)])
async def test_whole_debate_call_count(extraction: str, calls: int) -> None:
    script = Script(three_candidates, ballots(3, "0", "0", "1"))
    rt, result = await debate(script, protocol="simple", personas="expert", extraction=extraction)
    assert len(rt.calls) == len(result.calls) == calls
    assert sum(c.input_tokens for c in result.calls) == 10 * calls  # scripted usage: 10 in, 2 out


# -- personas ----------------------------------------------------------------------------------------


async def test_personas_are_made_in_sequence_each_seeing_the_earlier_ones() -> None:
    script = Script(
        three_candidates,
        ballots(3, "0", "0", "1"),
        personas={
            "agent_1": 'Sure! {"role": "Historian", "description": "dates and events"} Hope it helps.',
            "agent_2": '{"role": "Chemist", "description": "reactions",}',  # almost JSON
        },
    )
    rt, result = await debate(script, protocol="simple", personas="expert")
    made = by_purpose(rt, "persona")
    assert [c.agent for c in made] == list(AGENTS) and all(c.round == 0 for c in made)
    assert "(none yet)" in last_user(made[0])
    assert "- Historian: dates and events" in last_user(made[1])
    assert "- Chemist: reactions" in last_user(made[2])
    assert rt.spans[0] == "personas" and rt.info_titles()[0] == "personas"
    assert recorded(result)["personas"]["agent_1"] == {
        "role": "Historian", "description": "dates and events", "generated": True,
    }  # fmt: skip
    # the persona frames its agent and names it to the others
    a2 = next(c for c in by_purpose(rt, "discussion", 1) if c.agent == "agent_2")
    assert "Your role: Chemist (reactions)" in a2.messages[0].content
    assert "Historian: <agent_1 t1>" in last_user(a2)
    assert [t["persona"] for t in recorded(result)["transcript"][:3]] == [
        "Historian", "Chemist", "Expert 3",
    ]  # fmt: skip
    ballot = next(c for c in by_purpose(rt, "vote") if c.agent == "agent_1")
    assert ballot.messages[0].content == prompts.system(
        "simple", "Your role: Historian (dates and events)"
    )


async def test_an_unreadable_persona_is_retried_then_a_plain_participant() -> None:
    script = Script(
        lambda a, t: msg(a, "A", "[AGREE]" if a != "agent_1" else ""),
        personas={"agent_2": "A wise person, I suppose."},
    )
    rt, result = await debate(script, protocol="majority", personas="expert")
    assert len([c for c in by_purpose(rt, "persona") if c.agent == "agent_2"]) == 3  # retries=2
    assert recorded(result)["personas"]["agent_2"] == {
        "role": "Participant 2", "description": "", "generated": False,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("calls", "persona_calls", "chain"),
    [("sequential", 3, 13), ("concurrent", 3, 11), ("one_call", 1, 11)],
)
async def test_persona_calls_made_at_once_or_in_one_call_shorten_votings_chain(
    calls: str, persona_calls: int, chain: int
) -> None:
    """`voting`'s defaults (memory paradigm, 3 agents, a vote after turn 3): the personas, then 9
    messages each waiting for the one before, then the ballots: a chain of 13 calls with the
    paper's personas one after another, 11 when they are made at once or in one call."""
    script = Script(three_candidates, ballots(3, "0", "0", "1"))
    rt, result = await debate(script, protocol="simple", personas="expert", persona_calls=calls)
    made = [c for c in rt.calls if c.purpose in ("persona", "personas")]
    assert len(made) == persona_calls and rt.critical_path == chain
    assert max(c.depth for c in result.calls) == chain  # the record says the same
    assert [p["role"] for p in recorded(result)["personas"].values()] == [
        "Expert 1",
        "Expert 2",
        "Expert 3",
    ]
    assert result.options["persona_calls"] == calls
    if calls == "concurrent":  # each sees the task alone
        assert all("(none yet)" in last_user(c) for c in made)
    if calls == "one_call":
        assert made[0].agent == "agent_1" and "Suggest 3 participants" in last_user(made[0])


async def test_one_persona_call_short_of_personas_is_asked_again_then_filled_plainly() -> None:
    """One call that names 2 of 3 readable personas (a role repeated) is asked again, within the
    retry bound; the readable ones are kept and the third agent gets a plain participant."""
    two = json.dumps([{"role": "Historian", "description": "dates"},
                      {"role": "Historian", "description": "again"},
                      {"role": "Chemist", "description": "reactions"}])  # fmt: skip
    script = Script(three_candidates, ballots(3, "0", "0", "1"), personas={"all": two})
    rt, result = await debate(
        script, protocol="simple", personas="expert", persona_calls="one_call"
    )
    assert len(by_purpose(rt, "personas")) == 3  # retries=2
    assert recorded(result)["personas"]["agent_3"] == {
        "role": "Participant 3", "description": "", "generated": False,
    }  # fmt: skip
    assert [p["role"] for p in recorded(result)["personas"].values()][:2] == [
        "Historian",
        "Chemist",
    ]


# -- paradigms: memory window, AAD, CI (spec 9, cases 10-12) ----------------------------------------


def tagged(agent: str, t: int) -> str:
    signal = "" if (agent, t) == ("agent_1", 1) else "[DISAGREE]"
    return msg(f"{agent} t{t}", "ABC"[(int(agent[-1]) + t) % 3], signal)


async def test_memory_window_hides_turns_older_than_two() -> None:
    script = Script(tagged, {(a, t): str(i) for i, a in enumerate(AGENTS) for t in (3, 4, 5)})
    # votes tie every time: all 5 turns run; 2 is the paper's window (MALLM's code shows all)
    rt, _ = await debate(script, protocol="simple", memory_window=2)
    for call in by_purpose(rt, "discussion", 4):
        seen = transcript_text(call)
        assert not any(f"<{a} t1>" in seen for a in AGENTS)
        assert all(f"<{a} t{t}>" in seen for a in AGENTS for t in (2, 3) if a != call.agent)
    agent_3 = next(c for c in by_purpose(rt, "discussion", 4) if c.agent == "agent_3")
    assert "<agent_1 t4>" in transcript_text(agent_3) and "<agent_2 t4>" in transcript_text(agent_3)

    rt, _ = await debate(script, protocol="simple")  # the default: the whole history
    for call in by_purpose(rt, "discussion", 4):
        assert all(f"<{a} t1>" in transcript_text(call) for a in AGENTS if a != call.agent)


async def test_memory_prompt_shows_own_messages_as_replies_and_others_by_name() -> None:
    rt, _ = await debate(Script(tagged, ballots(3, "0", "0", "0")), protocol="simple")
    call = next(c for c in by_purpose(rt, "discussion", 2) if c.agent == "agent_2")
    roles = [m.role for m in call.messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert call.messages[2].content.startswith("[DISAGREE] <agent_2 t1>")
    assert "agent_3: [DISAGREE] <agent_3 t1>" in call.messages[3].content
    assert "agent_1: [DISAGREE] <agent_1 t2>" in call.messages[3].content
    current = "ABC"[(1 + 2) % 3]  # agent_1's turn-2 proposal
    assert f"{prompts.CURRENT} {current}) " in call.messages[1].content
    assert prompts.AGREE_REQUEST in last_user(call)
    assert call.asks == AnswerRequest(CHOICE.fmt, current=current, agreement=True)
    assert last_user(call).endswith(prompts.STEP_BY_STEP)


async def test_aad_drafts_alone_in_turn_one_then_discusses_the_last_draft() -> None:
    script = Script(tagged, ballots(3, "0", "0", "0"))
    rt, result = await debate(script, protocol="simple", all_agents_draft=True)
    for call in by_purpose(rt, "discussion", 1):
        text = transcript_text(call)
        assert "<agent_" not in text and prompts.CURRENT not in text
        assert prompts.AGREE_REQUEST not in text
    assert rt.gathered[0] == 3  # the drafts are written at once
    a3_draft = "ABC"[(3 + 1) % 3]
    first = next(c for c in by_purpose(rt, "discussion", 2) if c.agent == "agent_1")
    assert f"{prompts.CURRENT} {a3_draft})" in transcript_text(first)
    assert all(f"<{a} t1>" in transcript_text(first) for a in AGENTS)  # and all drafts
    assert [t["kind"] for t in recorded(result)["transcript"][:3]] == ["draft"] * 3
    assert [t["agreement"] for t in recorded(result)["transcript"][:3]] == [None] * 3
    assert result.method == "aad"


async def test_aad_draft_containing_agree_is_still_a_proposal() -> None:
    script = Script(
        {("agent_1", 1): msg("a1", "A", "I agree this is hard."), ("agent_2", 1): msg("a2", "A"),
         ("agent_3", 1): msg("a3", "B"), ("agent_1", 2): msg("a1 t2", "B", "[AGREE]")}
    )  # fmt: skip
    _, result = await debate(script, protocol="majority", all_agents_draft=True)
    assert recorded(result)["decided_at"] == {"turn": 2, "after": "agent_1"}
    assert result.final == "B"


async def test_aad_checks_consensus_after_the_drafts_too() -> None:
    # two agents, majority >= 0.5: a proposal alone is half the agents
    _, result = await debate(Script(), protocol="majority", agents=2, all_agents_draft=True)
    assert recorded(result)["decided_at"] == {"turn": 1, "after": "agent_2"}
    assert [c["count"] for c in recorded(result)["consensus_checks"]] == [1]


async def test_collective_improvement_shows_only_the_previous_turn() -> None:
    script = Script(tagged, ballots(3, "0", "0", "1"))
    rt, result = await debate(script, protocol="simple", paradigm="ci", ci_context="solutions")

    assert rt.gathered[:3] == [3, 3, 3]  # every turn: all agents at once
    for t in (2, 3):
        for call in by_purpose(rt, "discussion", t):
            text = transcript_text(call)
            for a in AGENTS:
                answer = "ABC"[(int(a[-1]) + t - 1) % 3]
                assert f"ANSWER: {answer}) " in text  # its own and the others' t-1 solutions
            assert "<agent_" not in text  # solutions only: no message text, nothing from turn t
            others = tuple("ABC"[(int(a[-1]) + t - 1) % 3] for a in AGENTS if a != call.agent)
            assert call.asks == AnswerRequest(CHOICE.fmt, shown=others)
    assert [v["turn"] for v in recorded(result)["votes"]] == [3]
    assert result.method == "collective_improvement"
    assert all(t["agreement"] is None for t in recorded(result)["transcript"])
    assert [t["kind"] for t in recorded(result)["transcript"]][3:] == ["improve"] * 6


async def test_collective_improvement_can_show_full_messages() -> None:
    script = Script(tagged, ballots(3, "0", "0", "1"))
    rt, result = await debate(script, protocol="simple", paradigm="ci")  # the default (code's)
    call = next(c for c in by_purpose(rt, "discussion", 3) if c.agent == "agent_1")
    text = transcript_text(call)
    assert all(f"<{a} t2>" in text for a in AGENTS)
    assert not any(f"<{a} t1>" in text for a in AGENTS)
    assert result.options["ci_context"] == "messages"


def test_collective_improvement_refuses_consensus() -> None:
    with pytest.raises(ValueError, match=r"'protocol'.*voting protocols"):
        DecisionConfig(protocol="majority", paradigm="ci")


@pytest.mark.parametrize(
    "options, name",
    [
        ({"protocol": "plurality"}, "protocol"),
        ({"vote_turn": 6}, "vote_turn"),
        ({"agents": 0}, "agents"),
        ({"style": "angry"}, "style"),
        ({"paradigm": "ci", "style": "critical"}, "style"),
        ({"extraction": "regex"}, "extraction"),
        ({"memory_window": -1}, "memory_window"),
        ({"no_decision": "random"}, "no_decision"),
    ],
)
def test_bad_options_name_the_option(options: dict[str, Any], name: str) -> None:
    with pytest.raises(ValueError, match=f"invalid option '{name}'"):
        DecisionConfig(**options)


# -- response styles ---------------------------------------------------------------------------------


async def test_reasoning_style_hides_the_solution_and_always_extracts() -> None:
    def reasoning(agent: str, t: int) -> str:
        return ("[AGREE] " if agent != "agent_1" else "") + f"<{agent} t{t}> the facts point to A."

    rt, result = await debate(Script(reasoning), protocol="majority", style="reasoning")
    assert [(c.agent, c.purpose) for c in rt.calls] == [
        ("agent_1", "discussion"), ("agent_1", "extract"), ("agent_2", "discussion"),
        ("agent_2", "extract"),
    ]  # fmt: skip
    for call in by_purpose(rt, "discussion"):
        assert prompts.CURRENT not in transcript_text(call)
        assert prompts.REASONING_ONLY in last_user(call)
        assert call.asks == ReasoningRequest(agreement=call.agent != "agent_1")
    conclude = by_purpose(rt, "extract")[0]
    assert conclude.asks == ExtractRequest(
        CHOICE.fmt, "<agent_1 t1> the facts point to A.", conclude=True
    )
    assert result.options["extraction"] == "call"
    assert result.options["requested_extraction"] == "marked"


async def test_critical_style_asks_for_weaknesses() -> None:
    script = Script({("agent_1", 1): msg("a1", "A"), ("agent_2", 1): msg("a2", "A", "[AGREE]")})
    rt, _ = await debate(script, protocol="majority", style="critical", cot=False)
    a2 = by_purpose(rt, "discussion")[1]
    assert "weaknesses" in last_user(a2) and prompts.AGREE_REQUEST in last_user(a2)
    assert prompts.STEP_BY_STEP not in last_user(a2)


# -- the record --------------------------------------------------------------------------------------


class FixedEmbedder:
    """Fixed vectors per answer, so the cosine is known exactly."""

    name = "fixed"
    vectors: ClassVar[dict[str, list[float]]] = {
        "A) alpha": [1.0, 0.0],
        "B) beta": [0.0, 1.0],
        "C) gamma": [0.6, 0.8],
    }

    async def embed(self, texts: list[str]) -> np.ndarray:
        return np.array([self.vectors[t] for t in texts])


async def test_answer_cosine_of_the_final_answers() -> None:
    script = Script(three_candidates, ballots(3, "0", "0", "1"))
    _, result = await debate(script, CHOICE, FixedEmbedder(), protocol="simple")
    d = recorded(result)
    assert d["final_answers"] == {"agent_1": "A", "agent_2": "B", "agent_3": "C"}
    # pairs: A.B = 0, A.C = 0.6, B.C = 0.8 -> mean 1.4 / 3
    assert d["answer_cosine"] == pytest.approx(1.4 / 3)
    assert d["embedder"] == "fixed"


async def test_record_holds_every_field_users_compare() -> None:
    script = Script(three_candidates, ballots(3, "0", "0", "1"))
    _, result = await debate(script, protocol="simple", personas="expert")
    assert {
        "personas", "transcript", "consensus_checks", "votes", "decision_success", "turns_used",
        "decided_at", "fallback_used", "winner_agent", "answer_cosine", "final_answers",
        "max_turns", "embedder",
    } <= set(recorded(result))  # fmt: skip
    assert set(recorded(result)["transcript"][0]) == {
        "turn", "agent", "persona", "kind", "message", "solution", "agreement", "extraction",
        "calls",
    }  # fmt: skip
    assert set(recorded(result)["votes"][0]) >= {
        "turn", "candidates", "ballots", "tally", "winner", "tie", "invalid", "retries",
    }  # fmt: skip
    json.dumps(result.to_dict())  # JSON-serialisable as it goes into the sample store
    assert [(a.agent, a.round, a.answer) for a in result.answers][:3] == [
        ("agent_1", 1, "A"), ("agent_2", 1, "B"), ("agent_3", 1, "C"),
    ]  # fmt: skip


async def test_yes_no_debate_reads_yes_no_answers() -> None:
    def turn(agent: str, t: int) -> str:
        return f"{'[AGREE] ' if agent != 'agent_1' else ''}Camels store fat.\nANSWER: no"

    _, result = await debate(
        Script(turn),
        Problem(Question.of(["Do camels store water?"]), YesNo()),
        protocol="unanimity",
    )
    decided_at = recorded(result)["decided_at"]
    assert result.final == "no" and decided_at == {"turn": 1, "after": "agent_3"}


async def test_record_round_trips_and_rounds_count_turns() -> None:
    held = {"agent_1": "AAA", "agent_2": "BBA", "agent_3": "CAC"}  # each agent's answer per turn

    def turn(agent: str, t: int) -> str:
        signal = "" if (agent, t) == ("agent_1", 1) else "[DISAGREE]"
        return msg(f"{agent} t{t}", held[agent][t - 1], signal)

    _, result = await debate(Script(turn, ballots(3, "0", "0", "1")), personas="expert")
    assert result.to_dict()["record"]["kind"] == "decision"
    assert DebateResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    record = result.record
    assert isinstance(record, DecisionRecord) and record.decided_at == DecidedAt(3, "vote")
    # the turns are the answer rounds: agent_2 changed once (B -> A), agent_3 twice (C -> A -> C)
    assert (result.rounds, result.answer_changes()) == (3, 3)
    assert result.stats()["rounds"] == record.turns_used == 3
    # 3 persona calls, 9 messages, 3 ballots; every scripted call costs 10 + 2 tokens
    assert record.stats(result.calls, 0.25) == {
        "decision_success": 1, "turns": 3, "max_turns": 5, "votes": 1, "ties": 0, "ballots": 3,
        "invalid_ballots": 0, "calls": 15, "tokens": 15 * 12, "answer_cosine": 0.25,
    }  # fmt: skip


# -- the whole input (issue 16) ----------------------------------------------------------------------


@dataclass(frozen=True)
class Image:
    """A non-text part: the engine must pass it on untouched."""

    path: str


RED = Image("red.png")
PICTURE = Problem(Question.of(["Look:", RED, "Is it red?"]), CHOICE.fmt)
NO_VOTE_WINS = {(a, t): str(i) for i, a in enumerate(AGENTS) for t in (3, 4, 5)}  # all 5 turns run


def shows_the_picture(call: Call) -> bool:
    """The image once in the call, the object itself, between the question's two texts."""
    found = [
        (m.role, m.content, i)
        for m in call.messages
        if not isinstance(m.content, str)
        for i, part in enumerate(m.content)
        if not isinstance(part, str)
    ]
    if len(found) != 1:
        return False
    role, parts, i = found[0]
    before, after = parts[i - 1] if i else None, parts[i + 1] if i + 1 < len(parts) else None
    return (
        role == "user"
        and parts[i] is RED
        and isinstance(before, str)
        and before.endswith("Task:\nLook:")
        and isinstance(after, str)
        and after.startswith("Is it red?")
    )


@pytest.mark.parametrize(
    "options, purposes",
    [
        (  # ballots tie once and one is asked again; agent_2's persona is asked again, then plain
            {"protocol": "simple", "extraction": "call"},
            {"persona", "discussion", "extract", "candidate", "vote"},
        ),
        ({"protocol": "simple", "all_agents_draft": True}, {"persona", "discussion", "vote"}),
        ({"protocol": "ranked", "paradigm": "ci"}, {"persona", "discussion", "vote"}),
        ({"protocol": "majority", "style": "reasoning"}, {"persona", "discussion", "extract"}),
        (  # all personas in one call, and made at once
            {"protocol": "simple", "persona_calls": "one_call"},
            {"personas", "discussion", "vote"},
        ),
        ({"protocol": "simple", "persona_calls": "concurrent"}, {"persona", "discussion", "vote"}),
    ],
)
async def test_every_call_shows_the_picture_in_place(
    options: dict[str, Any], purposes: set[str]
) -> None:
    def turn(agent: str, t: int) -> str:
        if options.get("style") == "reasoning":
            return ("[AGREE] " if agent != "agent_1" else "") + f"<{agent} t{t}> it looks like A."
        return tagged(agent, t)

    votes = {(a, 3): "0" for a in AGENTS} | {("agent_2", 3): "1", ("agent_3", 3): ["x", "2"]}
    script = Script(turn, votes | ballots(4, "1", "1", "1"), personas={"agent_2": "Pass."})
    rt, _ = await debate(script, PICTURE, personas="expert", **options)

    assert {c.purpose for c in rt.calls} == purposes
    assert any(c.attempt > 0 for c in rt.calls)  # follow-ups repeat the question too
    assert [c for c in rt.calls if not shows_the_picture(c)] == []


LONG = Problem(
    Question.of(["Context: " + "lorem ipsum " * 2000 + f"\nQuestion: {QUESTION}"]), CHOICE.fmt
)


def sent(rt: ScriptedRuntime) -> list[str]:
    return [serialized([(m.role, m.content) for m in c.messages]) for c in rt.calls]


@pytest.mark.parametrize(
    "options, calls",
    [  # shares measured: 0.838, 0.838, 0.845, 0.943, 0.910
        ({"protocol": "simple", "personas": "expert"}, 3 + 15 + 9),
        ({"protocol": "simple", "personas": "expert", "all_agents_draft": True}, 27),
        ({"protocol": "simple", "personas": "expert", "paradigm": "ci"}, 27),
        ({"protocol": "simple"}, 15 + 9),
        ({"protocol": "unanimity"}, 15),
    ],
)
async def test_prompts_share_a_long_question_as_their_prefix(
    options: dict[str, Any], calls: int
) -> None:
    rt, _ = await debate(Script(tagged, NO_VOTE_WINS), LONG, **options)
    assert len(rt.calls) == calls
    assert prefix_share(sent(rt)) >= 0.8


async def test_the_question_is_sent_anew_only_before_each_agents_first_turn() -> None:
    """Personas stay in their agents' system messages (as in the paper), so an agent's first
    turn cannot reuse another's prefix; every other call repeats one that holds the question:
    the persona calls and plain extractions share one, each agent's turns, ballots and
    candidate extractions (under its system message) another."""
    options = {"protocol": "simple", "personas": "expert", "extraction": "call"}
    rt, _ = await debate(Script(tagged, NO_VOTE_WINS), LONG, **options)
    prompts_sent = sent(rt)
    anew = [
        (c.agent, c.purpose, c.round)
        for i, (c, prompt) in enumerate(zip(rt.calls, prompts_sent))
        if max((common_prefix(prompt, p) for p in prompts_sent[:i]), default=0)
        < prompt.index(QUESTION) + len(QUESTION)
    ]
    assert {c.purpose for c in rt.calls} == {
        "persona",
        "discussion",
        "extract",
        "candidate",
        "vote",
    }
    assert anew == [("agent_1", "persona", 0)] + [(a, "discussion", 1) for a in AGENTS]


class Writes(Script):
    """The final solution a last agent writes is `final` (None: nothing readable)."""

    def __init__(self, final: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.final = final

    def __call__(self, call: Call) -> str:
        if call.purpose == "final":
            return f"ANSWER: {self.final}" if self.final else "I cannot tell."
        return super().__call__(call)


async def test_a_consensus_takes_the_proposal_unless_the_last_agent_writes_the_final_answer() -> (
    None
):
    """Spec 2.1: the paper's code takes the agreed proposal's solution (the default); its text has
    the last agent write the final solution from the latest messages (`final_from=last_agent`,
    one call more, under that agent's system message)."""
    agreed = {("agent_1", 1): msg("a1", "A"), ("agent_2", 1): msg("a2", "A", "[AGREE]")}
    rt, result = await debate(Writes("B", discussion=agreed), protocol="majority")
    assert (result.final, len(rt.calls), by_purpose(rt, "final")) == ("A", 2, [])
    assert result.options["final_from"] == "proposal"

    rt, result = await debate(
        Writes("B", discussion=agreed), protocol="majority", final_from="last_agent"
    )
    [final] = by_purpose(rt, "final")
    assert (final.agent, final.round, len(rt.calls)) == ("agent_2", 1, 3)
    assert final.messages[0].role == "system" and "<a1>" in transcript_text(final)
    assert result.final == "B" and result.options["final_from"] == "last_agent"
    assert recorded(result)["decided_at"] == {"turn": 1, "after": "agent_2"}

    # nothing readable after the follow-ups: the agreed proposal's solution stands
    rt, result = await debate(
        Writes(None, discussion=agreed), protocol="majority", final_from="last_agent"
    )
    assert result.final == "A" and len(by_purpose(rt, "final")) == 3
    assert any(t == "final answer" for t, _ in rt.infos)
