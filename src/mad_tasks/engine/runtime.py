"""The one interface between debate methods and whatever runs the models.

A method never talks to a framework: it builds `Call`s and hands them to a `Runtime`. The Inspect
adapter, the test scripts and the other integrations each implement `Runtime`.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from .content import Msg
from .records import ToolUse

if TYPE_CHECKING:
    from .requests import Request

T = TypeVar("T")


def role_candidates(role: str) -> list[str]:
    """The bindings a role's calls look for, in order: `agent_3` falls back to the shared `agent`
    role; a host's default model comes after them."""
    prefix = role.rsplit("_", 1)[0]
    return [role, prefix] if prefix != role and role.rsplit("_", 1)[1].isdigit() else [role]


class LimitReached(Exception):
    """A call refused or ended because the run reached a limit: its `kind` (token, cost, message,
    time, working, turn, ...), the `value` reached and the `limit`."""

    def __init__(self, kind: str, value: float, limit: float, spent: Usage | None = None) -> None:
        super().__init__(f"the {kind} limit was reached ({value:g} of {limit:g})")
        self.kind, self.value, self.limit = kind, value, limit
        # the usage of a reply that reached the limit as it came back: spent, though the method
        # never reads it (the record counts it, so its figures match the host's bill)
        self.spent = spent


@dataclass
class Budget:
    """How one debate may spend, shared by every session of it (each sample its own).

    `tokens` (`-S budget`): the first call made once they are spent is refused with
    `LimitReached`, so the method decides from what is complete. Every reply's tokens count, a
    cached one's too (the budget bounds the debate, not this run's bill); a reply without usage
    counts none (the figure `calls_without_usage` says how many there were).
    `look_ahead` (`-S look_ahead`): a method that debates in rounds does not start a round that,
    estimated from the rounds before it, would pass this budget or a limit of the run
    (`limits.next_round_fits`)."""

    tokens: int | None = None
    look_ahead: bool = True
    spent: int = 0

    def check(self) -> None:
        if self.tokens is not None and self.spent >= self.tokens:
            raise LimitReached("budget", self.spent, self.tokens)

    def charge(self, usage: Usage | None) -> None:
        if usage is not None:
            self.spent += usage.input_tokens + usage.output_tokens

    def room(self) -> list[Room]:
        return [] if self.tokens is None else [Room("budget", "tokens", self.spent, self.tokens)]


@dataclass(frozen=True)
class Room:
    """What is left of a limit or budget: its `kind` (as `LimitReached` names it), its `unit`
    ("tokens", "output_tokens", "dollars", or "formula": a metering the record cannot follow),
    how much is `used` and the `limit`."""

    kind: str
    unit: str
    used: float
    limit: float


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    # dollars, as the host priced the call (Inspect: its model price table); None: no price known
    cost: float | None = None


@dataclass(frozen=True)
class Call:
    """One model call made on behalf of one agent.

    `agent`, `round`, `purpose` and `attempt` identify the call: adapters use them as cache scopes so
    that agents with identical prompts never share a cached reply, and simulated models use them as
    their random seed. `asks` says what the messages ask for, in values rather than words
    (engine/requests.py); a follow-up after an unreadable reply carries its request's unchanged.
    """

    agent: str
    role: str
    messages: tuple[Msg, ...]
    purpose: str
    round: int = 0
    attempt: int = 0
    temperature: float | None = None
    max_tokens: int | None = None
    asks: Request | None = None
    top_p: float | None = None
    # a JSON schema the reply must follow: the runtime asks for structured output where the
    # provider supports it; the method reads and validates the reply either way
    schema: Mapping[str, Any] | None = None
    # ask for the reply's token log-probabilities (`on_demand`'s confidence); a provider that
    # returns none leaves `Reply.logprobs` None
    logprobs: bool = False


@dataclass(frozen=True)
class Step:
    """One model call of an acting turn (`Runtime.act`) and the tool calls its reply made;
    `discarded`: its reply reached the turn's own cap, so it was spent but never read."""

    usage: Usage | None
    cached: bool = False
    tools: tuple[ToolUse, ...] = ()
    discarded: bool = False


