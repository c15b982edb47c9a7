"""The engine's `Runtime` on Inspect: model roles, generation settings, cache scopes, token usage,
concurrent calls, spans (a stage's, an agent's) and info events."""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import anyio
from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentText,
    GenerateConfig,
    Model,
    ModelOutput,
    ResponseSchema,
    get_model,
    model_roles,
)
from inspect_ai.util import (
    JSONSchema,
    LimitExceededError,
    SampleLimits,
    current_span_id,
    sample_limits,
    span,
)
from pydantic import ValidationError

from ._inspect_compat import active_generate_config, quiet_store, scoring_elapsed
from .engine.content import Msg
from .engine.embeddings import Embedder, PairScorer, load_embedder, load_pair_scorer
from .engine.limits import LimitReached
from .engine.panels import Bound, refusal, resolve
from .engine.runtime import (
    Acting,
    Call,
    Reply,
    Room,
    Steps,
    Usage,
    token_logprobs,
)

T = TypeVar("T")

# The call in flight, for the project's simulated model: it seeds its replies by agent and round.
current_call: ContextVar[Call | None] = ContextVar("mad_tasks_current_call", default=None)

# The name of the innermost span this runtime opened in the running task: a span is never reopened
# inside one of its name (an agent's follow-ups and each of its calls, the judge in stage `judge`).
_innermost_span: ContextVar[str | None] = ContextVar("mad_tasks_innermost_span", default=None)

_MESSAGE = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


# what an unbound role falls back to: the model under evaluation
MAIN_MODEL = "main model"


# the model a role's calls run on and the binding it came from: the role's own (`fallback` None),
# a shared role's (`agent` for `agent_3`), or none (`MAIN_MODEL`); for a list, its position in it
RoleModel = Bound[Model]


def list_bindings() -> dict[str, list[str]]:
    """Every role bound to a list of models, with the models' names."""
    return {
        role: [str(m) for m in bound]
        for role, bound in model_roles().items()
        if isinstance(bound, list)
    }


def check_panels(declared: Sequence[str]) -> None:
    """Refuse, before any call, a list bound to a role of these that takes one model
    (`panels.refusal`)."""
    refused = refusal(declared, list_bindings())
    if refused is not None:
        raise refused


def resolve_role(role: str, declared: Sequence[str] = ()) -> RoleModel:
    """The model of a call on `role` of a method declaring the roles `declared` (its panels'
    seats, `panels.resolve`); unbound, the main model, labelled with the role so usage is
    reported per role."""
    bound = resolve(role, model_roles(), declared)
    if bound is None:
        return RoleModel(get_model(role=role, default=get_model()), MAIN_MODEL)
    return bound


def resolve_model(role: str) -> Model:
    return resolve_role(role).model


def derive_seed(seed: int | None, call: Call) -> int | None:
    """A seed per agent, round, purpose and attempt, so a fixed --seed neither makes agents with one
    prompt identical nor makes a retry repeat the reply it retries."""
    if seed is None:
        return None
    key = f"{call.agent}/{call.round}/{call.purpose}/{call.attempt}"
    return seed + zlib.crc32(key.encode()) % 100_000


def generation_config(model: Model, eval_config: GenerateConfig, call: Call) -> GenerateConfig:
    """What one call sends. Inspect gives the eval's settings (`--temperature`, `--max-tokens`,
    `--top-p`, ...) to the main model only; here every role model gets them too, except those its
    own config sets (`--model-role 'agent={model: ..., temperature: 0}'`). The solver's options win
    over both, and the call's seed derives from the model's own seed, else the eval's."""
    own = model.config
    inherited = {
        name: getattr(eval_config, name)
        for name in type(eval_config).model_fields
        # the cache policy goes with every call on its own, with the call's scopes
        if name != "cache" and getattr(own, name) is None
    }
    seed = own.seed if own.seed is not None else eval_config.seed
    return GenerateConfig(**inherited).merge(
        GenerateConfig(
            temperature=call.temperature,
            max_tokens=call.max_tokens,
            top_p=call.top_p,
            seed=derive_seed(seed, call),
            response_schema=response_schema(model, call),
            extra_body=schema_body(model, call),
            # None leaves the eval's own setting; providers without log-probabilities ignore it
            logprobs=True if call.logprobs else None,
        )
    )


