"""The control conditions `-S peers=self|noise` in PD³'s tournament (engine/peers.py,
pd3/tournament.py): the exact record each debating expert read, the same calls as under `others`,
noise in which PD³'s readers find no pick and no `[RESULT]` list, the senior and the vote on the
real debate, the record's options, and which PD³ methods refuse the option.

Replies are the scripted ones of test_pd3_engine.py: chosen by the request, never by what the
prompt shows, so every condition gets the same replies and only what the experts read differs."""

from __future__ import annotations

from collections import Counter

import pytest
from scripted import ScriptedRuntime, family, last_user
from test_pd3_engine import QUERY_TEXT, Script, marks, record_of, run, where

from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.methods.pd3 import prompts
from mad_tasks.engine.methods.pd3.options import PD3Options
from mad_tasks.engine.peers import PEERS, noise
from mad_tasks.engine.protocols.pd3 import LABEL_NUMBERS, read_picks, read_result
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.runtime import Call

GROUPS = {"group_size": 25}  # 6 groups of 25 candidates, 10 calls each
EXPERTS = (1, 2, 3)
ROUNDS = (0, 1, 2)
LABELS = [f"P{n}" for n in LABEL_NUMBERS]


def run_as(peers: str, **more: object) -> tuple[DebateResult, ScriptedRuntime]:
    return run(Script(), PD3Options(peers=peers, **{**GROUPS, **more}))  # type: ignore[arg-type]


def said(result: DebateResult) -> dict[tuple[int, int, int], str]:
    """Every statement's text by (group, expert, round)."""
    return {
        (g.number, s.expert, s.round): s.text
        for g in record_of(result).groups
        for s in g.statements
    }


def record(texts: dict[tuple[int, int, int], str], group: int, rounds: range, who=EXPERTS) -> str:
    return prompts.debate_record([[(e, texts[group, e, r]) for e in who] for r in rounds])


def debating(rt: ScriptedRuntime) -> list[Call]:
    """The experts' calls of the debate rounds (round 0 reads no record)."""
    return [c for c in rt.calls if family(c.role) == "expert" and c.round > 0]


def prompts_by_call(rt: ScriptedRuntime) -> dict[tuple[str, int], str]:
    return {(c.agent, c.round): last_user(c) for c in rt.calls}


def noised(texts: dict[tuple[int, int, int], str], group: int, me: int, r: int) -> str:
    """Expert `me`'s view of the record before round `r` under noise: the others' statements as
    noise of their length, seeded by the sample's question, the author and the round."""

    def shown(e: int, s: int) -> str:
        text = texts[group, e, s]
        if e == me:
            return text
        return noise(len(text.strip()), QUERY_TEXT, f"group {group} expert {e}", s, "")

    return prompts.debate_record([[(e, shown(e, s)) for e in EXPERTS] for s in range(r)])


# -- the calls, the record, the decision -------------------------------------------------------


def test_the_calls_senior_and_vote_are_the_methods_under_every_condition() -> None:
    calls, seniors, tops = {}, {}, {}
    for peers in PEERS:
        result, rt = run_as(peers)
        calls[peers] = Counter((c.agent, c.role, c.purpose, c.round, c.attempt) for c in rt.calls)
        seniors[peers] = [last_user(c) for c in rt.calls if c.role == "senior"]
        rec = record_of(result)
        tops[peers] = (rec.top, rec.votes, rec.initial)
        assert result.options["peers"] == peers  # the record names the condition
        assert result.options == PD3Options(peers=peers, **GROUPS).record()  # type: ignore[arg-type]
    assert sum(calls["others"].values()) == 60
    assert calls["self"] == calls["others"] == calls["noise"]
    # the senior reads the real debate, and the vote counts the real decisions
    assert seniors["self"] == seniors["others"] == seniors["noise"]
    assert tops["self"] == tops["others"] == tops["noise"]


def test_under_self_an_expert_reads_exactly_its_own_earlier_statements() -> None:
    result_others, rt_others = run_as("others")
    result, rt = run_as("self")
    texts = said(result)
    assert texts == said(result_others)
    real = prompts_by_call(rt_others)
    assert len(debating(rt)) == 6 * 3 * 2
    for call in debating(rt):
        group, expert = where(call)
        r = call.round
        everyone = record(texts, group, range(r))
        own = record(texts, group, range(r), who=(expert,))
        assert real[call.agent, r].count(everyone) == 1
        assert last_user(call) == real[call.agent, r].replace(everyone, own)
        assert marks(call) == {(group, expert, s) for s in range(r)}
    for call in rt.calls:  # round 0 and the senior: as under others
        if call.round == 0 or call.role == "senior":
            assert last_user(call) == real[call.agent, call.round]


