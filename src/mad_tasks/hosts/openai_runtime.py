"""The engine's `Runtime` over OpenAI-compatible chat completions, through the `openai` client.

Each role's calls go to an `Endpoint` (a model, a base URL, a key): the role's own, else its shared
role's (`agent_3` falls back to `agent`), else the host's default. A role bound to a list of
endpoints is a panel: its members take them in turn by seat (engine/panels.py). One runtime
serves one debate on one event loop: its clients are made on first use and closed when the debate ends, so debates run
from different threads share no client (only the host's `Simulators`, which hold no loop's state).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, TypeVar

from openai import AsyncOpenAI, BadRequestError

from ..engine.content import Msg
from ..engine.panels import Bound
from ..engine.runtime import Acting, Call, Reply, Room, Steps, Usage, token_logprobs
from ..models.offline import SimulatedReplies, is_simulated
from .bindings import resolved

T = TypeVar("T")

# what an unbound role falls back to
DEFAULT = "default"


@dataclass(frozen=True)
class Endpoint:
    model: str
    base_url: str | None = None  # None: the client's default (OPENAI_BASE_URL, else OpenAI's)
    api_key: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        """For the record: the key is left out."""
        return {"model": self.model, "base_url": self.base_url}


Roles = Mapping[str, Endpoint | list[Endpoint]]


def resolve_endpoint(
    role: str, roles: Roles, default: Endpoint, declared: Sequence[str] = ()
) -> Bound[Endpoint]:
    """The endpoint of a call on `role` of a method declaring the roles `declared` (its panels'
    seats) and the binding it came from (`fallback`): None for the role's own, the shared role's
    name, or `DEFAULT`; for a panel, the endpoint's position in its list."""
    return resolved(role, roles, declared, default, DEFAULT)


def chat_message(m: Msg) -> dict[str, Any]:
    """Text parts become OpenAI text parts; any other part is an OpenAI content part the prompt
    carried (an image), sent as it came."""
    if isinstance(m.content, str):
        return {"role": m.role, "content": m.content}
    parts = [{"type": "text", "text": p} if isinstance(p, str) else p for p in m.content]
    return {"role": m.role, "content": parts}


def reported_usage(usage: Any) -> Usage | None:
    """The reply's token usage; None when the server reported none (an all-zero count is no
    count: every call sends input)."""
    if usage is None:
        return None
    spent = Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0)
    return None if spent.input_tokens == spent.output_tokens == 0 else spent


def choice_logprobs(choice: Any) -> tuple[float, ...] | None:
    """A choice's token log-probabilities (`logprobs.content[i].logprob`); None when the server
    returned none or any is unreadable. The client does not validate the server's JSON, so every
    field may be missing or of any type."""
    given = getattr(getattr(choice, "logprobs", None), "content", None)
    if not isinstance(given, list):
        return None
    return token_logprobs(getattr(lp, "logprob", None) for lp in given)


# (the call, the messages sent, the reply): a host's log of every call (OpenAI evals' record)
OnReply = Callable[[Call, list[dict[str, Any]], Reply], None]


class Simulators:
    """The simulated models (`madsim/<name>`) of one host object, by name, made with its
    `madsim_args` on first use and kept across its calls and threads: one model per run, so its
    once-per-run notices (no gold answer known) come once, and the answers file is read once."""

    def __init__(self, madsim_args: Mapping[str, Any] | None = None) -> None:
        self.args = dict(madsim_args or {})
        self._made: dict[str, SimulatedReplies] = {}
        self._lock = threading.Lock()

    def get(self, model: str) -> SimulatedReplies:
        with self._lock:
            if model not in self._made:
                self._made[model] = SimulatedReplies(model, **self.args)
            return self._made[model]


class OpenAIRuntime:
    """Use as `async with OpenAIRuntime(...) as runtime:` so its clients close with the debate."""

    def __init__(
        self,
        roles: Roles,
        default: Endpoint,
        on_reply: OnReply | None = None,
        simulators: Simulators | None = None,
        declared: Sequence[str] = (),
    ) -> None:
        self.roles = roles
        self.default = default
        self.declared = tuple(declared)  # the method's roles: its panels' seats
        self.on_reply = on_reply
        # an endpoint whose model is `madsim/<name>` is answered offline by the simulated model
        self.simulators = simulators or Simulators()
        self._clients: dict[tuple[str | None, str | None], AsyncOpenAI] = {}
        # every role called, as its record names it: {"model", "base_url", "fallback"}, and a
        # panel member's "position" and "panel" (as the Inspect runtime records them)
        self.resolved: dict[str, dict[str, str | int | None]] = {}
        self.infos: list[tuple[str, str | dict[str, Any]]] = []

    async def __aenter__(self) -> OpenAIRuntime:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for client in self._clients.values():
            await client.close()

    def _client(self, endpoint: Endpoint) -> AsyncOpenAI:
        key = (endpoint.base_url, endpoint.api_key)
        if key not in self._clients:
            self._clients[key] = AsyncOpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key)
        return self._clients[key]

    async def call(self, call: Call) -> Reply:
        if call.schema is not None:  # no method this host runs asks for one
            raise ValueError(f"{call.purpose}: this runtime sends no JSON schema for a reply")
        bound = resolve_endpoint(call.role, self.roles, self.default, self.declared)
        endpoint = bound.model
        self.resolved.setdefault(call.role, {**endpoint.to_dict(), **bound.shown()})
        # unset settings are left out: the server's defaults apply
        given = {
            "temperature": call.temperature,
            "max_tokens": call.max_tokens,
            "top_p": call.top_p,
        }
        settings: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
        if call.logprobs:
            settings["logprobs"] = True
        messages: list[Any] = [chat_message(m) for m in call.messages]
        if is_simulated(endpoint.model):
            reply = await self.simulators.get(endpoint.model).reply(call)
            if self.on_reply is not None:
                self.on_reply(call, messages, reply)
            return reply
        create = self._client(endpoint).chat.completions.create
        try:
            response = await create(model=endpoint.model, messages=messages, **settings)
        except BadRequestError:
            if not settings.pop("logprobs", False):
                raise
            # a model that refuses log-probabilities (OpenAI's reasoning models): asked again
            # without them, so the method has none
            response = await create(model=endpoint.model, messages=messages, **settings)
        choices = response.choices
        # a reply with no text is an unreadable reply, followed up like any other
        text = (choices[0].message.content or "") if choices else ""
        asked = settings.get("logprobs", False)
        logprobs = choice_logprobs(choices[0]) if choices and asked else None
        reply = Reply(text, reported_usage(response.usage), logprobs=logprobs)
        if self.on_reply is not None:
            self.on_reply(call, messages, reply)
        return reply

    async def gather(self, *calls: Awaitable[T]) -> list[T]:
        return list(await asyncio.gather(*calls))

    def model_name(self, role: str) -> str:
        return resolve_endpoint(role, self.roles, self.default, self.declared).model.model

    def headroom(self) -> list[Room]:
        return []  # no limits of a run here: -S budget is the debate's own

    async def act(self, call: Call, acting: Acting, steps: Steps) -> Reply:
        raise RuntimeError("agents with tools run in the Inspect host only (-S debater=react)")

    def span(self, name: str) -> Any:
        return nullcontext()  # no viewer here: the record holds every round and call

    def agent_span(self, agent: str) -> Any:
        return nullcontext()

    def info(self, title: str, data: str | dict[str, Any]) -> None:
        self.infos.append((title, data))
