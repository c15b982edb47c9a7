"""`mad-tasks reproduce`: the experiment files, the sweep, the table, and resuming.

Every shipped experiment runs end to end offline on the simulated model over the tasks' fixtures
and yields the paper's rows and columns in order with the paper's values beside; a sweep stopped
half-way by an OpenAI-compatible stub on 127.0.0.1 resumes with exactly the unfinished calls; the
table's numbers are checked against the logs read directly; bad files are refused by file and field.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai.log import read_eval_log
from openai_stub import OpenAIStub, fail_after
from test_tasks_e2e import FIXTURE
from testdata import STRATEGYQA

from mad_tasks import reproduce
from mad_tasks.cli import main
from mad_tasks.engine.answers import make_format
from mad_tasks.engine.records import AgentAnswer, DebateResult
from mad_tasks.reproduce import (
    ExperimentError,
    Stat,
    answers_after,
    experiment_files,
    find_experiment,
    load_experiment,
    measure,
    parse_stat,
    plurality,
    round_consensus,
    round_correct,
    run_experiment,
    stat_value,
)

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(experiment_files())
CELL = re.compile(r"(?P<measured>-?\d+\.\d+(?: ± \d+\.\d+)?) \(paper: (?P<paper>.+)\)")


def markdown_table(text: str) -> list[list[str]]:
    """The rows of the page's one table, header first, cells stripped."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    rows = [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]
    return [rows[0], *rows[2:]]  # without the |---| line


# ---- every shipped experiment, end to end


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
        if entry.task not in FIXTURE:
            pytest.skip(f"task {entry.task} has no fixture in tests/test_tasks_e2e.py FIXTURE")
        data += ["--data", f"{entry.key}={FIXTURE[entry.task]}"]
    args = ["reproduce", name, "--model", "madsim/x", "--limit", "2", "--epochs", "1"]
    args += ["--log-dir", str(tmp_path), "--max-tasks", str(len(experiment.tasks)), *data]
    with no_exit():
        main(args)
    text = (tmp_path / name / f"{name}.md").read_text(encoding="utf-8")
    table = markdown_table(text)
    columns = [c.label for c in experiment.columns]
    assert table[0] == ["", *columns, "calls/sample", "tokens/sample"]
    assert [row[0] for row in table[1:]] == [row.label for row in experiment.rows]
    measured, calls = 0, []
    for row, cells in zip(experiment.rows, table[1:]):
        paper = experiment.paper_values.get(row.label, {})
        for column, cell in zip(experiment.columns, cells[1:-2]):
            if column.task not in row.tasks:
                assert cell == "n/a"
                continue
            shown = "–" if paper.get(column.label) is None else str(paper[column.label])
            if cell == f"– (paper: {shown})":  # nothing to measure in 2 samples: said why
                assert f"\n- {row.label} / {column.label}: no value of " in text
                continue
            got = CELL.fullmatch(cell)
            assert got, f"{row.label} / {column.label}: {cell!r} is no measured value"
            assert got["paper"] == shown
            assert " ± " not in got["measured"]  # one run: no std
            measured += 1
        assert re.fullmatch(r"\d+\.\d", cells[-2]) and re.fullmatch(r"\d+", cells[-1]), cells
        calls.append(float(cells[-2]))
    assert measured > 0 and max(calls) > 0  # (bm25 calls no model)
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


# ---- the numbers: each run an epoch, checked against the logs read directly


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
    fmt = make_format("yesno")
    expected: dict[str, list[float]] = {c["label"]: [] for c in columns}
    for epoch in (1, 2, 3):
        samples = [s for s in log.samples if s.epoch == epoch]
        assert len(samples) == 4
        results = [DebateResult.from_dict(s.store["mad_tasks:debate"]) for s in samples]
        golds = [{fmt.key(fmt.extract(f"ANSWER: {s.target}"))} for s in samples]
        right = [s.scores["final_answer"].value == "C" for s in samples]
        expected["Acc"].append(100 * sum(right) / 4)
        expected["T3"].append(100 * sum(s.scores["turns"].value >= 3 for s in samples) / 4)
        expected["R1"].append(
            100 * sum(round_correct(r, 1, fmt, g) for r, g in zip(results, golds)) / 4
        )
        expected["C2"].append(sum(round_consensus(r, 2, fmt) for r in results) / 4)
        expected["Turn 3"].append(sum(s.scores["turns"].value == 3 for s in samples) / 4)
    [row] = table.rows
    for column, cell in zip(experiment.columns, row.cells):
        assert cell is not None
        assert list(cell.runs) == pytest.approx(expected[column.label]), column.label
        assert cell.mean == pytest.approx(statistics.fmean(expected[column.label]))
        assert cell.std == pytest.approx(statistics.stdev(expected[column.label]))
    assert len(set(expected["Acc"])) > 1  # the epochs differ, so the std is not trivially 0
    assert 0 < sum(expected["Turn 3"]) < 3  # not every debate ended in turn 3
    calls = [len(DebateResult.from_dict(s.store["mad_tasks:debate"]).calls) for s in log.samples]
    assert row.calls == pytest.approx(statistics.fmean(calls))
    text = reproduce.to_markdown(table)
    acc = row.cells[0]
    assert acc is not None and acc.mean is not None and acc.std is not None
    assert f"| Vote | {acc.mean:.1f} ± {acc.std:.1f} (paper: –) |" in text


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
    assert [plurality(answers_after(result, r), fmt) for r in (1, 2, 3)] == ["no", "yes", "yes"]
    assert [round_correct(result, r, fmt, {"yes"}) for r in (1, 2, 3, 4)] == [False, True, True, True]  # fmt: skip
    # an abstention agrees with nobody
    assert [round_consensus(result, r, fmt) for r in (1, 2, 3)] == [False, False, True]
    tie = debate(("yes", "no"))
    assert plurality(tie.answers, fmt) is None and not round_correct(tie, 1, fmt, {"yes"})
    silent = debate((None, None))
    assert plurality(silent.answers, fmt) is None
    assert not round_correct(silent, 1, fmt, {"yes"}) and not round_consensus(silent, 1, fmt)
    assert answers_after(result, 0) == []


def test_the_stats_and_their_parsing() -> None:
    values = [1.0, 5.0, None, 5.0, 3.0]  # None: unscored, left out
    assert stat_value(parse_stat("mean"), values) == 3.5
    assert stat_value(parse_stat("sum"), values) == 14.0
    assert stat_value(parse_stat("share==5"), values) == 0.5
    assert stat_value(parse_stat("share>=3"), values) == 0.75
    assert stat_value(parse_stat("share>=3"), [None]) is None
    assert parse_stat("round_accuracy:3") == Stat("round_accuracy", 3)
    for bad in ("median", "share==", "share==x", "round_accuracy:0", "round_consensus:101", "share>=1e999"):  # fmt: skip
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
    with pytest.raises(ValueError, match="--data nope: not a task of badopt"):
        run_experiment(experiment, "madsim/x", str(tmp_path), {"nope": "x.jsonl"}, limit=1)


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
