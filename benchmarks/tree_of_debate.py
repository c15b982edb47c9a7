"""Tree-of-Debate's cost per paper pair, and whether sibling nodes really debate concurrently.

Runs every Tree-of-Debate solver on the project's synthetic paper pairs (tests/fixtures), one pair
at a time, on the simulated model with a fixed latency per call, and reports per pair: calls,
input and output tokens, wall time, and wall time over the critical path. The critical path is the
longest chain of calls that must wait for each other, read from the pair's record: a
self-deliberation is its claims, then its relevance calls, then its subtopics; a node is its two
presentations (at once), then each response and each revision in turn, then the expansion call;
a level's nodes run at once, then the granted nodes' self-deliberations; the synthesis comes last.
Follow-ups after an unreadable reply lengthen their step. The goal: wall <= 1.2 x critical path
with `parallel_siblings` (the default); the sequential row shows what running the nodes one by one
costs. Ratios are from one run.

    .venv/bin/python benchmarks/tree_of_debate.py [--quick] [--latency 0.2] [--pairs 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections import defaultdict
from typing import Any

from common import FIXTURES, arguments, parser
from inspect_ai import Task, eval

from mad_tasks import solvers
from mad_tasks._inspect_sample import STORE_KEY
from mad_tasks.engine.methods.tod.records import TreeRecord
from mad_tasks.engine.records import DebateResult, token_totals
from mad_tasks.tasks.paper_compare import paper_compare

PAIRS = FIXTURES / "paper_compare" / "pairs.tsv"


def critical_path(result: DebateResult) -> int:
    """The longest chain of calls that wait for each other, in calls (see the module docstring)."""
    # (purpose, agent) -> the longest run of attempts: the calls of one step run at once (several
    # relevance calls share their purpose and agent), each one's follow-ups in turn
    attempts: dict[tuple[str, str], int] = defaultdict(int)
    for c in result.calls:
        attempts[(c.purpose, c.agent)] = max(attempts[(c.purpose, c.agent)], c.attempt + 1)

    def step(purpose: str, agent: str | None = None) -> int:
        """A step's length in calls (all agents at once unless one is named)."""
        return max(
            (n for (p, a), n in attempts.items() if p == purpose and agent in (None, a)),
            default=0,
        )

    record = result.record
    if not isinstance(record, TreeRecord) or not record.nodes:  # a baseline
        first = max((n for (p, _), n in attempts.items() if p != "summary comparison"), default=0)
        return first + step("summary comparison")

    def deliberation(node: str) -> int:
        return step(f"claims {node}") + step(f"relevance {node}") + step(f"subtopics {node}")

    def debate(node: str) -> int:
        turns = [step(f"{s} {node}", f"author_{i}") for s in ("respond", "revise") for i in (0, 1)]
        return step(f"present {node}") + sum(turns) + step(f"expand {node}")

    levels: dict[int, list[str]] = defaultdict(list)
    for node in record.nodes:
        levels[node.level].append(node.id)
    total = deliberation("r")
    for level in sorted(levels)[1:]:
        nodes = levels[level]
        total += max(debate(n) for n in nodes)
        total += max((deliberation(n) for n in nodes), default=0)
    return total + step("synthesis")


def run(name: str, a: argparse.Namespace, **options: Any) -> list[dict[str, float]]:
    factory = getattr(solvers, name)
    dataset = paper_compare(data_path=str(PAIRS), subset=a.pairs).dataset
    with tempfile.TemporaryDirectory() as logs:
        [log] = eval(
            Task(dataset=dataset, solver=factory(**options)),
            model="madsim/bench",
            model_args={"latency": a.latency},
            max_samples=1,  # one pair at a time: a pair's own critical path
            score=False,
            log_dir=logs,
            display="none",
        )
        assert log.status == "success" and log.samples
        rows = []
        for sample in log.samples:
            result = DebateResult.from_dict(sample.store[STORE_KEY])
            totals = token_totals(result.calls)
            path = critical_path(result) * a.latency
            wall = sample.total_time or 0.0
            rows.append(
                {
                    "calls": totals["calls"],
                    "input": totals["input_tokens"],
                    "output": totals["output_tokens"],
                    "wall": wall,
                    "path": path,
                    "ratio": wall / path,
                }
            )
    return rows


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--pairs", type=int, default=3)
    a = arguments(ap, latency=0.01, pairs=1)
    run("single_stage", a)  # warm-up: the first eval in a process pays for imports
    print(f"{a.pairs} synthetic pairs, madsim at {a.latency}s per call, one pair at a time\n")
    print("| solver | calls/pair | input tokens/pair | output tokens/pair | wall s/pair "
          "| critical path s/pair | wall / critical path (max) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    runs: list[tuple[str, str, dict[str, Any]]] = [
        ("tree_of_debate", "tree_of_debate", {}),
        ("tree_of_debate, parallel_siblings=false", "tree_of_debate", {"parallel_siblings": False}),
        ("tod_no_tree", "tod_no_tree", {}),
        ("tod_no_sd", "tod_no_sd", {}),
        ("single_stage", "single_stage", {}),
        ("two_stage", "two_stage", {}),
    ]
    for label, name, options in runs:
        rows = run(name, a, **options)

        def mean(key: str, rows: list[dict[str, float]] = rows) -> float:
            return statistics.mean(r[key] for r in rows)

        print(
            f"| {label} | {mean('calls'):.1f} | {mean('input'):,.0f} | {mean('output'):,.0f} "
            f"| {mean('wall'):.2f} | {mean('path'):.2f} | {mean('ratio'):.2f} "
            f"({max(r['ratio'] for r in rows):.2f}) |"
        )


if __name__ == "__main__":
    main()
