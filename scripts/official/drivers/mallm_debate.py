"""Runs MALLM's debate (their `mallm.scheduler.Scheduler`, unchanged) on one question against the
scripted server; prints the decision as JSON.

Runs in the authors' venv (openai 1.x, langchain-core 0.1; their package not installed, its
checkout on sys.path): `python mallm_debate.py CHECKOUT QUESTION_JSON`, with OPENAI_BASE_URL set.
The question JSON holds the record ("question", "choices", "gold") and "config", the Config
fields this run sets (decision_protocol, discussion_paradigm, agent_generator, ...).
Shims (each listed in docs/fidelity.md), all stand-ins for modules the run imports but never
needs for a model call:
1. `sentence_transformers` and `torch`: a fake module whose SentenceTransformer loads nothing (the
   scheduler builds two at start-up for persona diversity and paraphrase confidence, both off);
2. `contextplus.context` returns the text of `mallm_facts.txt` beside this driver (their
   challenge's Wikipedia retrieval; our side reads the same file, `challenge_facts`);
3. `datasets.load_dataset` is never reached (the input is a local .json file) and raises;
4. `bert_score` and `evaluate` (imported by their evaluator, which their judge agent imports;
   bert_score needs torch): stand-ins, unused by the multiple-choice scorer; the decision is the
   letter their `MultiChoiceBoolean` scorer credits in the final answer (with the challenge on,
   followed by each variant's new answers: `challenge_decision`).
"""

import json
import os
import sys
import tempfile
import types
from pathlib import Path


def shim_modules() -> None:
    st = types.ModuleType("sentence_transformers")

    class SentenceTransformer:
        def __init__(self, *args, **kwargs):
            pass

        def encode(self, texts, **kwargs):
            raise RuntimeError("shim: no embeddings offline")

    st.SentenceTransformer = SentenceTransformer
    util = types.ModuleType("sentence_transformers.util")
    util.cos_sim = lambda a, b: None
    st.util = util
    torch = types.ModuleType("torch")
    torch.Tensor = object
    ctx = types.ModuleType("contextplus")
    facts = (Path(__file__).resolve().parent / "mallm_facts.txt").read_text().strip()
    ctx.context = lambda text: facts
    ds = types.ModuleType("datasets")

    def load_dataset(*args, **kwargs):
        raise RuntimeError("shim: no Hugging Face datasets offline")

    ds.load_dataset = load_dataset
    bert = types.ModuleType("bert_score")
    bert.score = lambda *a, **k: None
    evaluate = types.ModuleType("evaluate")
    evaluate.load = lambda *a, **k: None
    for name, module in (
        ("sentence_transformers", st), ("sentence_transformers.util", util), ("torch", torch),
        ("contextplus", ctx), ("datasets", ds), ("bert_score", bert), ("evaluate", evaluate),
    ):  # fmt: skip
        sys.modules[name] = module


VARIANTS = {  # their record's fields, in the order their coordinator runs the variants
    "solution": "challenged_answers", "wrong": "challenged_answers_wrong",
    "irrelevant": "challenged_answers_irrelevant", "history": "challenged_answers_history",
    "information": "challenged_answers_additional_information",
}  # fmt: skip


def challenge_decision(decision, challenged, credited):
    """The decision and each variant's new answers, one mark per agent: - (no DISAGREE), the
    letter their scorer credits in the new answer, ? (none); as method_mallm.py writes ours."""

    def mark(answer):
        return "-" if answer is None else credited(answer) or "?"

    parts = [f"{v} {''.join(mark(a) for a in (challenged.get(f) or {}).values())}"
             for v, f in VARIANTS.items()]  # fmt: skip
    return "; ".join([str(decision), *parts])


def main():
    checkout, question_path = sys.argv[1], sys.argv[2]
    question = json.loads(Path(question_path).read_text())
    shim_modules()
    sys.path.insert(0, checkout)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from mallm.scheduler import Scheduler
    from mallm.utils.config import Config

    work = Path(tempfile.mkdtemp(prefix="mallm-"))
    letters = "ABCDEFGHIJ"
    shown = "\n".join(f"{letters[i]}) {c}" for i, c in enumerate(question["choices"]))
    record = {
        "example_id": "one", "dataset_id": "one", "inputs": [f"{question['question']}\n\n{shown}"],
        "context": None, "references": [question["gold"]], "metadata": None,
    }  # fmt: skip
    (work / "input.json").write_text(json.dumps([record]))
    settings = {
        "input_json_file_path": str(work / "input.json"),
        "output_json_file_path": str(work / "output.json"),
        "task_instruction_prompt_template": "mmlu_pro",
        "endpoint_url": os.environ["OPENAI_BASE_URL"],
        "api_key": "x",
        "model_name": "scripted",
        "concurrent_api_requests": 1,
        **question.get("config", {}),
    }
    config = Config(**settings)
    Scheduler(config).run()
    [out] = json.loads((work / "output.json").read_text())
    from mallm.evaluation.metrics.qa import MultiChoiceBoolean

    def credited(text):
        if not text:
            return None
        hits = [g for g in letters[:4] if MultiChoiceBoolean.evaluate(text, [g], None)["correct"]]
        return hits[0] if len(hits) == 1 else None

    challenged = out.get("challengedAnswers") or {}
    decision = credited(out["finalAnswer"])
    if question.get("config", {}).get("challenge_final_results"):
        decision = challenge_decision(decision, challenged, credited)
    print(
        json.dumps(
            {
                "decision": decision,
                "final_answer": out["finalAnswer"],
                "decision_success": out["decisionSuccess"],
                "turns": out["turns"],
                "challenge": {
                    k: {p: credited(a) for p, a in (v or {}).items()}
                    for k, v in challenged.items()
                    if k.startswith("challenged_")
                },
            }
        )
    )


if __name__ == "__main__":
    main()