def test_under_self_sequential_an_expert_reads_no_part_of_the_round_in_progress() -> None:
    _, rt_others = run_as("others", visibility="sequential")
    result, rt = run_as("self", visibility="sequential")
    texts = said(result)
    real = prompts_by_call(rt_others)
    [call] = [c for c in rt.calls if c.agent == "group 2 expert 3" and c.round == 2]
    seen = last_user(call)
    assert "(this round, so far)" in real[call.agent, 2]
    assert "(this round, so far)" not in seen
    so_far = [[(e, texts[2, e, s]) for e in EXPERTS] for s in (0, 1)]
    so_far.append([(e, texts[2, e, 2]) for e in (1, 2)])  # round 2 before expert 3 speaks
    everyone = prompts.debate_record(so_far, current=True)
    assert real[call.agent, 2].count(everyone) == 1
    assert seen == real[call.agent, 2].replace(everyone, record(texts, 2, range(2), who=(3,)))
    assert marks(call) == {(2, 3, 0), (2, 3, 1)}


def test_under_noise_an_expert_reads_the_others_as_noise_of_their_length() -> None:
    _, rt_others = run_as("others")
    result, rt = run_as("noise")
    _, rt_again = run_as("noise")
    assert [c.messages for c in rt.calls] == [c.messages for c in rt_again.calls]  # deterministic
    texts = said(result)
    real = prompts_by_call(rt_others)
    for call in debating(rt):
        group, expert = where(call)
        r = call.round
        everyone = record(texts, group, range(r))
        seen = last_user(call)
        assert seen == real[call.agent, r].replace(everyone, noised(texts, group, expert, r))
        assert len(seen) == len(real[call.agent, r])  # the tokens match the method's
        assert marks(call) == {(group, expert, s) for s in range(r)}  # only its own readable
    # each author's noise is its own: the same expert and round in two groups differ
    one, two = noised(texts, 1, 3, 1), noised(texts, 2, 3, 1)
    assert one != two and len(one) == len(two)


def test_the_noise_carries_no_pick_and_no_result_list_for_pd3s_readers() -> None:
    result, rt = run_as("noise")
    texts = said(result)
    for call in debating(rt):
        group, expert = where(call)
        heard = [t for (g, _, s), t in texts.items() if g == group and s < call.round]
        assert len(heard) == 3 * call.round  # the real statements name picks
        assert all(read_picks(t, LABELS) for t in heard)
        record = last_user(call).split("Record of the debate so far:")[1]
        others = [
            line.split(": ", 1)[1]
            for line in record.splitlines()
            if line.startswith("- Expert ") and not line.startswith(f"- Expert {expert}:")
        ]
        assert len(others) == 2 * call.round
        for words in others:
            assert read_picks(words, LABELS) == ()
            assert read_result(words, LABELS) is None
    for length in (0, 1, 5, 40, 400, 4000):
        for seed in range(20):
            words = noise(length, QUERY_TEXT, "group 1 expert 2", seed)
            assert read_picks(words, LABELS) == () and read_result(words, LABELS) is None


# -- who takes the option ----------------------------------------------------------------------


def test_pd3_takes_the_option_and_refuses_it_where_no_expert_reads_another() -> None:
    make = CATALOGUE["pd3"].factory("solver")
    assert make(peers="noise").peers == "noise"
    with pytest.raises(OptionError, match="'peers': got 'mirror', allowed: others, self, noise"):
        make(peers="mirror")
    for alone in ({"decider": "single"}, {"debate_rounds": 0}, {"agents": 1}):
        with pytest.raises(OptionError, match=r"'peers': got 'self', allowed: others unless"):
            make(peers="self", **alone)
        make(peers="others", **alone)


@pytest.mark.parametrize(
    "name", ["llm_voting", "listwise", "pointwise", "tourrank", "pd3_feedback"]
)
def test_the_pd3_methods_whose_agents_do_not_debate_refuse_it(name: str) -> None:
    with pytest.raises(OptionError, match=r"'peers': got 'self'.*no such option"):
        CATALOGUE[name].factory("solver")(peers="self")
