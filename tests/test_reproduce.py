"""`mad-tasks reproduce`: the experiment files, the sweep, the table, and resuming.

Every shipped experiment runs end to end offline on the simulated model over the tasks' fixtures
and yields the paper's rows and columns in order with the paper's values beside; a sweep stopped
half-way by an OpenAI-compatible stub on 127.0.0.1 resumes with exactly the unfinished calls; the
table's numbers are checked against the logs read directly; bad files are refused by file and field.
"""

from __future__ import annotations

import re
import statistics
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai.log import read_eval_log
from openai_stub import OpenAIStub, fail_after, first_user_text
from test_tasks_e2e import FIXTURE
from testdata import STRATEGYQA

from mad_tasks import reproduce
from mad_tasks.cli import main
from mad_tasks.engine.answers import make_format
from mad_tasks.engine.methods.d3.records import Evaluation, Hearing, JudgeRecord
from mad_tasks.engine.methods.on_demand_records import OnDemandRecord
from mad_tasks.engine.protocols.d3 import Verdict
from mad_tasks.engine.records import AgentAnswer, DebateResult
from mad_tasks.reproduce import (
    ExperimentError,
    Stat,
    answers_after,
    experiment_files,
    find_experiment,
    load_experiment,
    measure,
    measuring,
    parse_stat,
    plurality,
    prepare,
    round_consensus,
    round_correct,
    run_experiment,
    stat_value,
)
from mad_tasks.reproduce import experiments as experiments_module
from mad_tasks.scorers.transitions import reading_of

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(experiment_files())
# a measured value, and the paper's where it reports one
CELL = re.compile(r"(?P<measured>-?\d+\.\d+(?: ± \d+\.\d+)?)(?: \(paper: (?P<paper>.+)\))?")


def markdown_table(text: str) -> list[list[str]]:
    """The rows of the page's one table, header first, cells stripped."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    rows = [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]
    return [rows[0], *rows[2:]]  # without the |---| line


# ---- every shipped experiment, end to end

# the cells with no value on madsim's 2 samples per task, and why: any other empty cell is a defect
BIAS_ROWS = [
    "Single juror, no persona",
    "Single juror, with persona",
    "Multi-juror (k=5), no personas",
    "Multi-juror (k=5), with personas",
]
# the paper pairs in all four settings (method or task, cited or not): the e2e fixture has no
# task-and-cited pair
SPLIT_FIXTURE = {"paper_compare": ROOT / "tests" / "fixtures" / "paper_compare" / "split.tsv"}
EMPTY: dict[str, set[tuple[str, str]]] = {
    # the fixture's first 2 MT-Bench pairs have no pair whose humans chose the shorter answer
    "seed002_bias": {
        (row, column)
        for row in BIAS_ROWS
        for column in ("Acc. shorter won (%)", "Longer picked, humans shorter (%)")
    },
    # with only the solution shown no agent challenged the decision on MMLU: no new answer
    "seed004_challenge": {("Only Solution", "Improved: MMLU")},
    # madsim's judge gives steady totals: every hearing runs the code's 3 rounds at least and
    # most stop there, so on the first 2 pairs of these categories no hearing scored round 5
    "seed002_fig5": {
        ("D3-SAMRE", column)
        for column in (
            "coding R5",
            "reasoning R5",
            "ethics R5",
            "roleplay R5",
            "math R5",
        )
    },
}


class no_exit:
    """`main` exits only on a non-zero status."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, error: Any, tb: Any) -> bool:
        if isinstance(error, SystemExit):
            pytest.fail(f"exit status {error.code}")
        return False


def test_every_shipped_experiment_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    with no_exit():
        main(["reproduce", "--list"])
    listed = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == SHIPPED
    assert "seed004_fig2" in listed


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_file_loads(name: str) -> None:
    experiment = find_experiment(name)
    assert experiment.name == name
    assert experiment.rows and experiment.columns


@pytest.mark.parametrize("name", SHIPPED)
def test_runs_offline_on_madsim_in_the_papers_shape(tmp_path: Path, name: str) -> None:
    experiment = find_experiment(name)
    data = []
    for entry in experiment.tasks.values():
        assert entry.task in FIXTURE, f"{entry.task}: add a fixture to tests/test_tasks_e2e.py"
        data += ["--data", f"{entry.key}={SPLIT_FIXTURE.get(entry.task, FIXTURE[entry.task])}"]
    args = ["reproduce", name, "--model", "madsim/x", "--limit", "2", "--epochs", "1"]
    args += ["--log-dir", str(tmp_path), "--max-tasks", str(len(experiment.tasks)), *data]
    with no_exit():
        main(args)
    text = (tmp_path / name / f"{name}.md").read_text(encoding="utf-8")
    table = markdown_table(text)
    columns = [c.label for c in experiment.columns]
    assert table[0] == ["", *columns, "calls/sample", "tokens/sample", "$/sample"]
    assert [row[0] for row in table[1:]] == [row.label for row in experiment.rows]
    measured, calls, empty = 0, [], set()
    for row, cells in zip(experiment.rows, table[1:]):
        paper = experiment.paper_values.get(row.label, {})
        for column, cell in zip(experiment.columns, cells[1:-3]):
            if not set(column.tasks) <= set(row.tasks):
                assert cell == "n/a"
                continue
            shown = None if paper.get(column.label) is None else str(paper[column.label])
            # nothing to measure in 2 samples: said why
            if cell == "–" + ("" if shown is None else f" (paper: {shown})"):
                assert f"\n- {row.label} / {column.label}" in text
                empty.add((row.label, column.label))
                continue
            got = CELL.fullmatch(cell)
            assert got, f"{row.label} / {column.label}: {cell!r} is no measured value"
            assert got["paper"] == shown
            assert " ± " not in got["measured"]  # one run: no std
            measured += 1
        assert re.fullmatch(r"\d+\.\d", cells[-3]) and re.fullmatch(r"\d+", cells[-2]), cells
        # madsim/x has no price here: no dollars, never 0; a row that calls no model spent 0
        assert cells[-1] == ("0" if cells[-3] == "0.0" else "–"), cells
        calls.append(float(cells[-3]))
    assert measured > 0 and max(calls) > 0  # (bm25 calls no model)
    assert empty == EMPTY.get(name, set())
    page = (tmp_path / name / f"{name}.html").read_text(encoding="utf-8")
    assert all(f"<td>{row.label}</td>" in page for row in experiment.rows)
    assert not re.search(r"<(script|link|img|iframe)|src=|href=", page)  # nothing fetched


# ---- resuming: requests counted at a stub


