"""How much context does CortexDebate's pruning save? `cortex` against `topology=full` and `du_debate`.

Runs the three on the same StrategyQA samples, five agents on five simulated models (madsim/x, y, z,
w, v), and prints input tokens per call, per agent and per sample from one run of each. Two ratios:
- counterfactual: the sparse run's tokens over what the *same calls* would have cost had every agent
  read every other agent (spec §7.4.2, recorded per call; isolates pruning from the trajectory);
- against the full-topology run: sparse over full on the same samples (§7.4.1; trajectories and
  stopping rounds differ, so read it beside the rounds column).
`du_debate` keeps each agent's whole conversation and has no early stop; it runs `--du-rounds`
rounds in all (default 6: the initial answers and up to 5 debate rounds, cortex's maximum).

    .venv/bin/python benchmarks/cortex.py [--quick] [--samples 30] [--rounds 5] [--du-rounds 6]
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from common import arguments, data, parser
from inspect_ai import eval
from inspect_ai.solver import Solver

from mad_tasks.engine.records import DebateResult
from mad_tasks.solvers import cortex, du_debate
from mad_tasks.tasks.strategyqa import strategyqa

DATA = data("strategyqa/dev.jsonl", "strategyqa.jsonl")
ROLES = {"agent_2": "madsim/y", "agent_3": "madsim/z", "agent_4": "madsim/w", "agent_5": "madsim/v"}
AGENTS = 5


@dataclass(frozen=True)
class Sampled:
    """A sample's stored debate record, as stored (never changed: it reads back as a
    `DebateResult`), and whether its answer was right."""

    record: dict[str, Any]
    correct: bool


def records(solver: Solver, samples: int) -> list[Sampled]:
    with tempfile.TemporaryDirectory() as logs:
        [log] = eval(
            strategyqa(data_path=str(DATA), subset=samples),
            solver=solver,
            model="madsim/x",
            model_roles=ROLES,
            log_dir=logs,
            display="none",
        )
        assert log.status == "success" and log.samples, log.error
        return [
            Sampled(s.store["mad_tasks:debate"], s.scores["final_answer"].value == "C")
            for s in log.samples
        ]


def cortex_rounds(record: dict[str, Any]) -> int:
    return record["record"]["rounds_executed"]  # debate rounds, after the initial answers


def du_rounds(record: dict[str, Any]) -> int:
    return DebateResult.from_dict(record).rounds - 1  # round 1 holds the initial answers


def summarise(
    rows: list[Sampled], debate_rounds: Callable[[dict[str, Any]], int]
) -> dict[str, float]:
    calls = [c for r in rows for c in r.record["calls"]]
    per_sample = [sum(c["input_tokens"] for c in r.record["calls"]) for r in rows]
    return {
        "accuracy": statistics.mean(r.correct for r in rows),
        "rounds": statistics.mean(debate_rounds(r.record) for r in rows),
        "calls": len(calls) / len(rows),
        "per_call": statistics.mean(c["input_tokens"] for c in calls),
        "per_agent": statistics.mean(per_sample) / AGENTS,
        "per_sample": statistics.mean(per_sample),
    }


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=5, help="cortex max_rounds (D)")
    ap.add_argument("--du-rounds", type=int, default=6, help="du_debate rounds, initial included")
    a = arguments(ap, samples=2, rounds=2, du_rounds=3)

    sparse = records(cortex(max_rounds=a.rounds), a.samples)
    full = records(cortex(max_rounds=a.rounds, topology="full"), a.samples)
    du = records(du_debate(agents=AGENTS, rounds=a.du_rounds), a.samples)

    rows = [
        ("cortex (mdm)", summarise(sparse, cortex_rounds)),
        ("cortex topology=full", summarise(full, cortex_rounds)),
        (f"du_debate, {a.du_rounds} rounds", summarise(du, du_rounds)),
    ]
    counterfactual = [r.record["record"]["context"] for r in sparse]
    actual = sum(c["input_tokens"] for c in counterfactual)
    mesh = sum(c["full_mesh_input_tokens"] for c in counterfactual)
    mav = statistics.mean(c["round0_input_tokens"] for c in counterfactual)

    print(
        f"StrategyQA ({DATA.name}), {a.samples} samples, {AGENTS} agents on madsim/x,y,z,w,v; "
        f"cortex max_rounds={a.rounds}\n"
    )
    print(
        "| method | accuracy | debate rounds | calls/sample | input tok/call "
        "| input tok/agent/sample | input tok/sample | vs cortex full |"
    )
    print("|---|---|---|---|---|---|---|---|")
    base = rows[1][1]["per_sample"]
    for name, s in rows:
        print(
            f"| {name} | {s['accuracy']:.2f} | {s['rounds']:.2f} | {s['calls']:.2f} "
            f"| {s['per_call']:.1f} | {s['per_agent']:.1f} | {s['per_sample']:.1f} "
            f"| {s['per_sample'] / base:.2f} |"
        )
    print(
        f"\nSame-trajectory counterfactual (cortex mdm run): {actual / len(sparse):.1f} input "
        f"tokens/sample sent vs {mesh / len(sparse):.1f} had every agent read every other: "
        f"ratio {actual / mesh:.3f} (saving {1 - actual / mesh:.1%})."
    )
    print(
        "Mean per-sample counterfactual ratio: "
        f"{statistics.mean(c['ratio'] for c in counterfactual):.3f}; "
        f"the initial answers alone (majority voting's cost): {mav:.1f} tokens/sample."
    )


if __name__ == "__main__":
    main()