# llama-cpp-python's server refuses the JSON schema request Inspect sends (with an error Inspect
# retries without end) but takes the schema in its own form, which it enforces with a grammar.
LLAMA_CPP = "llama-cpp-python"


def provider(model: Model) -> str:
    return str(model).split("/", 1)[0]


def response_schema(model: Model, call: Call) -> ResponseSchema | None:
    """The reply's JSON schema as Inspect's structured output request, where the provider takes
    one; most providers without structured output ignore it, and the method validates the reply
    either way."""
    if call.schema is None or provider(model) == LLAMA_CPP:
        return None
    name = re.sub(r"[^A-Za-z0-9_-]", "_", call.purpose)[:64] or "reply"
    return ResponseSchema(name=name, json_schema=JSONSchema.model_validate(call.schema))


def schema_body(model: Model, call: Call) -> dict[str, Any] | None:
    """The reply's JSON schema in llama-cpp-python's own request form."""
    if call.schema is None or provider(model) != LLAMA_CPP:
        return None
    return {"response_format": {"type": "json_object", "schema": dict(call.schema)}}


def reported_usage(output: ModelOutput | None) -> Usage | None:
    """The reply's token usage and its price (Inspect's, from its model price table); None when
    the provider reported none (an all-zero count is no count: every call sends input)."""
    usage = output.usage if output is not None else None
    if usage is None or (usage.input_tokens == 0 and usage.output_tokens == 0):
        return None
    return Usage(usage.input_tokens, usage.output_tokens, usage.total_cost)


def limit_spent(since: int) -> Usage | None:
    """The usage of the reply that reached a limit as it came back (Inspect checks its limits
    once the call's ModelEvent holds the reply): this call's, the latest ModelEvent of its own
    span since it began (`since`); None when the limit refused the call before it was sent."""
    own = current_span_id()
    for event in reversed(transcript().history.events_from(since)):
        if isinstance(event, ModelEvent) and event.span_id == own and event.error is None:
            return reported_usage(event.output)
    return None


def reply_logprobs(output: ModelOutput) -> tuple[float, ...] | None:
    """The first choice's token log-probabilities; None when the output has none (no choices, no
    log-probabilities, an empty list) or any is not a finite number <= 0."""
    given = output.choices[0].logprobs if output.choices else None
    return token_logprobs(lp.logprob for lp in given.content) if given is not None else None


def served_from_cache(output: ModelOutput, since: int) -> bool:
    """Whether Inspect served `output` from its cache. The output carries no mark, but the call's
    ModelEvent, among the transcript's events since the call began (`since`), says "read" on a
    cache hit and holds a copy of the output (equal to no other: its message id is its own)."""
    return any(
        isinstance(e, ModelEvent) and e.cache == "read" and e.output == output
        for e in transcript().history.events_from(since)
    )


def time_reserve(limit: float) -> float:
    """The seconds of a time limit kept for the method to decide and the sample to be saved once
    the debate is cut: a tenth of the limit, at least `MIN_RESERVE` (a loaded machine's event
    loop runs late: at 0.1 s a 1 s limit was passed in CI) but never more than a third of the
    limit, and at most `MAX_RESERVE`."""
    return min(MAX_RESERVE, limit / 3, max(MIN_RESERVE, 0.1 * limit))


MIN_RESERVE, MAX_RESERVE = 0.3, 2.0


@dataclass(frozen=True)
class Deadline:
    """The nearest of the sample's time and working limits: Inspect cancels the whole sample at
    either, so a call is cut `time_reserve` seconds before (`left` from now), and the method
    decides from what is complete."""

    left: float
    kind: str
    limit: float

    def reached(self) -> LimitReached:
        return LimitReached(self.kind, self.limit - time_reserve(self.limit), self.limit)


def running_limits() -> SampleLimits | None:
    """The running sample's limits; None outside a sample."""
    try:
        return sample_limits()
    except RuntimeError:
        return None


