"""The challenge stage's five variants run together, as MALLM's code runs them (`challenge=all`),
the information variant's retrieved facts, the stand-in judged when there is no answer, and the
per-variant figures (seed 004 §4.2; docs/fidelity.md's MALLM section).

Replies are chosen by what a call is (its purpose, agent and `asks`), never by call order.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai.scorer import SampleScore, Score, Target
from scripted import SETUP, ScriptedRuntime, last_user, transcript_text
from test_challenge import Challenged
from test_decision import AGENTS, CHOICE, QUESTION, msg
from testdata import STRATEGYQA

from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.methods.decision import prompts
from mad_tasks.engine.methods.decision.challenge import FIXED_IRRELEVANT, NO_ANSWER
from mad_tasks.engine.methods.decision.debate import SPECS
from mad_tasks.engine.methods.decision.facts import Facts, passages
from mad_tasks.engine.methods.decision.options import DecisionConfig
from mad_tasks.engine.methods.decision.records import DecisionRecord
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import AnswerRequest, ChallengeRequest
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Session
from mad_tasks.scorers.answers import final_answer
from mad_tasks.scorers.decision_stats import challenge_figures, decision_stats, rate_by_variant
from mad_tasks.solvers import voting
from mad_tasks.tasks.strategyqa import strategyqa

VOTING = SPECS[0]
VARIANTS = ("solution", "wrong", "irrelevant", "history", "information")  # MALLM's order
# the second passage shares the task's words: BM25 ranks it first
FACTS = (
    "Otters hold hands while they sleep.\n\n"
    "Which option is right: alpha is the right option\nof the three.\n\n"
    "Glaciers move a few metres a day."
)
BEST = "Which option is right: alpha is the right option of the three."


@pytest.fixture
def facts(tmp_path: Path) -> str:
    path = tmp_path / "facts.txt"
    path.write_text(FACTS)
    return str(path)


async def run(script: Any, **options: Any) -> tuple[ScriptedRuntime, DebateResult]:
    """The `voting` solver as every host prepares it (the facts file read in `prepare`)."""
    opts = VOTING.options(**{**VOTING.preset, "personas": "none", **options})
    rt = ScriptedRuntime(script)
    result = await VOTING.prepare(opts, SETUP)(Session(rt, CHOICE))
    return rt, result


def of(rt: ScriptedRuntime, variant: str, purpose: str) -> list[Call]:
    """The calls of one variant (its span) for one purpose."""
    return [
        r.call
        for r in rt.recorded
        if r.span == f"challenge: {variant}" and r.call.purpose == purpose
    ]


async def test_all_runs_the_five_variants_in_mallms_order(facts: str) -> None:
    script = Challenged({"agent_2": "DISAGREE"})  # agent_2 disagrees with whatever it is shown
    rt, result = await run(script, challenge="all", challenge_facts=facts, challenge_facts_k=1)

    # the debate (9 messages, 3 ballots), the wrong answer, 5 x 3 verdicts, 5 new answers
    assert len(rt.calls) == 12 + 1 + 15 + 5
    assert [c.purpose for c in rt.calls].count("counterfeit") == 1
    assert rt.info_titles()[-6:] == ["decision", *(f"challenge: {v}" for v in VARIANTS)]
    shown = {
        "solution": "A) alpha",
        "wrong": "C) gamma",
        "irrelevant": FIXED_IRRELEVANT,  # MALLM's fixed text, the default
        "history": "A) alpha",
        "information": "A) alpha",
    }
    for variant in VARIANTS:
        verdicts, new = of(rt, variant, "challenge"), of(rt, variant, "challenge_answer")
        assert sorted(c.agent for c in verdicts) == list(AGENTS)
        assert [c.agent for c in new] == ["agent_2"]
        for call in verdicts:
            seen = transcript_text(call)
            assert call.messages[1].text.startswith(f"Task:\n{QUESTION}")
            assert f"The final answer of the discussion: {shown[variant]}\n" in last_user(call)
            # only the history variant shows the discussion, only the information one the facts
            assert ("<agent_1 t1>" in seen) == (prompts.HISTORY in seen) == (variant == "history")
            assert (
                (BEST in seen) == ("Additional information" in seen) == (variant == "information")
            )
            assert "Otters" not in seen and "Glaciers" not in seen  # k=1: the best passage only
        [follow] = new
        [judged] = [c for c in verdicts if c.agent == "agent_2"]
        # asked afresh in the same context: what the verdict saw, the verdict itself not shown
        assert follow.messages[:-1] == judged.messages[:-1] and follow.asks == AnswerRequest(
            CHOICE.fmt
        )
        assert "DISAGREE" not in transcript_text(follow)
        assert "You do not agree with this final answer" in last_user(follow)
        assert f"discussion: {shown[variant]}\n" in last_user(follow)
    assert {c.asks for c in of(rt, "irrelevant", "challenge")} == {
        ChallengeRequest(CHOICE.fmt, None)
    }
    assert {c.asks for c in of(rt, "wrong", "challenge")} == {ChallengeRequest(CHOICE.fmt, "C")}

    record = result.record
    assert isinstance(record, DecisionRecord)
    assert [c.setting for c in record.challenges] == list(VARIANTS)
    assert [c.shown for c in record.challenges] == [shown[v] for v in VARIANTS]
    assert [c.facts for c in record.challenges] == [None, None, None, None, BEST]
    assert all(
        [(v.agent, v.verdict, v.new_answer) for v in c.verdicts]
        == [("agent_1", "agree", None), ("agent_2", "disagree", "B"), ("agent_3", "agree", None)]
        for c in record.challenges
    )
    assert result.final == "A"  # challenge_adopt=never: the decision's answer stays
    assert DebateResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    assert "Facts shown:\n\n> " + BEST in dict(rt.infos)["challenge: information"]

    # the figures: summed over the variants, and each variant's part and whole apart
    values, wholes = challenge_figures(record, CHOICE.fmt, Target("A"))
    assert values == {
        "challenges": 5, "challenge_abstentions": 0, "new_answers_correct": 0,
        "new_answer_gain": -5, "challenge_changed": 0,
    }  # fmt: skip
    assert wholes["challenges"]["verdicts"] == 15
    assert wholes["challenges"]["variants"] == {v: {"part": 1, "verdicts": 3} for v in VARIANTS}
    assert wholes["new_answer_gain"]["variants"]["wrong"] == {"part": -1, "new_answers": 1}
    judged_wrong = wholes["challenges"]["judged"]["wrong"]
    assert (judged_wrong["shown_correct"], judged_wrong["shown_is_decided"]) == (False, False)
    assert wholes["challenges"]["judged"]["irrelevant"]["shown_correct"] is None


async def test_one_variant_stays_an_option_value(facts: str) -> None:
    rt, result = await run(
        Challenged({"agent_3": "DISAGREE"}), challenge="information", challenge_facts=facts
    )
    assert len(rt.calls) == 12 + 3 + 1  # no wrong answer written
    assert not [c for c in rt.calls if c.purpose == "counterfeit"]
    record = result.record
    assert isinstance(record, DecisionRecord)
    [stage] = record.challenges
    # k=3 by default: every passage, the best first
    assert stage.setting == "information" and stage.facts is not None
    assert stage.facts.split("\n\n") == [
        BEST, "Otters hold hands while they sleep.", "Glaciers move a few metres a day."
    ]  # fmt: skip


async def test_a_debate_with_no_answer_has_a_stand_in_judged() -> None:
    def split(agent: str, t: int) -> str:
        return msg(f"{agent} t{t}", "ABC"[int(agent[-1]) - 1], "[DISAGREE]" if t > 1 else "")

    script = Challenged({}, discussion=split)
    script.ballots = {(a, t): str(i) for t in (3, 4, 5) for i, a in enumerate(AGENTS)}
    rt, result = await run(script, challenge="solution", no_decision="none")
    verdicts = [c for c in rt.calls if c.purpose == "challenge"]
    assert len(verdicts) == 3 and result.final is None
    for call in verdicts:  # MALLM's code shows its "No answer was provided." (ours in our words)
        assert f"The final answer of the discussion: {NO_ANSWER}\n" in last_user(call)
        assert call.asks == ChallengeRequest(CHOICE.fmt, None)
    record = result.record
    assert isinstance(record, DecisionRecord)
    values, wholes = challenge_figures(record, CHOICE.fmt, Target("A"))
    assert values["challenges"] == 0 and wholes["challenges"]["judged"]["solution"] == {
        "shown": NO_ANSWER, "shown_correct": None, "shown_is_decided": None
    }  # fmt: skip


async def test_an_unreadable_wrong_answer_is_shown_as_written() -> None:
    script = Challenged({}, counterfeit="  I would rather not.  ")
    rt, result = await run(script, challenge="wrong")
    verdicts = [c for c in rt.calls if c.purpose == "challenge"]
    assert len(verdicts) == 3
    for call in verdicts:
        assert "The final answer of the discussion: I would rather not.\n" in last_user(call)
    assert result.record is not None


# -- options: checked before the first call ------------------------------------------------------


@pytest.mark.parametrize(
    "options, name",
    [
        ({"challenge": "information"}, "challenge_facts"),  # no facts to show
        ({"challenge": "all"}, "challenge_facts"),
        ({"challenge": "all", "challenge_facts": "f", "challenge_adopt": "majority"},
         "challenge_adopt"),
        ({"challenge_facts": ""}, "challenge_facts"),
        ({"challenge_facts_k": 0}, "challenge_facts_k"),
        ({"challenge_facts_k": 21}, "challenge_facts_k"),
        ({"challenge_facts_k": "3"}, "challenge_facts_k"),
        ({"challenge_no_answer": "maybe"}, "challenge_no_answer"),
    ],
)  # fmt: skip
def test_bad_options_name_the_option(options: dict[str, Any], name: str) -> None:
    with pytest.raises(OptionError, match=f"invalid option '{name}'"):
        DecisionConfig(**options)


@pytest.mark.parametrize("text", [None, "\n\n  \n"])
def test_an_unreadable_facts_file_fails_in_prepare(tmp_path: Path, text: str | None) -> None:
    path = tmp_path / "facts.txt"
    if text is not None:
        path.write_text(text)
    opts = VOTING.options(**VOTING.preset, challenge="all", challenge_facts=str(path))
    with pytest.raises(OptionError, match="invalid option 'challenge_facts'"):
        VOTING.prepare(opts, SETUP)
    # the facts are read only where a variant shows them
    VOTING.prepare(VOTING.options(**VOTING.preset, challenge_facts=str(path)), SETUP)


def test_passages_and_their_ranking() -> None:
    assert passages(" a\nb \n\n\n c \n \n") == ["a b", "c"]
    assert Facts(passages(FACTS), 2).about(QUESTION).split("\n\n") == [
        BEST, "Otters hold hands while they sleep."
    ]  # fmt: skip


# -- the per-variant rates -----------------------------------------------------------------------


def test_rates_by_variant_average_epochs_and_leave_out_empty_wholes() -> None:
    def score(sample: int, variants: dict[str, dict[str, int]]) -> SampleScore:
        part = sum(v["part"] for v in variants.values())
        return SampleScore(
            score=Score(value=part, metadata={"variants": variants}), sample_id=sample
        )

    scores = [
        score(1, {"wrong": {"part": 3, "verdicts": 3}, "solution": {"part": 0, "verdicts": 2}}),
        score(1, {"wrong": {"part": 1, "verdicts": 3}, "solution": {"part": 0, "verdicts": 2}}),
        score(2, {"wrong": {"part": 0, "verdicts": 3}, "history": {"part": 0, "verdicts": 0}}),
    ]
    rates = rate_by_variant("challenge_rate", "verdicts")(scores)
    # sample 1's epochs averaged: wrong 2 of 3, then sample 2's 0 of 3; history's whole is 0
    # a variant with no whole is None (left out), never an empty mapping (Inspect's NaN)
    assert rates == {
        "challenge_rate_solution": 0.0,
        "challenge_rate_wrong": pytest.approx(2 / 6),
        "challenge_rate_irrelevant": None,
        "challenge_rate_history": None,
        "challenge_rate_information": None,
    }


def test_all_on_the_simulated_model_in_inspect(run, facts: str) -> None:
    task = strategyqa(data_path=str(STRATEGYQA), subset=2)
    task = Task(
        dataset=task.dataset, setup=task.setup,
        solver=voting(challenge="all", challenge_facts=facts, personas="none",
                      no_decision="first_agent"),
        scorer=[final_answer(), *decision_stats()],
    )  # fmt: skip
    log = run(task, model="madsim/x")
    metrics = {name: m.value for s in log.results.scores for name, m in s.metrics.items()}
    for sample in log.samples:
        stages = sample.store["mad_tasks:debate"]["record"]["challenges"]
        assert [s["setting"] for s in stages] == list(VARIANTS)
        assert all(len(s["verdicts"]) == 3 for s in stages)
        assert stages[-1]["facts"] and not any(s["facts"] for s in stages[:-1])
    # madsim always challenges the irrelevant answer; every rate is a number, none NaN
    assert metrics["challenge_rate_irrelevant"] == 1.0
    assert {f"challenge_rate_{v}" for v in VARIANTS} <= set(metrics)
    assert all(isinstance(v, float) and math.isfinite(v) for v in metrics.values())
