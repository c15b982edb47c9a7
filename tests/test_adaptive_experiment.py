"""Hu et al.'s headline comparison as an experiment (`adaptive_headline`): it runs offline on
madsim with `--limit 2`, the majority vote uses one round, the fixed debate every round, and the
adaptive stop only cuts the same debate short (its answers are the fixed debate's first rounds);
and `judgebench`, JudgeBench's pairs as judge samples, offline on a project-written fixture and
from the authors' pinned files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.util import registry_info
from testdata import FIXTURES, MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks.cli import main
from mad_tasks.reproduce import find_experiment
from mad_tasks.tasks import judgebench as task_module
from mad_tasks.tasks.judgebench import judgebench
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge

NAME = "adaptive_headline"
JUDGEBENCH = FIXTURES / "judgebench.jsonl"
ROWS = [json.loads(line) for line in JUDGEBENCH.read_text(encoding="utf-8").splitlines()]
CAP, AGENTS = 5, 5
MAJORITY, FIXED, ADAPTIVE = (
    "Majority vote (5 judges)",
    "Debate, fixed 5 rounds",
    "Debate, adaptive stop (cap 5)",
)
TASKS = ("judgebench", "mt_bench_judge", "strategyqa")


def records(folder: Path) -> dict[tuple[str, Any], dict[str, Any]]:
    """(task, sample id) -> the sample's debate record and its `rounds` and `calls` scores."""
    found = {}
    for path in folder.glob("*.eval"):
        log = read_eval_log(str(path))
        assert log.status == "success" and log.samples
        for sample in log.samples:
            record = dict(sample.store["mad_tasks:debate"])
            record["scored"] = {k: sample.scores[k].value for k in ("rounds", "calls")}
            found[(log.eval.task.split("/")[-1], sample.id)] = record
    return found


def said(record: dict[str, Any]) -> list[tuple[str, int, Any]]:
    return [(a["agent"], a["round"], a["answer"]) for a in record["answers"]]


def test_the_experiment_runs_offline_and_the_adaptive_stop_only_cuts_rounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    experiment = find_experiment(NAME)
    assert [row.label for row in experiment.rows] == [MAJORITY, FIXED, ADAPTIVE]
    main(
        ["reproduce", NAME, "--model", "madsim/x", "--limit", "2", "--log-dir", str(tmp_path),
         "--max-tasks", "3", "--data", f"judgebench={JUDGEBENCH}",
         "--data", f"mt_bench={MT_BENCH_PAIRS}", "--data", f"strategyqa={STRATEGYQA}"]
    )  # fmt: skip
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("| ")]
    cells = [[c.strip() for c in line.split("|")[1:-1]] for line in lines]
    table = {row[0]: row[1:] for row in cells}
    header = table.pop("")
    rounds = {label: header.index(f"{label} rounds") for label in ("JudgeBench", "MT-Bench")}
    rounds["StrategyQA"] = header.index("StrategyQA rounds")
    calls = header.index("calls/sample")

    row = {r.label: records(tmp_path / NAME / r.folder) for r in experiment.rows}
    assert {task for task, _ in row[ADAPTIVE]} == set(TASKS)
    assert len(row[MAJORITY]) == len(row[FIXED]) == len(row[ADAPTIVE]) == 2 * len(TASKS)
    # the majority vote: five independent answers, one round, no debate
    assert all(r["scored"] == {"rounds": 1, "calls": AGENTS} for r in row[MAJORITY].values())
    assert [table[MAJORITY][i] for i in rounds.values()] == ["1.0"] * 3
    assert table[MAJORITY][calls] == "5.0"
    # the fixed debate: every round, no adaptive record
    for record in row[FIXED].values():
        assert record["options"]["stop"] == "fixed" and record["adaptive_stop"] is None
        assert record["scored"] == {"rounds": CAP, "calls": AGENTS * CAP}
    assert [table[FIXED][i] for i in rounds.values()] == ["5.0"] * 3
    assert table[FIXED][calls] == "25.0"
    # the adaptive stop: the same debate, cut at the round its record names
    stopped = []
    for key, record in row[ADAPTIVE].items():
        stop = record["adaptive_stop"]
        assert record["options"]["stop"] == "adaptive" and stop["n"] == AGENTS
        used = record["scored"]["rounds"]
        if stop["reason"] == "stable":
            assert stop["stopped_at"] == used and 3 <= used < CAP
            stopped.append(key)
        else:
            assert stop["reason"] == "rounds_exhausted" and stop["stopped_at"] is None
            assert used == CAP
        assert [r["round"] for r in stop["rounds"]] == list(range(1, used + 1))
        assert record["scored"]["calls"] == AGENTS * used
        # madsim's replies follow the prompts, which match round for round: only cut short
        fixed = said(row[FIXED][key])
        assert said(record) == [a for a in fixed if a[1] <= used]
    assert stopped, "no debate stopped early on the fixtures"
    for label, task in zip(rounds, TASKS, strict=True):
        used = [r["scored"]["rounds"] for (t, _), r in row[ADAPTIVE].items() if t == task]
        assert table[ADAPTIVE][rounds[label]] == f"{sum(used) / len(used):.1f}"
    assert float(table[ADAPTIVE][calls]) < float(table[FIXED][calls])


