"""`madsim`: a deterministic simulated model for offline runs, tests and benchmarks.

It answers the project's calls like an agent of a set accuracy. It never reads a prompt's wording:
it answers from what the call asks for (`Call.asks`, engine/requests.py), by the responder
registered for the request's class (`simulated.responds`; `models/responders/` has one module per
family of requests, each saying how it replies). It knows the gold answer (from `answers=<file>`,
by the question the prompt holds, or the running sample's target), and replies correctly with
probability `accuracy` (a number, or a list with one value per agent). When the call shows other
agents' answers it adopts the most common of them with probability `conformity`; `unparseable` is
the chance a reply cannot be read. Every draw is seeded by (model name, `-M seed`, the call's
`--seed`, epoch, agent, round, purpose, attempt, prompt), so a run repeats exactly while epochs
and seeds differ. A follow-up after an unreadable reply asks for what its first call asked, with a
fresh draw, so a retry can recover. Under `-S answer_form=authors` a request's format is an
authors' form (engine/authors_forms.py): the reply states its answer in that form (`\\boxed{}`,
`(X)`, ReConcile's JSON object, ChatEval's score lines, MALLM's `Final Solution:`, D3's totals and
votes, PRD's last line), drawn as in the project's form.
Token usage is set (about four characters a token, 256 tokens per image, audio or other non-text
part) unless `usage=false`, and `latency` adds a fixed delay
per call. Inspect prices its tokens as any model's: give `madsim/<name>` a price in a
`--model-cost-config` file (src/mad_tasks/data/prices.yaml has one). A reply in an answer format, to a call whose config asks for token log-probabilities,
carries them unless `logprobs=false` (which lets a run fall back to a stated confidence): one per
token as its usage counts them (four characters), their mean probability drawn uniformly from
[0.80, 0.99] when the reply's answer is the gold one and from [0.50, 0.90] when it is wrong or
missing; no other reply carries any, and the draw comes after the reply's own, so asking changes
no reply. Offered tools, it acts (`sim_acting.py`): it computes with the python tool where the
sample says how, consults an agent offered as a tool, and answers from the result. A call without a description (another package's solver) gets a plain answer in the
format its prompt's answer instruction names; a request no responder answers, a non-answer.

    inspect eval mad_tasks/strategyqa --model madsim/a -M accuracy=[0.8,0.6,0.6] -M latency=0.2
"""

from __future__ import annotations

import json
import logging
import math
import random
import re
import threading
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelAPI,
    ModelInfo,
    ModelOutput,
    ModelUsage,
    get_model_info,
    set_model_info,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from .._inspect_compat import sample_state  # the running sample: its target, epoch
from ..engine.answers import AnswerFormat, Choice, FreeText, Math, Number, YesNo
from ..engine.requests import AnswerRequest
from ..inspect_runtime import current_call
from . import responders  # noqa: F401  (registers every responder)
from .sim_acting import ToolCallPlan, plan
from .simulated import (
    NO_ANSWER,
    RESPONDERS,
    SURE_RIGHT,
    SURE_WRONG,
    Turn,
    digest,
    is_gold,
    plain,
)

