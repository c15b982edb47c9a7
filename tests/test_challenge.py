"""The decision debates' challenge stage and the scaling sweeps (seed 004 §4.2, Figs. 4-7).

Replies are chosen by what a call is (its purpose, agent, turn and `asks`), never by call order.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai.scorer import Target
from scripted import last_user, recorded, transcript_text
from test_decision import AGENTS, CHOICE, QUESTION, Script, ballots, by_purpose, debate, msg
from test_sim import draws, running
from testdata import STRATEGYQA

from mad_tasks.engine.answers import YesNo
from mad_tasks.engine.methods.decision import prompts
from mad_tasks.engine.methods.decision.challenge import FIXED_IRRELEVANT, adopted, read_verdict
from mad_tasks.engine.methods.decision.options import DecisionConfig
from mad_tasks.engine.methods.decision.records import DecisionRecord
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import (
    AnswerRequest,
    ChallengeRequest,
    CounterfeitRequest,
)
from mad_tasks.engine.runtime import Call
from mad_tasks.scorers.answers import final_answer
from mad_tasks.scorers.decision_stats import challenge_figures, decision_stats
from mad_tasks.solvers import voting
from mad_tasks.tasks.strategyqa import strategyqa


def agreed(agent: str, t: int) -> str:
    """Every agent holds A from turn 1 on: the simple vote after turn 3 picks A (12 calls)."""
    return msg(f"{agent} t{t}", "A", "" if (agent, t) == ("agent_1", 1) else "[AGREE]")


class Challenged(Script):
    """A debate decided on A after turn 3, then the challenge: `verdicts` and `new` answers per
    agent, `counterfeit` the challenger's reply."""

    def __init__(
        self,
        verdicts: dict[str, str],
        new: dict[str, str] | None = None,
        counterfeit: str = "This is wrong on purpose.\nANSWER: C",
        **kw: Any,
    ) -> None:
        super().__init__(kw.pop("discussion", agreed), ballots(3, "0", "0", "0"), **kw)
        self.verdicts, self.new, self.counterfeit = verdicts, new or {}, counterfeit

    def __call__(self, call: Call) -> str:
        if call.purpose == "challenge":
            return self.verdicts.get(call.agent, "AGREE")
        if call.purpose == "challenge_answer":
            return self.new.get(call.agent, "I would rather say B.\nANSWER: B")
        if call.purpose == "counterfeit":
            return self.counterfeit
        return super().__call__(call)


# -- the stage ---------------------------------------------------------------------------------------


async def test_challenge_none_makes_the_very_same_calls() -> None:
    script = Challenged({"agent_2": "DISAGREE"})
    plain_rt, plain = await debate(script)
    rt, result = await debate(
        script, challenge="none", challenge_adopt="majority", challenge_irrelevant="fixed"
    )
    assert rt.calls == plain_rt.calls and len(rt.calls) == 12
    assert rt.infos == plain_rt.infos and rt.spans == plain_rt.spans
    assert recorded(result)["challenges"] == [] and result.final == plain.final == "A"


