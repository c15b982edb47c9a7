"""What `-S stop=adaptive` saves: rounds, calls and tokens per sample against the same debate's
fixed rounds, at the accuracy of each, from one run.

Runs each method of METHODS twice on the same samples, with `stop=fixed` (every one of its R
rounds) and `stop=adaptive` (Hu et al.'s stability rule at its defaults, R the cap), and prints per
method and stop: rounds, calls and tokens per sample, accuracy, and how many debates stopped
before the cap; then the adaptive run's ratio to the fixed one and the equal-accuracy check (the
two accuracies, and on how many samples the two final answers are the same). By default on the
simulated model over the project's demo questions (src/mad_tasks/data/demo_yesno.jsonl); `--model`
runs it on any model, the embedded local model among them (docs/local-model.md):

    .venv/bin/python benchmarks/adaptive_stop.py [--quick] [--samples 12] [--rounds 5]
    # needs: a server started with `mad-local serve --port 8081`
    .venv/bin/python benchmarks/adaptive_stop.py --model llama-cpp-python/gemma-3-270m \
        --model-base-url http://127.0.0.1:8081/v1 --max-tokens 128 --stop-seq $'\\n---' \
        --method du_debate --samples 6

A method wired for `stop=adaptive` joins with one line in METHODS: its solver, its options (its
own name for the rounds it runs, set to `{rounds}`), the name of its stop option and its task.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from common import FIXTURES, ROOT, arguments, parser
from inspect_ai import Task, eval
from inspect_ai.log import EvalSample
from inspect_ai.scorer import value_to_float

from mad_tasks import solvers
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.strategyqa import strategyqa

DEMO = ROOT / "src" / "mad_tasks" / "data" / "demo_yesno.jsonl"
TASKS: dict[str, Callable[[], Task]] = {
    "demo": lambda: strategyqa(data_path=str(DEMO)),  # 12 yes/no questions
    "mt_bench_judge": lambda: mt_bench_judge(data_path=str(FIXTURES / "mt_bench_pairs.jsonl")),
}


@dataclass(frozen=True)
class Method:
    solver: str  # a solver of mad_tasks.solvers
    args: dict[str, Any] = field(default_factory=dict)  # "{rounds}" is replaced by --rounds
    stop: str = "stop"  # its option that takes fixed / adaptive
    fixed: str = "fixed"  # that option's value without the adaptive stop (SAMRE: its own rule)
    task: str = "demo"


METHODS = [  # one line per method wired for stop=adaptive
    Method("du_debate", {"agents": 5, "rounds": "{rounds}"}),
    Method("reconcile", {"max_rounds": "{rounds}"}),
    Method("cortex", {"max_rounds": "{rounds}"}),
    Method("consensus", {"max_turns": "{rounds}", "consensus_count": "latest_solution"}),
    Method("voting", {"agents": 4, "max_turns": "{rounds}"}),
    Method("samre", {"max_rounds": "{rounds}"}, "stopping", "code", task="mt_bench_judge"),
]
QUICK = METHODS[:1]


def run(method: Method, stop: str, a: Any) -> list[EvalSample]:
    args = {k: a.rounds if v == "{rounds}" else v for k, v in method.args.items()}
    value = method.fixed if stop == "fixed" else stop
    solver = getattr(solvers, method.solver)(**args, **{method.stop: value})
    with tempfile.TemporaryDirectory() as logs:
        [log] = eval(TASKS[method.task](), solver=solver, model=a.model,
                     model_base_url=a.model_base_url, limit=a.samples, log_dir=logs,
                     display="none", max_tokens=a.max_tokens, stop_seqs=a.stop_seq or None)  # fmt: skip
        if log.status != "success" or not log.samples:  # the samples are read from the log
            sys.exit(f"{method.solver} stop={stop}: the run failed: {log.error}")
        return list(log.samples)


def figures(samples: list[EvalSample]) -> dict[str, float]:
    """Per sample means: rounds, calls, tokens; accuracy on the task's headline score."""
    to_float = value_to_float()

    def mean(get: Callable[[EvalSample], float]) -> float:
        return statistics.mean(get(s) for s in samples)

    return {
        "rounds": mean(lambda s: float(s.scores["rounds"].value)),  # type: ignore[arg-type]
        "calls": mean(lambda s: float(s.scores["calls"].value)),  # type: ignore[arg-type]
        "tokens": mean(lambda s: sum(u.total_tokens for u in s.model_usage.values())),
        "accuracy": mean(lambda s: to_float(next(iter(s.scores.values())).value)),
    }


