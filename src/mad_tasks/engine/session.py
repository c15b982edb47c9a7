"""Per-sample bookkeeping shared by every method: recorded calls and answers retried within a bound."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from . import prompts
from .answers import AnswerFormat
from .chain import chained, current
from .content import Content, Msg, Question, valid_text
from .records import AgentAnswer, CallRecord
from .requests import Request
from .runtime import Acting, Budget, Call, LimitReached, Reply, Room, Runtime, Step

T = TypeVar("T")


@dataclass(frozen=True)
class Asked(Generic[T]):
    """What `Session.ask` got: the parsed value (None if no reply parsed), every reply text and,
    where the calls asked for them, each reply's token log-probabilities (None: none returned)."""

    value: T | None
    replies: list[str]
    logprobs: list[tuple[float, ...] | None] = field(default_factory=list)


@dataclass(frozen=True)
class Sampling:
    """One call's own generation settings, for methods that set them per stage (Tree-of-Debate);
    None leaves the session's (the user's) setting. `schema`: the JSON schema of the reply."""

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    schema: Mapping[str, Any] | None = None
    logprobs: bool = False  # ask for the reply's token log-probabilities


@dataclass(frozen=True)
class Opening:
    """A first answer given before the method ran (`on_demand`'s first stage): the conversation
    that asked it (unframed, as the method builds it) and the answer."""

    prompt: tuple[Msg, ...]
    answer: AgentAnswer


@dataclass(frozen=True)
class Problem:
    """What the agents are asked: the task's question (all its parts, and any earlier turns) and
    the form the answer must take."""

    question: Question
    fmt: AnswerFormat
    system: str = ""  # the task's system prompt, shown to every agent
    templates: Mapping[str, str] | None = None  # the user's replacements of prompt templates


