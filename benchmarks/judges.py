"""What a verdict costs: model calls and tokens per judgment of the D3 judges on the same pairs.

Runs `single_judge`, `more`, and `samre` with its default stopping, with a token budget and with
no early stop (five fixed rounds) on the same MT-Bench pairs with the simulated model, and prints
calls and tokens per judgment (input and output as the model reported them), the ratio to the
single judge, rounds, the early-stop rate and the agreement with people. One run; madsim counts
about four characters a token and answers correctly with probability `--accuracy`, so the
agreement column shows how the protocols aggregate a noisy judge, not how good any real model is.

    .venv/bin/python benchmarks/judges.py [--quick] [--pairs 40] [--budget 8000] [--accuracy 0.7]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile

from common import arguments, data, parser
from inspect_ai import eval
from inspect_ai.solver import Solver

from mad_tasks.solvers import more, samre, single_judge
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge

PAIRS = data("mt_bench_human/pairs.jsonl", "mt_bench_pairs.jsonl")


def measure(solver: Solver, a: argparse.Namespace) -> dict[str, float | None]:
    task = mt_bench_judge(data_path=str(PAIRS), shuffle=True, seed=a.seed, subset=a.pairs)
    with tempfile.TemporaryDirectory() as logs:
        [log] = eval(
            task,
            solver=solver,
            model="madsim/bench",
            model_args={"accuracy": a.accuracy},
            log_dir=logs,
            display="none",
        )
        assert log.status == "success" and log.samples
        scores = [s.scores["judge_agreement"] for s in log.samples]
    by_role = [m for s in scores for m in s.metadata["by_role"].values()]
    n = len(scores)
    return {
        "calls": statistics.mean(s.metadata["calls"] for s in scores),
        "input": sum(m["input_tokens"] for m in by_role) / n,
        "output": sum(m["output_tokens"] for m in by_role) / n,
        "tokens": statistics.mean(s.metadata["tokens"] for s in scores),
        "rounds": statistics.mean(s.metadata["rounds"] for s in scores),
        "early": statistics.mean(s.metadata["early_stop"] for s in scores)
        if scores[0].metadata["early_stop"] is not None
        else None,
        "accuracy": statistics.mean(s.value == "C" for s in scores),
    }


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--budget", type=int, default=8000)
    ap.add_argument("--accuracy", type=float, default=0.7)
    ap.add_argument("--seed", type=int, default=42)
    a = arguments(ap, pairs=2)
    judges = [
        ("single_judge", single_judge()),
        ("more (k=3, 5 jurors)", more()),
        ("samre (converge, max 5)", samre()),
        (f"samre (converge + budget {a.budget})", samre(token_budget=a.budget)),
        ("samre (fixed 5 rounds)", samre(min_rounds=5)),
    ]
    print(
        f"{a.pairs} MT-Bench pairs (shuffled, seed {a.seed}), madsim accuracy {a.accuracy}; "
        "per judgment\n"
    )
    print(
        "| judge | calls | input tokens | output tokens | tokens | x single | rounds | "
        "early stop | agreement |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    base = None
    for name, solver in judges:
        m = measure(solver, a)
        base = base or m["tokens"]
        print(
            f"| {name} | {m['calls']:.1f} | {m['input']:.0f} | {m['output']:.0f} | "
            f"{m['tokens']:.0f} | {m['tokens'] / base:.1f} | {m['rounds']:.2f} | "
            f"{'n/a' if m['early'] is None else format(m['early'], '.0%')} | {m['accuracy']:.0%} |"
        )


if __name__ == "__main__":
    main()