def write_experiment(tmp_path: Path, stem: str, **changes: Any) -> Path:
    """A small experiment over the StrategyQA fixture: two rows, the answer and two figures."""
    data: dict[str, Any] = {
        "name": stem,
        "seed": "004",
        "paper": "a test",
        "table": "Table T",
        "caption": "A test table.",
        "paper_model": "none",
        "runs": 1,
        "tasks": {
            "sqa": {
                "task": "strategyqa",
                "args": {},
                "scorers": ["final_answer", "debate_stats", "decision_stats"],
            }
        },
        "rows": [
            {"label": "One", "solver": "single"},
            {"label": "Debate", "solver": "du_debate", "args": {"agents": 2, "rounds": 2}},
        ],
        "columns": [
            {
                "label": "Acc",
                "task": "sqa",
                "score": "final_answer",
                "metric": "accuracy",
                "scale": 100,
            },
            {"label": "Calls", "task": "sqa", "score": "calls", "stat": "mean"},
        ],
        "paper_values": {"One": {"Acc": "50.0±1.0"}, "Debate": {"Acc": 60, "Calls": None}},
    }
    data.update(changes)
    path = tmp_path / f"{stem}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def test_a_sweep_stopped_half_way_resumes_with_exactly_the_unfinished_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_API_KEY", "k")
    experiment = load_experiment(write_experiment(tmp_path, "resume"))
    # row One: 1 call per sample; row Debate: 2 agents x 2 rounds; 2 samples each
    one, debate = 2 * 1, 2 * 4
    with OpenAIStub(reply=lambda body: "I weighed it.\nANSWER: yes", fail=fail_after(one)) as stub:

        def sweep(limit: int = 2) -> list[reproduce.RowRun]:
            return run_experiment(
                experiment,
                "openai-api/stub/m",
                str(tmp_path / "logs"),
                data={"sqa": str(STRATEGYQA)},
                limit=limit,
                model_base_url=stub.base_url,
                retry_attempts=0,
                display="none",
            )

        first = sweep()  # row One finishes, every call of row Debate fails
        assert [run.success for run in first] == [True, False]
        assert stub.failed > 0 and len(stub.requests) - stub.failed == one
        stub.reset()
        second = sweep()
        assert [run.success for run in second] == [True, True]
        assert len(stub.requests) == debate  # row One's log reused: no call made twice
        stub.reset()
        third = sweep()
        assert [run.success for run in third] == [True, True]
        assert stub.requests == []
        table = measure(
            experiment, third, "openai-api/stub/m", 2, 1, "logs", {"sqa": str(STRATEGYQA)}
        )
        assert [[c.runs for c in row.cells] for row in table.rows] == [
            [(50.0,), (1.0,)],  # the stub says yes: right on the fixture's first question only
            [(50.0,), (4.0,)],
        ]
        stub.reset()
        assert [run.success for run in sweep(limit=3)] == [True, True]
        assert len(stub.requests) == 1 + 4  # only the third sample, in each row


def test_a_stopped_sweep_resumes_inside_a_row_through_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_API_KEY", "k")
    write_experiment(tmp_path, "inside")
    monkeypatch.setattr(experiments_module, "EXPERIMENTS", tmp_path)
    one, debate = 2 * 1, 2 * 4  # as above: row One 1 call per sample, row Debate 2 x 2
    second_question = "Would a glass of water freeze"  # the fixture's second question

    def fail(index: int, body: Any) -> bool:  # row One runs first and makes requests 0 and 1
        return index >= one and second_question in first_user_text(body)

    with OpenAIStub(reply=lambda body: "I weighed it.\nANSWER: yes", fail=fail) as stub:
        # the second sample fails only once the first has its 4 replies and time to finish (a
        # failing sample stops the task, cancelling a sample still running)
        first_done, lock, seen, held = threading.Event(), threading.Lock(), [0, 0], [True]
        respond = stub.respond

        def in_order(body: Any) -> tuple[int, Any]:
            with lock:
                index, seen[0] = seen[0], seen[0] + 1
            second = index >= one and second_question in first_user_text(body)
            if second and held[0]:
                first_done.wait(30)
                time.sleep(1.0)
                held[0] = False
            status, answer = respond(body)
            if index >= one and not second:
                with lock:
                    seen[1] += 1
                if seen[1] == debate // 2:
                    first_done.set()
            return status, answer

        stub.respond = in_order  # type: ignore[method-assign]
        args = ["reproduce", "inside", "--model", "openai-api/stub/m", "--limit", "2"]
        args += ["--log-dir", str(tmp_path / "logs"), "--data", f"sqa={STRATEGYQA}"]
        args += ["--model-base-url", stub.base_url]
        with pytest.raises(SystemExit) as stopped:
            main(args)  # row One finishes; in row Debate the first sample does, the second fails
        assert stopped.value.code == 1
        assert stub.failed > 0 and len(stub.requests) - stub.failed == one + debate // 2
        stub.reset()
        with no_exit():
            main(args)
        # only the second sample of row Debate runs: its 2 agents x 2 rounds
        assert len(stub.requests) == debate // 2
        assert all(second_question in first_user_text(body) for body in stub.requests)
        stub.reset()
        with no_exit():
            main(args)
        assert stub.requests == []


# ---- the numbers: each run an epoch, checked against the logs read directly

# madsim (accuracy 0.5) on the fixture's first 4 questions, simple voting, per epoch, read by hand
# from the debate records: round 1 / round 2 answers of the three agents (target)
#   epoch 1: fx-01 yyy/yyy (yes), fx-02 yyn/yny (no), fx-03 nnn/nnn (no), fx-04 yyn/ynn (yes)
#   epoch 2: fx-01 yyy/nnn, fx-02 yyy/nny, fx-03 nny/ynn, fx-04 nyy/nnn
#   epoch 3: fx-01 yyy/yyy, fx-02 yyn/nnn, fx-03 ynn/yyy, fx-04 nny/yyy
R1_GOLDEN = [75.0, 75.0, 50.0]  # round 1's plurality right: 3, 3, 2 of 4
C2_GOLDEN = [0.5, 0.5, 1.0]  # the three agree after round 2: 2, 2, 4 of 4