class Session:
    def __init__(
        self,
        runtime: Runtime,
        problem: Problem,
        *,
        retries: int = 2,
        temperature: float | None = None,
        max_tokens: int | None = None,
        budget: Budget | None = None,
        acting: Acting | None = None,
    ) -> None:
        # its chains of dependent calls kept, so each record says its place in them
        self.runtime = chained(runtime)
        self.problem = problem
        self.retries = retries
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.budget = budget  # how the debate may spend, shared with its sub-sessions
        self.acting = acting  # how an agent's turn acts (None: a plain call)
        self.calls: list[CallRecord] = []
        self.openings: list[Opening] = []

    def reuse(self, prompt: Sequence[Msg]) -> AgentAnswer | None:
        """The next opening asked by exactly `prompt`, taken (each is used once), or None. A method
        whose agents start from independent answers to one prompt calls it, in agent order, before
        asking an agent for its round-one answer: a first stage already asked it."""
        for i, opening in enumerate(self.openings):
            if opening.prompt == tuple(prompt):
                return self.openings.pop(i).answer
        return None

    async def call(
        self,
        agent: str,
        role: str,
        messages: Sequence[Msg],
        purpose: str,
        round: int,
        attempt: int = 0,
        *,
        asks: Request | None = None,
        sampling: Sampling | None = None,
    ) -> Reply:
        """One call; `asks` describes what the messages ask for (engine/requests.py); `sampling`
        sets this call's own settings where the method has them per stage."""
        own = sampling or Sampling()
        call = Call(
            agent=agent,
            role=role,
            messages=self.framed(messages),
            purpose=purpose,
            round=round,
            attempt=attempt,
            temperature=self.temperature if own.temperature is None else own.temperature,
            max_tokens=self.max_tokens if own.max_tokens is None else own.max_tokens,
            asks=asks,
            top_p=own.top_p,
            schema=own.schema,
            logprobs=own.logprobs,
        )
        if self.budget is not None:
            self.budget.check()  # spent: no call more, the method decides from what it has
        # a turn in which the agent answers may act; a follow-up only restates its answer
        turn = TurnSteps(self, call) if asks is not None and asks.acts and attempt == 0 else None
        async with self.runtime.agent_span(agent):
            try:
                if turn is not None and self.acting is not None:
                    reply = await self.runtime.act(call, self.acting, turn)
                else:
                    turn = None
                    reply = await self.runtime.call(call)
            except LimitReached as limit:
                if limit.spent is not None:  # spent, so counted, but never read
                    number = turn.taken if turn is not None else 0
                    self._record(call, Step(limit.spent, discarded=True), number)
                raise
            text, replaced = valid_text(reply.text)
            if replaced:  # before the reply is read, recorded or sent back to a model
                self.runtime.info(
                    "invalid text replaced",
                    f"{agent}'s reply held {replaced} lone surrogate(s), invalid Unicode that no "
                    "log or request can encode; each is replaced by U+FFFD.",
                )
                reply = replace(reply, text=text)
        if turn is None:  # an acting turn recorded each of its steps as it took them
            self._record(call, Step(reply.usage, reply.cached))
        return reply

    def headroom(self) -> list[Room]:
        """What is left of the run's limits on tokens and dollars, and of the debate's budget."""
        own = self.budget.room() if self.budget is not None else []
        return [*self.runtime.headroom(), *own]

    def _record(self, call: Call, step: Step, number: int = 0) -> None:
        """The record of one model call (an acting turn's step `number`), at its place in the
        running coroutine's chain, its tool stages after it."""
        usage = step.usage
        if self.budget is not None:
            self.budget.charge(usage)
        chain = current(self.runtime.root)
        chain.depth += 1
        record = CallRecord(
            agent=call.agent,
            role=call.role,
            purpose=call.purpose,
            round=call.round,
            attempt=call.attempt,
            input_tokens=usage.input_tokens if usage else None,
            output_tokens=usage.output_tokens if usage else None,
            cached=step.cached,
            cost=usage.cost if usage else None,
            discarded=step.discarded,
            step=number,
            tools=step.tools,
            depth=chain.depth,
        )
        self.calls.append(record)
        chain.depth += record.tool_stages

    def framed(self, messages: Sequence[Msg]) -> tuple[Msg, ...]:
        """A call's messages as a plain `generate()` would frame them: the task's system prompt and
        the method's own system messages first, then the input's earlier turns (few-shot
        examples), then the method's conversation."""
        lead = 0
        while lead < len(messages) and messages[lead].role == "system":
            lead += 1
        task_system = (Msg("system", self.problem.system),) if self.problem.system else ()
        return (
            task_system
            + tuple(messages[:lead])
            + self.problem.question.turns
            + tuple(messages[lead:])
        )

    async def ask(
        self,
        agent: str,
        role: str,
        messages: Sequence[Msg],
        purpose: str,
        round: int,
        parse: Callable[[str], T | None],
        reminder: Content,
        retries: int | None = None,
        *,
        asks: Request | None = None,
        sampling: Sampling | None = None,
    ) -> Asked[T]:
        """Call until `parse` reads the reply, following up with `reminder` at most `retries` times
        (default: the session's); `value` is None when no reply parsed. Every follow-up asks for
        what the first call asked (`asks`)."""
        history = list(messages)
        replies: list[str] = []
        logprobs: list[tuple[float, ...] | None] = []
        value: T | None = None
        # the follow-ups in the span of the first call (each call's own span is the same one)
        async with self.runtime.agent_span(agent):
            for attempt in range((self.retries if retries is None else retries) + 1):
                reply = await self.call(
                    agent, role, history, purpose, round, attempt, asks=asks, sampling=sampling
                )
                replies.append(reply.text)
                logprobs.append(reply.logprobs)
                value = parse(reply.text)
                if value is not None:
                    break
                history += [Msg("assistant", reply.text), Msg("user", reminder)]
        return Asked(value, replies, logprobs)

    async def answer(
        self,
        agent: str,
        role: str,
        messages: Sequence[Msg],
        purpose: str,
        round: int,
        *,
        asks: Request | None = None,
    ) -> AgentAnswer:
        """Ask for an answer; an unparseable reply is followed up `retries` times, then abstains."""
        asked = await self.ask_answer(agent, role, messages, purpose, round, asks=asks)
        return answer_of(agent, round, asked)

    async def ask_answer(
        self,
        agent: str,
        role: str,
        messages: Sequence[Msg],
        purpose: str,
        round: int,
        *,
        asks: Request | None = None,
        sampling: Sampling | None = None,
    ) -> Asked[str]:
        """`answer` with every reply kept (and, with `sampling`, the call's own settings)."""
        fmt = self.problem.fmt
        reminder = prompts.reminder(fmt, self.problem.templates)
        return await self.ask(
            agent, role, messages, purpose, round, fmt.extract, reminder, asks=asks,
            sampling=sampling,
        )  # fmt: skip


class TurnSteps:
    """An acting turn's steps, recorded in its session as the runtime reports them."""

    def __init__(self, session: Session, call: Call) -> None:
        self.session, self.call = session, call
        self.taken = 0

    def done(self, step: Step) -> None:
        self.session._record(self.call, step, self.taken)
        self.taken += 1

    def check(self) -> None:
        if self.session.budget is not None:
            self.session.budget.check()


def answer_of(agent: str, round: int, asked: Asked[str]) -> AgentAnswer:
    """The agent's answer from what `Session.ask_answer` got."""
    replies = asked.replies
    # others read the first reply's reasoning and, after a follow-up, the reply that answered
    text = replies[0] if len(replies) == 1 else f"{replies[0]}\n\n{replies[-1]}"
    return AgentAnswer(
        agent=agent, round=round, text=text, answer=asked.value, attempts=len(replies)
    )
