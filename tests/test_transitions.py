"""Correctness transitions: the first answers' vote (the answer without debate) against the final
answer, per sample, from hand-built records, a scripted debate and a real eval on the simulated
model, and the report's columns."""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.analysis import SampleSummary, samples_df
from inspect_ai.log import EvalLog, write_eval_log
from inspect_ai.scorer import CORRECT
from inspect_ai.solver import SolverSpec
from scripted import ScriptedRuntime
from testdata import MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks._inspect_sample import NO_RESULT
from mad_tasks.debate_columns import DebateColumns
from mad_tasks.engine.answers import YesNo
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.d3.records import Evaluation, Hearing, JudgeRecord
from mad_tasks.engine.methods.du_debate import du_debate
from mad_tasks.engine.methods.on_demand_records import OnDemandRecord
from mad_tasks.engine.methods.reconcile_records import ConfidentAnswer, ReconcileRecord
from mad_tasks.engine.protocols.d3 import Verdict
from mad_tasks.engine.protocols.reconcile import WeightedTally
from mad_tasks.engine.records import AgentAnswer, DebateResult
from mad_tasks.engine.requests import AnswerRequest
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem, Session
from mad_tasks.engine.transitions import TRANSITIONS
from mad_tasks.logs_report import read_report, to_markdown
from mad_tasks.scorers.figures import Missing, Reading
from mad_tasks.scorers.transitions import FIGURES, reading_of, transitions
from mad_tasks.solvers import samre
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.strategyqa import strategyqa

YESNO = {"answer_format": "yesno"}


def debate(
    rounds: list[list[str | None]], final: str | None, method: str = "du_debate", **extra: Any
) -> DebateResult:
    """A record whose agents (agent_1, ...) gave `rounds[r][i]` in round r + 1."""
    answers = [
        AgentAnswer(f"agent_{i + 1}", r + 1, f"ANSWER: {a}", a)
        for r, given in enumerate(rounds)
        for i, a in enumerate(given)
    ]
    return DebateResult(method=method, final=final, answers=answers, calls=[], **extra)


def read(result: DebateResult | None, target: list[str], metadata: dict = YESNO) -> Reading:
    got = reading_of(result, [], metadata, target)
    assert isinstance(got, Reading), got
    return got


def values(got: Reading) -> dict[str, Any]:
    return {k: (None if isinstance(v, Missing) else v) for k, v in got.values.items()}


def detail(got: Reading) -> dict[str, Any]:
    return got.metadata["final_correct"]


def classes(got: Reading) -> list[str]:
    return [t for t in TRANSITIONS if got.values[t] == 1]


# -- the four classes and the first-answer majority ------------------------------------------------


@pytest.mark.parametrize(
    "first, last, final, transition, fixes, breaks",
    [
        (["yes", "yes", "no"], ["yes", "yes", "yes"], "yes", "right_to_right", 1, 0),
        (["no", "no", "yes"], ["yes", "yes", "yes"], "yes", "wrong_to_right", 2, 0),
        (["yes", "yes", "no"], ["no", "no", "no"], "no", "right_to_wrong", 0, 2),
        (["no", "yes", "no"], ["no", "no", "no"], "no", "wrong_to_wrong", 0, 1),
    ],
)
def test_each_transition_class_with_the_first_majority_and_the_agents_flips(
    first: list[str], last: list[str], final: str, transition: str, fixes: int, breaks: int
) -> None:
    got = read(debate([first, last], final), ["yes"])
    assert classes(got) == [transition]
    first_right, final_right = transition.split("_to_")
    assert got.values["first_majority_correct"] == int(first_right == "right")
    assert got.values["final_correct"] == int(final_right == "right")
    assert (got.values["agent_fixes"], got.values["agent_breaks"]) == (fixes, breaks)
    assert isinstance(got.values["first_verdict_correct"], Missing)  # not a judge
    d = detail(got)
    assert d["first"] == Counter(first).most_common(1)[0][0] and d["final"] == final
    assert d["transition"] == transition and d["tie"] is False
    assert [(a["first"], a["final"]) for a in d["agents"]] == list(zip(first, last))


