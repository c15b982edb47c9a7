"""How fast is the embedded model per token with each build of llama-cpp-python?

Runs Gemma 3 270M (the `local` extra's GGUF) greedily on one fixed prompt, in a subprocess per
build (a build that cannot run on this CPU dies there, not here), and prints per build its CPU
features as llama.cpp reports them, prompt and generation tokens per second (best of `--repeat`),
and both as a ratio to the first build. The installed build is always first; `--python
NAME=PATH` adds another venv's interpreter (e.g. one with a runtime-dispatch build:
docs/local-model.md says how that was measured).

    .venv/bin/python benchmarks/local_model.py [--quick] [--tokens 64] [--repeat 3] \
        [--python dispatch=/tmp/venv-dispatch/bin/python]
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

from common import arguments, parser

PROMPT = (
    "User: Is the Pacific Ocean larger than the Atlantic Ocean? Think step by step, then end "
    "with a last line of the form ANSWER: yes or ANSWER: no.\nAssistant:"
) * 4  # about 170 tokens of prompt

CHILD = """
import json, os, sys, time
import llama_cpp
model, prompt, tokens, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
threads = os.cpu_count() or 1
llm = llama_cpp.Llama(model_path=model, n_ctx=1024, n_threads=threads, n_threads_batch=threads,
                      verbose=False, seed=0)
features = llama_cpp.llama_print_system_info().decode().split("|")
shown = [f.split("=")[0].strip().removeprefix("CPU : ") for f in features if f.strip().endswith("= 1")]
best_prompt = best_gen = 0.0
for _ in range(repeat):
    llm.reset()
    start = time.perf_counter()
    first = llm.create_completion(prompt, max_tokens=1, temperature=0.0)
    prompt_s = time.perf_counter() - start
    n_prompt = first["usage"]["prompt_tokens"]
    llm.reset()
    llm.create_completion(prompt, max_tokens=1, temperature=0.0)  # the prompt, evaluated again
    start = time.perf_counter()
    out = llm.create_completion(prompt, max_tokens=tokens, temperature=0.0)
    gen_s = time.perf_counter() - start
    n_gen = out["usage"]["completion_tokens"]
    best_prompt = max(best_prompt, n_prompt / prompt_s)
    best_gen = max(best_gen, n_gen / gen_s)
print(json.dumps({"features": " ".join(shown), "prompt": best_prompt, "gen": best_gen}))
"""


def measure(python: str, model: str, tokens: int, repeat: int) -> dict[str, object]:
    done = subprocess.run(
        [python, "-c", CHILD, model, PROMPT, str(tokens), str(repeat)],
        capture_output=True, text=True, timeout=1800, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return {"error": f"exit {done.returncode}: {done.stderr.strip()[-200:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--tokens", type=int, default=64, help="tokens generated per run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--python", action="append", default=[], metavar="NAME=PATH")
    a = arguments(ap, tokens=8, repeat=1)
    if importlib.util.find_spec("llama_cpp") is None:
        print("the `local` extra is not installed: nothing to measure")
        return
    from mad_tasks.models.local_server import gguf_path

    model = str(gguf_path())
    builds = [("installed", sys.executable)] + [tuple(p.split("=", 1)) for p in a.python]
    print(f"Gemma 3 270M Q4_K_M, {a.tokens} tokens generated greedily, {os.cpu_count()} threads")
    print("| build | CPU features | prompt tok/s | gen tok/s | prompt ratio | gen ratio |")
    print("|---|---|---|---|---|---|")
    first: dict[str, object] | None = None
    for name, python in builds:
        got = measure(python, model, a.tokens, a.repeat)
        if "error" in got:
            print(f"| {name} | {got['error']} | | | | |")
            continue
        first = first or got
        ratio = [float(got[k]) / float(first[k]) for k in ("prompt", "gen")]  # type: ignore[arg-type]
        print(
            f"| {name} | {got['features']} | {got['prompt']:.0f} | {got['gen']:.1f} "
            f"| {ratio[0]:.2f} | {ratio[1]:.2f} |"
        )


if __name__ == "__main__":
    main()