def deadline(kind: str, early: float = 0.0) -> Deadline | None:
    """What is left of the sample's `kind` limit ("time" or "working"), `early` seconds more kept
    back; None without one (or outside a sample)."""
    limits = running_limits()
    limit = None if limits is None else limits.time if kind == "time" else limits.working
    if limit is None or limit.limit is None:
        return None
    if kind == "time" and (scoring := scoring_elapsed(limit.usage)) is not None:
        budget = limit.limit / 2  # Inspect's own limit on scoring, from the solver's end
        return Deadline(budget - time_reserve(budget) - early - scoring, kind, budget)
    left = limit.limit - time_reserve(limit.limit) - early - limit.usage
    return Deadline(left, kind, limit.limit)


WORKING_CHECK = 0.25  # seconds between two looks at the working time of a call in flight


async def within_time(generating: Coroutine[Any, Any, T], early: float = 0.0) -> T:
    """`generating`, refused when the sample's time or working limit has no room left for it, and
    cut when it runs out (`early` seconds sooner: what the cut itself may take). Time is wall
    time, so its cut is a deadline; working time leaves out the waits (rate limits, a batch's
    turnaround), so it is looked at every `WORKING_CHECK` seconds while the call is in flight."""
    wall, working = deadline("time", early), deadline("working", early)
    for due in (wall, working):
        if due is not None and due.left <= 0:  # no call is started that cannot finish
            generating.close()
            raise due.reached()
    if wall is None and working is None:
        return await generating  # no limit to keep: no scope to run it in
    result: list[T] = []
    cut = wall
    with anyio.move_on_after(math.inf if wall is None else wall.left):
        try:
            async with anyio.create_task_group() as group:

                async def watch() -> None:
                    nonlocal cut
                    # polled: working time is computed from the waits, no event marks its end
                    while (left := deadline("working", early)) is not None and left.left > 0:  # noqa: ASYNC110
                        await anyio.sleep(min(WORKING_CHECK, left.left))
                    if left is not None:  # else the limit was lifted meanwhile
                        cut = left
                        group.cancel_scope.cancel()

                async def run() -> None:
                    result.append(await generating)
                    group.cancel_scope.cancel()

                if working is not None:
                    group.start_soon(watch)
                group.start_soon(run)
        except ExceptionGroup as errors:  # the call's own error, as itself
            if len(errors.exceptions) != 1:
                raise
            raise errors.exceptions[0] from errors.exceptions[0].__cause__
    if result:
        return result[0]
    assert cut is not None  # the call was cut by one of the two limits
    raise cut.reached()


# how an agent's turn acts on this runtime (`inspect_acting.act`), given by whoever makes one that
# may act, so that this module need not know Inspect's agents
Actor = Callable[["InspectRuntime", Call, Acting, Steps], Awaitable[Reply]]


