"""Runs PRD's peer discussion (Li, Patel and Du; bcdnlp/PRD) on one pair of answers against the
scripted server, each stage by its own script, unchanged: the two initial reviews
(`peer_rank/eval_gpt_review.py`, the three-class prompt), `peer_discussion/gather_all_vicuna80.py`,
then `peer_discussion/discuss_vicuna80.py` (the discussion in both speaking orders). Prints the
decision as JSON.

Runs in the authors' venv (openai 0.28): `python prd_discussion.py CHECKOUT QUESTION_JSON`, with
OPENAI_API_BASE set. Shims (each listed in docs/fidelity.md):
1. a working tree holding the pair as Vicuna80's files (one question, one answer per model, one
   human judgment row), key files with a dummy key, and `config.yml` with both reviewers named
   `gpt*` (reviewer 2: `gpt4` on `gpt-4-0613`; their default pairs gpt35 with Claude through the
   legacy Anthropic API); `prompt_generation.py` reads `peer_discussion/config.yml` relative to
   the working directory while the others read `config.yml`, so the same file is at both places;
2. `time.sleep` does nothing (the review script waits 2 s between requests);
3. the decision: their code records each turn's preference (`result_extraction`) and states no
   rule; this reads each discussion's last readable preference (the reviews' when no turn is
   readable), 1 as A, 2 as B, 3 as a tie, and combines the two discussions: agreeing verdicts
   stand, differing ones give a tie, one without a verdict leaves it to the other.
"""

import csv
import json
import os
import runpy
import sys
import tempfile
import time
from pathlib import Path

import yaml

MODELS = ("gpt35", "vicuna-13b")  # the config's model1, model2: whose answers are compared
REVIEWERS = {"gpt35": "gpt-3.5-turbo-0613", "gpt4": "gpt-4-0613"}
SIDE = {1: "A", 2: "B", 3: "tie"}


def main():
    checkout, question_path = Path(sys.argv[1]), sys.argv[2]
    pair = json.loads(Path(question_path).read_text())
    work = Path(tempfile.mkdtemp())
    time.sleep = lambda seconds: None
    keys = work / "keys"
    keys.mkdir()
    for name, text in (("openai_key", "x"), ("openai_org_id", ""), ("anthropic_key", "x")):
        (keys / name).write_text(text + "\n")
    vicuna = work / "data" / "vicuna80"
    for sub in ("prompts", "generations", *(f"ratings-{r}" for r in REVIEWERS)):
        (vicuna / sub).mkdir(parents=True)
    (work / "results" / "vicuna80").mkdir(parents=True)
    question = {"question_id": 1, "text": pair["question"], "category": "generic"}
    (vicuna / "prompts" / "vicuna_questions.jsonl").write_text(json.dumps(question) + "\n")
    for model, text in zip(MODELS, (pair["answer_a"], pair["answer_b"])):
        answer = {"question_id": 1, "answer_id": f"{model}-1", "text": text}
        (vicuna / "generations" / f"answer_{model}.jsonl").write_text(json.dumps(answer) + "\n")
    with open(vicuna / "vicuna_benchmark_human_annotations.csv", "w", newline="") as f:
        rows = csv.writer(f)
        rows.writerow(["prompt", "system_a", "system_b", "answer"])
        rows.writerow([pair["question"], MODELS[0], MODELS[1], pair["human"]])
    config = yaml.safe_load((checkout / "peer_discussion" / "config.yml").read_text())
    config.update(reviewer1="gpt35", reviewer2="gpt4", model_reviewer2=REVIEWERS["gpt4"])
    config.update(model_reviewer1=REVIEWERS["gpt35"], model1=MODELS[0], model2=MODELS[1])
    (work / "peer_discussion" / "peer_discussion").mkdir(parents=True)
    for place in (work / "peer_discussion", work / "peer_discussion" / "peer_discussion"):
        (place / "config.yml").write_text(yaml.safe_dump(config))
    (work / "peer_rank").mkdir()

    # 1. the initial reviews, reviewer 1 then reviewer 2, answers in the config's order
    prompts = checkout / "data" / "vicuna80" / "prompts"
    for reviewer, model in REVIEWERS.items():
        out = (
            vicuna
            / f"ratings-{reviewer}"
            / (f"answer_{MODELS[0]}-vs-answer_{MODELS[1]}-{reviewer}-reviewer_threeclass.jsonl")
        )
        answers = [str(vicuna / "generations" / f"answer_{m}.jsonl") for m in MODELS]
        run(checkout / "peer_rank" / "eval_gpt_review.py", work / "peer_rank", [
            "-q", str(vicuna / "prompts" / "vicuna_questions.jsonl"), "-a", *answers,
            "-p", str(prompts / "vicuna_prompt_threeclass.jsonl"),
            "-r", str(prompts / "reviewer.jsonl"), "-o", str(out), "-m", model,
        ])  # fmt: skip

    # 2. gather, 3. the discussion in both orders
    here = work / "peer_discussion"
    sys.path.insert(0, str(checkout / "peer_discussion"))
    run(checkout / "peer_discussion" / "gather_all_vicuna80.py", here, [])
    run(checkout / "peer_discussion" / "discuss_vicuna80.py", here, [])

    [data] = json.loads(
        (
            work / "results" / "vicuna80" / "all-data-gpt35-gpt4-multi-gpt35-vicuna-13b.json"
        ).read_text()
    )
    reviews = [data[f"initial_justification_{r}"]["preference"] for r in REVIEWERS]
    verdicts = {}
    for name in ("gpt35_gpt4_discussion", "gpt4_gpt35_discussion"):
        turns = [next(iter(t.values()))["preference"] for t in data[name][2:]]
        readable = [SIDE[p] for p in [*reviews, *turns] if p in SIDE]
        verdicts[name] = readable[-1] if readable else None
    given = [v for v in verdicts.values() if v is not None]
    decision = None if not given else given[0] if len(set(given)) == 1 else "tie"
    print(json.dumps({"decision": decision, **verdicts}))


def run(script, cwd, args):
    os.chdir(cwd)
    sys.argv = [str(script), *args]
    runpy.run_path(str(script), run_name="__main__")


if __name__ == "__main__":
    main()