async def test_solution_setting_asks_each_agent_once_and_a_dissenter_twice() -> None:
    script = Challenged({"agent_1": "AGREE", "agent_2": "DISAGREE", "agent_3": "Not sure."})
    rt, result = await debate(script, challenge="solution")

    verdicts, new = by_purpose(rt, "challenge"), by_purpose(rt, "challenge_answer")
    assert len(rt.calls) == 12 + 3 + 1 and len(result.calls) == 16
    # 9 messages in speaking order, the ballots at once, the verdicts at once, one new answer
    assert rt.critical_path == 9 + 1 + 1 + 1
    assert rt.gathered[-1] == 3  # the three verdicts run together
    assert {c.round for c in verdicts + new} == {4}  # one round after the last turn
    for call in verdicts:
        seen = transcript_text(call)
        assert call.messages[1].text.startswith(f"Task:\n{QUESTION}")
        assert last_user(call).endswith(
            f"The final answer of the discussion: A) alpha\n\n{prompts.VERDICT_REQUEST}"
        )
        assert "<agent_" not in seen and prompts.HISTORY not in seen  # no discussion shown
        assert call.asks == ChallengeRequest(CHOICE.fmt, "A")
        assert call.role == call.agent
    [follow] = new
    assert follow.agent == "agent_2" and follow.asks == AnswerRequest(CHOICE.fmt)
    # asked afresh, as MALLM does: the same context, the verdict not shown
    [judged] = [c for c in verdicts if c.agent == "agent_2"]
    assert [m.role for m in follow.messages] == [m.role for m in judged.messages]
    assert follow.messages[0] == judged.messages[0]
    assert "DISAGREE" not in transcript_text(follow)
    assert last_user(follow) == last_user(judged).replace(
        prompts.challenge("A) alpha"), prompts.new_answer("A) alpha", CHOICE.fmt)
    )

    [stage] = recorded(result)["challenges"]
    assert [(v["agent"], v["verdict"], v["new_answer"], v["calls"]) for v in stage["verdicts"]] == [
        ("agent_1", "agree", None, 1), ("agent_2", "disagree", "B", 2),
        ("agent_3", "abstain", None, 1),
    ]  # fmt: skip
    assert (stage["setting"], stage["decided"], stage["shown"], stage["shown_answer"]) == (
        "solution", "A", "A) alpha", "A",
    )  # fmt: skip
    assert (stage["adopted"], result.final) == (None, "A")  # challenge_adopt=never
    assert DebateResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    assert rt.spans[-1] == "challenge: solution"
    spans = {r.span for r in rt.recorded if r.call.purpose.startswith("challenge")}
    assert spans == {"challenge: solution"}
    assert rt.info_titles()[-2:] == ["decision", "challenge: solution"]
    table = dict(rt.infos)["challenge: solution"]
    assert "the decision's answer: **A) alpha**" in table
    assert "\nagent_2  disagree  B) beta" in table
    assert "the decision's answer stays final (challenge_adopt=never): **A) alpha**" in table


async def test_history_setting_shows_the_whole_discussion() -> None:
    rt, _ = await debate(Challenged({}), challenge="history", memory_window=0)
    assert len(rt.calls) == 12 + 3 and rt.critical_path == 10 + 1  # everyone agrees
    for call in by_purpose(rt, "challenge"):
        seen = transcript_text(call)
        assert prompts.HISTORY in seen
        # every message of every turn, whatever the discussion's memory window was
        for agent in AGENTS:
            for t in (1, 2, 3):
                assert f"<{agent} t{t}>" in seen
        own = [m.text for m in call.messages if m.role == "assistant"]
        assert len(own) == 3 and all(f"<{call.agent} t" in m for m in own)
        # the others' last messages and the question share one user message (roles alternate)
        assert last_user(call).endswith(prompts.challenge("A) alpha"))


async def test_wrong_setting_shows_the_challengers_answer_instead() -> None:
    script = Challenged({"agent_1": "DISAGREE", "agent_2": "DISAGREE"}, {"agent_2": "ANSWER: B"})
    rt, result = await debate(script, challenge="wrong")

    [writer] = by_purpose(rt, "counterfeit")
    # round 0: it needs only the task, so it is written while the debate runs
    assert (writer.agent, writer.role, writer.round) == ("challenger", "challenger", 0)
    assert rt.gathered[0] == 2 and writer in [r.call for r in rt.recorded[:2]]  # with turn 1
    assert next(r.span for r in rt.recorded if r.call == writer) == "challenger"
    assert writer.asks == CounterfeitRequest(CHOICE.fmt, "wrong")
    assert writer.messages[0].text.startswith(f"Task:\n{QUESTION}")
    assert "deliberately wrong" in last_user(writer) and CHOICE.fmt.instruction() in last_user(
        writer
    )
    for call in by_purpose(rt, "challenge"):
        assert "final answer of the discussion: C) gamma" in last_user(call)
        assert "A) alpha" not in last_user(call)
        assert call.asks == ChallengeRequest(CHOICE.fmt, "C")
    assert len(rt.calls) == 12 + 1 + 3 + 2
    # 9 messages and the ballots (the challenger beside them), the verdicts, the new answers
    assert rt.critical_path == 10 + 1 + 1
    [stage] = recorded(result)["challenges"]
    assert (stage["shown"], stage["shown_answer"], stage["decided"]) == ("C) gamma", "C", "A")
    assert stage["challenger"] == "This is wrong on purpose.\nANSWER: C"
    assert result.final == "A"