def test_a_one_one_one_first_round_goes_to_the_first_agents_answer() -> None:
    got = read(debate([["B", "C", "A"], ["A", "A", "A"]], "A"), ["A"], {"answer_format": "text"})
    assert detail(got)["first"] == "B" and detail(got)["tie"] is True
    assert detail(got)["rule"] == "majority_vote (a tie goes to agent order)"
    assert classes(got) == ["wrong_to_right"]
    assert (got.values["agent_fixes"], got.values["agent_breaks"]) == (2, 0)


def test_a_two_two_tie_goes_to_the_answer_given_first_in_agent_order() -> None:
    # no, yes, yes, no: 2-2, and agent_1 said no first
    got = read(debate([["no", "yes", "yes", "no"]], "no"), ["yes"])
    assert detail(got)["first"] == "no" and detail(got)["tie"] is True
    assert classes(got) == ["wrong_to_wrong"]
    flipped = read(debate([["yes", "no", "no", "yes"]], "yes"), ["yes"])
    assert detail(flipped)["first"] == "yes" and classes(flipped) == ["right_to_right"]


def test_reconcile_breaks_the_first_vote_by_the_round_one_confidences() -> None:
    # plurality says no (2 of 3), but yes at 1.0 weighs 1.0 against 0.1 + 0.1 (0.6 each)
    stated = [1.0, 0.6, 0.6]
    first = ["yes", "no", "no"]
    turn = [
        ConfidentAnswer(f"agent_{i + 1}", 1, a, s, 0.0)
        for i, (a, s) in enumerate(zip(first, stated))
    ]
    record = ReconcileRecord(
        turns=[turn], vote=WeightedTally({}, "yes", False, 0), discussion_rounds=0,
        stop_reason="max_rounds",
    )  # fmt: skip
    got = read(debate([first], "yes", method="reconcile", record=record), ["yes"])
    assert detail(got)["first"] == "yes"
    assert detail(got)["rule"] == "weighted_vote (round-1 stated confidences)"
    assert classes(got) == ["right_to_right"]
    plain = read(debate([first], "yes"), ["yes"])  # a plurality method: no
    assert detail(plain)["first"] == "no" and classes(plain) == ["wrong_to_right"]


@pytest.mark.parametrize(
    "tie_break, first, expected",
    [
        ("lowest_agent_index", ["no", "yes", "no", "yes"], "no"),  # 2-2: the lowest agent's
        ("none", ["no", "yes", "no", "yes"], None),  # 2-2 and no tie-break: no answer
        ("lowest_agent_index", ["no", "yes", "maybe"], None),  # all distinct: no answer (Eq. 14)
    ],
)
def test_cortex_breaks_the_first_vote_by_its_tie_break(
    tie_break: str, first: list[str], expected: str | None
) -> None:
    result = debate([first, ["yes"] * len(first)], "yes", method="cortex")
    result.options = {"tie_break": tie_break}
    got = read(result, ["yes"], {"answer_format": "text"})
    assert detail(got)["first"] == expected
    assert classes(got) == ["wrong_to_right"]  # no answer is never right


def test_abstentions_are_never_right() -> None:
    # two agents abstain first: the one answer left is the vote
    got = read(debate([[None, None, "yes"], ["yes", None, None]], "yes"), ["yes"])
    assert detail(got)["first"] == "yes" and classes(got) == ["right_to_right"]
    assert (got.values["agent_fixes"], got.values["agent_breaks"]) == (1, 1)
    # everyone abstains first, and the final is no answer
    none = read(debate([[None, None, None], [None, None, None]], None), ["yes"])
    assert detail(none)["first"] is None and detail(none)["final"] is None
    assert classes(none) == ["wrong_to_wrong"]
    assert none.values["first_majority_correct"] == none.values["final_correct"] == 0


