"""Our side of a differential run: the method's solver, with the options that name the authors'
behaviour, on the same one question through Inspect, every call answered by the scenario's script
(over the scripted server, or in-process in the tests); its decision from the run's record."""

from __future__ import annotations

import importlib
import json
import tempfile
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model
from replies import Script
from spec import Method


def run_ours(method: Method, model: str | Model, **eval_args: Any) -> str | None:
    """Run the method on its question; the decision it recorded (None: no answer)."""
    work = Path(tempfile.mkdtemp(prefix="official-ours-"))
    data = work / "question.jsonl"
    if method.question_file is not None:  # a task that reads another layout (e.g. a TSV)
        data.write_text(method.question_file(method.question))
    else:
        data.write_text(json.dumps(dict(method.question)) + "\n")
    task = getattr(importlib.import_module(f"mad_tasks.tasks.{method.task}"), method.task)
    solver = getattr(importlib.import_module("mad_tasks.solvers"), method.solver)
    [log] = eval(
        task(data_path=str(data)),
        solver=solver(**method.options),
        model=model,
        display="none",
        log_dir=str(work / "logs"),
        max_connections=1,  # first-round calls arrive in agent order, as the authors' loops send them
        **{**method.eval_options, **eval_args},
    )
    if log.status != "success" or not log.samples:
        raise RuntimeError(f"our {method.solver} run failed: {log.error}")
    debate = log.samples[0].store["mad_tasks:debate"]
    if method.decision_of is not None:
        return method.decision_of(debate)
    final = debate["final"]
    return None if final is None else str(final)


def scripted_model(script: Script) -> Model:
    """An in-process model whose every reply is the script's (the tests' stand-in for the
    server): what it is sent, as the API would receive it, and a usage for every call."""

    def reply(input: list[ChatMessage], tools: Any, choice: Any, config: GenerateConfig):
        text = script.answer([{"role": m.role, "content": m.text} for m in input])
        out = ModelOutput.from_content("mockllm/model", text)
        out.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
        return out

    return get_model("mockllm/model", custom_outputs=reply)
