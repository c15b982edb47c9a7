"""Runs Tree-of-Debate's `run.py` (pkargupta/tree-of-debate, unchanged) on one paper pair against the
scripted server; prints the summary it writes as JSON.

Runs in the authors' venv (no GPU, no vLLM, no torch): `python tod_run.py CHECKOUT QUESTION_JSON`,
with OPENAI_BASE_URL set. QUESTION_JSON holds the pair (topic, both papers' title, abstract,
introduction and text) and `experiment` (tod, no-tree, no-delib). Shims (each listed in
docs/fidelity.md):
1. `vllm` is a stand-in module: `LLM(...)` builds an object whose `generate(prompts,
   sampling_params, use_tqdm)` sends each raw prompt to POST /v1/completions (with the stage's
   temperature, top_p, max_tokens and the JSON schema as `guided_json`) and returns items whose
   `.outputs[0].text` is the reply; `SamplingParams` keeps its arguments; `llm_engine` is a dummy;
2. `outlines.serve.vllm.JSONLogitsProcessor` is a no-op that keeps the schema (the scripted
   replies are valid JSON already);
3. `retrieval.e5_model.e5_embed` (SPECTER2 on a GPU, from the HF hub) is a deterministic
   bag-of-words hashing embedder; `retrieval/retrieval.py`'s cosine top-k is theirs, unchanged;
4. `data_pairer.parse_papers_url` (PDF download from arXiv) returns the pair's local texts, and
   `arxiv2text` and `docling.document_converter` (imported by the ablations' copies) are
   empty modules (imported, never called); `tree_of_debate.py` imports
   `data_pairer.parse_papers`, which that file lacks at this commit (their `run.py` fails with an
   ImportError as shipped), so the name is added (never called);
5. the dataset TSV is one row written from QUESTION_JSON in their 12-column layout.
"""

import hashlib
import json
import math
import os
import re
import runpy
import sys
import tempfile
import types
import urllib.request
from pathlib import Path

DIMENSIONS = 256


class SamplingParams:
    def __init__(self, **kwargs):
        self.kwargs = kwargs


class JSONLogitsProcessor:
    def __init__(self, schema=None, llm=None, **kwargs):
        self.schema = schema


class _Output:
    def __init__(self, text):
        self.text = text


class _Result:
    def __init__(self, text):
        self.outputs = [_Output(text)]


class LLM:
    """The stand-in for vLLM's in-process engine: every prompt is one raw completion request."""

    def __init__(self, *args, **kwargs):
        self.llm_engine = object()
        self.url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/completions"

    def generate(self, prompts, sampling_params=None, use_tqdm=True):
        if isinstance(prompts, str):
            prompts = [prompts]
        settings = dict(sampling_params.kwargs) if sampling_params else {}
        schema = None
        for processor in settings.pop("logits_processors", None) or []:
            if getattr(processor, "schema", None) is not None:
                schema = processor.schema.model_json_schema()
        return [_Result(self._complete(p, settings, schema)) for p in prompts]

    def _complete(self, prompt, settings, schema):
        body = {"model": "scripted", "prompt": prompt, **settings}
        if schema is not None:
            body["guided_json"] = schema
        request = urllib.request.Request(
            self.url,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Authorization": "Bearer x"},
        )
        with urllib.request.urlopen(request, timeout=60) as reply:
            return json.loads(reply.read())["choices"][0]["text"]


def e5_embed(texts):
    """Deterministic: each text a normalised vector of hashed lower-case word counts."""
    import numpy as np

    out = {}
    for text in texts:
        vector = np.zeros(DIMENSIONS)
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIMENSIONS] += 1.0
        norm = math.sqrt(float((vector**2).sum())) or 1.0
        out[text] = vector / norm
    return out


def module(name, **attrs):
    made = types.ModuleType(name)
    made.__dict__.update(attrs)
    sys.modules[name] = made
    return made


def main():
    checkout, question_path = sys.argv[1], sys.argv[2]
    q = json.loads(Path(question_path).read_text())
    work = tempfile.mkdtemp(prefix="tod-theirs-")

    module("vllm", LLM=LLM, SamplingParams=SamplingParams)
    module("outlines")
    module("outlines.serve")
    module("outlines.serve.vllm", JSONLogitsProcessor=JSONLogitsProcessor)
    module("arxiv2text", arxiv_to_text=lambda url: "")
    module("docling")  # imported by the ablations' data_pairer copies, never called
    module("docling.document_converter", DocumentConverter=object)
    sys.path.insert(0, checkout)
    import retrieval  # their package (no __init__: a namespace package)

    retrieval.e5_model = module("retrieval.e5_model", e5_embed=e5_embed)
    import data_pairer

    texts = {q["paper_0"]["url"]: q["paper_0"]["text"], q["paper_1"]["url"]: q["paper_1"]["text"]}
    data_pairer.parse_papers_url = lambda focus, cited: (texts[focus], texts[cited])
    # tree_of_debate.py imports `parse_papers`, which data_pairer.py at this commit lacks (an
    # ImportError as shipped); it is never called
    data_pairer.parse_papers = data_pairer.parse_papers_url

    def clean(value):
        return " ".join(str(value).split())

    row = [clean(q.get("contributor", "scripted")), clean(q["topic"])]
    for side in ("paper_0", "paper_1"):
        p = q[side]
        row += [clean(p["url"]), clean(p["title"]), clean(p["abstract"]), clean(p["introduction"])]
    row += [str(q.get("method", 0)), str(q.get("cite", 0))]
    tsv = os.path.join(work, "pair.tsv")
    Path(tsv).write_text("\t".join(row) + "\n", encoding="utf-8")

    os.chdir(checkout)
    argv = ["run.py", "--tsv_file", tsv, "--log", work, "--experiment", q["experiment"]]
    sys.argv = argv
    runpy.run_path(os.path.join(checkout, "run.py"), run_name="__main__")
    # tod writes path_summary.txt and tree.json; the ablations prefix them with the experiment
    prefix = "path_" if q["experiment"] == "tod" else f"{q['experiment']}_"
    [summary] = list(Path(work).rglob(f"{prefix}summary.txt"))
    tree_name = "tree.json" if q["experiment"] == "tod" else f"{q['experiment']}_tree.json"
    tree = summary.parent / tree_name  # the no-delib script writes none
    nodes = count(json.loads(tree.read_text())) if tree.exists() else None
    print(json.dumps({"decision": summary.read_text(), "nodes": nodes}))


def count(tree):
    return 1 + sum(count(c) for c in tree.get("children", []))


if __name__ == "__main__":
    main()