async def test_an_unreadable_wrong_answer_means_nothing_to_challenge() -> None:
    script = Challenged({}, counterfeit="  I would rather not write a wrong answer.  ")
    rt, result = await debate(script, challenge="wrong", challenge_no_answer="skip")
    assert len(by_purpose(rt, "counterfeit")) == 3  # asked again twice (retries), as any answer
    assert not by_purpose(rt, "challenge")  # a refusal is no wrong answer: it is not shown
    assert len(rt.calls) == 12 + 3 and rt.critical_path == 10  # all beside the debate
    [stage] = recorded(result)["challenges"]
    assert (stage["shown"], stage["shown_answer"], stage["verdicts"]) == (None, None, [])
    assert stage["challenger"] == "  I would rather not write a wrong answer.  "
    assert (
        "no wrong answer could be read from the challenger's reply: nothing was asked"
        in (dict(rt.infos)["challenge: wrong"])
    )
    record = result.record
    assert isinstance(record, DecisionRecord)
    missing, wholes = challenge_figures(record, CHOICE.fmt, Target("B"))
    assert wholes == {} and {getattr(v, "reason", None) for v in missing.values()} == {
        "no wrong answer could be read from the challenger's reply, so no agent was asked"
    }


@pytest.mark.parametrize("source, calls", [("fixed", 0), ("call", 1)])
async def test_irrelevant_setting(source: str, calls: int) -> None:
    script = Challenged({}, counterfeit="Lisbon has mild winters.")
    rt, result = await debate(script, challenge="irrelevant", challenge_irrelevant=source)
    writers = by_purpose(rt, "counterfeit")
    assert len(writers) == calls and len(rt.calls) == 12 + calls + 3
    assert rt.critical_path == 10 + 1  # a challenger's call runs beside the debate
    shown = FIXED_IRRELEVANT if source == "fixed" else "Lisbon has mild winters."
    for call in by_purpose(rt, "challenge"):
        assert f"final answer of the discussion: {shown}\n" in last_user(call)
        assert call.asks == ChallengeRequest(CHOICE.fmt, None)  # not an answer
    if writers:
        assert writers[0].asks == CounterfeitRequest(CHOICE.fmt, "irrelevant")
        assert "nothing to do with this task" in last_user(writers[0])
    assert recorded(result)["challenges"][0]["shown"] == shown
    assert result.options["challenge_irrelevant"] == source


@pytest.mark.parametrize(
    "new, final, asked",
    [
        ({"agent_1": "ANSWER: B", "agent_2": "ANSWER: B"}, "B", 1),  # 2 of 3 agents: adopted
        ({"agent_1": "ANSWER: B", "agent_2": "ANSWER: C"}, "A", 1),  # split: the decision stays
        # one readable: not a majority; agent_2 is asked twice more (retries)
        ({"agent_1": "ANSWER: B", "agent_2": "no idea"}, "A", 3),
    ],
)
async def test_majority_adopts_a_new_answer_most_agents_gave(
    new: dict, final: str, asked: int
) -> None:
    script = Challenged({"agent_1": "DISAGREE", "agent_2": "**Disagree.**"}, new)
    rt, result = await debate(script, challenge="solution", challenge_adopt="majority")
    assert len(rt.calls) == 12 + 3 + 1 + asked and rt.critical_path == 10 + 1 + asked
    assert result.final == final
    assert recorded(result)["challenges"][0]["adopted"] == (final if final != "A" else None)
    _, never = await debate(script, challenge="solution")
    assert never.final == "A"


