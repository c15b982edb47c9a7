"""PD³ against its baselines on the CSFCube-derived duplication benchmark, with the simulated model.

Runs `pd3`, `llm_voting`, `listwise` and `bm25` on the hard and random variants (the shared files
in ../shared/data/csfcube_pd3, else the project's fixture) on madsim at a set accuracy (0.5 by
default: at 0.7 PD³'s vote saturates at 1.0), and reports per query Prec@5, calls and tokens. Then
one query at a time at two fixed latencies, wall time against PD³'s critical path, (1 + rounds +
1) x latency (round 0, the debate rounds, the senior; the groups concurrent): the goal is <= 1.2.
What is left above the path is Inspect's own work per call (150 calls on 2 cores), a constant.
madsim's accuracy stands for a model's; its Prec@5 says how the methods aggregate noisy picks, not
how a real model ranks projects. Ratios are from one run.

    .venv/bin/python benchmarks/pd3.py [--quick] [--accuracy 0.5] [--queries 34] [--latencies 0.2 1.0]
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path
from typing import Any

from common import FIXTURES, SHARED, arguments, parser
from inspect_ai import eval

from mad_tasks import solvers
from mad_tasks.tasks.project_dedup import project_dedup

PD3_DATA = SHARED / "csfcube_pd3"
FIXTURE = FIXTURES / "pd3"
SOLVERS = ("pd3", "llm_voting", "listwise", "bm25")


def run(name: str, data: Path, limit: int, **eval_args: Any) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as logs:
        [log] = eval(
            project_dedup(data_path=str(data)),
            solver=getattr(solvers, name)(),
            model="madsim/bench",
            limit=limit,
            log_dir=logs,
            display="none",
            **eval_args,
        )
        assert log.status == "success" and log.samples and log.results
        metrics: dict[str, float] = {}  # a scorer's metrics may come in several entries
        for entry in log.results.scores:
            if entry.name == "retrieval_at_k":
                metrics |= {k: m.value for k, m in entry.metrics.items()}
        samples = log.samples
        n = len(samples)

        def per_query(figure: str) -> float:
            return sum(s.scores[figure].value for s in samples if figure in s.scores) / n

        return {
            "prec": metrics["mean"] * 100,
            "calls": per_query("calls"),
            "input": per_query("input_tokens"),
            "output": per_query("output_tokens"),
            "wall": statistics.mean(s.total_time or 0.0 for s in samples),
        }


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--accuracy", type=float, default=0.5)
    ap.add_argument("--queries", type=int, default=34)
    ap.add_argument("--latencies", type=float, nargs="+", default=[0.2, 1.0])
    ap.add_argument("--timed", type=int, default=3, help="queries timed at each latency")
    a = arguments(ap, queries=2, latencies=[0.05], timed=1)
    variants = (
        {v: PD3_DATA / v for v in ("hard", "random")} if PD3_DATA.is_dir() else {"fixture": FIXTURE}
    )
    run("bm25", next(iter(variants.values())), 1)  # warm-up: imports
    print(f"madsim accuracy {a.accuracy}, up to {a.queries} queries per variant\n")
    print("| variant | solver | Prec@5 | calls/query | input tokens/query | output tokens/query |")
    print("|---|---|---|---|---|---|")
    for variant, data in variants.items():
        for name in SOLVERS:
            r = run(name, data, a.queries, model_args={"accuracy": a.accuracy})
            print(f"| {variant} | {name} | {r['prec']:.1f} | {r['calls']:.0f} | {r['input']:,.0f} "
                  f"| {r['output']:,.0f} |")  # fmt: skip
    rounds = 2  # pd3's default debate rounds
    data = next(iter(variants.values()))
    print(f"\npd3, one query at a time; critical path (1 + {rounds} + 1) x latency\n")
    print("| latency s/call | wall s/query | critical path s/query | wall / critical path |")
    print("|---|---|---|---|")
    for latency in a.latencies:
        path = (1 + rounds + 1) * latency
        wall = run("pd3", data, a.timed, model_args={"latency": latency}, max_samples=1)["wall"]
        print(f"| {latency} | {wall:.2f} | {path:.2f} | {wall / path:.2f} |")


if __name__ == "__main__":
    main()
