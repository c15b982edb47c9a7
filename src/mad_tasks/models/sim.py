"""`madsim`: a deterministic simulated model for offline runs, tests and benchmarks.

It answers the project's prompts like an agent of a set accuracy: it recognises the answer format a
prompt asks for, knows the gold answer (from `answers=<file>` or the running sample's target), and
replies correctly with probability `accuracy` (a number, or a list with one value per agent). In a
debate round it adopts the answer most peers gave with probability `conformity`. Every draw is seeded
by (model name, `-M seed`, the call's `--seed`, epoch, agent, round, purpose, attempt, prompt), so a
run repeats exactly while epochs and seeds differ. A follow-up after an unreadable reply is answered
from the request it follows up (the user message before the retries), so a retry can recover. Token
usage is set (about four characters a token) unless `usage=false`, and `latency` adds a fixed delay
per call.
A prompt that asks for a confidence line (CortexDebate) gets `EXPLANATION:`, `CONFIDENCE:` and
`ANSWER:` lines, the confidence drawn higher for a correct answer than for a wrong one.

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
from inspect_ai.solver._task_state import sample_state  # the running sample: its target, epoch
from inspect_ai.tool import ToolChoice, ToolInfo

from ..engine.answers import (
    AnswerFormat,
    Choice,
    FreeText,
    Number,
    YesNo,
    format_from_instruction,
)
from ..engine.methods.cortex import CONFIDENCE_INSTRUCTION
from ..engine.methods.d3 import defended_side, prompt_kind, shown_answers
from ..engine.methods.decision_prompts import (
    AGREE_REQUEST,
    BALLOT_REQUEST,
    CURRENT,
    EXTRACT_REQUEST,
    REASONING_ONLY,
)
from ..engine.methods.personas import PERSONA_REQUEST
from ..engine.protocols.d3 import CRITERIA, flip
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
        usage: bool = True,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_args:
            raise ValueError(f"madsim: unknown model args {sorted(model_args)}")
        self.accuracy = (
            [float(a) for a in accuracy] if isinstance(accuracy, list) else [float(accuracy)]
        )
        for name, p in [
            ("conformity", conformity),
            ("unparseable", unparseable),
            *[("accuracy", a) for a in self.accuracy],
        ]:
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"madsim: {name} must be between 0 and 1, got {p}")
        if not isinstance(usage, bool):  # `-M usage=maybe` must not read as true
            raise ValueError(f"madsim: usage must be true or false, got {usage!r}")
        self.conformity = conformity
        self.unparseable = unparseable
        self.latency = latency
        self.seed = seed
        self.usage = usage
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
        attempt = call.attempt if call else 0
        state = sample_state()
        prompt = "\n".join(m.text for m in input)
        rng = random.Random(
            _digest(self.model_name, self.seed, config.seed, state.epoch if state else 0, agent,
                    call.round if call else 0, call.purpose if call else "", attempt, prompt)
        )  # fmt: skip
        request = _request(input, attempt)
        fmt = format_from_instruction(request) or format_from_instruction(prompt)
        special = next((h for marker, h in _SPECIAL if marker in request), None)
        if prompt_kind(prompt):  # D3 advocates, judge and jurors, follow-ups included
            special = "_d3"
        text = (
            getattr(self, special)(agent, prompt, request, rng)
            if special
            else self._reply(agent, fmt, prompt, request, rng)
        )
        if self.latency:
            await anyio.sleep(self.latency)
        out = ModelOutput.from_content(model=self.model_name, content=text)
        if self.usage:
            inp, outp = _tokens(prompt), _tokens(text)
            out.usage = ModelUsage(input_tokens=inp, output_tokens=outp, total_tokens=inp + outp)
        return out

    def _reply(
        self, agent: str, fmt: AnswerFormat | None, prompt: str, request: str, rng: random.Random
    ) -> str:
        gold = self._gold(prompt, fmt)
        if fmt is None or gold is None or rng.random() < self.unparseable:
            return "(This agent thinks about it but does not commit to an answer.)"
        if EXTRACT_REQUEST in request:  # decision debates: restate the solution a text gives
            given = re.search(r"<<<\n(.*)\n>>>", request, re.S)
            stated = fmt.extract(given.group(1)) if given else None
            if stated is not None:
                return f"ANSWER: {stated}"
        peers = [
            a for a in (fmt.extract(s) for s in re.split(r"\n--- \w+ ---\n", request)[1:]) if a
        ]
        current = re.findall(rf"(?m)^{CURRENT} (.+)$", prompt)
        current_answer = fmt.parse(current[-1]) if current else None
        if current_answer is not None:  # decision debates: the solution under discussion
            peers = [current_answer]
        if peers and rng.random() < self.conformity:
            answer, why = Counter(peers).most_common(1)[0][0], "the other agents convinced me"
        elif rng.random() < self._accuracy(agent):
            answer, why = gold, "I worked it out"
        else:
            answer, why = _wrong(gold, fmt, rng), "I made a mistake somewhere"
        if CONFIDENCE_INSTRUCTION in request:  # CortexDebate: explanation and confidence
            sure = rng.uniform(0.6, 0.95) if answer == gold else rng.uniform(0.25, 0.7)
            return (
                f"EXPLANATION: Simulated reasoning of {agent}: {why}.\n"
                f"CONFIDENCE: {sure:.2f}\nANSWER: {answer}"
            )
        # decision debates: [AGREE] exactly when it holds the same answer
        if AGREE_REQUEST in request:
            same = current_answer is not None and fmt.key(answer) == fmt.key(current_answer)
            why = f"{'[AGREE]' if same else '[DISAGREE]'} {why}"
        return f"Simulated reasoning of {agent}: {why}.\nANSWER: {answer}"

    # -- decision debates (engine/methods/decision.py): personas, reasoning-only turns, ballots -----

    def _persona(self, agent: str, prompt: str, request: str, rng: random.Random) -> str:
        if rng.random() < self.unparseable:
            return "Perhaps someone who knows the subject well."
        free = [p for p in _PERSONAS if f"- {p[0]}:" not in request] or list(_PERSONAS)
        role, description = rng.choice(free)
        return json.dumps({"role": role, "description": description})

    def _reasoning(self, agent: str, prompt: str, request: str, rng: random.Random) -> str:
        tag = ""
        if AGREE_REQUEST in request:
            tag = "[AGREE] " if rng.random() < self.conformity else "[DISAGREE] "
        return f"{tag}Simulated reasoning steps of {agent}: the key facts are these."

    def _ballot(self, agent: str, prompt: str, request: str, rng: random.Random) -> str:
        """Vote for the candidates that hold the answer this agent believes (its own first)."""
        from .._inspect_sample import answer_format_for

        state = sample_state()
        fmt = answer_format_for(state, "auto") if state is not None else None
        gold = self._gold(prompt, fmt)
        listed = re.findall(r"(?m)^Solution (\d+): (.*)$", request)
        if fmt is None or gold is None or not listed or rng.random() < self.unparseable:
            return "All of these have merit; I cannot choose."
        belief = gold if rng.random() < self._accuracy(agent) else _wrong(gold, fmt, rng)
        held = {int(i): fmt.parse(text) for i, text in listed}
        liked = [i for i, a in held.items() if a is not None and fmt.key(a) == fmt.key(belief)]
        others = [i for i in held if i not in liked]
        own = int(re.sub(r"\D", "", agent) or 1) - 1
        kind = next(k for k, asked in BALLOT_REQUEST.items() if asked in request)
        if kind == "simple":
            pick = own if own in liked else (liked or [rng.choice(others)])[0]
            return f"I vote for solution {pick}."
        if kind == "approval":
            return ", ".join(map(str, liked or [rng.choice(others)]))
        if kind == "ranked":
            return " ".join(map(str, (liked + others)[:5]))
        stated = re.search(r"add up to (?:exactly |at most )?(\d+)", request)
        if stated is None:
            raise ValueError("madsim: a cumulative ballot request without its point total")
        total = int(stated.group(1))
        chosen = liked or [rng.choice(others)]
        points = {str(i): total // len(chosen) for i in chosen}
        points[str(chosen[0])] += total - sum(points.values())
        return f"My allocation: {json.dumps(points)}"

    # -- D3 judges (engine/methods/d3.py): defences, judge scores, juror votes -----------------------

    def _d3(self, agent: str, prompt: str, request: str, rng: random.Random) -> str:
        """Prefer the better answer with probability `accuracy`: the gold side of a judged pair, or
        the answer that states the target; a judge gives steady totals with a margin per pair."""
        if rng.random() < self.unparseable:
            return "(This agent weighs both sides but does not commit.)"
        kind = prompt_kind(prompt)
        if kind == "defend":
            return (
                f"Simulated defence of Answer {defended_side(prompt)}: it addresses the question "
                "directly, its claims are accurate and its reasoning is easy to follow."
            )
        shown = shown_answers(prompt)
        better = _better(*shown) if shown else None
        if better is None:
            pick = rng.choice("AB")
        else:
            pick = better if rng.random() < self._accuracy(agent) else flip(better)
        if kind == "vote":
            return f"Simulated juror {agent}: Answer {pick} serves the question better.\nANSWER: {pick}"
        margin = 8 + _digest(*sorted(shown or ("", ""))) % 25 + rng.randint(-2, 2)
        high, low = 70 + (margin + 1) // 2, 70 - margin // 2
        totals = (high, low) if pick == "A" else (low, high)
        split = [[t // CRITERIA + (i < t % CRITERIA) for i in range(CRITERIA)] for t in totals]
        rows = "\n".join(f"{i + 1}. [{a}, {b}]" for i, (a, b) in enumerate(zip(*split)))
        return (
            f"{rows}\nFeedback A: be more specific.\nFeedback B: address the other side.\n"
            f"ANSWER: ({totals[0]}, {totals[1]})"
        )

    def _gold(self, prompt: str, fmt: AnswerFormat | None) -> str | None:
        raw = next((a for q, a in self.gold_by_question.items() if q in prompt), None)
        if raw is None:
            state = sample_state()
            raw = state.target.text if state is not None and state.target.text else None
        if raw is None or fmt is None:
            return None
        return fmt.extract(f"ANSWER: {raw}")

    def _accuracy(self, agent: str) -> float:
        m = re.search(r"_(\d+)$", agent)
        i = int(m.group(1)) - 1 if m else 0
        return self.accuracy[min(i, len(self.accuracy) - 1)]


# prompts recognised by a fixed sentence in the last user message -> the method that answers them
_SPECIAL = (
    (PERSONA_REQUEST, "_persona"),
    (REASONING_ONLY, "_reasoning"),
    *((request, "_ballot") for request in BALLOT_REQUEST.values()),
)

_PERSONAS = (
    ("Historian", "knows how past events and dates fit together"),
    ("Biologist", "studies living things and their limits"),
    ("Geographer", "knows places, climates and distances"),
    ("Physicist", "reasons from physical laws and magnitudes"),
    ("Economist", "weighs costs, incentives and markets"),
    ("Linguist", "reads wording and meaning precisely"),
    ("Engineer", "checks what is technically feasible"),
    ("Statistician", "thinks in base rates and evidence"),
)


def _better(a: str, b: str) -> str | None:
    """Which shown answer is better by the running sample: "A", "B" or None (equal, or unknown)."""
    state = sample_state()
    if state is None:
        return None
    gold, meta = state.target.text.strip(), state.metadata
    if gold in ("A", "B", "tie") and isinstance(meta.get("answer_a"), str):
        if gold == "tie":
            return None
        # a judged pair, shown in either order (and anonymised): place it by word overlap
        as_given = _overlap(a, meta["answer_a"]) + _overlap(b, meta["answer_b"])
        reversed_ = _overlap(a, meta["answer_b"]) + _overlap(b, meta["answer_a"])
        return gold if as_given >= reversed_ else flip(gold)
    # a graded output against a reference: the answer that states the target is the better one
    text = FreeText()
    states = [text.key(text.extract(x) or x) == text.key(gold) for x in (a, b)]
    return None if states[0] == states[1] else ("A" if states[0] else "B")


def _overlap(x: str, y: str) -> float:
    wx, wy = set(x.lower().split()), set(y.lower().split())
    return len(wx & wy) / max(1, len(wx | wy))


def _wrong(gold: str, fmt: AnswerFormat, rng: random.Random) -> str:
    if isinstance(fmt, YesNo):
        return "no" if gold == "yes" else "yes"
    if isinstance(fmt, Choice):
        others = [letter for letter in fmt.letters if letter != gold]
        return rng.choice(others) if others else gold
    if isinstance(fmt, Number):
        return str(int(float(gold)) + rng.choice([-2, -1, 1, 2, 10]))
    return f"not {gold}"


def _request(input: list[ChatMessage], attempt: int) -> str:
    """The user message a call answers. Follow-up number `attempt` comes after `attempt` pairs of
    (unreadable reply, reminder), and a reminder repeats only the instruction, not what it needs
    (the candidates of a ballot, the peers' answers)."""
    asked = input[: max(1, len(input) - 2 * attempt)]
    return next((m.text for m in reversed(asked) if m.role == "user"), "")


def _load_answers(path: str) -> dict[str, str]:
    gold = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            answer = row["answer"]
            gold[row["question"]] = (
                ("yes" if answer else "no") if isinstance(answer, bool) else str(answer)
            )
    return gold


def _digest(*parts: Any) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)