def test_a_target_with_several_answers_accepts_any_of_them() -> None:
    target = ["Paris", "City of Paris"]
    got = read(debate([["Lyon", "city of paris", "Lyon"], ["Paris"] * 3], "Paris"), target,
               {"answer_format": "text"})  # fmt: skip
    assert detail(got)["first"] == "Lyon" and classes(got) == ["wrong_to_right"]
    assert [a["first_correct"] for a in detail(got)["agents"]] == [False, True, False]
    assert got.values["agent_fixes"] == 2


def test_a_method_with_one_round_has_first_equal_final() -> None:
    got = read(debate([["no"]], "no", method="single"), ["no"])
    assert values(got)["first_majority_correct"] == values(got)["final_correct"] == 1
    assert classes(got) == ["right_to_right"] and got.values["agent_fixes"] == 0


def test_no_record_an_unreadable_target_or_no_answers_is_missing_with_the_reason() -> None:
    assert reading_of(None, [], YESNO, ["yes"]) == Missing(NO_RESULT)
    unread = reading_of(debate([["yes"]], "yes"), [], YESNO, ["perhaps"])
    assert isinstance(unread, Missing) and "'perhaps' cannot be read as an answer" in unread.reason
    empty = reading_of(debate([], None), [], YESNO, ["yes"])
    assert empty == Missing("du_debate recorded no round-1 answers")


# -- a scripted debate -------------------------------------------------------------------------------


def test_a_scripted_du_debate_where_the_debate_fixes_a_wrong_vote() -> None:
    # round 1: agent_1 says yes, agents 2 and 3 say no; in round 2 everyone says yes
    def reply(call: Call) -> str:
        assert isinstance(call.asks, AnswerRequest)
        if call.round == 1 and call.agent != "agent_1":
            return "ANSWER: no"
        return "ANSWER: yes"

    rt = ScriptedRuntime(reply)
    session = Session(rt, Problem(Question.of(["Is the sky blue?"]), YesNo()))
    result = asyncio.run(du_debate(session, 3, 2, False))
    assert len(rt.calls) == 6
    got = read(result, ["yes"])
    assert detail(got)["first"] == "no" and detail(got)["final"] == "yes"
    assert classes(got) == ["wrong_to_right"]
    assert (got.values["agent_fixes"], got.values["agent_breaks"]) == (2, 0)


# -- a judge ---------------------------------------------------------------------------------------


def hearing(order: str, round_scores: list[tuple[int, int] | None], winner: str | None) -> Hearing:
    evaluations = [Evaluation("judge", r, s, None, "", 1) for r, s in enumerate(round_scores, 1)]
    return Hearing(
        order=order, rounds=len(round_scores), defences=[], evaluations=evaluations,
        stop_reason=None, jury=[], verdict=Verdict(winner, {}, 0, False, None), transcript="",
        tokens=0, calls=0,
    )  # fmt: skip


def judged(hearings: list[Hearing], final: str | None, **options: Any) -> DebateResult:
    record = JudgeRecord(final, None, 3, None, hearings)
    return DebateResult("samre", final, [], [], options=options, record=record)


def test_a_judge_first_verdict_is_its_round_one_scores_against_the_human_label() -> None:
    # round 1 favours B (50 < 60); later rounds and the jury settle on A, the human label
    result = judged([hearing("AB", [(50, 60), (70, 60)], "A")], "A")
    got = reading_of(result, [], {}, ["A"])
    assert isinstance(got, Reading)
    assert got.values["first_verdict_correct"] == 0 and got.values["final_correct"] == 1
    assert classes(got) == ["wrong_to_right"]
    assert detail(got)["first"] == "B" and detail(got)["agents"] == []
    for name in ("first_majority_correct", "agent_fixes", "agent_breaks"):
        assert isinstance(got.values[name], Missing)
    # an unscored first round is no verdict: never right, even against a tie label
    unscored = reading_of(judged([hearing("AB", [None], None)], None), [], {}, ["tie"])  # type: ignore[list-item]
    assert isinstance(unscored, Reading) and classes(unscored) == ["wrong_to_wrong"]
    assert isinstance(reading_of(result, [], {}, ["maybe"]), Missing)


