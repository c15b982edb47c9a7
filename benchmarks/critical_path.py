"""How close does each method come to its critical path? Wall time per sample over the longest chain
of dependent calls, one sample at a time and ten at once, and the CPU milliseconds per call.

Runs every method of the catalogue that calls a model on madsim at a fixed latency per call, on
the task its samples need (StrategyQA, MT-Bench pairs, paper pairs, the PD³ queries and pairs: the
shared data where present, else the fixtures), and prints per method: calls and critical path per
sample (the record's `critical_path`: calls in the longest chain, each waiting for the one before),
wall ÷ (critical path × latency) one sample at a time (mean and max) and with ten samples at once
(mean), and this process's CPU time per call over both runs (the eval's own start and end
included, so a method with few calls shows more). Wall time is the sample's solver span, from its
start to its end: scoring is left out, since paper_compare's scorers call a model themselves (the
Two-Stage baseline the pairwise wins compare with). The goal is ≤ 1.1 one at a time (pd3: ≤ 1.3
ten at once, on 2 cores). Ratios are from one run.

    .venv/bin/python benchmarks/critical_path.py [--quick] [--latency 0.1] [--samples 3] [--at-once 10] [--methods du_debate voting ...]
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from common import arguments, data, parser
from inspect_ai import Task, eval
from inspect_ai.event import SpanBeginEvent, SpanEndEvent
from inspect_ai.log import EvalSample
from inspect_ai.model import get_model

from mad_tasks import solvers
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.paper_compare import paper_compare
from mad_tasks.tasks.project_dedup import project_dedup
from mad_tasks.tasks.project_dup_pairs import project_dup_pairs
from mad_tasks.tasks.strategyqa import strategyqa

# the task a method's samples come from, by what it reads of a sample (None: the question)
TASKS: dict[str | None, Callable[[], Task]] = {
    None: lambda: strategyqa(data_path=str(data("strategyqa/dev.jsonl", "strategyqa.jsonl"))),
    "Pair": lambda: mt_bench_judge(
        data_path=str(data("mt_bench_human/pairs.jsonl", "mt_bench_pairs.jsonl"))
    ),
    "PaperPair": lambda: paper_compare(
        data_path=str(data("tree_of_debate/tree_of_debate_dataset.tsv", "paper_compare/pairs.tsv"))
    ),
    "Retrieval": lambda: project_dedup(data_path=str(data("csfcube_pd3/hard", "pd3"))),
    "SidePair": lambda: project_dup_pairs(
        data_path=str(data("csfcube_pd3/hard", "pd3")), pairs=None
    ),
}
QUICK = ["du_debate", "voting", "pd3"]


@dataclass(frozen=True)
class Run:
    samples: list[EvalSample]
    cpu: float  # seconds of this process's CPU time


def run(method: str, latency: float, samples: int, at_once: int) -> Run:
    spec = CATALOGUE[method]
    task = TASKS[getattr(spec.reads, "__name__", None)]()
    model = get_model("madsim/bench", latency=latency)
    with tempfile.TemporaryDirectory() as logs:
        start = time.process_time()
        [log] = eval(task, solver=getattr(solvers, method)(), model=model, limit=samples,
                     max_samples=at_once, max_connections=1000, log_dir=logs,
                     display="none")  # fmt: skip
        cpu = time.process_time() - start
        assert log.status == "success" and log.samples, f"{method}: {log.error}"
        return Run(list(log.samples), cpu)


def figure(sample: EvalSample, name: str) -> float:
    value: Any = sample.scores[name].value if sample.scores else None
    return float(value)


def solver_wall(sample: EvalSample) -> float:
    """Seconds from the start of the sample's solvers span to its end."""
    begin = next(e for e in sample.events if isinstance(e, SpanBeginEvent) and e.type == "solvers")
    end = next(e for e in sample.events if isinstance(e, SpanEndEvent) and e.id == begin.id)
    return (end.timestamp - begin.timestamp).total_seconds()


def ratios(r: Run, latency: float) -> list[float]:
    return [
        solver_wall(s) / (figure(s, "critical_path") * latency)
        for s in r.samples
        if figure(s, "critical_path") > 0
    ]


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--samples", type=int, default=3, help="samples run one at a time")
    ap.add_argument("--at-once", type=int, default=10)
    names = [s.name for s in CATALOGUE]
    ap.add_argument("--methods", nargs="+", default=names, choices=names)
    a = arguments(ap, latency=0.05, samples=1, at_once=2, methods=QUICK)
    run("single", 0.0, 1, 1)  # warm-up: the first eval in a process pays for imports
    print(f"madsim at {a.latency}s per call; {a.samples} sample(s) one at a time, then "
          f"{a.at_once} at once\n")  # fmt: skip
    print("| method | calls/sample | critical path (calls) | wall / path, 1 at a time (max) "
          f"| wall / path, {a.at_once} at once | CPU ms/call |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for method in a.methods:
        alone = run(method, a.latency, a.samples, 1)
        calls = statistics.mean(figure(s, "calls") for s in alone.samples)
        if calls == 0:
            continue  # a ranking that calls no model has no chain to keep to
        together = run(method, a.latency, a.at_once, a.at_once)
        path = statistics.mean(figure(s, "critical_path") for s in alone.samples)
        one, many = ratios(alone, a.latency), ratios(together, a.latency)
        made = sum(figure(s, "calls") for s in [*alone.samples, *together.samples])
        cpu_ms = 1000 * (alone.cpu + together.cpu) / made
        print(f"| {method} | {calls:.1f} | {path:.1f} | {statistics.mean(one):.2f} ({max(one):.2f}) "
              f"| {statistics.mean(many):.2f} | {cpu_ms:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
