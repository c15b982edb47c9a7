"""How much of each solver's prompts a provider's prompt cache can serve, and do images reach every call?

Runs every solver on the simulated model over two one-sample inputs and prints, per solver:
- on a 24,000-character document: calls, characters sent, and the share of those characters that
  repeat a prefix an earlier call of the sample already sent (what prefix caches serve; with n
  identical-prefix calls the most is (n-1)/n);
- on a question with an image part: the share of calls that carried the image, and input tokens
  per call (the simulated model counts 256 per image).
Ratios are from one run.

    .venv/bin/python benchmarks/prompt_cache.py [--quick] [--solvers du_debate voting ...]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from common import arguments, parser
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalSample, resolve_sample_attachments
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from scripted import JUDGES, SOLVERS, prefix_share, serialized  # the tests' own: one definition

DOCUMENT = "Context: " + " ".join(f"Sentence {i} of a long report." for i in range(900))
PNG = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ"
    "/pLvAAAAAElFTkSuQmCC"
)


def run(name: str, sample: Sample) -> EvalSample:
    if name in JUDGES:
        sample = sample.model_copy(
            update={"target": "A", "metadata": {"answer_a": "Yes.", "answer_b": "No idea."}}
        )
    with tempfile.TemporaryDirectory() as logs:
        [log] = eval(
            Task(dataset=MemoryDataset([sample]), solver=SOLVERS[name]()),
            model="madsim/bench",
            log_dir=logs,
            display="none",
        )
        assert log.status == "success" and log.samples, log.error
        return resolve_sample_attachments(log.samples[0])


def prompts(sample: EvalSample) -> list[Any]:
    return [e.input for e in sample.events if e.event == "model"]


def as_text(call: list[Any]) -> str:
    return serialized(
        [
            (m.role, m.content if isinstance(m.content, str) else
             [p.text if isinstance(p, ContentText) else p for p in m.content])
            for m in call
        ]
    )  # fmt: skip


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--solvers", nargs="+", default=list(SOLVERS), choices=list(SOLVERS))
    a = arguments(ap, solvers=["du_debate", "voting", "samre"])
    image = ContentImage(image=PNG)
    long = Sample(
        input=f"{DOCUMENT}\n\nQuestion: does the report mention sentence 7?", target="yes"
    )
    pictured = Sample(
        input=[ChatMessageUser(content=[ContentText(text="Look."), image,
                                        ContentText(text="Is the square red?")])],
        target="yes",
    )  # fmt: skip
    print(f"{'solver':24} {'calls':>5} {'chars sent':>11} {'cached prefix':>13} "
          f"{'image calls':>11} {'in tok/call':>11}")  # fmt: skip
    for name in a.solvers:
        sent = [as_text(c) for c in prompts(run(name, long))]
        shown = run(name, pictured)
        calls = prompts(shown)
        with_image = sum(
            any(p == image for m in c if not isinstance(m.content, str) for p in m.content)
            for c in calls
        )
        tokens = sum(e.output.usage.input_tokens for e in shown.events if e.event == "model")
        print(
            f"{name:24} {len(sent):5d} {sum(map(len, sent)):11,d} {prefix_share(sent):13.3f} "
            f"{with_image / len(calls):11.2f} {tokens / len(calls):11.0f}"
        )


if __name__ == "__main__":
    main()