def test_each_cell_is_the_mean_and_std_over_epochs_of_the_logs_values(tmp_path: Path) -> None:
    columns = [
        {
            "label": "Acc",
            "task": "sqa",
            "score": "final_answer",
            "metric": "accuracy",
            "scale": 100,
        },
        {"label": "T3", "task": "sqa", "score": "turns", "stat": "share>=3", "scale": 100},
        {"label": "R1", "task": "sqa", "stat": "round_accuracy:1", "scale": 100},
        {"label": "C2", "task": "sqa", "stat": "round_consensus:2"},
        # a metric giving several values (ended_in_turn: turn_1, turn_2, ...), by one's name
        {"label": "Turn 3", "task": "sqa", "score": "turns", "metric": "turn_3"},
    ]
    rows = [{"label": "Vote", "solver": "voting", "args": {"protocol": "simple"}}]
    path = write_experiment(tmp_path, "epochs", rows=rows, columns=columns, paper_values={})
    experiment = load_experiment(path)
    data = {"strategyqa": str(STRATEGYQA)}
    runs = run_experiment(
        experiment, "madsim/x", str(tmp_path), data, epochs=3, limit=4,
        model_args={"accuracy": 0.5}, display="none",
    )  # fmt: skip
    [log] = [read_eval_log(h.location) for h in runs[0].logs]
    table = measure(experiment, runs, "madsim/x", 4, 3, str(tmp_path), data)
    expected: dict[str, list[float]] = {c["label"]: [] for c in columns}
    # golden: madsim's seeded answers on the fixture's first 4 questions, counted by hand from
    # the logs' debate records (R1: the first round's plurality; C2: all 3 agents agree)
    expected["R1"] = R1_GOLDEN
    expected["C2"] = C2_GOLDEN
    for epoch in (1, 2, 3):
        samples = [s for s in log.samples if s.epoch == epoch]
        assert len(samples) == 4
        right = [s.scores["final_answer"].value == "C" for s in samples]
        expected["Acc"].append(100 * sum(right) / 4)
        expected["T3"].append(100 * sum(s.scores["turns"].value >= 3 for s in samples) / 4)
        expected["Turn 3"].append(sum(s.scores["turns"].value == 3 for s in samples) / 4)
    [row] = table.rows
    for column, cell in zip(experiment.columns, row.cells):
        assert cell is not None
        assert list(cell.runs) == pytest.approx(expected[column.label]), column.label
        assert cell.mean == pytest.approx(statistics.fmean(expected[column.label]))
        assert cell.std == pytest.approx(statistics.stdev(expected[column.label]))
    assert len(set(expected["Acc"])) > 1  # the epochs differ, so the std is not trivially 0
    # the first vote is in turn 3, and madsim's voters rank copies of one answer alike, so a
    # yes/no vote always decides there
    assert sum(expected["Turn 3"]) == 3
    calls = [len(DebateResult.from_dict(s.store["mad_tasks:debate"]).calls) for s in log.samples]
    assert row.calls == pytest.approx(statistics.fmean(calls))
    text = reproduce.to_markdown(table)
    acc = row.cells[0]
    assert acc is not None and acc.mean is not None and acc.std is not None
    assert f"| Vote | {acc.mean:.1f} ± {acc.std:.1f} |" in text


# ---- the per-round reader and the stats


def debate(*rounds: tuple[str | None, ...]) -> DebateResult:
    answers = [
        AgentAnswer(f"agent_{i}", r, f"ANSWER: {a}", a)
        for r, got in enumerate(rounds, start=1)
        for i, a in enumerate(got, start=1)
    ]
    return DebateResult("du_debate", None, answers, [])


def test_the_round_figures_read_the_answers_standing_after_each_round() -> None:
    fmt = make_format("yesno")
    result = debate(("yes", "no", "no"), ("yes", "yes", None), ("yes", "yes", "yes"))
    assert [a.answer for a in answers_after(result, 2)] == ["yes", "yes", None]
    assert answers_after(result, 9) == answers_after(result, 3)  # the last round's stand
    assert [plurality(result, r, fmt) for r in (1, 2, 3)] == ["no", "yes", "yes"]
    assert [round_correct(result, r, fmt, {"yes"}) for r in (1, 2, 3, 4)] == [False, True, True, True]  # fmt: skip
    # an abstention agrees with nobody
    assert [round_consensus(result, r, fmt) for r in (1, 2, 3)] == [False, False, True]
    silent = debate((None, None))
    assert plurality(silent, 1, fmt) is None
    assert not round_correct(silent, 1, fmt, {"yes"}) and not round_consensus(silent, 1, fmt)
    assert answers_after(result, 0) == []


def test_a_tie_is_broken_as_the_methods_break_it() -> None:
    fmt = make_format("yesno")
    # majority_vote's rule: the earlier rounds' votes, then agent order; never "no answer"
    assert plurality(debate(("yes", "no")), 1, fmt) == "yes"
    assert plurality(debate(("no", "yes")), 1, fmt) == "no"
    earlier = debate(("no", "no", "yes"), ("yes", "no", None))  # round 2 ties 1-1
    assert plurality(earlier, 2, fmt) == "no" and round_correct(earlier, 2, fmt, {"no"})


def test_an_agent_that_stops_answering_keeps_its_latest_answer() -> None:
    fmt = make_format("yesno")
    answers = [
        AgentAnswer("agent_1", 1, "ANSWER: no", "no"),
        AgentAnswer("agent_2", 1, "ANSWER: no", "no"),
        AgentAnswer("agent_3", 1, "ANSWER: yes", "yes"),
        # round 2: agent_2 is pruned (it gives no answer); agent_3 turns to no
        AgentAnswer("agent_1", 2, "ANSWER: yes", "yes"),
        AgentAnswer("agent_3", 2, "ANSWER: no", "no"),
        AgentAnswer("agent_1", 3, "ANSWER: no", "no"),
    ]
    result = DebateResult("cortex", None, answers, [])
    standing = [(a.agent, a.round, a.answer) for a in answers_after(result, 3)]
    assert standing == [("agent_1", 3, "no"), ("agent_2", 1, "no"), ("agent_3", 2, "no")]
    assert [(a.agent, a.answer) for a in answers_after(result, 2)] == [
        ("agent_1", "yes"), ("agent_2", "no"), ("agent_3", "no"),
    ]  # fmt: skip
    assert plurality(result, 2, fmt) == "no"  # 2 of 3 standing, not 1-1 in round 2 alone
    assert [round_consensus(result, r, fmt) for r in (1, 2, 3)] == [False, False, True]


def hearing(order: str, *totals: tuple[int, int] | None) -> Hearing:
    evaluations = [
        Evaluation("judge", r, scores, None, "scored", 1) for r, scores in enumerate(totals, 1)
    ]
    verdict = Verdict("A", {}, 0, True, None)
    return Hearing(order, len(totals), [], evaluations, "steady", [], verdict, "", None, 1)


def test_the_judge_gap_of_a_round_is_its_margin_over_the_hearings_that_scored_it() -> None:
    """judge_gap:R (D3's Fig. 5): |A - B| of the judge's round-R totals, the mean over both
    orders; a hearing that stopped earlier or left the round unscored is not counted, and a
    non-judge record has none."""
    record = JudgeRecord(
        verdict="A", position_consistent=True, max_rounds=5, token_budget_enforced=None,
        hearings=[hearing("AB", (80, 70), (85, 70), (90, 70)), hearing("BA", (60, 80), None)],
    )  # fmt: skip
    judged = DebateResult("samre", "A", [], [], record=record)
    assert [scored(f"judge_gap:{r}", judged) for r in (1, 2, 3, 4)] == [15.0, 15.0, 20.0, None]
    assert scored("judge_gap:1", debate(("yes",))) is None
    assert scored("agent_accuracy:1", judged) is None  # a verdict: no agent's answer


def test_an_agents_accuracy_is_its_own_last_answers() -> None:
    """agent_accuracy:N reads the N-th agent to answer, its last answer (an abstention is wrong);
    an agent that is not there, and the CortexDebate figures of another method's record, are
    not measured."""
    result = debate(("yes", "no", "no"), ("no", "yes", None))
    assert [scored(f"agent_accuracy:{n}", result) for n in (1, 2, 3, 4)] == [0.0, 1.0, 0.0, None]
    # a limit before any answer: each of the run's agents is wrong, not left out
    cut = DebateResult("du_debate", None, [], [], options={"agents": 3})
    assert [scored(f"agent_accuracy:{n}", cut) for n in (1, 3, 4)] == [0.0, 0.0, None]
    for stat in ("agent_debates:1", "collisions", "revisions"):
        assert scored(stat, result) is None