@pytest.mark.parametrize("setting, writer", [("solution", 0), ("wrong", 1)])
async def test_a_consensus_debate_is_challenged_after_its_agreement(
    setting: str, writer: int
) -> None:
    # agent_2 agrees with agent_1 in turn 1: majority consensus after 2 calls
    script = Challenged({"agent_3": "DISAGREE"}, counterfeit="Surely it is C.\nANSWER: C")
    rt, result = await debate(script, challenge=setting, protocol="majority")
    assert recorded(result)["decided_at"] == {"turn": 1, "after": "agent_2"}
    assert len(rt.calls) == 2 + writer + 3 + 1
    # the two messages (the challenger beside them), the verdicts, agent_3's new answer
    assert rt.critical_path == 2 + 1 + 1
    assert {c.round for c in by_purpose(rt, "challenge") + by_purpose(rt, "challenge_answer")} == {
        2
    }
    shown = "A) alpha" if setting == "solution" else "C) gamma"
    for call in by_purpose(rt, "challenge"):
        assert f"final answer of the discussion: {shown}\n" in last_user(call)
    assert result.final == "A" and recorded(result)["challenges"][0]["shown"] == shown


async def test_no_answer_means_nothing_to_challenge() -> None:
    def split(agent: str, t: int) -> str:
        return msg(f"{agent} t{t}", "ABC"[int(agent[-1]) - 1], "[DISAGREE]" if t > 1 else "")

    ties = {(a, t): str(i) for t in (3, 4, 5) for i, a in enumerate(AGENTS)}
    script = Challenged({}, discussion=split)
    script.ballots = ties
    rt, result = await debate(
        script, challenge="history", no_decision="none", challenge_no_answer="skip"
    )
    assert result.final is None and not by_purpose(rt, "challenge")
    [stage] = recorded(result)["challenges"]
    assert stage["shown"] is None and stage["verdicts"] == []
    assert "the debate has no answer: nothing was asked" in dict(rt.infos)["challenge: history"]


@pytest.mark.parametrize(
    "reply, verdict",
    [
        ("AGREE", True),
        ("DISAGREE", False),
        ("  disagree.", False),
        ("**Agree**", True),
        ("'DISAGREE'", False),
        ("[AGREE] the answer holds.", True),
        ("After thinking it over: I DISAGREE.", False),
        ("I agree.", True),  # in any case
        ("I disagree: it misreads the question.", False),
        ("I DISAGREE, I DISAGREE.", False),  # the same word twice
        ("I do not agree with it.", None),  # a negated verdict: an abstention
        ("I don't disagree.", None),
        ("I don\u2019t agree.", None),  # a typographic apostrophe: the same negation
        ("Never AGREE.", None),
        ("AGREE or DISAGREE? Hard to say.", None),  # both words: a hedge
        ("Hmm. AGREE, no, DISAGREE.", None),
        ("DISAGREE. Well, I agree in part.", None),
        ("", None),
        ("agreed", None),
        ("DISAGREEMENT", None),
    ],
)
def test_read_verdict(reply: str, verdict: bool | None) -> None:
    assert read_verdict(reply) is verdict


def test_adopted_needs_more_than_half_of_all_agents() -> None:
    key = str.lower
    assert adopted(["B", "b", None], 3, key) == "B"
    assert adopted(["B", None, None], 3, key) is None
    assert adopted(["B", "B", "C", "C"], 4, key) is None
    assert adopted(["B", "B", "B", "C"], 4, key) == "B"
    assert adopted([], 1, key) is None


