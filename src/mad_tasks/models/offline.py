"""`madsim` outside Inspect: the simulated model for the lm-eval and OpenAI-evals hosts, so every
host has an offline first command (`"inner": "madsim"` for lm-eval's `mad` model,
`model="madsim/x"` for a completion function).

It is the same model as Inspect's `madsim/<name>` (models/sim.py): the same responders, seeds,
token usage and log-probabilities, and the same `-M` arguments as keyword arguments (`accuracy`,
`conformity`, `unparseable`, `seed`, `answers`, `usage`, `logprobs`, `latency`). Outside Inspect
there is no running sample whose target it could read, so it knows the gold answers only from
`answers=<file>` (JSONL records with `question` and `answer`, as the StrategyQA files have):
without one, or for a question the file does not hold, every agent abstains, which the record
shows, rather than any answer being made up; the first such question logs one warning for the
model (per run: a host keeps one model), naming `answers`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.model import GenerateConfig

from ..engine.checks import OptionError
from ..engine.runtime import Call, Reply
from ..inspect_runtime import current_call, reply_logprobs, reported_usage, to_chat
from .sim import SimulatedModel

PROVIDER = "madsim"


def is_simulated(model: str) -> bool:
    """Whether a host's model name names the simulated model (`madsim` or `madsim/<name>`)."""
    return model == PROVIDER or model.startswith(PROVIDER + "/")


class SimulatedReplies:
    """Replies of `madsim/<name>` to the engine's calls, one at a time or a batch at once."""

    def __init__(self, model: str = PROVIDER, **model_args: Any) -> None:
        self.model = model if "/" in model else f"{PROVIDER}/x"
        self._sim = SimulatedModel(self.model.split("/", 1)[1], **model_args)

    async def reply(self, call: Call) -> Reply:
        config = GenerateConfig(
            temperature=call.temperature,
            max_tokens=call.max_tokens,
            logprobs=True if call.logprobs else None,
        )
        token = current_call.set(call)  # the simulator reads what the call asks for from it
        try:
            out = await self._sim.generate([to_chat(m) for m in call.messages], [], "auto", config)
        finally:
            current_call.reset(token)
        logprobs = reply_logprobs(out) if call.logprobs else None
        return Reply(out.completion, reported_usage(out), False, logprobs)

    @classmethod
    def checked(cls, model: str, args: Any, option: str, kind: str) -> SimulatedReplies:
        """The simulated model made from a host's `option` (its arguments), before any call; an
        `OptionError` naming the option when they are not a mapping of its arguments."""
        if not isinstance(args, Mapping):
            raise OptionError(option, args, "a mapping of the simulated model's arguments", kind)
        try:
            return cls(model, **args)
        except (TypeError, ValueError) as e:
            raise OptionError(
                option, args, f"the simulated model's arguments ({e})", kind
            ) from None

    def replies(self, calls: Sequence[Call]) -> list[Reply]:
        """A batch of calls, from outside any running event loop (lm-eval's batch)."""

        async def every() -> list[Reply]:
            return list(await asyncio.gather(*(self.reply(c) for c in calls)))

        return asyncio.run(every())