# ---- judgebench -------------------------------------------------------------------------------


def write(path: Path, rows: list) -> str:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return str(path)


def test_judgebench_rows_become_judge_samples() -> None:
    task = judgebench(data_path=str(JUDGEBENCH))
    assert [(s.id, s.target) for s in task.dataset] == [(1, "A"), (2, "B"), (3, "A"), (4, "B")]
    first = task.dataset[0]
    assert first.input == ROWS[0]["question"]
    assert first.choices == ["Answer A", "Answer B"]
    assert first.metadata == {
        "answer_a": ROWS[0]["response_A"],
        "answer_b": ROWS[0]["response_B"],
        "pair_id": "fixture-0001",
        "source": "mmlu-pro-chemistry",
        "category": "knowledge",
        "response_model": "fixture-writer",
    }
    categories = [s.metadata["category"] for s in task.dataset]
    assert categories == ["knowledge", "math", "reasoning", "coding"]
    assert task.metadata["pairs"] == 4 and task.metadata["skipped_rows"] == 0
    # the judge tasks' setup and scorers
    mt_bench = mt_bench_judge(data_path=str(MT_BENCH_PAIRS))
    names = [registry_info(s).name for s in task.scorer]
    assert names == [registry_info(s).name for s in mt_bench.scorer]
    assert names[0] == "mad_tasks/judge_agreement"


def test_judgebench_bad_rows_are_skipped_and_counted(tmp_path: Path) -> None:
    good = ROWS[0]
    bad = [
        {**good, "label": "A=B"},  # JudgeBench has no ties
        {**good, "label": "A"},
        {**good, "label": None},
        {**good, "label": 1},
        {**good, "question": ""},
        {**good, "response_B": "  "},
        {k: v for k, v in good.items() if k != "response_A"},
    ]
    task = judgebench(data_path=write(tmp_path / "pairs.jsonl", [good, *bad, ROWS[1]]))
    assert [(s.id, s.target) for s in task.dataset] == [(1, "A"), (len(bad) + 2, "B")]
    assert task.metadata["skipped_rows"] == len(bad) and task.metadata["pairs"] == 2
    # an unknown source has no category, and a label's spaces are ignored
    task = judgebench(
        data_path=write(tmp_path / "other.jsonl", [{**good, "source": "x", "label": " B>A "}])
    )
    assert task.dataset[0].metadata["category"] is None and task.dataset[0].target == "B"


@pytest.mark.parametrize(
    ("split", "file", "sha256"),
    [
        (
            "gpt",
            "dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl",
            "d5106306b38dead1b2e964ecf5534a3e7b2fc4b8d3b8da327599edfcebd76042",
        ),
        (
            "claude",
            "dataset=judgebench,response_model=claude-3-5-sonnet-20240620.jsonl",
            "3b70504588e400613bf5744a20a345da8701b7150be9a30c9db0e6f3d7b70a62",
        ),
    ],
)
def test_judgebench_loads_the_authors_pinned_file(
    monkeypatch: pytest.MonkeyPatch, split: str, file: str, sha256: str
) -> None:
    asked = []

    def fake_download(url: str, name: str, sha256: str | None = None) -> Path:
        asked.append((url, name, sha256))
        return JUDGEBENCH

    monkeypatch.setattr(task_module, "download", fake_download)
    task = judgebench(split=split)
    commit = "e2c52c284e735e139b3daa61c206ee208f36c461"
    url = f"https://raw.githubusercontent.com/ScalerLab/JudgeBench/{commit}/data/{file}"
    assert asked == [(url, f"judgebench/{commit}/{file}", sha256)]
    assert task.metadata["source"] == url and task.metadata["split"] == split
    assert len(task.dataset) == 4


def test_judgebench_a_local_file_names_no_split() -> None:
    assert judgebench(data_path=str(JUDGEBENCH), split="claude").metadata["split"] is None
