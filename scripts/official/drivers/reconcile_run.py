"""Runs ReConcile's `run.py` (dinobby/ReConcile, unchanged) on one question against the scripted
server and prints its decision as JSON: the `weighted_max` of the last round that ran.

Runs in the authors' venv (openai 0.27): `python reconcile_run.py CHECKOUT QUESTION_JSON`, with
OPENAI_API_BASE set; QUESTION_JSON is {"dataset": "SQA" | "Aqua", "record": <one row of that
dataset's file>}. Shims (each listed in docs/fidelity.md):
1. the data: a work folder holding `dataset/<name>/` with the one question and a link to the
   checkout's `convincing/` (their few-shot samples, used as shipped);
2. the keys `generation.py` reads from the environment are set to placeholders, and its GPT
   client (Azure openai 0.27, unchanged) points at the scripted server's Azure route;
3. `claude.Client` (an unofficial claude.ai web client) is a stub: `create_new_chat` gives a
   fresh id and `send_message` sends the prompt as one user message to the scripted server; the
   greeting `ClaudeModel.connect` sends at start-up is answered by the stub, not sent;
4. `google.generativeai` (PaLM, discontinued) is a stub: `palm.chat(examples, messages)` sends the
   few-shot pairs as user/assistant turns and the message as the last user turn, and returns an
   object whose `.last` is the reply; `configure` does nothing;
5. `curl_cffi` and `google.api_core.exceptions` are stubs holding the exception classes the code
   imports (`CurlError`, `ServiceUnavailable`);
6. `time.sleep` does nothing (the code sleeps 1 s per call and backs off between retries);
7. numpy's random generator is seeded (0): the code fills an unreadable answer with a random
   option from an unseeded `np.random`.
"""

import json
import os
import runpy
import sys
import tempfile
import time
import types
import urllib.request
import uuid
from pathlib import Path

FILES = {"SQA": "dev.json", "Aqua": "test.json"}
GREETING = "Hi, what is your name and where are you from?"


def chat(messages):
    """One chat completion from the scripted server (the OpenAI route)."""
    url = os.environ["OPENAI_API_BASE"].rstrip("/") + "/chat/completions"
    body = json.dumps({"model": "stub", "messages": messages}).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.load(reply)["choices"][0]["message"]["content"]


class Client:
    """Stands in for `claude.Client`."""

    def __init__(self, cookie):
        self.cookie = cookie

    def create_new_chat(self):
        return {"uuid": str(uuid.uuid4())}

    def send_message(self, prompt, conversation_id, attachment=None, timeout=500):
        if prompt == GREETING:
            return "A stub standing in for the Claude web client."
        return chat([{"role": "user", "content": prompt}])


class Reply:
    def __init__(self, last):
        self.last = last


def palm_chat(examples=None, messages=None, **_):
    turns = []
    for question, answer in examples or []:
        turns += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    return Reply(chat([*turns, {"role": "user", "content": messages}]))


def module(name, **attrs):
    made = types.ModuleType(name)
    made.__dict__.update(attrs)
    sys.modules[name] = made
    return made


def install_stubs():
    class CurlError(Exception):
        pass

    class ServiceUnavailable(Exception):
        pass

    module("claude", Client=Client)
    module("curl_cffi", CurlError=CurlError)
    genai = module("google.generativeai", configure=lambda **_: None, chat=palm_chat)
    exceptions = module("google.api_core.exceptions", ServiceUnavailable=ServiceUnavailable)
    api_core = module("google.api_core", exceptions=exceptions)
    module("google", generativeai=genai, api_core=api_core)
    time.sleep = lambda seconds: None


def main():
    checkout, question_path = Path(sys.argv[1]).resolve(), sys.argv[2]
    question = json.loads(Path(question_path).read_text())
    dataset = question["dataset"]
    work = Path(tempfile.mkdtemp(prefix="reconcile-"))
    (work / "dataset" / dataset).mkdir(parents=True)
    record = question["record"]
    text = json.dumps([record]) if dataset == "SQA" else json.dumps(record) + "\n"
    (work / "dataset" / dataset / FILES[dataset]).write_text(text)
    (work / "convincing").symlink_to(checkout / "convincing")
    os.environ.update(
        OPEN_AI_API_BASE=os.environ["OPENAI_API_BASE"],
        OPEN_AI_API_VERSION="2023-05-15",
        OPEN_AI_API_KEY="x",
        PALM_API_KEY="x",
        CLAUDE_COOCKIE1="stub",
        **{f"CLAUDE_COOCKIE{i}": "" for i in range(2, 6)},
    )
    install_stubs()
    import numpy as np

    np.random.seed(0)
    os.chdir(work)
    sys.path.insert(0, str(checkout))
    sys.argv = ["run.py", "--dataset", dataset, "--num_samples", "1"]
    sys.stdout, shown = sys.stderr, sys.stdout  # their progress prints go to stderr
    try:
        runpy.run_path(str(checkout / "run.py"), run_name="__main__")
    finally:
        sys.stdout = shown
    [output] = list(work.glob(f"{dataset}_round_*.pkl"))
    import pickle

    [sample] = pickle.loads(output.read_bytes())
    last = max(int(k.rsplit("_", 1)[1]) for k in sample if k.startswith("weighted_max_"))
    print(
        json.dumps(
            {
                "decision": str(sample[f"weighted_max_{last}"]),
                "majority": str(sample[f"majority_ans_{last}"]),
                "rounds": last,
                "votes": [str(v) for v in sample[f"vote_{last}"]],
            }
        )
    )


if __name__ == "__main__":
    main()
