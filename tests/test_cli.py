"""`inspect eval` from the command line, as a user runs it: names, -S options, errors and logs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, read_eval_log
from testdata import STRATEGYQA as STRATEGYQA_DEV

INSPECT = Path(sys.executable).parent / "inspect"
STORE_KEY = "mad_tasks:debate"


def inspect_eval(tmp_path: Path, *args: str, limit: int = 2) -> subprocess.CompletedProcess:
    command = [
        str(INSPECT), "eval", "mad_tasks/strategyqa", "--model", "madsim/x",
        "-T", f"data_path={STRATEGYQA_DEV}", "--limit", str(limit),
        "--log-dir", str(tmp_path / "logs"), "--display", "none", *args,
    ]  # fmt: skip
    return subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )


def the_log(tmp_path: Path) -> EvalLog:
    [path] = (tmp_path / "logs").glob("*.eval")
    return read_eval_log(str(path))


def logged_model_calls(tmp_path: Path) -> int:
    logs = (tmp_path / "logs").glob("*.eval") if (tmp_path / "logs").exists() else []
    return sum(
        1
        for path in logs
        for sample in read_eval_log(str(path)).samples or []
        for event in sample.events
        if event.event == "model"
    )


@pytest.mark.slow
def test_short_solver_name_runs_and_logs_the_canonical_solver(tmp_path: Path) -> None:
    done = inspect_eval(tmp_path, "--solver", "du_debate", limit=5)
    assert done.returncode == 0, done.stderr
    log = the_log(tmp_path)
    assert log.status == "success"
    assert len(log.samples) == 5
    assert [step.solver for step in log.plan.steps] == ["prompt_template", "mad_tasks/du_debate"]


@pytest.mark.slow
def test_solver_options_are_logged_and_applied(tmp_path: Path) -> None:
    done = inspect_eval(
        tmp_path, "--solver", "mad_tasks/du_debate", "-S", "agents=4", "-S", "rounds=3"
    )
    assert done.returncode == 0, done.stderr
    log = the_log(tmp_path)
    assert log.status == "success"
    assert log.eval.solver == "mad_tasks/du_debate"
    assert log.eval.solver_args == {"agents": 4, "rounds": 3}
    for sample in log.samples:
        record = sample.store[STORE_KEY]
        assert record["options"]["agents"] == 4 and record["options"]["rounds"] == 3
        assert {(a["agent"], a["round"]) for a in record["answers"]} == {
            (f"agent_{i}", r) for i in range(1, 5) for r in range(1, 4)
        }
        assert all(a["attempts"] == 1 for a in record["answers"])  # no retries were needed
        assert len(record["calls"]) == 12
        assert sum(e.event == "model" for e in sample.events) == 12


@pytest.mark.parametrize(
    "option, name", [("agents=0", "agents"), ("answer_format=banana", "answer_format")]
)
@pytest.mark.slow
def test_bad_option_stops_before_any_model_call(tmp_path: Path, option: str, name: str) -> None:
    done = inspect_eval(tmp_path, "--solver", "mad_tasks/du_debate", "-S", option)
    assert done.returncode != 0
    assert f"'{name}'" in done.stdout + done.stderr
    assert logged_model_calls(tmp_path) == 0


@pytest.mark.slow
def test_self_consistency_matches_a_debate_budget(tmp_path: Path) -> None:
    done = inspect_eval(tmp_path, "--solver", "self_consistency", "-S", "match_debate=3x2")
    assert done.returncode == 0, done.stderr
    log = the_log(tmp_path)
    assert log.status == "success"
    for sample in log.samples:
        record = sample.store[STORE_KEY]
        assert record["method"] == "self_consistency"
        assert record["options"]["samples"] == 6
        assert len(record["calls"]) == 6
        assert sum(e.event == "model" for e in sample.events) == 6