def test_a_swapped_judge_combines_both_orders_first_verdicts_by_its_swap_rule() -> None:
    # round 1: as given A leads; reversed, its first answer (the original B) leads: inconsistent
    hearings = [hearing("AB", [(80, 60)], "A"), hearing("BA", [(70, 50)], "B")]
    got = reading_of(judged(hearings, "A", swap=True, swap_resolution="tie"), [], {}, ["A"])
    assert isinstance(got, Reading) and detail(got)["first"] == "tie"
    assert classes(got) == ["wrong_to_right"]
    # with the gap rule: 20 - 20 = 0 is still a tie; 30 - 20 favours A
    hearings[0] = hearing("AB", [(90, 60)], "A")
    by_gap = reading_of(judged(hearings, "A", swap=True, swap_resolution="gap"), [], {}, ["A"])
    assert isinstance(by_gap, Reading) and detail(by_gap)["first"] == "A"
    assert classes(by_gap) == ["right_to_right"]
    assert detail(by_gap)["tie"] is True  # the orders disagreed: the gap rule decided
    assert (
        detail(by_gap)["rule"] == "the judge's round-1 scores in both orders (swap_resolution=gap)"
    )
    # 10 as given against 20 reversed: the reversed order's lead wins the sum (10 - 20 < 0: B)
    hearings[0] = hearing("AB", [(70, 60)], "A")
    summed = reading_of(judged(hearings, "A", swap=True, swap_resolution="gap"), [], {}, ["A"])
    assert isinstance(summed, Reading) and detail(summed)["first"] == "B"
    # consistent orders: no tie; the default resolution is tie
    hearings[1] = hearing("BA", [(50, 70)], "A")
    agreed = reading_of(judged(hearings, "A", swap=True), [], {}, ["A"])
    assert isinstance(agreed, Reading) and detail(agreed)["first"] == "A"
    assert detail(agreed)["tie"] is False
    assert detail(agreed)["rule"].endswith("in both orders (swap_resolution=tie)")
    # an order without a round-1 score, either one: no first verdict
    for unscored_order in (0, 1):
        orders = list(hearings)
        orders[unscored_order] = hearing(orders[unscored_order].order, [None], None)  # type: ignore[list-item]
        unscored = reading_of(judged(orders, "A", swap=True), [], {}, ["A"])
        assert isinstance(unscored, Reading) and detail(unscored)["first"] is None


def test_a_judge_without_hearings_has_no_first_verdict_and_no_tie() -> None:
    got = reading_of(judged([], "A"), [], {}, ["A"])
    assert isinstance(got, Reading)
    assert (detail(got)["first"], detail(got)["tie"], detail(got)["final"]) == (None, False, "A")
    assert detail(got)["rule"] == "the judge's round-1 scores"
    assert classes(got) == ["wrong_to_right"]


@pytest.mark.parametrize("method", ["du_debate", "reconcile"])
def test_the_first_vote_counts_answers_as_the_format_compares_them(method: str) -> None:
    # free text: Yes and yes are one answer (2 votes) against no; without the format's key, a
    # 1-1-1 tie that agent order gives to no
    first = ["no", "Yes", "yes"]
    turn = [ConfidentAnswer(f"agent_{i + 1}", 1, a, 0.6, 0.0) for i, a in enumerate(first)]
    record = ReconcileRecord([turn], WeightedTally({}, "yes", False, 0), 0, "max_rounds")
    extra = {"record": record} if method == "reconcile" else {}
    got = read(debate([first], "yes", method=method, **extra), ["yes"], {"answer_format": "text"})
    assert detail(got)["first"] == "Yes" and detail(got)["tie"] is False


def test_on_demands_first_vote_counts_its_samples_as_the_format_compares_them() -> None:
    first = [AgentAnswer(f"agent_{i + 1}", 1, a, a) for i, a in enumerate(["no", "Yes", "yes"])]
    record = OnDemandRecord(
        first="self_consistency", trigger="never", threshold=None, first_answers=first,
        confidences=[None] * 3, first_answer="Yes", signal=None, source=None, debated=False,
        reason="trigger=never", reused=0, first_calls=3, first_tokens=None, debate_calls=0,
        debate_tokens=0, debate=None,
    )  # fmt: skip
    result = DebateResult("on_demand", "Yes", first, [], record=record)
    got = read(result, ["yes"], {"answer_format": "text"})
    assert (detail(got)["first"], detail(got)["tie"]) == ("Yes", False)
    assert classes(got) == ["right_to_right"]


