"""Fixtures shared by the test files that run whole evals."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.log import EvalLog


@pytest.fixture
def run(tmp_path: Path) -> Callable[..., EvalLog]:
    """Run one task offline, logs in the test's tmp dir; the log must be a success."""

    def run_eval(task: Task, **kwargs) -> EvalLog:
        [log] = eval(task, display="none", log_dir=str(tmp_path / "logs"), **kwargs)
        assert log.status == "success", log.error
        return log

    return run_eval