class Steps(Protocol):
    """Where an acting turn reports its steps as they complete, so every step is counted however
    the turn ends (an answer, a cap, a limit, a cancelled sibling)."""

    def done(self, step: Step) -> None:
        """Record a completed step, its tool calls run."""
        ...

    def check(self) -> None:
        """Before the next step: `LimitReached` when the debate's budget is spent."""
        ...


@dataclass(frozen=True)
class Reply:
    text: str
    usage: Usage | None = None  # None: the provider reported no usage (unknown, never 0 tokens)
    cached: bool = False  # served from a response cache: an earlier run spent these tokens
    # the log-probability of each token of the reply, where the call asked for them and the
    # provider returned them; None otherwise
    logprobs: tuple[float, ...] | None = None


# The tools an acting agent may be given by name (`-S tools`); the Inspect host offers each as
# Inspect's own tool of that name. `SANDBOXED`: those that run in the sample's sandbox.
TOOLS = ("python", "bash", "text_editor", "think", "web_search")
SANDBOXED = ("python", "bash", "text_editor")
SANDBOXES = ("shared", "per_agent")


@dataclass(frozen=True)
class Acting:
    """How an agent's turn acts (`-S debater=react`): the `tools` it may call, in whose sandbox
    (`shared`: the sample's default one; `per_agent`: the sandbox named after the agent), and the
    most `messages` and `tokens` (None: no cap) one turn may take before it must answer."""

    tools: tuple[str, ...]
    sandbox: str = "shared"
    messages: int = 20
    tokens: int | None = None


def token_logprobs(values: Iterable[object]) -> tuple[float, ...] | None:
    """A reply's token log-probabilities as a provider returned them, for `Reply.logprobs`: None
    when there are none, or when any is not a finite number <= 0 (no token can have it, so none of
    the reply's can be trusted)."""
    got = tuple(values)
    # an int (JSON `0`) is bounded before float() takes it: float() of a huge int raises
    numbers = [
        float(v) for v in got if isinstance(v, float) or (type(v) is int and -(10**6) <= v <= 0)
    ]
    if not got or len(numbers) != len(got):
        return None
    return tuple(numbers) if all(math.isfinite(v) and v <= 0 for v in numbers) else None


class Runtime(Protocol):
    async def call(self, call: Call) -> Reply:
        """Run one model call."""
        ...

    async def act(self, call: Call, acting: Acting, steps: Steps) -> Reply:
        """Run one agent's turn as an agent that may call `acting.tools` before it answers: the
        reply holds its last text (its usage is in the steps), and each model call it makes goes
        to `steps` as it completes. A limit of the run raises `LimitReached`; the turn's own caps
        (`acting.messages`, `acting.tokens`) end the turn with the text it has."""
        ...

    async def gather(self, *calls: Awaitable[T]) -> list[T]:
        """Run independent coroutines concurrently and return their results in order (no grouping
        of its own: each call sits in its agent's span)."""
        ...

    def span(self, name: str) -> AbstractAsyncContextManager[Any]:
        """Group the calls and events of one stage for the viewer, named by what it is: `round 2`,
        `vote`, `jury`."""
        ...

    def agent_span(self, agent: str) -> AbstractAsyncContextManager[Any]:
        """Group one agent's call, with its follow-ups, for the viewer under the agent's name.
        `Session` opens it around every call; a method opens it only around several calls that
        make one turn of an agent (a message and its extraction). Inside a span of the same name
        it adds no level."""
        ...

    def info(self, title: str, data: str | dict[str, Any]) -> None:
        """Publish a human-readable event (markdown text or a JSON-able dict)."""
        ...

    def model_name(self, role: str) -> str:
        """The name of the model a role's calls run on, as the host names it (a method that
        depends on its models, as CortexDebate's credibility does, reads it before its first
        call)."""
        ...

    def headroom(self) -> list[Room]:
        """What is left of the run's limits on tokens and dollars (none: no such limit)."""
        ...
