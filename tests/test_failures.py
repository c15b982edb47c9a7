"""Failure figures: the oracle gap, the flips by class and accuracy per round, asserted exactly on
hand-built records (ties, abstentions, agents that skip a round, one-round methods), a scripted
debate's round tables, and a plain eval on the simulated model."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.solver import SolverSpec
from scripted import ScriptedRuntime
from testdata import STRATEGYQA

from mad_tasks._inspect_sample import NO_RESULT
from mad_tasks.engine.answers import YesNo
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.d3.records import JudgeRecord
from mad_tasks.engine.methods.du_debate import du_debate
from mad_tasks.engine.records import AgentAnswer, DebateResult, MethodRecord, Stopped
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem, Session
from mad_tasks.scorers.failures import FIGURES, ROUND_FIGURES, failure_figures, reading_of
from mad_tasks.scorers.figures import Missing, NotApplicable, Reading
from mad_tasks.tasks.strategyqa import strategyqa

YESNO = {"answer_format": "yesno"}
TEXT = {"answer_format": "text"}
FLIPS = [
    f"{kind}_flips{way}"
    for kind in ("conformity", "persuasion", "instability")
    for way in ("", "_right_to_wrong", "_wrong_to_right")
]


def debate(
    rounds: list[list[str | None]], final: str | None, method: str = "du_debate", **extra: Any
) -> DebateResult:
    """A record whose agents (agent_1, ...) gave `rounds[r][i]` in round r + 1; "-" is no turn."""
    answers = [
        AgentAnswer(f"agent_{i + 1}", r + 1, f"ANSWER: {a}", a)
        for r, given in enumerate(rounds)
        for i, a in enumerate(given)
        if a != "-"
    ]
    return DebateResult(method=method, final=final, answers=answers, calls=[], **extra)


def figures(result: DebateResult, target: str, metadata: dict[str, str] = TEXT) -> dict[str, Any]:
    """The figures that apply, by name (those that do not are left out, as a plain run does)."""
    got = reading_of(result, [], metadata, [target])
    assert isinstance(got, Reading), got
    return {k: v for k, v in got.values.items() if not isinstance(v, Missing)}


def flips(values: dict[str, Any]) -> dict[str, int]:
    """The flip figures that are not 0."""
    return {name: values[name] for name in FLIPS if values[name]}


def test_a_right_agent_conforming_to_a_wrong_plurality_is_a_vulnerability_and_an_oracle_gap() -> (
    None
):
    # round 1: yes, no, no (the plurality is no); agent_1 gives up its right yes
    got = figures(debate([["yes", "no", "no"], ["no", "no", "no"]], "no"), "yes", YESNO)
    assert got["oracle_gap"] == 1
    assert flips(got) == {"conformity_flips": 1, "conformity_flips_right_to_wrong": 1}
    assert got["round_1_agent_accuracy"] == pytest.approx(1 / 3)
    assert got["round_1_vote_accuracy"] == 0
    assert (got["round_2_agent_accuracy"], got["round_2_vote_accuracy"]) == (0, 0)
    assert got["correctness_change_per_round"] == pytest.approx(-1 / 3)
    assert "round_3_agent_accuracy" not in got  # two rounds: no third round's figures


def test_persuasion_is_a_peers_minority_answer_and_instability_an_answer_no_peer_held() -> None:
    # round 1: A, A, B, C (plurality A); agent_1 takes agent_3's B (persuasion, wrong to right),
    # agent_3 leaves B for D, which nobody held (instability, right to wrong)
    result = debate([["A", "A", "B", "C"], ["B", "A", "D", "C"]], "A")
    got = figures(result, "B")
    assert flips(got) == {
        "persuasion_flips": 1, "persuasion_flips_wrong_to_right": 1,
        "instability_flips": 1, "instability_flips_right_to_wrong": 1,
    }  # fmt: skip
    assert got["oracle_gap"] == 1  # B was given, in both rounds; the final A is wrong
    assert got["round_1_agent_accuracy"] == got["round_2_agent_accuracy"] == 0.25
    assert got["correctness_change_per_round"] == 0
    # a flip between two wrong answers counts in its class only
    wrong_to_wrong = figures(debate([["A", "B", "B"], ["C", "B", "B"]], "B"), "D")
    assert flips(wrong_to_wrong) == {"instability_flips": 1}
    assert wrong_to_wrong["oracle_gap"] == 0  # no right answer was ever given


@pytest.mark.parametrize(
    "first, second, target, vote, direction",
    [
        # 1-1: no plurality, so agent_2 taking agent_1's B is persuasion; the tied vote goes to
        # the answer given first in agent order, B
        (["B", "A"], ["B", "B"], "B", 1, "wrong_to_right"),
        # 2-2: agent_2 leaves B for A, tied with it for the most; the tied vote goes to A
        (["A", "B", "A", "B"], ["A", "A", "A", "B"], "B", 0, "right_to_wrong"),
    ],
)
def test_a_tie_for_the_most_has_no_plurality_so_a_flip_to_a_tied_answer_is_persuasion(
    first: list[str], second: list[str], target: str, vote: int, direction: str
) -> None:
    got = figures(debate([first, second], second[0]), target)
    assert flips(got) == {"persuasion_flips": 1, f"persuasion_flips_{direction}": 1}
    assert got["round_1_vote_accuracy"] == vote


def test_the_plurality_counts_the_flipping_agents_own_answer_and_the_formats_key() -> None:
    # round 1: yes, Yes, no: yes is the plurality (2, one key); agent_3 takes it: conformity
    got = figures(debate([["yes", "Yes", "no"], ["yes", "Yes", "YES"]], "yes"), "yes")
    assert flips(got) == {"conformity_flips": 1, "conformity_flips_wrong_to_right": 1}
    assert got["round_1_vote_accuracy"] == got["round_2_vote_accuracy"] == 1
    # a change of spelling only is no flip
    same = figures(debate([["yes", "no"], ["YES", "no"]], "yes"), "yes")
    assert flips(same) == {}


def test_abstentions_are_never_right_and_a_change_to_or_from_one_is_no_flip() -> None:
    # agent_1 abstains, then answers no; agent_2 answers yes, then abstains; agent_1 then leaves
    # no for yes, which no peer held the round before (agent_2 abstained, agent_3 said no)
    result = debate([[None, "yes", "no"], ["no", None, "no"], ["yes", "yes", "no"]], None)
    got = figures(result, "yes", YESNO)
    assert flips(got) == {"instability_flips": 1, "instability_flips_wrong_to_right": 1}
    assert [got[f"round_{r}_agent_accuracy"] for r in (1, 2, 3)] == pytest.approx([1 / 3, 0, 2 / 3])
    # round 1: yes 1, no 1: the tie goes to the answer given first (agent_2's yes)
    assert [got[f"round_{r}_vote_accuracy"] for r in (1, 2, 3)] == [1, 0, 1]
    assert got["correctness_change_per_round"] == pytest.approx(1 / 6)
    assert got["oracle_gap"] == 1  # no final answer, while yes was given


def test_an_agent_that_skips_a_round_keeps_its_answer_and_is_compared_with_it() -> None:
    # round 2: only agent_2 speaks and takes agent_1's answer (1-1 before: persuasion); round 3:
    # agent_1 speaks again, compared with its round-1 answer
    result = debate([["A", "B"], ["-", "A"], ["B", "-"]], "A")
    got = figures(result, "A")
    assert flips(got) == {
        "persuasion_flips": 1, "persuasion_flips_wrong_to_right": 1,
        "instability_flips": 1, "instability_flips_right_to_wrong": 1,
    }  # fmt: skip
    assert [got[f"round_{r}_agent_accuracy"] for r in (1, 2, 3)] == [0.5, 1, 0.5]
    # round 3: B (agent_1) against A (agent_2): a tie, to agent order: B
    assert [got[f"round_{r}_vote_accuracy"] for r in (1, 2, 3)] == [1, 1, 0]
    detail = reading_of(result, [], TEXT, ["A"])
    assert isinstance(detail, Reading)
    shown = detail.metadata["oracle_gap"]["flips"]
    assert [(f["agent"], f["round"], f["before"], f["after"], f["kind"]) for f in shown] == [
        ("agent_2", 2, "B", "A", "persuasion"),
        ("agent_1", 3, "A", "B", "instability"),
    ]


@pytest.mark.parametrize("method", ["single", "self_consistency"])
def test_a_one_round_method_has_the_oracle_gap_and_round_one_but_no_flips(method: str) -> None:
    result = debate([["yes", "no", "no"] if method == "self_consistency" else ["no"]], "no", method)
    got = figures(result, "yes", YESNO)
    assert set(got) == {"oracle_gap", "round_1_agent_accuracy", "round_1_vote_accuracy"}
    assert got["oracle_gap"] == int(method == "self_consistency")
    reading = reading_of(result, [], YESNO, ["yes"])
    assert isinstance(reading, Reading)
    change = reading.values["correctness_change_per_round"]
    assert isinstance(change, NotApplicable) and "one round" in change.reason


def test_a_right_final_answer_has_no_oracle_gap() -> None:
    got = figures(debate([["no", "no", "yes"], ["no", "yes", "yes"]], "yes"), "yes", YESNO)
    assert got["oracle_gap"] == 0
    assert flips(got) == {"persuasion_flips": 1, "persuasion_flips_wrong_to_right": 1}


def test_rounds_past_the_last_with_figures_are_left_out() -> None:
    rounds: list[list[str | None]] = [["yes"]] * (ROUND_FIGURES + 1)
    got = figures(debate(rounds, "yes"), "yes", YESNO)
    assert f"round_{ROUND_FIGURES}_agent_accuracy" in got
    assert f"round_{ROUND_FIGURES + 1}_agent_accuracy" not in got
    assert len(FIGURES) == 1 + 9 + 1 + 2 * ROUND_FIGURES == len(failure_figures())


class Summary(MethodRecord):
    """A record whose method answers with a summary (declaring no `kind`, it is not registered)."""

    answers_with = "a summary"


def test_records_without_agents_answers_to_the_question_have_no_failure_figures() -> None:
    assert reading_of(None, [], YESNO, ["yes"]) == Missing(NO_RESULT)
    judge = DebateResult("samre", "A", [], [], record=JudgeRecord("A", None, 3, None, []))
    assert isinstance(reading_of(judge, [], {}, ["A"]), NotApplicable)
    summary = DebateResult("tod", None, [], [], record=Summary())
    assert isinstance(reading_of(summary, [], {}, ["x"]), NotApplicable)
    stopped = Stopped("token", 10, 5, "round 1", "no answer")
    empty = debate([], None, stopped=stopped)
    assert isinstance(reading_of(empty, [], YESNO, ["yes"]), NotApplicable)
    unread = reading_of(debate([["yes"]], "yes"), [], YESNO, ["perhaps"])
    assert isinstance(unread, NotApplicable) and "cannot be read as an answer" in unread.reason


# -- the viewer: each flip's class in its round's table ----------------------------------------------


def test_a_scripted_du_debate_shows_each_flips_class_in_the_round_table() -> None:
    # round 1: yes, no, no; round 2: agent_1 conforms to no, agent_2 is persuaded to yes
    def reply(call: Call) -> str:
        if call.round == 1:
            return "ANSWER: yes" if call.agent == "agent_1" else "ANSWER: no"
        return "ANSWER: yes" if call.agent == "agent_2" else "ANSWER: no"

    rt = ScriptedRuntime(reply)
    session = Session(rt, Problem(Question.of(["Is the sky blue?"]), YesNo()))
    result = asyncio.run(du_debate(session, 3, 2, False))
    tables = dict(rt.infos)
    assert "flip" not in str(tables["round 1"])
    assert (
        "agent    answer  attempts  flip\n"
        "-------  ------  --------  ----------\n"
        "agent_1  no             1  conformity\n"
        "agent_2  yes            1  persuasion\n"
        "agent_3  no             1\n"
    ) in str(tables["round 2"])
    assert "`persuasion` to another answer a peer held then" in str(tables["round 2"])
    got = figures(result, "yes", YESNO)
    assert flips(got) == {
        "conformity_flips": 1, "conformity_flips_right_to_wrong": 1,
        "persuasion_flips": 1, "persuasion_flips_wrong_to_right": 1,
    }  # fmt: skip


# -- a plain eval -------------------------------------------------------------------------------------


def test_a_plain_madsim_eval_lists_the_failure_figures_with_no_nan(tmp_path: Path) -> None:
    args = {"accuracy": 0.5, "conformity": 0.5, "seed": 3}
    [log] = eval(strategyqa(data_path=str(STRATEGYQA)), model="madsim/x", model_args=args,
                 solver=SolverSpec("du_debate", {}, {}), limit=6, display="none",
                 log_dir=str(tmp_path))  # fmt: skip
    assert log.status == "success" and log.results is not None and log.samples
    listed = {s.name: s.metrics for s in log.results.scores}
    want = ["oracle_gap", *FLIPS, "correctness_change_per_round",
            *(f"round_{r}_{level}_accuracy" for r in (1, 2) for level in ("agent", "vote"))]  # fmt: skip
    for name in want:
        assert name in listed, name
        assert all(not math.isnan(m.value) for m in listed[name].values()), name
    assert "stderr" in listed["correctness_change_per_round"]
    assert not any(name.startswith("round_3") for name in listed)
    for sample in log.samples:
        scores = sample.scores or {}
        # a plurality method's round-1 vote is its first-answer majority
        assert scores["round_1_vote_accuracy"].value == scores["first_majority_correct"].value
        assert scores["round_2_vote_accuracy"].value == scores["final_correct"].value
        changed = sum(
            scores[f"{k}_flips"].value for k in ("conformity", "persuasion", "instability")
        )
        assert scores["abstentions"].value == 0  # so every change of answer is a flip
        assert changed == scores["answer_changes"].value
    [single] = eval(strategyqa(data_path=str(STRATEGYQA)), model="madsim/x", model_args=args,
                    solver=SolverSpec("single", {}, {}), limit=2, display="none",
                    log_dir=str(tmp_path / "single"))  # fmt: skip
    assert single.results is not None
    names = {s.name for s in single.results.scores}
    assert {"oracle_gap", "round_1_agent_accuracy", "round_1_vote_accuracy"} <= names
    assert not names & {*FLIPS, "correctness_change_per_round", "round_2_agent_accuracy"}