KNOWN: set[str] = set()  # the names registered in Inspect's model database
logger = logging.getLogger(__name__)
_WARNING = threading.Lock()
MEDIA_TOKENS = 256  # input tokens per non-text part (image, audio, ...): about a small image's bill


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
        logprobs: bool = True,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_args:
            raise ValueError(f"madsim: unknown model args {sorted(model_args)}")
        # known to Inspect's model database, so that a price file (--model-cost-config) can
        # price `madsim/<name>` as it prices a provider's model. Once per name (the lookup makes
        # the model again), and never over a price set before (`set_model_info`)
        name = self.canonical_name()
        if name not in KNOWN:
            KNOWN.add(name)
            if get_model_info(name) is None:
                set_model_info(name, ModelInfo(organization="mad-tasks"))
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
        if not isinstance(logprobs, bool):
            raise ValueError(f"madsim: logprobs must be true or false, got {logprobs!r}")
        self.conformity = conformity
        self.unparseable = unparseable
        self.latency = latency
        self.seed = seed
        self.usage = usage
        self.logprobs = logprobs
        self.answers_file = answers
        self.gold_by_question = _load_answers(answers) if answers else {}
        self.warned = False  # a question without a gold answer was reported

    def canonical_name(self) -> str:
        return f"madsim/{self.model_name}"  # the name a price file gives it

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
            digest(self.model_name, self.seed, config.seed, state.epoch if state else 0, agent,
                    call.round if call else 0, call.purpose if call else "", attempt, prompt)
        )  # fmt: skip
        asks = call.asks if call else None
        if asks is None:  # not one of this project's calls: answer what its instruction asks
            last = next((m.text for m in reversed(input) if m.role == "user"), "")
            fmt = format_from_instruction(last) or format_from_instruction(prompt)
            asks = AnswerRequest(fmt) if fmt else None
        entry = RESPONDERS.get(type(asks)) if asks is not None else None
        turn = Turn(self, agent, prompt, rng, state)
        acted = plan(input, tools, asks, state.metadata if state else None) if tools else None
        if isinstance(acted, ToolCallPlan):  # a tool call: its arguments are the reply's tokens
            text = json.dumps(acted.arguments)
            out = ModelOutput.for_tool_call(
                self.model_name, acted.tool, acted.arguments, content=""
            )
            entry = None  # no answer in a format: no log-probabilities
        else:
            if acted is None:
                acted = entry.respond(turn, asks) if entry is not None else NO_ANSWER
            text = acted
            out = ModelOutput.from_content(model=self.model_name, content=text)
        if self.latency:
            await anyio.sleep(self.latency)
        if self.usage:
            parts = [c for m in input if not isinstance(m.content, str) for c in m.content]
            media = sum(c.type != "text" for c in parts)
            inp, outp = _tokens(prompt) + MEDIA_TOKENS * media, _tokens(text)
            out.usage = ModelUsage(input_tokens=inp, output_tokens=outp, total_tokens=inp + outp)
        if config.logprobs and self.logprobs and entry is not None and entry.answers:
            # drawn after the reply, so asking for them changes no reply
            fmt = asks.fmt  # type: ignore[union-attr]  # every answer request has a format
            right = is_gold(fmt, fmt.extract(text), self.gold(prompt, fmt))
            sure = rng.uniform(*(SURE_RIGHT if right else SURE_WRONG))
            out.choices[0].logprobs = _simulated_logprobs(text, sure, rng)
        return out

    def gold(self, prompt: str, fmt: AnswerFormat | None) -> str | None:
        """The gold answer in `fmt`: the answers file's for the question the prompt holds, else
        the running sample's target (None when neither is known)."""
        raw = next((a for q, a in self.gold_by_question.items() if q in prompt), None)
        if raw is None:
            state = sample_state()
            raw = state.target.text if state is not None and state.target.text else None
            if raw is None:
                self._no_gold(in_sample=state is not None)
        if raw is None or fmt is None:
            return None
        return plain(fmt).extract(f"ANSWER: {raw}")

    def _no_gold(self, in_sample: bool) -> None:
        """Say once per model (per run: Inspect, lm-eval's `mad` and a completion function each
        keep one) that its agents abstain for want of a gold answer, and where to give one."""
        with _WARNING:  # a completion function's model answers from many threads
            if self.warned:
                return
            self.warned = True
        given = " and ".join(
            (["the sample has no target"] if in_sample else [])
            + [
                f"the `answers` file {self.answers_file} does not hold the question"
                if self.answers_file
                else "no `answers` file was given"
            ]
        )
        logger.warning(
            f"{self.canonical_name()} knows no gold answer for a question ({given}), so its "
            "agents abstain on it: every such answer is empty, never a guess. Outside an Inspect "
            "sample it knows the gold answers only from `answers`, a JSONL file of `question` and "
            "`answer` (-M answers=<file>; madsim_args={'answers': <file>} for a completion "
            "function; inner_args answers=<file> for lm-eval). Said once per run."
        )


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


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _simulated_logprobs(text: str, mean: float, rng: random.Random) -> Logprobs:
    """The reply's tokens as its usage counts them (`_tokens`: four characters each, the last
    taking the rest), their probabilities `mean` plus and minus a seeded spread in turn (an odd
    count's last token gets `mean`), so the mean token probability is `mean`."""
    n = _tokens(text)
    spread = rng.uniform(0, min(mean, 1 - mean) / 2)
    pieces = [text[4 * i : 4 * i + 4] for i in range(n - 1)] + [text[4 * (n - 1) :]]
    offsets = [spread if i % 2 == 0 else -spread for i in range(n - n % 2)] + [0.0] * (n % 2)
    return Logprobs(
        content=[
            Logprob(token=piece, logprob=math.log(mean + d)) for piece, d in zip(pieces, offsets)
        ]
    )


def format_from_instruction(text: str) -> AnswerFormat | None:
    """The answer format a prompt's answer instruction names: for calls without a description (other
    packages' solvers), the one place where madsim reads wording."""
    m = re.search(r"where X is one of the letters ([A-Z](?:, [A-Z])*)\.", text)
    if m:
        letters = m.group(1).split(", ")
        return Choice(tuple(letters))  # option texts are unknown here; letters suffice
    for fmt in (YesNo(), Number(), FreeText(), Math()):
        if fmt.instruction() in text:
            return fmt
    return None