def test_round_one_is_the_first_vote_with_the_methods_own_tie_rule() -> None:
    fmt = make_format("yesno")
    tied = debate(("yes", "no", "yes", "no"), ("yes", "yes", "yes", "no")).answers  # 2-2, then 3-1
    # CortexDebate with tie_break=none gives no answer on a tie; agent order is majority_vote's
    strict = DebateResult("cortex", "yes", tied, [], options={"tie_break": "none"})
    assert plurality(strict, 1, fmt) is None and not round_correct(strict, 1, fmt, {"yes"})
    assert plurality(strict, 2, fmt) == "yes"
    ordered = DebateResult("cortex", "yes", tied, [], options={"tie_break": "lowest_agent_index"})
    assert plurality(ordered, 1, fmt) == "yes"
    # all-distinct first answers give CortexDebate no answer, whatever its tie_break
    distinct = debate(("yes", "no"), ("yes", "yes")).answers
    assert plurality(DebateResult("cortex", "yes", distinct, []), 1, fmt) is None
    assert plurality(DebateResult("du_debate", "yes", distinct, []), 1, fmt) == "yes"


def final(result: DebateResult) -> DebateResult:
    """The record with its final answer: the last round's plurality, as du_debate gives it."""
    fmt = make_format("yesno")
    return replace(result, final=plurality(result, result.rounds, fmt))


def scored(stat: str, result: DebateResult, target: str = "yes") -> float | None:
    return reproduce.record_value(parse_stat(stat), result, (), {}, [target])


def on_demand_result(debated: bool, *rounds: tuple[str | None, ...]) -> DebateResult:
    result = debate(*rounds)
    record = OnDemandRecord(
        first="cot", trigger="confidence", threshold=0.8, first_answers=result.answers[:1],
        confidences=[0.5], first_answer=result.answers[0].answer, signal=0.5, source="logprobs",
        debated=debated, reason="scripted", reused=0, first_calls=1, first_tokens=None,
        debate_calls=0, debate_tokens=None, debate=None,
    )  # fmt: skip
    return DebateResult("on_demand", result.answers[-1].answer, result.answers, [], record=record)


RECORD_FIGURES = ("first_majority", "right_to_right", "wrong_to_right", "right_to_wrong", "wrong_to_wrong", "debated")  # fmt: skip


@pytest.mark.parametrize(
    "result, values",
    [
        # the first vote no (2 of 3) is wrong, the debate made it yes: wrong to right
        (final(debate(("yes", "no", "no"), ("yes", "yes", "yes"))), (0, 0, 1, 0, 0, 1)),
        # a 1-1 tie goes to agent order: yes, right; the debate ended on no: right to wrong
        (final(debate(("yes", "no"), ("no", "no"))), (1, 0, 0, 1, 0, 1)),
        (final(debate(("no", "yes"), ("no", "no"))), (0, 0, 0, 0, 1, 1)),  # the tie: no, wrong
        (final(debate(("yes",))), (1, 1, 0, 0, 0, 0)),  # one answer, no debate: first = final
        (final(debate((None, None))), (0, 0, 0, 0, 1, 0)),  # every agent abstained: wrong
        # on_demand's own decision, whatever rounds its record holds
        (on_demand_result(False, ("yes",), ("yes",)), (1, 1, 0, 0, 0, 0)),
        (on_demand_result(True, ("no",)), (0, 0, 0, 0, 1, 1)),
    ],
)
def test_the_record_stats_read_the_transitions_and_whether_it_debated(
    result: DebateResult, values: tuple[int, ...]
) -> None:
    assert tuple(scored(stat, result) for stat in RECORD_FIGURES) == values


def test_a_record_without_first_answers_has_no_transition_figure() -> None:
    empty = DebateResult("du_debate", None, [], [])
    assert [scored(stat, empty) for stat in RECORD_FIGURES] == [
        None
    ] * 6  # no answers: no debate either
    assert scored("first_majority", final(debate(("yes",))), target="") is None  # no target


def test_the_record_columns_read_each_samples_record_from_the_log(tmp_path: Path) -> None:
    columns = [
        {"label": "Debated", "task": "sqa", "stat": "debated", "scale": 100},
        {"label": "First", "task": "sqa", "stat": "first_majority", "scale": 100},
        {"label": "R1", "task": "sqa", "stat": "round_accuracy:1", "scale": 100},
        *({"label": t, "task": "sqa", "stat": t, "scale": 100} for t in RECORD_FIGURES[1:5]),
    ]
    on_demand = {"solver": "on_demand", "args": {"debate_args": {"agents": 3, "rounds": 2}}}
    rows = [
        {"label": "Never", **on_demand, "args": {**on_demand["args"], "trigger": "never"}},
        {"label": "Always", **on_demand, "args": {**on_demand["args"], "trigger": "always"}},
        {"label": "Votes", "solver": "self_consistency", "args": {"samples": 3}},
    ]
    path = write_experiment(tmp_path, "records", rows=rows, columns=columns, paper_values={})
    experiment = load_experiment(path)
    data = {"sqa": str(STRATEGYQA)}
    runs = run_experiment(experiment, "madsim/x", str(tmp_path), data, limit=4, display="none")
    table = measure(experiment, runs, "madsim/x", 4, 1, str(tmp_path), data)
    cells = {row.label: [c.runs[0] for c in row.cells if c is not None] for row in table.rows}
    # each figure again, from the logs' records by the transitions scorer's own reader
    for row, run in zip(table.rows, runs):
        [log] = [read_eval_log(h.location) for h in run.logs]
        readings = []
        for s in log.samples:
            result = DebateResult.from_dict(s.store["mad_tasks:debate"])
            readings.append(reading_of(result, s.choices or [], s.metadata, [s.target]).values)
        first = [r["first_majority_correct"] for r in readings]
        moves = [[r[t] for r in readings] for t in RECORD_FIGURES[1:5]]
        assert cells[row.label][1:] == [25.0 * sum(first)] * 2 + [25.0 * sum(m) for m in moves]
    assert [cells[label][0] for label in ("Never", "Always", "Votes")] == [0.0, 100.0, 0.0]
    for label in ("Never", "Votes"):  # no debate: the first vote is the final answer
        assert cells[label][4] == cells[label][5] == 0.0  # no W→R, no R→W
    assert sum(cells["Always"][3:]) == 100.0  # each sample made one of the four transitions


