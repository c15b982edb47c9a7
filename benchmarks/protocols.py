"""Cost and speed of the decision protocols (seed 004) against the `cot` baseline, from one run.

Runs every protocol on StrategyQA with the simulated model at a fixed latency per call and reports,
per sample: model calls and tokens (and their ratio to `cot`), the critical path the protocol's data
dependencies allow (sequential stages x latency), and the measured wall time.

    .venv/bin/python benchmarks/protocols.py [--quick] [--latency 0.2] [--samples 10]

Critical path, read from each sample's recorded calls: personas are made one after another; in the
memory paradigm every message (and its extraction) waits for the one before; AAD's first turn and
every CI turn cost the slowest agent's calls; a vote costs the slowest candidate extraction plus the
slowest ballot (with its retries). "Every call in turn" is calls x latency, as in the paper's loops.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections import Counter
from typing import Any

from common import arguments, data, parser
from inspect_ai import eval
from inspect_ai.solver import Solver

from mad_tasks.solvers import aad, collective_improvement, consensus, cot, voting
from mad_tasks.tasks.strategyqa import strategyqa

DATA = data("strategyqa/dev.jsonl", "strategyqa.jsonl")
STORE_KEY = "mad_tasks:debate"


def solvers() -> list[tuple[str, Solver]]:
    return [
        ("cot (baseline)", cot()),
        *[
            (f"voting {p}", voting(protocol=p))
            for p in ("simple", "ranked", "cumulative", "approval")
        ],
        ("voting counting", voting(protocol="counting")),
        ("voting simple, extraction=call", voting(extraction="call")),
        *[
            (f"consensus {p}", consensus(protocol=p))
            for p in ("majority", "supermajority", "unanimity")
        ],
        ("consensus majority, extraction=call", consensus(extraction="call")),
        ("aad simple", aad()),
        ("aad majority", aad(protocol="majority")),
        ("collective_improvement simple", collective_improvement()),
    ]


def critical_stages(record: dict[str, Any]) -> int:
    """Sequential call stages of one sample, given which calls may run at once."""
    calls = record["calls"]
    options = record["options"]
    independent_turn = 1 if options.get("all_agents_draft") else None
    stages = sum(c["purpose"] == "persona" for c in calls)
    turns = sorted(
        {c["round"] for c in calls if c["purpose"] in ("discussion", "extract", "answer")}
    )
    for turn in turns:
        talk = [
            c
            for c in calls
            if c["round"] == turn and c["purpose"] in ("discussion", "extract", "answer")
        ]
        if options.get("paradigm") == "ci" or turn == independent_turn:
            stages += max(Counter(c["agent"] for c in talk).values())
        else:
            stages += len(talk)
        for purpose in ("candidate", "vote"):
            per_agent = Counter(
                c["agent"] for c in calls if c["round"] == turn and c["purpose"] == purpose
            )
            stages += max(per_agent.values(), default=0)
    return stages


def run(solver: Solver, a: argparse.Namespace) -> list[dict[str, float]]:
    with tempfile.TemporaryDirectory() as logs:
        [log] = eval(
            strategyqa(data_path=str(DATA), subset=a.samples),
            solver=solver,
            model="madsim/bench",
            model_args={"latency": a.latency},
            log_dir=logs,
            display="none",
            max_connections=1000,
        )
        assert log.status == "success" and log.samples
        return [figures(sample.store[STORE_KEY], sample.total_time, a) for sample in log.samples]


def figures(record: dict[str, Any], wall: float | None, a: argparse.Namespace) -> dict[str, float]:
    details = record["record"] or {}  # None: a method without a record of its own (cot)
    return {
        "calls": len(record["calls"]),
        "tokens": sum(c["input_tokens"] + c["output_tokens"] for c in record["calls"]),
        "critical": critical_stages(record) * a.latency,
        "wall": wall or 0.0,
        "decided": float(details.get("decision_success", True)),
        "turns": float(details.get("turns_used", 1)),
    }


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--samples", type=int, default=10)
    a = arguments(ap, latency=0.02, samples=2)
    run(cot(), argparse.Namespace(latency=0.0, samples=1))  # warm-up: imports
    print(
        f"StrategyQA ({DATA.name}), {a.samples} samples at once, madsim at {a.latency}s per call, 3 agents, "
        "defaults otherwise (personas, memory window 2, max 5 turns, vote after turn 3)\n"
    )
    print(
        "| solver | calls/sample | x cot | tokens/sample | x cot | decided | mean turns "
        "| critical path s | wall s/sample | wall / critical | every call in turn s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    base: dict[str, float] = {}
    for name, solver in solvers():
        rows = run(solver, a)
        mean = {k: statistics.mean(r[k] for r in rows) for k in rows[0]}
        base = base or mean
        print(
            f"| {name} | {mean['calls']:.1f} | {mean['calls'] / base['calls']:.1f} "
            f"| {mean['tokens']:.0f} | {mean['tokens'] / base['tokens']:.1f} "
            f"| {mean['decided']:.2f} | {mean['turns']:.2f} | {mean['critical']:.2f} "
            f"| {mean['wall']:.2f} | {mean['wall'] / mean['critical']:.2f} "
            f"| {mean['calls'] * a.latency:.2f} |"
        )


if __name__ == "__main__":
    main()