def stopped_early(adaptive: list[EvalSample], fixed: list[EvalSample]) -> int:
    """The debates the rule ended (reason `stable`) in fewer rounds than the same sample's run
    without it: a rule that fires at the round the method would end anyway saves nothing."""
    ran = {s.id: s.scores["rounds"].value for s in fixed}
    return sum(
        ((s.store.get("mad_tasks:debate") or {}).get("adaptive_stop") or {}).get("reason")
        == "stable"
        and s.scores["rounds"].value < ran.get(s.id, 0)  # type: ignore[operator]
        for s in adaptive
    )


def finals(samples: list[EvalSample]) -> dict[Any, Any]:
    return {s.id: next(iter(s.scores.values())).answer for s in samples}


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--model", default="madsim/bench", help="the model (default: madsim/bench)")
    ap.add_argument("--model-base-url", default=None, help="the model's base URL (a local server)")
    ap.add_argument("--max-tokens", type=int, default=None, help="the most tokens of a reply")
    ap.add_argument("--stop-seq", action="append", default=[], help="a stop sequence (repeat)")
    ap.add_argument("--samples", type=int, default=12, help="samples per task (default: 12)")
    ap.add_argument("--rounds", type=int, default=5, help="fixed rounds, the adaptive cap (5)")
    ap.add_argument("--method", action="append", default=[],
                    help="run only this method of METHODS (repeat; default: all)")  # fmt: skip
    a = arguments(ap, samples=3)
    methods = QUICK if a.quick else METHODS
    if a.method:
        unknown = sorted(set(a.method) - {m.solver for m in METHODS})
        if unknown:
            sys.exit(f"--method: no such method in METHODS: {', '.join(unknown)}")
        methods = [m for m in METHODS if m.solver in a.method]
    print(f"{a.model}, {a.samples} sample(s) per method, rounds {a.rounds} (fixed) or at most "
          f"{a.rounds} (adaptive: KS < 0.05 for 2 rounds, window 3)\n")  # fmt: skip
    print("| method | task | stop | rounds/sample | calls/sample | tokens/sample | accuracy "
          "| stopped early |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    savings = []
    for method in methods:
        runs = {stop: run(method, stop, a) for stop in ("fixed", "adaptive")}
        got = {stop: figures(samples) for stop, samples in runs.items()}
        for stop, f in got.items():
            n = len(runs[stop])
            early = "–"
            if stop == "adaptive":
                early = f"{stopped_early(runs[stop], runs['fixed'])} of {n}"
            shown = f"{method.stop}={method.fixed}" if stop == "fixed" else f"{method.stop}={stop}"
            print(f"| {method.solver} | {method.task} | {shown} | {f['rounds']:.2f} "
                  f"| {f['calls']:.1f} | {f['tokens']:.0f} | {f['accuracy']:.3f} "
                  f"| {early} |")  # fmt: skip
        fixed, adaptive = got["fixed"], got["adaptive"]
        same = finals(runs["fixed"]), finals(runs["adaptive"])
        agree = sum(same[0][k] == same[1].get(k) for k in same[0])
        savings.append(
            f"{method.solver}: adaptive / fixed = rounds {adaptive['rounds'] / fixed['rounds']:.2f}, "
            f"calls {adaptive['calls'] / fixed['calls']:.2f}, "
            f"tokens {adaptive['tokens'] / fixed['tokens']:.2f}; accuracy {fixed['accuracy']:.3f} "
            f"fixed, {adaptive['accuracy']:.3f} adaptive "
            f"({'equal' if adaptive['accuracy'] == fixed['accuracy'] else 'not equal'}); "
            f"the same final answer on {agree} of {len(same[0])} samples"
        )
    print()
    print("\n".join(savings))


if __name__ == "__main__":
    main()