def test_the_report_plot_names_rows_of_one_method_by_the_options_that_differ() -> None:
    pytest.importorskip("matplotlib")
    from mad_tasks.logs_report import Row, plot, point_labels

    debate = 'debate=du_debate debate_args={"agents":3,"rounds":3} trigger=confidence'
    solvers = [
        "cot",
        "du_debate agents=3 rounds=3",
        f"on_demand {debate} threshold=0.8",
        f"on_demand {debate} threshold=0.9",
        "self_consistency match_debate=3x3",
        "voting protocol=simple " + "x" * 40,
    ]
    names = point_labels([*solvers, "cot"])  # a label twice (two models): one name
    assert list(names.values()) == [
        "cot",
        "du_debate agents=3 rounds=3",  # the only du_debate: its whole label
        "on_demand threshold=0.8",  # what sets the two on_demand rows apart
        "on_demand threshold=0.9",
        "self_consistency match_debate=3x3",
        "voting protocol=simple " + "x" * 16 + "…",  # cut to 40 characters
    ]
    assert point_labels(["cot", "cot temperature=0"]) == {"cot": "cot", "cot temperature=0": "cot temperature=0"}  # fmt: skip
    rows = [
        Row("t", solver, "madsim/x", "final_answer accuracy", 0.5 + i / 20, None, 2, 1.0,
            100.0 * (i + 1), 10.0, 0.0, 0.0, 0.0, None, "log")
        for i, solver in enumerate(solvers)
    ]  # fmt: skip
    shown = [text.get_text() for text in plot("t", rows).axes[0].texts]
    assert shown == [names[s] for s in solvers]


def test_the_stats_and_their_parsing() -> None:
    values = [1.0, 5.0, None, 5.0, 3.0]  # None: unscored, left out
    assert stat_value(parse_stat("mean"), values) == 3.5
    assert stat_value(parse_stat("sum"), values) == 14.0
    assert stat_value(parse_stat("share==5"), values) == 0.5
    assert stat_value(parse_stat("share>=3"), values) == 0.75
    assert stat_value(parse_stat("share>=3"), [None]) is None
    assert parse_stat("round_accuracy:3") == Stat("round_accuracy", 3)
    assert parse_stat("agent_accuracy:5") == Stat("agent_accuracy", 5)
    assert parse_stat("judge_gap:2") == Stat("judge_gap", 2)
    assert parse_stat("agent_debates:1").from_record and parse_stat("collisions").from_record
    assert [parse_stat(name) for name in RECORD_FIGURES] == [Stat(name) for name in RECORD_FIGURES]
    assert all(Stat(name).from_record for name in RECORD_FIGURES)
    assert not parse_stat("mean").from_record
    for bad in ("median", "debated:1", "wrong_to_right:2", "share==", "share==x", "round_accuracy:0", "round_consensus:101", "share>=1e999", "round_accuracy:²", "round_accuracy:١", "agent_accuracy:0", "collisions:1"):  # fmt: skip
        with pytest.raises(ValueError, match="allowed: mean, sum"):
            parse_stat(bad)


# ---- refusals


@pytest.mark.parametrize(
    "changes, field, message",
    [
        ({"rows": [{"label": "X", "solver": "votng"}]}, "rows[0].solver", "unknown solver 'votng'"),
        ({"paper_values": {"Nobody": {"Acc": 1}}}, "paper_values.Nobody", "not a row's label"),
        ({"paper_values": {"One": {"Nope": 1}}}, "paper_values.One.Nope", "not a column's label"),
        (
            {"columns": [{"label": "A", "task": "gsm", "score": "s", "metric": "mean"}]},
            "columns[0].task",
            "unknown task key 'gsm'",
        ),
        (
            {"columns": [{"label": "A", "task": "sqa", "score": "s", "stat": "median"}]},
            "columns[0].stat",
            "allowed: mean, sum",
        ),
        (
            {"columns": [{"label": "A", "task": "sqa", "score": "s"}]},
            "columns[0].metric",
            "exactly one of metric and stat",
        ),
        ({"tasks": {"sqa": {"task": "strategyqb"}}}, "tasks.sqa.task", "unknown task"),
        (
            {"tasks": {"sqa": {"task": "strategyqa", "scorers": ["nope"]}}},
            "tasks.sqa.scorers",
            "unknown scorer",
        ),
        ({"runs": 0}, "runs", "allowed: an integer from 1 to 20"),
        ({"name": "other"}, "name", "must be the file's name"),
        ({"rowz": []}, "rowz", "unknown field"),
        ({"rows": [{"label": "X", "solver": "cot", "arg": {}}]}, "rows[0].arg", "unknown field"),
        (
            {"rows": [{"label": "X", "solver": "cot", "tasks": [["sqa"]]}]},
            "rows[0].tasks",
            "unknown task key ['sqa']",
        ),
        (
            {"rows": [{"label": "X", "solver": "cot", "tasks": [{"a": 1}]}]},
            "rows[0].tasks",
            "unknown task key",
        ),
        (
            {"rows": [{"label": "X", "solver": "cot", "tasks": []}]},
            "rows[0].tasks",
            "at least one task key",
        ),
        (
            {"rows": [{"label": "X", "solver": "cot", "tasks": ["sqa", "sqa"]}]},
            "rows[0].tasks",
            "'sqa' is given twice",
        ),
        (
            {"rows": [{"label": "X", "solver": "cot", "tasks": "sqa"}]},
            "rows[0].tasks",
            "expected a list",
        ),
        (
            {"columns": [{"label": "A", "task": ["sqa", "gsm"], "score": "s", "metric": "mean"}]},
            "columns[0].task",
            "unknown task key 'gsm'",
        ),
        (
            {"columns": [{"label": "A", "task": [], "score": "s", "metric": "mean"}]},
            "columns[0].task",
            "at least one task key",
        ),
        (
            {"rows": [{"label": "X", "solver": "cot", "average": [{"a": 1}]}]},
            "rows[0].average",
            "a list of 2 to 20 mappings",
        ),
        (
            {"rows": [{"label": "X", "solver": "cot", "average": [{"a": 1}, {"a": 1}]}]},
            "rows[0].average[1]",
            "the same options as an earlier variant",
        ),
        (
            {
                "rows": [
                    {
                        "label": "X",
                        "solver": "cot",
                        "args": {"a": 0},
                        "average": [{"a": 1}, {"a": 2}],
                    }
                ]
            },
            "rows[0].average[0].a",
            "also set in args",
        ),
        (
            {"rows": [{"label": "X", "solver": "cot", "average": [{"a": 1}, {"solver": "nope"}]}]},
            "rows[0].average[1].solver",
            "unknown solver 'nope'",
        ),
        (
            {"rows": [{"label": "X", "solver": "cot", "average": [{"a": 1}, 3]}]},
            "rows[0].average[1]",
            "expected a mapping of options",
        ),
    ],
)
def test_a_bad_file_is_refused_naming_the_file_and_the_field(
    tmp_path: Path, changes: dict[str, Any], field: str, message: str
) -> None:
    path = write_experiment(tmp_path, "bad", **changes)
    with pytest.raises(ExperimentError) as refused:
        load_experiment(path)
    assert str(refused.value).startswith(f"bad.yaml: {field}: ")
    assert message in str(refused.value)


def test_an_unknown_name_is_refused_listing_the_experiments(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["reproduce", "seed999_nothing", "--model", "madsim/x"])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert "no experiment 'seed999_nothing'" in error and "seed004_fig2" in error


