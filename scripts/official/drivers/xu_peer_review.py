"""Runs Xu et al.'s multi-agent peer review (their `peer_review.py`, unchanged) on one ARC-c
question against the scripted server, then reads the decision with their `eval.py`; prints it as
JSON.

Runs in the authors' venv (openai 0.28): `python xu_peer_review.py CHECKOUT QUESTION_JSON`, with
OPENAI_API_BASE set. Shims (each listed in docs/fidelity.md):
1. the question is the one row of a `processed_data/ARC-c/ARC-c_1.jsonl` in a fresh working
   directory (with `result/ARC-c/` made for the output), run as
   `peer_review.py --task ARC-c --max_example_num 1 --openai_key x`;
2. the decision: `eval.py`'s `parse_pred_answer` on each agent's last message and `most_frequent`
   over the readable ones, as its `compute_accuracy` composes them for a multi-agent run.
"""

import json
import os
import runpy
import sys
import tempfile
import types
from pathlib import Path


def main():
    checkout, question_path = sys.argv[1], sys.argv[2]
    question = json.loads(Path(question_path).read_text())
    work = tempfile.mkdtemp()
    os.makedirs(os.path.join(work, "processed_data", "ARC-c"))
    os.makedirs(os.path.join(work, "result", "ARC-c"))
    with open(os.path.join(work, "processed_data", "ARC-c", "ARC-c_1.jsonl"), "w") as f:
        f.write(json.dumps({"question": question["question"], "answer": question["answer"]}) + "\n")
    os.chdir(work)
    sys.path.insert(0, checkout)
    sys.argv = ["peer_review.py", "--task", "ARC-c", "--max_example_num", "1", "--openai_key", "x"]
    runpy.run_path(os.path.join(checkout, "peer_review.py"), run_name="__main__")
    [name] = os.listdir(os.path.join(work, "result", "ARC-c"))
    [record] = json.loads(Path(work, "result", "ARC-c", name).read_text())
    import eval as their_eval

    args = types.SimpleNamespace(task="ARC-c")
    last = [context[-1]["content"] for context in record["agent_contexts"]]
    votes = [a for a in (their_eval.parse_pred_answer(t, args) for t in last) if a]
    print(json.dumps({"decision": their_eval.most_frequent(votes)}))


if __name__ == "__main__":
    main()