class InspectRuntime:
    """The runtime of one sample of a method whose calls run on the roles `declared` (its
    `MethodSpec.roles`): a list bound to one of them is checked here, before any call."""

    def __init__(
        self,
        sample_id: str | int | None,
        actor: Actor | None = None,
        *,
        declared: Sequence[str] = (),
    ) -> None:
        self.sample = str(sample_id)
        self.actor = actor
        self.config = active_generate_config()
        self.declared = tuple(declared)
        check_panels(self.declared)
        # every role called in this sample, resolved on its first call (the log records them)
        self.roles: dict[str, RoleModel] = {}

    def model_of(self, role: str) -> RoleModel:
        if role not in self.roles:
            self.roles[role] = resolve_role(role, self.declared)
        return self.roles[role]

    def model_name(self, role: str) -> str:
        return str(self.model_of(role).model)

    def resolved_roles(self) -> dict[str, dict[str, str | int | None]]:
        """`{role: {"model": "provider/name", "fallback": ...}}` for the log."""
        return {role: {"model": str(r.model), **r.shown()} for role, r in self.roles.items()}

    def cache_of(self, call: Call) -> bool | CachePolicy:
        base = self.config.cache
        if not base:
            return False
        policy = base if isinstance(base, CachePolicy) else CachePolicy()
        scopes = {
            **policy.scopes,
            "sample": self.sample,
            "agent": call.agent,
            "round": str(call.round),
            "purpose": call.purpose,
            "attempt": str(call.attempt),
        }
        return policy.model_copy(update={"scopes": scopes})

    async def call(self, call: Call) -> Reply:
        model = self.model_of(call.role).model
        config = generation_config(model, self.config, call)
        messages: list[ChatMessage] = [to_chat(m) for m in call.messages]
        cache = self.cache_of(call)
        since = transcript().history.event_count
        token = current_call.set(call)
        try:
            try:
                out = await within_time(model.generate(messages, config=config, cache=cache))
            except ValidationError:
                if not call.logprobs:
                    raise
                # malformed log-probabilities fail Inspect's reading of the whole reply: the call
                # is made again without asking for them (the method then has none)
                call = replace(call, logprobs=False)
                config = config.merge(GenerateConfig(logprobs=False))
                out = await within_time(model.generate(messages, config=config, cache=cache))
        except LimitExceededError as e:  # the method decides from what is complete
            raise LimitReached(e.type, e.value, e.limit, limit_spent(since)) from None
        finally:
            current_call.reset(token)
        cached = bool(cache) and served_from_cache(out, since)
        # a reply carries log-probabilities only where its call asked for them
        logprobs = reply_logprobs(out) if call.logprobs else None
        return Reply(out.completion, reported_usage(out), cached, logprobs)

    async def act(self, call: Call, acting: Acting, steps: Steps) -> Reply:
        if self.actor is None:
            raise RuntimeError("this runtime was made without an actor (inspect_acting.act)")
        return await self.actor(self, call, acting, steps)

    async def gather(self, *calls: Awaitable[T]) -> list[T]:
        """Inspect's `collect()` without its anonymous `task-N` span around each coroutine (each
        call sits in its agent's span): the same anyio task group, so the sample's cancellation
        and limits reach every call, and an error of one call is raised as itself."""
        results: list[Any] = [None] * len(calls)

        async def run(index: int, awaitable: Awaitable[T]) -> None:
            results[index] = await awaitable

        try:
            async with anyio.create_task_group() as group:
                for index, awaitable in enumerate(calls):
                    group.start_soon(run, index, awaitable)
        except ExceptionGroup as errors:
            # calls that reached a limit together stop the stage as one
            limits = all(isinstance(e, LimitReached) for e in errors.exceptions)
            if len(errors.exceptions) != 1 and not limits:
                raise
            error = errors.exceptions[0]
            raise error from error.__cause__
        return results

    def span(self, name: str) -> Any:
        return _named_span(name, "stage")

    def agent_span(self, agent: str) -> Any:
        return _named_span(agent, "calls")

    def info(self, title: str, data: str | dict[str, Any]) -> None:
        transcript().info(data, source=title)

    def headroom(self) -> list[Room]:
        """The sample's token and cost limits and their use so far."""
        limits = running_limits()
        if limits is None:
            return []
        # the token limit in its own metering: all tokens, output tokens only, or a formula the
        # record cannot follow (then no look-ahead on it)
        metered = {"all": "tokens", "output": "output_tokens"}
        token_unit = metered.get(getattr(limits.token, "type", "all"), "formula")
        return [
            Room(kind, unit, limit.usage, limit.limit)
            for kind, unit, limit in (
                ("token", token_unit, limits.token),
                ("cost", "dollars", limits.cost),
            )
            if limit.limit is not None
        ]


@asynccontextmanager
async def _named_span(name: str, type: str) -> AsyncIterator[None]:
    if _innermost_span.get() == name:
        yield
        return
    token = _innermost_span.set(name)
    try:
        with quiet_store():
            async with span(name, type=type):
                yield
    finally:
        _innermost_span.reset(token)


def to_chat(m: Msg) -> ChatMessage:
    """Text parts become Inspect text content; every other part is Inspect's own, sent as it is."""
    if isinstance(m.content, str):
        return _MESSAGE[m.role](content=m.content)
    parts = [ContentText(text=p) if isinstance(p, str) else p for p in m.content]
    return _MESSAGE[m.role](content=parts)


class InspectSetup:
    """What the Inspect host offers a method it prepares (`engine/spec.Setup`): any embedder
    installed here, the `openai` one included (its client runs on Inspect's event loop)."""

    def embedder(self, spec: str) -> Embedder:
        return load_embedder(spec)

    def pair_scorer(self, option: str, spec: str) -> PairScorer:
        return load_pair_scorer(option, spec)


SETUP = InspectSetup()