def test_a_bad_option_stops_before_any_model_call(tmp_path: Path) -> None:
    rows = [
        {"label": "One", "solver": "single"},
        {"label": "Debate", "solver": "du_debate", "args": {"agents": 0}},
    ]
    experiment = load_experiment(write_experiment(tmp_path, "badopt", rows=rows, paper_values={}))
    with pytest.raises(ValueError, match=r"row 'Debate'.*'agents': got 0"):
        run_experiment(experiment, "madsim/x", str(tmp_path), {"sqa": str(STRATEGYQA)}, limit=1)
    assert not (tmp_path / "badopt").exists()  # not even the first row ran
    good = load_experiment(write_experiment(tmp_path, "baddata"))
    with pytest.raises(ValueError, match="--data nope: not a task of baddata"):
        run_experiment(good, "madsim/x", str(tmp_path), {"nope": "x.jsonl"}, limit=1)
    assert not (tmp_path / "baddata").exists()


def test_shared_solver_options_go_to_every_row_that_leaves_them_open(tmp_path: Path) -> None:
    rows = [
        {"label": "One", "solver": "single"},
        {"label": "Debate", "solver": "du_debate", "args": {"agents": 2, "max_tokens": 50}},
    ]
    experiment = load_experiment(write_experiment(tmp_path, "shared", rows=rows))
    shared = {"max_tokens": 77, "temperature": 0.5}  # the Debate row sets its own max_tokens
    runs = run_experiment(
        experiment,
        "madsim/x",
        str(tmp_path),
        {"sqa": str(STRATEGYQA)},
        solver_args=shared,
        limit=1,
        display="none",
    )
    passed = [run.logs[0].eval.solver_args_passed for run in runs]
    assert passed == [shared, {"max_tokens": 50, "temperature": 0.5, "agents": 2}]
    table = measure(experiment, runs, "madsim/x", 1, 1, "logs", solver_args=shared)
    assert "every solver with `max_tokens=77 temperature=0.5` where the row leaves it open" in (
        reproduce.to_markdown(table)
    )
    with pytest.raises(ValueError, match=r"row 'One'.*'rounds': got 3, allowed: no such option"):
        run_experiment(
            experiment, "madsim/x", str(tmp_path / "bad"), solver_args={"rounds": 3}, limit=1
        )
    assert not (tmp_path / "bad").exists()


def test_the_docs_list_every_experiment() -> None:
    doc = (ROOT / "docs" / "reproducing.md").read_text(encoding="utf-8")
    assert reproduce.list_markdown() in doc, "regenerate the list: see docs/reproducing.md"


def test_with_inspects_registry_moved_a_bad_name_is_refused_when_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import inspect_ai._util.registry as internals

    rows = [{"label": "X", "solver": "votng"}]
    path = write_experiment(tmp_path, "moved", rows=rows, paper_values={})
    monkeypatch.delattr(internals, "registry_lookup")
    experiment = load_experiment(path)  # the name cannot be checked here
    monkeypatch.undo()  # registry_create needs it too
    with pytest.raises(LookupError, match=r"row 'X'.*votng"):
        run_experiment(experiment, "madsim/x", str(tmp_path), {"sqa": str(STRATEGYQA)}, limit=1)
    assert not (tmp_path / "moved").exists()


def test_a_bad_file_does_not_stop_the_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_experiment(tmp_path, "good")
    write_experiment(tmp_path, "listed", rows=[{"label": "X", "solver": "cot", "tasks": [[1]]}])
    monkeypatch.setattr(experiments_module, "EXPERIMENTS", tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main(["reproduce", "--list"])
    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert [line.split("\t")[0] for line in out.splitlines()] == ["good"]
    assert "listed.yaml: rows[0].tasks: unknown task key [1]" in err


# ---- the command's own options: checked before anything runs


@pytest.mark.parametrize(
    "option, value, allowed",
    [
        ("--epochs", "0", "an integer from 1 to 20"),
        ("--epochs", "21", "an integer from 1 to 20"),
        ("--limit", "0", "an integer >= 1"),
        ("--limit", "-3", "an integer >= 1"),
        ("--max-tasks", "0", "an integer >= 1"),
    ],
)
def test_a_count_out_of_range_stops_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, allowed: str
) -> None:
    args = ["reproduce", "seed004_table1", "--model", "madsim/x", "--log-dir", str(tmp_path)]
    with pytest.raises(SystemExit) as stopped:
        main([*args, option, value])
    assert stopped.value.code == 2
    assert f"{option}: got {value}, allowed: {allowed}" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing ran


def test_a_row_that_raises_still_writes_the_finished_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_experiment(tmp_path, "raising")
    monkeypatch.setattr(experiments_module, "EXPERIMENTS", tmp_path)
    real = reproduce.run_row

    def run_row(sweep: Any, row: Any, *args: Any, **kwargs: Any) -> Any:
        if row.label == "Debate":
            raise RuntimeError("the provider went away")
        return real(sweep, row, *args, **kwargs)

    monkeypatch.setattr(reproduce, "run_row", run_row)
    args = ["reproduce", path.stem, "--model", "madsim/x", "--limit", "2", "--epochs", "1"]
    with pytest.raises(SystemExit) as stopped:
        main([*args, "--log-dir", str(tmp_path / "logs"), "--data", f"sqa={STRATEGYQA}"])
    assert stopped.value.code == 1
    out, err = capsys.readouterr()
    assert "row 'Debate': RuntimeError('the provider went away')" in err
    table = markdown_table((tmp_path / "logs" / "raising" / "raising.md").read_text())
    assert [row[0] for row in table[1:]] == ["One", "Debate"]
    assert CELL.fullmatch(table[1][1]) and table[2][1] == "– (paper: 60)"
    assert "unfinished: Debate; run the same command again to resume" in out


# ---- measuring: what cannot be measured is noted, never a crash


def test_a_misspelt_metric_or_a_failing_one_is_noted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    columns = [
        {"label": "Acc", "task": "sqa", "score": "final_answer", "metric": "acuracy"},
        {"label": "Turn", "task": "sqa", "score": "turns", "metric": "turn_9"},
        {"label": "Right", "task": "sqa", "score": "final_answer", "metric": "accuracy"},
    ]
    rows = [{"label": "Vote", "solver": "voting", "args": {"protocol": "simple"}}]
    path = write_experiment(tmp_path, "metrics", rows=rows, columns=columns, paper_values={})
    experiment = load_experiment(path)
    data = {"sqa": str(STRATEGYQA)}
    runs = run_experiment(experiment, "madsim/x", str(tmp_path), data, limit=2, display="none")
    table = measure(experiment, runs, "madsim/x", 2, 1, str(tmp_path), data)
    [row] = table.rows
    assert [c.runs for c in row.cells if c is not None] == [(), (), (1.0,)]
    acc, turn = table.notes[0], table.notes[1]
    assert acc.startswith("Vote / Acc: 'final_answer' has no metric 'acuracy'; its scorer declares: accuracy, stderr")  # fmt: skip
    assert turn.startswith("Vote / Turn: 'turns' has no metric 'turn_9'; its scorer declares: ")
    # the values a metric gives by name are listed
    assert "ended_in_turn (turn_1, turn_2, turn_3, " in turn

    def failing(kind: str, name: str, **options: Any) -> Any:
        raise ZeroDivisionError("no samples")

    monkeypatch.setattr(measuring, "registry_create", failing)
    broken = measure(experiment, runs, "madsim/x", 2, 1, str(tmp_path), data)
    assert [c.runs for c in broken.rows[0].cells if c is not None] == [(), (), ()]
    assert any(n.startswith("Vote / Right: metric 'accuracy' of 'final_answer' failed: no samples") for n in broken.notes)  # fmt: skip
    monkeypatch.undo()

    def unreadable(location: str) -> Any:
        raise OSError("gone")

    monkeypatch.setattr(measuring, "read_eval_log", unreadable)
    lost = measure(experiment, runs, "madsim/x", 2, 1, str(tmp_path), data)
    assert [c.runs for c in lost.rows[0].cells if c is not None] == [(), (), ()]
    assert lost.notes[0].startswith("Vote / sqa: cannot read ") and lost.notes[0].endswith(": gone")


