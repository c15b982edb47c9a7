"""The README's first runnable eval runs offline, as a newcomer types it after installing."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

ROOT = Path(__file__).resolve().parents[1]


def first_eval_command() -> list[str]:
    """The first `inspect eval` command of the README's code blocks, continuations joined."""
    text = (ROOT / "README.md").read_text(encoding="utf-8").replace("\\\n", " ")
    for line in text.splitlines():
        if line.strip().startswith("inspect eval "):
            return shlex.split(line.split("#", 1)[0])
    raise AssertionError("the README shows no `inspect eval` command")


@pytest.mark.slow
def test_the_first_command_is_on_the_simulated_model_and_runs_offline(tmp_path: Path) -> None:
    command = first_eval_command()
    assert command[command.index("--model") + 1].startswith("madsim/")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "inspect_ai",
            *command[1:],
            "--log-dir",
            str(tmp_path),
            "--display",
            "none",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    [info] = list_eval_logs(str(tmp_path))
    log = read_eval_log(info)
    assert (
        log.status == "success" and log.samples and len(log.samples) == 12
    )  # the demo file's questions
