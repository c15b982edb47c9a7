"""Every task listed in eval.yaml, run end to end by its registered name (as `inspect eval
mad_tasks/<task>` runs it) on its fixture in tests/fixtures/, with its default solver, on the
simulated model: an always-right model scores 1 on the task's headline figure, an always-wrong one 0.

The parsing of each source's records is tested beside each task (test_tasks*.py, test_d3_inspect.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from inspect_ai import eval
from inspect_ai.log import EvalLog
from testdata import FIXTURES, MT_BENCH_PAIRS, STRATEGYQA

EVAL_YAML = Path(__file__).resolve().parents[1] / "src" / "mad_tasks" / "eval.yaml"
LISTED = [entry["name"] for entry in yaml.safe_load(EVAL_YAML.read_text(encoding="utf-8"))["tasks"]]

LIMIT = 3
# tasks that generate their samples offline: their options in place of a fixture
GENERATED = {"tool_math": {"size": LIMIT}}
# a few records in the public source's schema, per task
FIXTURE = {name: FIXTURES / f"{name}.jsonl" for name in LISTED if name not in GENERATED} | {
    "strategyqa": STRATEGYQA,
    "mathvista": FIXTURES / "mathvista" / "data.jsonl",
    "mt_bench_judge": MT_BENCH_PAIRS,
    "paper_compare": FIXTURES / "paper_compare" / "pairs.tsv",
    "project_dedup": FIXTURES / "pd3",
    "project_dup_pairs": FIXTURES / "pd3",
    "longbench": FIXTURES / "longbench",
}
# a fixture's samples when it is not one record per line
SAMPLES = {"project_dedup": 3, "project_dup_pairs": 3, "longbench": 8}
# options a fixture needs: the 3 queries make only 3 pairs
TASK_ARGS = {"project_dup_pairs": {"pairs": None}}

# (the score's name in the log's results, its metric): the figure a task is read by
HEADLINE = {
    "strategyqa": ("final_answer", "accuracy"),
    "mmlu": ("choice", "accuracy"),
    "mmlu_pro": ("choice", "accuracy"),
    "gpqa": ("choice", "accuracy"),
    "musr": ("choice", "accuracy"),
    "arc_challenge": ("choice", "accuracy"),
    # exact match on the answerable questions: madsim's wrong span ("not X") still shares words
    # with X for F1, and on an unanswerable question it still contains "unknown"
    "squad_v2": ("squad_exact", "HasAns"),
    "gsm_ic": ("final_answer", "accuracy"),
    "math": ("final_answer", "accuracy"),
    "mathvista": ("mathvista_answer", "accuracy"),
    "mt_bench_judge": ("judge_agreement", "accuracy"),
    # no gold summary: the grader's breadth level, 0-100 (madsim grades by its accuracy)
    "paper_compare": ("tod_breadth", "mean"),
    "project_dedup": ("retrieval_at_k", "mean"),
    "project_dup_pairs": ("dup_origin", "mean"),
    "autoj_pairwise": ("judge_agreement", "accuracy"),
    "judgebench": ("judge_agreement", "accuracy"),
    "longbench": ("longbench_score", "m_avg"),
    "tool_math": ("final_answer", "accuracy"),
}
FULL_MARKS = {"paper_compare": 100.0}
# how the always-wrong run is made, where madsim's wrong answer ("not X") would still score: every
# LongBench metric gives "not X" credit for X, so madsim answers a file of answers sharing nothing
WRONG: dict[str, dict[str, float | str]] = {
    "longbench": {
        "accuracy": 1.0,
        "answers": str(FIXTURES / "longbench_madsim_wrong_answers.jsonl"),
    },
}


def run_by_name(name: str, tmp_path: Path, **model_args: float | str) -> EvalLog:
    [log] = eval(
        f"mad_tasks/{name}",
        task_args=GENERATED.get(name)
        or {"data_path": str(FIXTURE[name]), **TASK_ARGS.get(name, {})},
        model="madsim/x",
        model_args=model_args,
        limit=LIMIT,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success", log.error
    return log


def headline(log: EvalLog, name: str) -> float:
    score, metric = HEADLINE[name]
    [value] = [
        s.metrics[metric].value
        for s in log.results.scores
        if s.name == score and metric in s.metrics
    ]
    return value


def test_every_listed_task_has_a_fixture_and_a_headline_figure() -> None:
    assert set(HEADLINE) == set(LISTED)
    assert all(path.exists() for path in FIXTURE.values())


@pytest.mark.parametrize("name", LISTED)
def test_runs_by_name_on_its_fixture(tmp_path: Path, name: str) -> None:
    right = run_by_name(name, tmp_path, accuracy=1.0)
    assert right.eval.task == f"mad_tasks/{name}"
    if name in GENERATED:
        assert GENERATED[name].items() <= right.eval.task_args.items()
        records = LIMIT
    else:
        assert right.eval.task_args["data_path"] == str(FIXTURE[name])
        records = SAMPLES.get(name) or len(FIXTURE[name].read_text(encoding="utf-8").splitlines())
    assert len(right.samples) == min(LIMIT, records)
    assert headline(right, name) == FULL_MARKS.get(name, 1.0)
    wrong = run_by_name(name, tmp_path, **WRONG.get(name, {"accuracy": 0.0, "conformity": 0.0}))
    assert headline(wrong, name) == 0.0