def test_an_unscored_sample_counts_in_no_metric() -> None:
    """A figure a sample has no value for (Inspect's NaN sentinel of `Score.unscored`) is left out,
    as Inspect leaves it out of the log's own results: one such sample never voids the run."""
    from types import SimpleNamespace

    from inspect_ai.log._log import EvalMetricDefinition, EvalScorer
    from inspect_ai.scorer import SampleScore, Score

    log: Any = SimpleNamespace(
        eval=SimpleNamespace(
            scorers=[EvalScorer(name="answer_cosine", metrics=[EvalMetricDefinition(name="mean")])]
        )
    )
    scores = [SampleScore(score=Score(value=v)) for v in (0.5, float("nan"), 1.0)]
    assert measuring._metric(log, "answer_cosine", "mean", scores) == 0.75
    assert measuring._metric(log, "answer_cosine", "mean", scores[1:2]) is None


def test_a_column_over_several_tasks_is_their_mean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_API_KEY", "k")
    tasks = {
        "sqa": {"task": "strategyqa", "args": {}},
        "first": {"task": "strategyqa", "args": {"subset": 1}},
    }
    rows = [
        {"label": "One", "solver": "single"},
        {"label": "Half", "solver": "single", "tasks": ["sqa"]},
    ]
    columns = [
        {"label": "Both", "task": ["sqa", "first"], "score": "final_answer", "metric": "accuracy", "scale": 100},
        {"label": "Sqa", "task": "sqa", "score": "final_answer", "metric": "accuracy", "scale": 100},
    ]  # fmt: skip
    path = write_experiment(
        tmp_path, "mean", tasks=tasks, rows=rows, columns=columns, paper_values={}
    )
    experiment = load_experiment(path)
    data = {"strategyqa": str(STRATEGYQA)}
    with OpenAIStub(reply=lambda body: "I weighed it.\nANSWER: yes") as stub:
        runs = run_experiment(
            experiment, "openai-api/stub/m", str(tmp_path), data, limit=2,
            model_base_url=stub.base_url, display="none",
        )  # fmt: skip
    table = measure(experiment, runs, "openai-api/stub/m", 2, 1, str(tmp_path), data)
    # yes is right on the fixture's first question only: 1 of 2 on sqa, 1 of 1 on first
    assert [[None if c is None else c.runs for c in row.cells] for row in table.rows] == [
        [(75.0,), (50.0,)],
        [None, (50.0,)],  # the Half row does not run every task of Both: n/a
    ]


def test_a_row_averaged_over_variants_runs_each_and_scores_their_mean(tmp_path: Path) -> None:
    """`average`: one eval set per variant (a variant may name another solver), each run's value
    the mean of the variants' values, as Table 1 of seed 004 averages over protocols."""
    rows = [
        {
            "label": "Both",
            "solver": "voting",
            "args": {"agents": 2},
            "average": [{"protocol": "simple"}, {"solver": "consensus", "protocol": "majority"}],
        }
    ]
    columns = [
        {"label": "Acc", "task": "sqa", "score": "final_answer", "metric": "accuracy", "scale": 100}
    ]
    path = write_experiment(tmp_path, "avg", rows=rows, columns=columns, paper_values={})
    experiment = load_experiment(path)
    assert experiment.evals == 2
    data = {"strategyqa": str(STRATEGYQA)}
    # an -S option the variants set too: the variant's value wins, as it does when the row runs
    swept = prepare(experiment, data, solver_args={"protocol": "ranked", "agents": 3})
    assert swept.solver_args["Both"] == {"protocol": "ranked", "agents": 2}
    runs = run_experiment(
        experiment, "madsim/x", str(tmp_path), data, limit=4, model_args={"accuracy": 0.5},
        display="none",
    )  # fmt: skip
    [run] = runs
    logs = [read_eval_log(h.location) for h in run.logs]
    assert sorted((log.eval.solver, log.eval.solver_args_passed["protocol"]) for log in logs) == [
        ("consensus", "majority"),
        ("voting", "simple"),
    ]
    assert {Path(h.location).parent.name for h in run.logs} == {
        "protocol=simple",
        "protocol=majority_solver=consensus",  # the file's keys, as YAML wrote them
    }
    accuracy = [
        100 * statistics.fmean(s.scores["final_answer"].value == "C" for s in log.samples)
        for log in logs
    ]
    assert len(set(accuracy)) == 2  # the variants differ, so the mean is not one of them
    [row] = measure(experiment, runs, "madsim/x", 4, 1, str(tmp_path), data).rows
    [cell] = row.cells
    assert cell is not None and list(cell.runs) == pytest.approx([statistics.fmean(accuracy)])
    calls = [len(DebateResult.from_dict(s.store["mad_tasks:debate"]).calls)
             for log in logs for s in log.samples]  # fmt: skip
    assert row.calls == pytest.approx(statistics.fmean(calls))


def test_a_column_has_one_number_of_decimals(tmp_path: Path) -> None:
    columns = [
        {"label": "Small", "task": "sqa", "score": "s", "metric": "mean"},
        {"label": "Mixed", "task": "sqa", "score": "s", "metric": "mean"},
        {"label": "Pct", "task": "sqa", "score": "s", "metric": "mean", "scale": 100},
    ]
    experiment = load_experiment(write_experiment(tmp_path, "dec", columns=columns, paper_values={}))  # fmt: skip
    cells = {
        "One": (reproduce.Cell((0.5,)), reproduce.Cell((0.25, 0.75)), reproduce.Cell((0.5,))),
        "Debate": (reproduce.Cell((0.125,)), reproduce.Cell((2.0,)), reproduce.Cell((12.25,))),
    }
    rows = tuple(reproduce.TableRow(label, c, 1.0, 10.0) for label, c in cells.items())
    table = reproduce.Table(experiment, rows, "m", None, 1, "logs", "today")
    assert [r[1:4] for r in reproduce.table_cells(table)[1:]] == [
        ["0.500", "0.5 ± 0.4", "0.5"],
        ["0.125", "2.0", "12.2"],
    ]


# ---- the paper's numbers: a few headline cells per file, as the research notes print them