@pytest.mark.parametrize(
    "options, name",
    [
        ({"challenge": "rag"}, "challenge"),
        ({"challenge_adopt": "always"}, "challenge_adopt"),
        ({"challenge_irrelevant": "random"}, "challenge_irrelevant"),
    ],
)
def test_bad_challenge_options_name_the_option(options: dict[str, Any], name: str) -> None:
    with pytest.raises(ValueError, match=f"invalid option '{name}'"):
        DecisionConfig(**options)


# -- the figures (Figs. 6 and 7) ---------------------------------------------------------------------


async def test_challenge_figures_count_disagreements_and_score_new_answers() -> None:
    script = Challenged(
        {"agent_1": "DISAGREE", "agent_2": "DISAGREE", "agent_3": "maybe"},
        {"agent_1": "ANSWER: B", "agent_2": "I cannot say."},
    )
    _, result = await debate(script, challenge="solution")
    record = result.record
    assert isinstance(record, DecisionRecord)
    # the target is B: the decision (A) is wrong, agent_1's new answer right, agent_2's unreadable
    values, wholes = challenge_figures(record, CHOICE.fmt, Target("B"))
    assert values == {
        "challenges": 2, "challenge_abstentions": 1, "new_answers_correct": 1,
        "new_answer_gain": 1, "challenge_changed": 0,
    }  # fmt: skip
    assert wholes["challenges"]["verdicts"] == 2  # the abstention is no verdict
    assert wholes["challenge_abstentions"]["asked"] == 3
    assert wholes["new_answers_correct"]["new_answers"] == 2
    assert tuple(wholes["challenges"]["judged"]["solution"].values())[1:] == (
        False, True,
    )  # fmt: skip
    # the target is A: the decision was right, and both new answers lose it
    values, _ = challenge_figures(record, CHOICE.fmt, Target("A"))
    assert (values["new_answers_correct"], values["new_answer_gain"]) == (0, -2)

    # a "wrong" answer may be the target: the figures say so
    _, wrong = await debate(Challenged({}, counterfeit="ANSWER: B"), challenge="wrong")
    assert isinstance(wrong.record, DecisionRecord)
    _, wholes = challenge_figures(wrong.record, CHOICE.fmt, Target("B"))
    assert tuple(wholes["challenges"]["judged"]["wrong"].values())[1:] == (
        True, False,
    )  # fmt: skip
    _, irrelevant = await debate(
        Challenged({}), challenge="irrelevant", challenge_irrelevant="fixed"
    )
    assert isinstance(irrelevant.record, DecisionRecord)
    _, wholes = challenge_figures(irrelevant.record, CHOICE.fmt, Target("B"))
    assert tuple(wholes["challenges"]["judged"]["irrelevant"].values())[1:] == (
        None, None,
    )  # fmt: skip

    _, plain = await debate(script)
    assert isinstance(plain.record, DecisionRecord)
    missing, _ = challenge_figures(plain.record, CHOICE.fmt, Target("A"))
    assert {getattr(v, "reason", None) for v in missing.values()} == {
        "no challenge stage ran (challenge=none)"
    }


def test_madsim_challenges_what_it_does_not_believe(monkeypatch) -> None:
    running(monkeypatch, "yes")
    fmt, sure = YesNo(), {"accuracy": 1.0, "conformity": 0.0}
    assert set(draws(ChallengeRequest(fmt, "yes"), 10, **sure)) == {"AGREE"}
    assert set(draws(ChallengeRequest(fmt, "no"), 10, **sure)) == {"DISAGREE"}
    assert set(draws(ChallengeRequest(fmt, "no"), 10, conformity=1.0)) == {"AGREE"}
    assert set(draws(ChallengeRequest(fmt, None), 10, conformity=1.0)) == {"DISAGREE"}
    assert {read_verdict(r) for r in draws(ChallengeRequest(fmt, "no"), 10, unparseable=1.0)} == {
        None
    }
    assert {fmt.extract(r) for r in draws(CounterfeitRequest(fmt, "wrong"), 10)} == {"no"}
    assert {fmt.extract(r) for r in draws(CounterfeitRequest(fmt, "irrelevant"), 10)} == {None}


