"""Do the agents of one du_debate round run concurrently?

Runs du_debate on the simulated model with a fixed latency per call and compares each sample's wall
time with the critical path the method allows (rounds x latency) and with fully sequential calls
(agents x rounds x latency, as in the reference implementation's loops). Ratios are from one run.

    .venv/bin/python benchmarks/concurrency.py [--quick] [--latency 0.5] [--agents 3] [--rounds 3] [--samples 10]

Rows: one sample at a time (the method's own critical path), then all samples at once with Inspect's
default adaptive connection limit (it starts at 20 calls in flight per model, fewer than a round of
several debates needs) and with --max-connections raised to agents x samples.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from typing import Any

from common import arguments, data, parser
from inspect_ai import eval

from mad_tasks.solvers import du_debate
from mad_tasks.tasks.strategyqa import strategyqa

DATA = data("strategyqa/dev.jsonl", "strategyqa.jsonl")


def sample_times(a: argparse.Namespace, sequential: bool, **eval_args: Any) -> list[float]:
    with tempfile.TemporaryDirectory() as logs:
        [log] = eval(
            strategyqa(data_path=str(DATA), subset=a.samples),
            solver=du_debate(agents=a.agents, rounds=a.rounds, sequential=sequential),
            model="madsim/bench",
            model_args={"latency": a.latency},
            log_dir=logs,
            display="none",
            **eval_args,
        )
        assert log.status == "success" and log.samples
        return [s.total_time for s in log.samples if s.total_time is not None]


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--latency", type=float, default=0.5)
    ap.add_argument("--agents", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--samples", type=int, default=10)
    a = arguments(ap, latency=0.05, samples=2)
    critical = a.rounds * a.latency
    serial = a.agents * a.rounds * a.latency
    sample_times(a, False, limit=1)  # warm-up: the first eval in a process pays for imports
    print(
        f"du_debate, {a.agents} agents x {a.rounds} rounds, {a.latency}s per call, {a.samples} samples"
    )
    print(f"critical path (rounds x latency): {critical:.2f}s; every call in turn: {serial:.2f}s\n")
    print(
        "| samples in flight | mode | mean s/sample | max s/sample | mean / critical path | mean / every call in turn |"
    )
    print("|---|---|---|---|---|---|")
    runs = [
        ("1", "simultaneous (default)", False, {"max_samples": 1}),
        ("1", "sequential=True", True, {"max_samples": 1}),
        (f"{a.samples}, default connections", "simultaneous (default)", False, {}),
        (
            f"{a.samples}, --max-connections {a.agents * a.samples}",
            "simultaneous (default)",
            False,
            {"max_connections": a.agents * a.samples},
        ),
    ]
    for in_flight, mode, sequential, eval_args in runs:
        times = sample_times(a, sequential, **eval_args)
        mean = statistics.mean(times)
        print(
            f"| {in_flight} | {mode} | {mean:.2f} | {max(times):.2f} | {mean / critical:.2f} | {mean / serial:.2f} |"
        )


if __name__ == "__main__":
    main()