HEADLINES = {
    # ../shared/research/seed-000-pd3.md 4.4 (Table 1), 4.5 (Table 2), 4.6 (Table 7)
    "seed000_headline": [
        ("BM25 (WF)", "Prec@5", "28.70"),
        ("Random (Random)", "Prec@5", "16.80"),
        ("ROUGE-L (WF)", "Prec@5", "23.99"),
        ("LLM-as-a-Judge (LLM)", "Prec@5", "38.49"),
        ("TourRank (LLM)", "K = 3", "30.21"),
        ("DMAD (MAD)", "K = 4", "9.37"),
        ("gte-1.5B with instruction (VD)", "K = 2", "64.35"),
        ("Qwen3-8B as reranker (VD)", "K = 3", "33.23"),
        ("jina as reranker (VD)", "K = 4", "1.21"),
    ],
    "seed000_ablations": [
        ("DeepSeek V3 Voting (LLM with Voting)", "Prec@5", "42.05"),
        ("MAD Traversal", "Prec@5", "42.11"),
    ],
    "seed000_feedback": [
        ("PD³ feedback (Ours)", "Human Retrieval Weighted", "62.67"),
        ("gte-1.5B AVG (VD)", "Human Retrieval Origin", "65.00"),
        ("LLM-as-a-Judge MAX (LLM)", "Human Retrieval Weighted", "48.67"),
        ("reranker AVG (VD)", "Method Retrieval Weighted", "52.00"),
        ("PD³ feedback with conclusion (Ours)", "Method Retrieval Weighted", "64.67"),
    ],
    # the paper's Tables 9-11 (App. A.6)
    "seed000_table9": [("10", "Prec@5", "42.30"), ("20 (ours)", "K = 5", "3.02")],
    "seed000_table10": [("3", "Prec@5", "49.33")],
    "seed000_table11": [("2", "Prec@5", "47.33")],
    # the paper's Tables 4-6 (App. A.4, A.6)
    "seed000_table4": [("Debate", "input per project", "4358k")],
    "seed000_table5": [
        ("gte-7B as reranker(w/o INST)", "Prec@5", "38.97"),
        ("PD³ (Best Hyperparameters)", "K = 4", "14.20"),
        ("bge as reranker", "K = 2", "34.13"),
    ],
    "seed000_table6": [("Qwen3-8B as reranker", "Prec@5", "35.00"), ("DMAD", "Prec@5", "41.00")],
    # seed-001-cortexdebate.md 4.3 (Table 1), 4.4 (Table 7), 4.6 (Table 8)
    "seed001_table1": [("Ours", "GSM-IC", "79.33±0.22"), ("PRD", "MATH", "51.33±0.89")],
    "seed001_table5": [("Ours", "MATH", "56.30"), ("PRD", "LongBench tokens", "815449.95")],
    "seed001_table7": [("Ours", "SQuAD", "11965.81")],
    "seed001_table8": [("Ours", "Score 5", "69.41")],
    # the paper's Tables 2, 9 and 11
    "seed001_table2": [
        ("+ MDM (w/o I and S)", "Score", "66.69"),
        ("+ Self-evaluation (RECONCILE)", "Score", "62.13"),
        ("+ Peer Evaluation (PRD)", "Score", "66.71"),
    ],
    "seed001_table9": [("AMT", "RA", "52.00")],
    "seed001_table3": [("with I and S factors", "DVC", "8.44")],
    "seed001_table10": [("R1-P", "Score", "56.91±3.10"), ("DeTS", "Score", "57.57±0.69")],
    "seed001_table4": [("CortexDebate", "Gemma Avg-DN", "5.46"), ("FcG", "Qwen RA", "54.00")],
    "seed001_table11": [("w/o recalibration", "Average Score", "68.62")],
    # seed-002-d3.md (Tables 1 and 3)
    "seed002_table1": [
        ("Single Judge", "MT-Bench Acc. (%)", "72.5"),
        ("PRD", "AUTO-J Acc. (%)", "75.8"),
    ],
    "seed002_bias": [("Single juror, no persona", "Accuracy (%)", "72.5")],
    "seed002_table2": [("D3-SAMRE", "Avg. Tokens", "4,650"), ("PRD", "Avg. Tokens", "3,100")],
    # the paper's Fig. 4 text (Sec. 5.5) and Table 5
    "seed002_fig4": [("Budgeted stopping", "Rounds", "2.71")],
    "seed002_fig2": [("D3-MORE with personas", "Subjective (%)", "80.9")],
    "seed002_table4": [("Curated 5-persona set", "Accuracy (%)", "86.1")],
    "seed002_table5": [("D3-MORE", "Accuracy (%)", "73.9"), ("PRD", "Accuracy (%)", "71.5")],
    # seed-003-tree-of-debate.md (Table 2: ToD's task-pair factuality)
    "seed003_table2_split": [
        ("Tree-of-Debate", "Task + Cite Context", "100"),
        ("ToD (No Tree)", "Task + Cite Factuality", "61.11"),
    ],
    "seed003_headline": [("Tree-of-Debate", "Overall (Task) Factuality", "92.36")],
    "seed003_table9": [("D = 1", "Factuality", "72.72 (0.7272)")],
    # seed-004-voting-consensus.md 6.1 (Fig. 2), Table 1, Table 2, Table 4
    "seed004_fig2": [("Simple", "MMLU", "53.3±1.8"), ("Majority", "SQuAD2 F1", "43.1±2.1")],
    "seed004_fig11": [("Simple", "StrategyQA", "81.2"), ("Supermajority", "GPQA", "46.6")],
    "seed004_fig3": [("Majority Consensus", "All Samples", "43.1±2.1")],
    "seed004_table1": [("Baseline", "Answer Cosine Similarity", "0.888")],
    "seed004_table2": [("Voting", "Turn 3", "99.33")],
    "seed004_table4": [("Solution Counting", "MMLU", "53.6±2.8")],
}
# plots only; DOWN: its result tables were not readable (down_headline.yaml's notes)
NO_VALUES = {
    "seed002_fig5",
    "seed001_fig5",
    "seed004_challenge",
    "seed004_figs8_10",
    "seed004_scaling_agents",
    "seed004_scaling_turns",
    "down_headline",
    "reconcile_models",
    "adaptive_headline",
}


def test_the_headline_paper_values_are_the_papers() -> None:
    assert set(HEADLINES) | NO_VALUES == set(SHIPPED)
    for name, cells in HEADLINES.items():
        values = find_experiment(name).paper_values
        assert [values[row][column] for row, column, _ in cells] == [v for *_, v in cells], name
    for name in NO_VALUES:
        values = find_experiment(name).paper_values
        assert all(v is None for cells in values.values() for v in cells.values()), name


def test_offline_without_data_the_hint_names_reproduces_way_to_a_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A public source out of reach stops the run before any call, in one line that names
    `--data` (reproduce takes no `-T data_path`), with no traceback."""
    from mad_tasks.tasks import strategyqa as module
    from mad_tasks.tasks._data import DataUnavailable

    def offline(url: str, name: str) -> Path:
        raise DataUnavailable(f"could not download {url} (no network)")

    monkeypatch.setattr(module, "download", offline)
    with pytest.raises(SystemExit) as stopped:
        main(["reproduce", "down_headline", "--model", "madsim/x", "--log-dir", str(tmp_path)])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("mad-tasks reproduce: could not download ") and err.count("\n") == 1
    assert "--data TASK=FILE" in err and "-T data_path" not in err
