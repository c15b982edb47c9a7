"""Every benchmark still runs: each script of benchmarks/ with `--quick` (a few samples at a short
latency, seconds) exits 0 and prints its figures. Only that: the figures are measured, not
asserted (timing never is), and the full runs stay out of the suite."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
# a line each benchmark prints with its figures
FIGURES = {
    "adaptive_stop": "| du_debate | demo | stop=adaptive |",
    "concurrency": "| 1 | simultaneous (default) |",
    "cortex": "| cortex (mdm) |",
    "costs": "| du_debate | strategyqa |",
    "critical_path": "| du_debate |",
    "judges": "| single_judge |",
    "local_model": "| installed |",
    "on_demand": "du_debate 3x3",
    "pd3": "| pd3 |",
    "prompt_cache": "voting ",
    "protocols": "| cot (baseline) |",
    "readers": "reader(s) over the goal",
    "tree_of_debate": "| tree_of_debate |",
}


def test_every_benchmark_is_run_here() -> None:
    scripts = {p.stem for p in BENCHMARKS.glob("*.py")} - {"common"}
    assert scripts == set(FIGURES)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_a_benchmark_runs_quick_and_prints_its_figures(name: str) -> None:
    if name == "local_model" and importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("the `local` extra is not installed")
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / f"{name}.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=BENCHMARKS.parent,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    line = next((x for x in done.stdout.splitlines() if FIGURES[name] in x), None)
    assert line is not None and any(c.isdigit() for c in line), done.stdout[-2000:]