@pytest.mark.parametrize("setting", ["solution", "history", "wrong", "irrelevant"])
def test_challenge_on_the_simulated_model_in_inspect(run, setting: str) -> None:
    task = strategyqa(data_path=str(STRATEGYQA), subset=3)
    task = Task(
        dataset=task.dataset, setup=task.setup,
        # madsim's self-first ballots tie: the paper's fallback gives the stage an answer to judge
        solver=voting(challenge=setting, personas="none", no_decision="first_agent"),
        scorer=[final_answer(), *decision_stats()],
    )  # fmt: skip
    log = run(task, model="madsim/x")
    metrics = {name: m.value for s in log.results.scores for name, m in s.metrics.items()}
    disagreed = verdicts = 0
    for sample in log.samples:
        [stage] = sample.store["mad_tasks:debate"]["record"]["challenges"]
        assert stage["setting"] == setting and len(stage["verdicts"]) == 3
        kinds = [v["verdict"] for v in stage["verdicts"]]
        disagreed += kinds.count("disagree")
        verdicts += kinds.count("disagree") + kinds.count("agree")
        assert sample.scores["challenges"].value == kinds.count("disagree")
        if setting == "irrelevant":
            assert kinds == ["disagree"] * 3  # madsim always challenges a non-answer
    assert metrics["challenge_rate"] == pytest.approx(disagreed / verdicts)


# -- the scaling sweeps (Figs. 4 and 5): simple voting, no personas, every agent holding A ---------


@pytest.mark.parametrize("agents", range(1, 11))
async def test_agents_sweep_call_counts(agents: int) -> None:
    rt, result = await debate(Script(agreed), agents=agents, protocol="simple")
    # 3 turns of N messages, then N ballots at once; the vote decides
    assert len(rt.calls) == 3 * agents + agents
    assert rt.critical_path == 3 * agents + 1
    assert result.final == "A" and recorded(result)["decided_at"] == {"turn": 3, "after": "vote"}


async def test_a_single_agent_improves_its_own_solution_then_votes_for_it() -> None:
    rt, result = await debate(Script(agreed), agents=1, protocol="simple")
    assert [(c.agent, c.purpose, c.round) for c in rt.calls] == [
        ("agent_1", "discussion", 1), ("agent_1", "discussion", 2),
        ("agent_1", "discussion", 3), ("agent_1", "vote", 3),
    ]  # fmt: skip
    turn_2 = rt.calls[1]
    assert f"{prompts.CURRENT} A) alpha" in transcript_text(turn_2)
    assert [m.role for m in turn_2.messages] == ["system", "user", "assistant", "user"]
    [vote] = recorded(result)["votes"]
    assert [c["agents"] for c in vote["candidates"]] == [["agent_1"]] and vote["tally"] == [1]


@pytest.mark.parametrize("turn", range(1, 11))
async def test_vote_turn_sweep_call_counts(turn: int) -> None:
    rt, result = await debate(Script(agreed), vote_turn=turn, max_turns=turn + 2, protocol="simple")
    assert len(rt.calls) == 3 * turn + 3
    assert rt.critical_path == 3 * turn + 1
    assert {c.round for c in by_purpose(rt, "vote")} == {turn}
    assert recorded(result)["decided_at"] == {"turn": turn, "after": "vote"}


async def test_a_tie_at_vote_turn_ten_adds_a_turn() -> None:
    script = Script(agreed, ballots(10, "0", "1", "2") | ballots(11, "1", "1", "0"))
    rt, result = await debate(script, vote_turn=10, max_turns=12, protocol="simple")
    assert len(rt.calls) == 33 + 3 + 3 and rt.critical_path == 30 + 1 + 3 + 1
    assert recorded(result)["decided_at"] == {"turn": 11, "after": "vote"}