def test_cortex_without_a_recorded_tie_break_uses_its_default() -> None:
    result = debate([["no", "yes", "no", "yes"], ["yes"] * 4], "yes", method="cortex")
    got = read(result, ["yes"], {"answer_format": "text"})
    assert detail(got)["first"] == "no"
    assert detail(got)["rule"] == "cortex final_vote (tie_break=lowest_agent_index)"


# -- in Inspect, and the report ----------------------------------------------------------------------


def expected(record: dict[str, Any], target: str) -> dict[str, int]:
    """The figures worked out from a stored record by hand: a plurality of round 1 whose tie goes
    to the answer given first."""
    first = [a["answer"] for a in record["answers"] if a["round"] == 1]
    votes = Counter(a for a in first if a is not None)
    top = max(votes.values(), default=0)
    majority = next((a for a in first if a is not None and votes[a] == top), None)
    last = {a["agent"]: a["answer"] for a in sorted(record["answers"], key=lambda a: a["round"])}
    firsts = {a["agent"]: a["answer"] for a in record["answers"] if a["round"] == 1}
    first_right, final_right = majority == target, record["final"] == target
    return {
        "first_majority_correct": int(first_right),
        "final_correct": int(final_right),
        **{t: int(t == f"{'right' if first_right else 'wrong'}_to_"
                   f"{'right' if final_right else 'wrong'}") for t in TRANSITIONS},
        "agent_fixes": sum(firsts[a] != target and last[a] == target for a in firsts),
        "agent_breaks": sum(firsts[a] == target and last[a] != target for a in firsts),
    }  # fmt: skip


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, EvalLog]:
    """du_debate on the StrategyQA fixture, with transitions() among the task's scorers, with the
    figures its solver writes (plain), and as a log without them (older), each in a directory of
    its own."""
    root = tmp_path_factory.mktemp("transitions")
    args = {"accuracy": 0.5, "conformity": 0.5, "seed": 3}
    task = strategyqa(data_path=str(STRATEGYQA))
    task.scorer = [*task.scorer, *transitions()]
    [scored] = eval(task, model="madsim/x", model_args=args, solver=SolverSpec("du_debate", {}, {}),
                    limit=8, display="none", log_dir=str(root / "scored"))  # fmt: skip
    [plain] = eval(strategyqa(data_path=str(STRATEGYQA)), model="madsim/x", model_args=args,
                   solver=SolverSpec("du_debate", {}, {}), limit=8, display="none",
                   log_dir=str(root / "plain"))  # fmt: skip
    assert scored.status == plain.status == "success"
    # a log of a version whose solvers wrote no figures: the report computes them from the records
    names = {f.name for f in FIGURES}
    for sample in plain.samples or []:
        sample.scores = {n: v for n, v in (sample.scores or {}).items() if n not in names}
    assert plain.results is not None
    plain.results.scores = [s for s in plain.results.scores if s.name not in names]
    write_eval_log(plain, str(root / "older" / Path(plain.location).name))
    return root, scored


def test_a_madsim_eval_scores_the_transitions_its_records_hold(
    logs: tuple[Path, EvalLog],
) -> None:
    _, log = logs
    assert log.samples is not None and len(log.samples) == 8
    seen = Counter()
    for sample in log.samples:
        want = expected(sample.store["mad_tasks:debate"], str(sample.target))
        got = {name: sample.scores[name].value for name in want}
        assert got == want, sample.id
        assert (
            sample.scores["first_verdict_correct"].value
            != sample.scores["first_verdict_correct"].value
        )  # NaN: unscored
        seen.update(t for t in TRANSITIONS if got[t])
    assert sum(seen.values()) == 8
    assert len(seen) >= 2  # the run mixes classes, so the figures are not all one value
    means = {s.name: s.metrics["mean"].value for s in log.results.scores if s.name in want}
    for name in want:
        assert means[name] == pytest.approx(
            sum(sample.scores[name].value for sample in log.samples) / 8
        )


