"""What does debating only when needed save? `on_demand` against always debating, on one run.

Runs on the same StrategyQA samples, on the simulated model (its token log-probabilities are surer
for right answers, see models/sim.py): `cot` (the first stage alone), `du_debate` (3 agents, 3
rounds: `down_headline`'s full debate), `self_consistency` at the debate's calls (`match_debate=3x3`), and `on_demand` (cot, then
that du_debate) at each threshold. Prints per method the accuracy, calls and tokens per sample, the
share of samples that debated, and calls and tokens as a ratio of always debating.

    .venv/bin/python benchmarks/on_demand.py [--quick] [--samples 100] [--thresholds 0.8 0.9]
"""

from __future__ import annotations

import tempfile

from common import arguments, data, parser
from inspect_ai import eval
from inspect_ai.solver import Solver

from mad_tasks._inspect_sample import STORE_KEY
from mad_tasks.engine.records import DebateResult, reply_tokens
from mad_tasks.reproduce.measuring import debated
from mad_tasks.solvers import cot, du_debate, on_demand, self_consistency
from mad_tasks.tasks.strategyqa import strategyqa

DATA = data("strategyqa/dev.jsonl", "strategyqa.jsonl")


def measure(solver: Solver, samples: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as logs:
        [log] = eval(
            strategyqa(data_path=str(DATA), subset=samples),
            solver=solver,
            model="madsim/x",
            log_dir=logs,
            display="none",
        )
        assert log.status == "success" and log.samples, log.error
        results = [DebateResult.from_dict(s.store[STORE_KEY]) for s in log.samples]
        right = [
            s.scores is not None and s.scores["final_answer"].value == "C" for s in log.samples
        ]
    n = len(results)
    # madsim reports usage on every call; a sample without it would be left out, never 0 tokens
    tokens = [t for r in results if (t := reply_tokens(r.calls)) is not None]
    return {
        "accuracy": sum(right) / n,
        "calls": sum(len(r.calls) for r in results) / n,
        "tokens": sum(tokens) / len(tokens),
        "debated": sum(bool(debated(r)) for r in results) / n,
    }


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--thresholds", type=float, nargs="+", default=[0.8, 0.9])
    args = arguments(ap, samples=2, thresholds=[0.8])
    debate = {"agents": 3, "rounds": 3}  # the first answers and two rounds (down_headline's)
    runs: dict[str, Solver] = {
        "cot": cot(),
        "du_debate 3x3": du_debate(**debate),
        "self_consistency 3x3": self_consistency(match_debate="3x3"),
        **{
            f"on_demand threshold={t:g}": on_demand(debate_args=debate, threshold=t)
            for t in args.thresholds
        },
    }
    rows = {name: measure(solver, args.samples) for name, solver in runs.items()}
    always = rows["du_debate 3x3"]
    print(f"{'method':28} {'accuracy':>8} {'calls':>6} {'tokens':>8} {'debated':>7} "
          f"{'calls/always':>12} {'tokens/always':>13}")  # fmt: skip
    for name, r in rows.items():
        print(
            f"{name:28} {r['accuracy']:8.3f} {r['calls']:6.2f} {r['tokens']:8.0f} "
            f"{r['debated']:7.2f} {r['calls'] / always['calls']:12.2f} "
            f"{r['tokens'] / always['tokens']:13.2f}"
        )


if __name__ == "__main__":
    main()
