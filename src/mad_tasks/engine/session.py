"""Per-sample bookkeeping shared by every method: recorded calls and answers retried within a bound."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from . import prompts
from .answers import AnswerFormat
from .records import AgentAnswer, CallRecord
from .runtime import Call, Msg, Reply, Runtime


@dataclass(frozen=True)
class Problem:
    """What the agents are asked: the task's prompt text and the form the answer must take."""

    question: str
    fmt: AnswerFormat
    system: str = ""  # the task's system prompt, shown to every agent


class Session:
    def __init__(
        self,
        runtime: Runtime,
        problem: Problem,
        *,
        retries: int = 2,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> None:
        self.runtime = runtime
        self.problem = problem
        self.retries = retries
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.calls: list[CallRecord] = []

    async def call(
        self, agent: str, role: str, messages: Sequence[Msg], purpose: str, round: int, attempt: int = 0
    ) -> Reply:
        call = Call(
            agent=agent,
            role=role,
            messages=((Msg("system", self.problem.system),) if self.problem.system else ())
            + tuple(messages),
            purpose=purpose,
            round=round,
            attempt=attempt,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
        )
        reply = await self.runtime.call(call)
        self.calls.append(
            CallRecord(
                agent=agent,
                role=role,
                purpose=purpose,
                round=round,
                attempt=attempt,
                input_tokens=reply.usage.input_tokens,
                output_tokens=reply.usage.output_tokens,
            )
        )
        return reply

    async def answer(
        self, agent: str, role: str, messages: Sequence[Msg], purpose: str, round: int
    ) -> AgentAnswer:
        """Ask for an answer; an unparseable reply is followed up `retries` times, then abstains."""
        fmt = self.problem.fmt
        history = list(messages)
        replies: list[str] = []
        for attempt in range(self.retries + 1):
            reply = await self.call(agent, role, history, purpose, round, attempt)
            replies.append(reply.text)
            answer = fmt.extract(reply.text)
            if answer is not None:
                break
            history += [Msg("assistant", reply.text), Msg("user", prompts.reminder(fmt))]
        # others read the first reply's reasoning and, after a follow-up, the reply that answered
        text = replies[0] if len(replies) == 1 else f"{replies[0]}\n\n{replies[-1]}"
        return AgentAnswer(agent=agent, round=round, text=text, answer=answer, attempts=len(replies))
