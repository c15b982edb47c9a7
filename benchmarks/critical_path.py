"""How close does each method come to its critical path? Wall time per sample over the longest chain
of dependent calls, one sample at a time and ten at once, and the CPU milliseconds per call.

Runs every method of the catalogue that calls a model on madsim at a fixed latency per call, on
the task its samples need (StrategyQA, MT-Bench pairs, paper pairs, the PD³ queries and pairs: the
shared data where present, else the fixtures), and prints per method: calls and critical path per
sample (the record's `critical_path`: calls in the longest chain, each waiting for the one before),
wall ÷ (critical path × latency) one sample at a time (mean and max) and with ten samples at once
(mean), and this process's CPU time per call over both runs (the eval's own start and end
included, so a method with few calls shows more). Beside each ratio, Inspect's own floor ("plain
Inspect"): the same samples' calls replayed by a plain Inspect solver after the task's own setup
(each level of the chain's calls at once, with the prompts the method sent, in the order they
started), as many at once,
over the same path: what Inspect's generate() and its sample take by themselves, with no debate
engine around them. Wall time is the sample's solver span, from its
start to its end: scoring is left out, since paper_compare's scorers call a model themselves (the
Two-Stage baseline the pairwise wins compare with). The goal is ≤ 1.1 one at a time (pd3: ≤ 1.3
ten at once, on 2 cores). Ratios are from one run.

    .venv/bin/python benchmarks/critical_path.py [--quick] [--latency 0.1] [--samples 3] [--at-once 10] [--methods du_debate voting ...] [--no-log-realtime]
"""

from __future__ import annotations

import gc
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
from common import arguments, data, parser
from inspect_ai import Task, eval
from inspect_ai.event import ModelEvent, SpanBeginEvent, SpanEndEvent
from inspect_ai.log import EvalSample
from inspect_ai.model import ChatMessage, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from mad_tasks import solvers
from mad_tasks._inspect_sample import STORE_KEY
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.records import DebateResult
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


def run(method: str, latency: float, samples: int, at_once: int, realtime: bool = True,
        replaying: dict[str | int, list[list[list[ChatMessage]]]] | None = None) -> Run:  # fmt: skip
    """`method` on `samples` of its task, `at_once` at a time; with `replaying`, the plain Inspect
    solver that replays those levels of calls per sample id instead (and no scorer)."""
    spec = CATALOGUE[method]
    task = TASKS[getattr(spec.reads, "__name__", None)]()
    if replaying is not None:
        task = Task(dataset=task.dataset, setup=task.setup, solver=replay(replaying),
                    name=f"{method}_replay")  # fmt: skip
    method_solver = None if replaying is not None else getattr(solvers, method)()
    model = get_model("madsim/bench", latency=latency)
    # the earlier runs' objects out of the collector's way: a full collection over them would
    # land in whichever sample is running, a pause of the benchmark rather than of the method
    gc.collect()
    gc.freeze()
    with tempfile.TemporaryDirectory() as logs:
        start = time.process_time()
        [log] = eval(task, solver=method_solver, model=model, limit=samples, max_samples=at_once,
                     max_connections=1000, log_dir=logs, display="none",
                     log_realtime=realtime)  # fmt: skip
        cpu = time.process_time() - start
        assert log.status == "success" and log.samples, f"{method}: {log.error}"
        return Run(list(log.samples), cpu)


def levels(sample: EvalSample) -> list[list[list[ChatMessage]]]:
    """The sample's calls as levels of its chain (as many at level d as the record has at depth
    d), each call the input of a model event, taken in the order the calls started."""
    depths = Counter(c.depth for c in DebateResult.from_dict(sample.store[STORE_KEY]).calls)
    inputs = [e.input for e in sorted((e for e in sample.events if isinstance(e, ModelEvent)),
                                      key=lambda e: e.timestamp)]  # fmt: skip
    out, at = [], 0
    for depth in sorted(depths):
        out.append(inputs[at : at + depths[depth]])
        at += depths[depth]
    return out


@solver
def replay(by_sample: dict[str | int, list[list[list[ChatMessage]]]]) -> Solver:
    """A plain Inspect solver: each level's calls at once through Inspect's generate(), the
    levels one after another."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        for level in by_sample[state.sample_id]:
            async with anyio.create_task_group() as tg:
                for messages in level:
                    tg.start_soon(model.generate, messages)
        return state

    return solve


def figure(sample: EvalSample, name: str) -> float:
    value: Any = sample.scores[name].value if sample.scores else None
    return float(value)


def solver_wall(sample: EvalSample) -> float:
    """Seconds from the start of the sample's solvers span to its end."""
    begin = next(e for e in sample.events if isinstance(e, SpanBeginEvent) and e.type == "solvers")
    end = next(e for e in sample.events if isinstance(e, SpanEndEvent) and e.id == begin.id)
    return (end.timestamp - begin.timestamp).total_seconds()


def ratios(r: Run, latency: float, paths: dict[str | int, float] | None = None) -> list[float]:
    """Each sample's solver wall ÷ its path × latency (the path: its `critical_path` figure, or
    `paths` by sample id for a replay, which scores nothing)."""
    path = {s.id: figure(s, "critical_path") for s in r.samples} if paths is None else paths
    return [solver_wall(s) / (path[s.id] * latency) for s in r.samples if path[s.id] > 0]


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--samples", type=int, default=3, help="samples run one at a time")
    ap.add_argument("--at-once", type=int, default=10)
    names = [s.name for s in CATALOGUE]
    ap.add_argument("--methods", nargs="+", default=names, choices=names)
    ap.add_argument("--no-log-realtime", dest="realtime", action="store_false",
                    help="as Inspect's --no-log-realtime: no live sample buffer")  # fmt: skip
    a = arguments(ap, latency=0.05, samples=1, at_once=2, methods=QUICK)
    run("single", 0.0, 1, 1)  # warm-up: the first eval in a process pays for imports
    print(f"madsim at {a.latency}s per call; {a.samples} sample(s) one at a time, then "
          f"{a.at_once} at once; log_realtime={a.realtime}\n")  # fmt: skip
    print("| method | calls/sample | critical path (calls) | wall / path, 1 at a time (max) "
          f"| plain Inspect, 1 at a time | wall / path, {a.at_once} at once "
          f"| plain Inspect, {a.at_once} at once | CPU ms/call |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for method in a.methods:
        alone = run(method, a.latency, a.samples, 1, a.realtime)
        calls = statistics.mean(figure(s, "calls") for s in alone.samples)
        if calls == 0:
            continue  # a ranking that calls no model has no chain to keep to
        together = run(method, a.latency, a.at_once, a.at_once, a.realtime)
        one, many = ratios(alone, a.latency), ratios(together, a.latency)
        floor_one, floor_many = (
            ratios(run(method, a.latency, len(r.samples), at_once, a.realtime,
                       {s.id: levels(s) for s in r.samples}),
                   a.latency, {s.id: figure(s, "critical_path") for s in r.samples})
            for r, at_once in ((alone, 1), (together, a.at_once))
        )  # fmt: skip
        path = statistics.mean(figure(s, "critical_path") for s in alone.samples)
        made = sum(figure(s, "calls") for s in [*alone.samples, *together.samples])
        cpu_ms = 1000 * (alone.cpu + together.cpu) / made
        print(f"| {method} | {calls:.1f} | {path:.1f} | {statistics.mean(one):.2f} ({max(one):.2f}) "
              f"| {statistics.mean(floor_one):.2f} | {statistics.mean(many):.2f} "
              f"| {statistics.mean(floor_many):.2f} | {cpu_ms:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
