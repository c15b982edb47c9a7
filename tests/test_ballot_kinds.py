"""A new ballot kind takes one module: this one. `veto` (name the one solution you reject; every other
solution gets a point) is defined and registered here and nowhere else; the decision debate then asks
for it in its own words, reads and counts it, and the simulated model writes it."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import pytest
from inspect_ai.log import EvalLog
from scripted import ScriptedRuntime, last_user, recorded
from testdata import STRATEGYQA

from mad_tasks.engine.answers import Choice
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.decision.debate import decision_debate
from mad_tasks.engine.methods.decision.options import DecisionConfig
from mad_tasks.engine.protocols.voting import (
    BallotKind,
    BallotRules,
    Parsed,
    ballot_kinds,
    register_ballot_kind,
    unregister_ballot_kind,
)
from mad_tasks.engine.requests import BallotRequest
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem, Session

_INDEX = re.compile(r"[0-9]{1,6}")  # bounded: linear on any reply


class Veto(BallotKind):
    name = "veto"

    def task(self, rules: BallotRules) -> str:
        return "Name the one solution to the task you would reject."

    def request(self, rules: BallotRules) -> str:
        return f'Reply with only its number (for example "{self.write([0], [1], rules)}").'

    def parse(self, text: str, rules: BallotRules) -> int | None:
        m = _INDEX.search(text)
        return int(m.group(0)) if m and int(m.group(0)) < rules.candidates else None

    def points(self, ballot: Parsed, rules: BallotRules) -> list[int]:
        return [int(i != ballot) for i in range(rules.candidates)]

    def write(self, preferred: Sequence[int], others: Sequence[int], rules: BallotRules) -> str:
        return str(others[-1] if others else preferred[-1])  # the one liked least


@pytest.fixture
def veto() -> Iterator[None]:
    register_ballot_kind(Veto())
    yield
    unregister_ballot_kind("veto")


PROBLEM = Problem(Question.of(["Which option is right?"]), Choice(("alpha", "beta", "gamma")))
VETOES = {"agent_1": ["2"], "agent_2": ["Solution 2."], "agent_3": ["none of them", "1"]}


def reply(call: Call) -> str:
    """agent_k proposes option k; the ballots are VETOES[agent][attempt]."""
    if call.purpose == "discussion":
        return f"[DISAGREE] my view.\nANSWER: {'ABC'[int(call.agent[-1]) - 1]}"
    assert call.purpose == "vote", call.purpose
    return VETOES[call.agent][call.attempt]


async def test_a_registered_kind_runs_a_voting_debate(veto: None) -> None:
    assert ballot_kinds()[-1] == "veto"
    rt = ScriptedRuntime(reply)
    cfg = DecisionConfig(protocol="veto", personas="none", max_turns=1, vote_turn=1)
    result = await decision_debate(Session(rt, PROBLEM), cfg)

    [vote] = recorded(result)["votes"]
    # vetoes 2, 2, 1: candidate 0 keeps all three points, 1 two, 2 one
    assert (vote["tally"], vote["winner"], vote["invalid"], vote["retries"]) == ([3, 2, 1], 0, 0, 1)
    assert [b["parsed"] for b in vote["ballots"]] == [2, 2, 1]
    assert result.final == "A"
    ballots = [c for c in rt.calls if c.purpose == "vote"]
    rules = BallotRules("veto", 3)
    assert {c.asks for c in ballots} == {BallotRequest(PROBLEM.fmt, ("A", "B", "C"), rules)}
    first = next(c for c in ballots if c.agent == "agent_1")
    assert f"\n\n{Veto().task(rules)}\n\n" in last_user(first)  # the kind's own wording
    assert last_user(first).endswith(Veto().request(rules))
    retried = next(c for c in ballots if c.agent == "agent_3" and c.attempt == 1)
    assert last_user(retried).endswith(Veto().request(rules))  # and its reminder


def test_an_unregistered_kind_is_refused(veto: None) -> None:
    unregister_ballot_kind("veto")
    with pytest.raises(ValueError, match=r"invalid option 'protocol': got 'veto'"):
        DecisionConfig(protocol="veto")


def test_the_voting_solver_takes_a_registered_kind_on_madsim(veto: None, run) -> None:
    from mad_tasks.solvers import voting
    from mad_tasks.tasks.strategyqa import strategyqa

    log: EvalLog = run(
        strategyqa(data_path=str(STRATEGYQA)),
        # every agent holds the same answer and vetoes the same copy of it: two copies tie on
        # points, which MALLM's code leaves undecided; the paper's rule takes the first agent's
        solver=voting(protocol="veto", max_turns=1, vote_turn=1, no_decision="first_agent"),
        model="madsim/x",
        model_args={"accuracy": 1.0},
        limit=2,
    )
    for sample in log.samples:
        record = sample.store["mad_tasks:debate"]
        [vote] = record["record"]["votes"]
        # madsim wrote every ballot with Veto.write: three readable vetoes, two points each
        assert [b["parsed"] is not None for b in vote["ballots"]] == [True] * 3
        assert sum(vote["tally"]) == 3 * (len(vote["candidates"]) - 1)
        assert record["final"] == sample.target
