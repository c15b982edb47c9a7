"""What each method costs per sample at the shipped price file, and how many batch turnarounds it
needs.

Runs each method on madsim (`madsim/x`, priced by src/mad_tasks/data/prices.yaml as
openai/gpt-4o-mini) with a fixed latency per call, one sample at a time, and prints per method:
calls, tokens and dollars per sample (the `cost` figure: Inspect's price of each call), and its
dependent stages, the longest chain of calls in which each starts after the one before it ended,
measured from the transcript's call times. Through a provider's batch API every call of a stage
waits for its batch, so a sample needs one batch turnaround per dependent stage.

    .venv/bin/python benchmarks/costs.py [--quick] [--samples 5] [--latency 0.05]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from collections.abc import Callable

from common import FIXTURES, arguments, parser
from inspect_ai import Task, eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalSample
from inspect_ai.model import get_model

from mad_tasks import solvers
from mad_tasks.prices import PRICES, apply_prices
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.paper_compare import paper_compare
from mad_tasks.tasks.project_dedup import project_dedup
from mad_tasks.tasks.strategyqa import strategyqa

TASKS: dict[str, Callable[[], Task]] = {
    "strategyqa": lambda: strategyqa(data_path=str(FIXTURES / "strategyqa.jsonl")),
    "mt_bench_judge": lambda: mt_bench_judge(data_path=str(FIXTURES / "mt_bench_pairs.jsonl")),
    "paper_compare": lambda: paper_compare(data_path=str(FIXTURES / "paper_compare" / "pairs.tsv")),
    "project_dedup": lambda: project_dedup(data_path=str(FIXTURES / "pd3")),
}
METHODS = {  # method -> the task it runs on
    "single": "strategyqa",
    "self_consistency": "strategyqa",
    "du_debate": "strategyqa",
    "voting": "strategyqa",
    "consensus": "strategyqa",
    "cortex": "strategyqa",
    "more": "mt_bench_judge",
    "samre": "mt_bench_judge",
    "tree_of_debate": "paper_compare",
    "pd3": "project_dedup",
}
QUICK = ("du_debate", "voting", "samre")


def dependent_stages(sample: EvalSample) -> int:
    """The longest chain of model calls, each started after the previous one completed."""
    calls = sorted((e.timestamp, e.completed) for e in sample.events if isinstance(e, ModelEvent))
    depth: list[int] = []
    for i, (start, _) in enumerate(calls):
        before = [depth[j] for j in range(i) if (end := calls[j][1]) is not None and end <= start]
        depth.append(1 + max(before, default=0))
    return max(depth, default=0)


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--latency", type=float, default=0.05, help="seconds per call")
    a = arguments(ap, samples=1)  # and with --quick 3 methods
    methods = QUICK if a.quick else tuple(METHODS)
    samples = a.samples
    apply_prices(PRICES)
    model = get_model("madsim/x", latency=a.latency)
    print(f"madsim/x at {PRICES.name} (as openai/gpt-4o-mini), {a.latency}s per call, "
          f"{samples} sample(s) per method, one at a time\n")  # fmt: skip
    print("| method | task | calls/sample | tokens/sample | $/sample | dependent stages (batch turnarounds) |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for method in methods:
        task = METHODS[method]
        with tempfile.TemporaryDirectory() as logs:
            [log] = eval(TASKS[task](), solver=getattr(solvers, method)(), model=model,
                         limit=samples, max_samples=1, log_dir=logs, display="none")  # fmt: skip
            if log.status != "success" or not log.samples:
                sys.exit(f"{method}: the run failed: {log.error}")
            done = log.samples
            calls = statistics.mean(s.scores["calls"].value for s in done)  # type: ignore[misc]
            tokens = statistics.mean(
                sum(u.total_tokens for u in s.model_usage.values()) for s in done
            )
            dollars = statistics.mean(float(s.scores["cost"].value) for s in done)  # type: ignore[arg-type]
            stages = sorted({dependent_stages(s) for s in done})
            shown = str(stages[0]) if len(stages) == 1 else f"{stages[0]}–{stages[-1]}"
            print(f"| {method} | {task} | {calls:.1f} | {tokens:.0f} | {dollars:.6f} | {shown} |")


if __name__ == "__main__":
    main()
