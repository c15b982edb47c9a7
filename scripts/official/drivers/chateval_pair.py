"""Runs ChatEval's pairwise evaluation (their `llm_eval.py` with their shipped
`agentverse/tasks/llm_eval/config.yaml`, both unchanged) on one pair against the scripted server,
once as given and once with `--reverse_input`, then their scorer
(`calc_adversarial_results_calc_score_calibration.get_accuracy_calibration`, method `average`, the
script's default) on the two outputs; prints the decision as JSON.

Runs in the authors' venv (openai>=1, langchain 0.0.155, pydantic 1):
`python chateval_pair.py CHECKOUT QUESTION_JSON`, with OPENAI_BASE_URL and OPENAI_API_KEY set.
QUESTION_JSON holds `question`, `answer_a` and `answer_b`. Shims (each listed in docs/fidelity.md):
1. `agentverse` is imported before the script runs, so its module-level OpenAI clients are built
   from the environment before the script's first lines overwrite OPENAI_BASE_URL and
   OPENAI_API_KEY with placeholders (the script itself is not edited);
2. the config's data path, relative to the working directory, is a one-item FairEval file in a
   fresh working directory (answer_a as `gpt35`, shown first; answer_b as `vicuna`); the 80-item
   loop then runs once;
3. the decision: their `average` over the two runs' outputs, `output_1` read as A and `output_2`
   as B; `adversarial` gives each run's own verdict (extra keys `as_given`, `reversed`).
"""

import json
import os
import runpy
import shutil
import sys
import tempfile
from pathlib import Path

DATA = "agentverse/tasks/llm_eval/data/faireval/preprocessed_data/test.json"
LETTER = {"output_1": "A", "output_2": "B"}


def main():
    checkout, question_path = sys.argv[1], sys.argv[2]
    question = json.loads(Path(question_path).read_text())
    work = tempfile.mkdtemp(prefix="chateval-")
    data = Path(work) / DATA
    data.parent.mkdir(parents=True)
    item = {
        "question": question["question"],
        "response": {"gpt35": question["answer_a"], "vicuna": question["answer_b"]},
    }
    data.write_text(json.dumps([item]))
    os.chdir(work)
    sys.path.insert(0, checkout)
    import agentverse  # noqa: F401  (shim 1: the clients read the environment now)

    config = os.path.join(checkout, "agentverse", "tasks", "llm_eval", "config.yaml")
    outputs = []
    for extra in ([], ["--reverse_input"]):
        sys.argv = ["llm_eval.py", "--config", config, *extra]
        run = runpy.run_path(os.path.join(checkout, "llm_eval.py"), run_name="__main__")
        produced = os.path.join(run["args_output_dir"], "pair_comparison_results.json")
        outputs.append(json.loads(Path(produced).read_text()))
        shutil.rmtree(run["args_output_dir"])
    import calc_adversarial_results_calc_score_calibration as calc

    human = [{"human_results": "output_1"}]
    _, average = calc.get_accuracy_calibration(human, outputs[0], outputs[1], "average", 1)
    _, each = calc.get_accuracy_calibration(human, outputs[0], outputs[1], "adversarial", 1)
    print(
        json.dumps(
            {
                "decision": LETTER[average["predictions"][0]],
                "as_given": LETTER[each["predictions"][0]],
                "reversed": LETTER[each["predictions"][1]],
            }
        )
    )


if __name__ == "__main__":
    main()
