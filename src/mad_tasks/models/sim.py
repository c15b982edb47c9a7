"""`madsim`: a deterministic simulated model for offline runs, tests and benchmarks.

It answers the project's prompts like an agent of a set accuracy: it recognises the answer format a
prompt asks for, knows the gold answer (from `answers=<file>` or the running sample's target), and
replies correctly with probability `accuracy` (a number, or a list with one value per agent). In a
debate round it adopts the answer most peers gave with probability `conformity`. Every draw is seeded
by (model name, seed, agent, round, purpose, attempt, prompt), so a run repeats exactly. Token usage
is always set (about four characters a token) and `latency` adds a fixed delay per call.

    inspect eval mad_tasks/strategyqa --model madsim/a -M accuracy=[0.8,0.6,0.6] -M latency=0.2
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from ..engine.answers import AnswerFormat, Choice, Number, YesNo, format_from_instruction
from ..inspect_runtime import current_call


class SimulatedModel(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        accuracy: float | list[float] = 0.7,
        conformity: float = 0.3,
        unparseable: float = 0.0,
        latency: float = 0.0,
        seed: int = 0,
        answers: str | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_args:
            raise ValueError(f"madsim: unknown model args {sorted(model_args)}")
        self.accuracy = [float(a) for a in accuracy] if isinstance(accuracy, list) else [float(accuracy)]
        for name, p in [("conformity", conformity), ("unparseable", unparseable), *[("accuracy", a) for a in self.accuracy]]:
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"madsim: {name} must be between 0 and 1, got {p}")
        self.conformity = conformity
        self.unparseable = unparseable
        self.latency = latency
        self.seed = seed
        self.gold_by_question = _load_answers(answers) if answers else {}

    def max_connections(self) -> int:
        return 100  # no server behind it: latency is simulated, so never the bottleneck

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        call = current_call.get()
        agent = call.agent if call else "agent_1"
        prompt = "\n".join(m.text for m in input)
        rng = random.Random(
            _digest(self.model_name, self.seed, agent, call.round if call else 0,
                    call.purpose if call else "", call.attempt if call else 0, prompt)
        )
        last_user = next((m.text for m in reversed(input) if m.role == "user"), "")
        fmt = format_from_instruction(last_user) or format_from_instruction(prompt)
        text = self._reply(agent, fmt, prompt, last_user, rng)
        if self.latency:
            await anyio.sleep(self.latency)
        out = ModelOutput.from_content(model=self.model_name, content=text)
        inp, outp = _tokens(prompt), _tokens(text)
        out.usage = ModelUsage(input_tokens=inp, output_tokens=outp, total_tokens=inp + outp)
        return out

    def _reply(self, agent: str, fmt: AnswerFormat | None, prompt: str, last_user: str, rng: random.Random) -> str:
        gold = self._gold(prompt, fmt)
        if fmt is None or gold is None or rng.random() < self.unparseable:
            return "(This agent thinks about it but does not commit to an answer.)"
        peers = [a for a in (fmt.extract(s) for s in re.split(r"\n--- \w+ ---\n", last_user)[1:]) if a]
        if peers and rng.random() < self.conformity:
            answer, why = Counter(peers).most_common(1)[0][0], "the other agents convinced me"
        elif rng.random() < self._accuracy(agent):
            answer, why = gold, "I worked it out"
        else:
            answer, why = _wrong(gold, fmt, rng), "I made a mistake somewhere"
        return f"Simulated reasoning of {agent}: {why}.\nANSWER: {answer}"

    def _gold(self, prompt: str, fmt: AnswerFormat | None) -> str | None:
        raw = next((a for q, a in self.gold_by_question.items() if q in prompt), None)
        if raw is None:
            from inspect_ai.solver._task_state import sample_state

            state = sample_state()
            raw = state.target.text if state is not None and state.target.text else None
        if raw is None or fmt is None:
            return None
        return fmt.extract(f"ANSWER: {raw}")

    def _accuracy(self, agent: str) -> float:
        m = re.search(r"_(\d+)$", agent)
        i = int(m.group(1)) - 1 if m else 0
        return self.accuracy[min(i, len(self.accuracy) - 1)]


def _wrong(gold: str, fmt: AnswerFormat, rng: random.Random) -> str:
    if isinstance(fmt, YesNo):
        return "no" if gold == "yes" else "yes"
    if isinstance(fmt, Choice):
        others = [letter for letter in fmt.letters if letter != gold]
        return rng.choice(others) if others else gold
    if isinstance(fmt, Number):
        return str(int(float(gold)) + rng.choice([-2, -1, 1, 2, 10]))
    return f"not {gold}"


def _load_answers(path: str) -> dict[str, str]:
    gold = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            answer = row["answer"]
            gold[row["question"]] = ("yes" if answer else "no") if isinstance(answer, bool) else str(answer)
    return gold


def _digest(*parts: Any) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)
