"""Runs Du et al.'s MMLU debate (their `mmlu/gen_mmlu.py`, unchanged) on one question against the
scripted server, then their `mmlu/eval_mmlu.py` on its output; prints the decision as JSON.

Runs in the authors' venv (openai 0.27): `python du_mmlu.py CHECKOUT QUESTION_JSON`, with
OPENAI_API_BASE and OPENAI_API_KEY set. Shims (each listed in docs/fidelity.md):
1. `glob.glob` returns a one-row CSV of the question (their data path is their cluster's);
2. the script's question loop `range(100)` runs once (`range` in the script's globals);
3. the decision: their vote, `most_frequent` over the answers their `parse_answer` (falling back
   to `solve_math_problems`) reads from the last round, as `compute_accuracy` composes them; and
   the scored decision: `compute_accuracy(gold, ...)` asked with each letter, the letter it
   scores 1 (it scores 0 for every letter when the last agent's answer is unreadable).
"""

import builtins
import csv
import glob
import json
import os
import runpy
import sys
import tempfile
from pathlib import Path


def main():
    checkout, question_path = sys.argv[1], sys.argv[2]
    question = json.loads(Path(question_path).read_text())
    work = tempfile.mkdtemp()
    table = os.path.join(work, "one.csv")
    with open(table, "w", newline="") as f:
        rows = csv.writer(f)
        rows.writerow(["question", "A", "B", "C", "D", "answer"])
        rows.writerow([question["question"], *question["choices"], question["gold"]])
    glob.glob = lambda pattern: [table]

    def once(*args):
        return builtins.range(1) if args == (100,) else builtins.range(*args)

    os.chdir(work)
    sys.path.insert(0, os.path.join(checkout, "mmlu"))
    runpy.run_path(os.path.join(checkout, "mmlu", "gen_mmlu.py"), {"range": once}, "__main__")
    [output] = glob_files(work, "mmlu_")
    contexts, _ = next(iter(json.loads(Path(output).read_text()).values()))
    last = [context[-1]["content"] for context in contexts]
    import eval_mmlu

    read = [eval_mmlu.parse_answer(t) or eval_mmlu.solve_math_problems(t) for t in last]
    votes = [a for a in read if a is not None]
    scored = [g for g in "ABCD" if eval_mmlu.compute_accuracy(g, last) == 1]
    print(
        json.dumps(
            {
                "decision": eval_mmlu.most_frequent(votes) if votes else None,
                "scored": scored[0] if len(scored) == 1 else None,
            }
        )
    )


def glob_files(folder, prefix):
    return [os.path.join(folder, n) for n in os.listdir(folder) if n.startswith(prefix)]


if __name__ == "__main__":
    main()