def test_the_scorers_are_the_figures() -> None:
    assert len(transitions()) == len(FIGURES) == 9


def test_the_report_and_samples_df_show_the_rates_scored_or_computed_from_the_records(
    logs: tuple[Path, EvalLog],
) -> None:
    root, log = logs
    assert log.samples is not None
    rates = {
        name: sum(s.scores[name].value for s in log.samples) / 8
        for name in ("first_majority_correct", "final_correct", *TRANSITIONS)
    }
    for directory in ("scored", "plain", "older"):  # the same seeds: the same debates
        [rows] = read_report(str(root / directory)).tables.values()
        [row] = rows
        assert row.first_correct == pytest.approx(rates["first_majority_correct"])
        assert row.final_correct == pytest.approx(rates["final_correct"])
        for name in TRANSITIONS:
            assert getattr(row, name) == pytest.approx(rates[name]), (directory, name)
    frame = samples_df(str(root / "scored"), columns=SampleSummary + DebateColumns)
    for record in frame.to_dict("records"):
        [sample] = [s for s in log.samples if str(s.id) == record["id"]]
        for name in ("first_majority_correct", "final_correct", "agent_fixes", *TRANSITIONS):
            assert record[name] == sample.scores[name].value
        assert record["first_verdict_correct"] is None  # unscored: None, never 0
    plain = samples_df(str(root / "plain"), columns=SampleSummary + DebateColumns)
    assert by_id(plain, "final_correct") == by_id(frame, "final_correct")
    older = samples_df(str(root / "older"), columns=SampleSummary + DebateColumns)
    assert older["final_correct"].isna().all()  # the summaries hold no transitions there


def by_id(frame: Any, column: str) -> dict[str, Any]:
    """A column by sample id (the rows come in the order the samples finished), pandas' NA as
    None."""
    return {
        str(i): None if pd.isna(v) else v for i, v in zip(frame["id"], frame[column], strict=True)
    }


def test_the_markdown_report_has_the_rate_columns(logs: tuple[Path, EvalLog]) -> None:
    root, _ = logs
    text = to_markdown(read_report(str(root / "older")), "logs")
    assert "| first | final | R→R | W→R | R→W | W→W | oracle gap |" in text
    [row] = next(iter(read_report(str(root / "older")).tables.values()))
    cells = [f"{getattr(row, f):.3f}" for f in ("first_correct", "final_correct", *TRANSITIONS)]
    assert " | ".join(cells) in text


def test_a_judge_eval_scores_its_first_and_final_verdicts_against_the_human_label(
    tmp_path: Path,
) -> None:
    task = mt_bench_judge(data_path=str(MT_BENCH_PAIRS))
    task.scorer = [*task.scorer, *transitions()]
    [log] = eval(task, solver=samre(max_rounds=2), model="madsim/x", limit=4, display="none",
                 log_dir=str(tmp_path))  # fmt: skip
    assert log.status == "success" and log.samples is not None
    for sample in log.samples:
        scores = sample.scores
        # the final verdict's correctness is judge_agreement's
        assert scores["final_correct"].value == int(scores["judge_agreement"].value == CORRECT)
        [order] = sample.store["mad_tasks:debate"]["record"]["hearings"]
        a, b = next(e["scores"] for e in order["evaluations"] if e["round"] == 1)
        first = "A" if a > b else "B" if b > a else "tie"
        assert scores["first_verdict_correct"].value == int(first == sample.target)
        assert math.isnan(scores["first_majority_correct"].value)  # unscored: a judge
        assert sum(scores[t].value for t in TRANSITIONS) == 1
    # the report's first column is the first verdict's accuracy for a judge
    [[row]] = read_report(str(tmp_path)).tables.values()
    firsts = [s.scores["first_verdict_correct"].value for s in log.samples]
    assert row.first_correct == pytest.approx(sum(firsts) / len(firsts))
