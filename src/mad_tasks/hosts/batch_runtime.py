"""The engine's `Runtime` over a synchronous batch generator: many debates, one batch per round.

Harnesses such as lm-eval hand a model all of a run's requests at once and give it a synchronous
`generate(batch)` whose backend batches (a local model's batch, an API's concurrent requests). To
use that, every request's debate runs as a coroutine on one private event loop; a coroutine that
makes a model call parks it and waits. When no coroutine can go on without a reply, every parked
call of every debate is sent as one batch, from outside the running loop (lm-eval's API backends
start an event loop of their own with `asyncio.run`), and the debates resume with the replies. So
round 1 of every debate is one batch, round 2 the next, and a follow-up after an unreadable reply
joins whatever the other debates are waiting on.

Readiness is counted, not guessed: `_active` is how many coroutines are running or ready to run.
A debate counts while it runs; a call stops counting until its reply is set; `gather` hands its
caller's count to its children and back, so the count reaches 0 exactly when every coroutine is
waiting on a parked call or is done. Anything else a method awaits (an embedder's network call)
keeps its coroutine counted, and the loop simply runs until it finishes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from ..engine.runtime import Acting, Call, Reply, Room, Runtime, Steps

T = TypeVar("T")

Generate = Callable[[list[Call]], list[Reply]]  # one reply per call, in order
Debate = Callable[[Runtime], Awaitable[T]]


class RoundRuntime:
    """`run(debates)` runs each `debate(runtime)` to its result; `generate` gets each round's calls
    of all debates as one batch, every role on one model (named `model`), or each on the model
    `model_of(role)` names (`generate` sends each its calls). `batches` records each batch's
    size, in order. One run per instance."""

    def __init__(
        self, generate: Generate, model: str, model_of: Callable[[str], str] | None = None
    ) -> None:
        self._generate = generate
        self.model = model
        self._model_of = model_of
        self._parked: list[tuple[Call, asyncio.Future[Reply]]] = []
        self._active = 0
        self._quiet: asyncio.Event | None = None  # set when _active falls to 0
        self.batches: list[int] = []

    def run(self, debates: Sequence[Debate[T]]) -> list[T]:
        loop = asyncio.new_event_loop()
        quiet = self._quiet = asyncio.Event()
        tasks: list[asyncio.Task[T]] = []
        try:
            self._active = len(debates)
            tasks = [loop.create_task(self._debate(d)) for d in debates]
            while True:
                if self._active:
                    loop.run_until_complete(quiet.wait())
                failed = next((t for t in tasks if t.done() and t.exception()), None)
                if failed is not None:
                    failed.result()  # raises the debate's error
                if not self._parked:
                    break  # nothing runs and nothing waits: every debate is done
                batch, self._parked = self._parked, []
                replies = self._generate([call for call, _ in batch])  # the loop is not running
                if len(replies) != len(batch):
                    raise RuntimeError(f"{len(batch)} calls got {len(replies)} replies")
                self.batches.append(len(batch))
                quiet.clear()
                self._active += len(batch)
                for (_, waiting), reply in zip(batch, replies):
                    waiting.set_result(reply)
            return [t.result() for t in tasks]
        finally:  # every task left, the debates' children included: none is left pending
            unfinished = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for t in unfinished:
                t.cancel()
            if unfinished:
                loop.run_until_complete(asyncio.gather(*unfinished, return_exceptions=True))
            loop.close()

    async def _debate(self, debate: Debate[T]) -> T:
        try:
            return await debate(self)
        finally:
            self._leave()

    def _leave(self) -> None:
        self._active -= 1
        if self._active == 0 and self._quiet is not None:
            self._quiet.set()

    # -- Runtime -------------------------------------------------------------------------------
    async def call(self, call: Call) -> Reply:
        waiting: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._parked.append((call, waiting))
        self._leave()
        return await waiting  # counted again when the reply is set

    async def gather(self, *calls: Awaitable[T]) -> list[T]:
        """Every coroutine to its end, results in order; then the error of the first one that
        failed, if any, is raised (a debate with a failed call fails as a whole)."""
        if not calls:
            return []
        results: list[Any] = [None] * len(calls)
        left = len(calls)
        self._active += len(calls)  # the children run ...
        self._leave()  # ... while their caller waits

        async def child(index: int, awaitable: Awaitable[T]) -> None:
            nonlocal left
            try:
                results[index] = await awaitable
            finally:
                left -= 1
                if left:
                    self._leave()
                # the last child's count passes to the caller, which can go on now

        children = [asyncio.ensure_future(child(i, a)) for i, a in enumerate(calls)]
        await asyncio.wait(children)
        errors = [e for c in children if (e := c.exception()) is not None]
        if errors:
            raise errors[0]
        return results

    def span(self, name: str) -> Any:
        return _no_span()

    def agent_span(self, agent: str) -> Any:
        return _no_span()

    def info(self, title: str, data: str | dict[str, Any]) -> None:
        """No viewer here: the debate record (`DebateResult`) keeps what the events would show."""

    def model_name(self, role: str) -> str:
        return self.model if self._model_of is None else self._model_of(role)

    def headroom(self) -> list[Room]:
        return []  # no limits of a run here: -S budget is the debate's own

    async def act(self, call: Call, acting: Acting, steps: Steps) -> Reply:
        raise RuntimeError("agents with tools run in the Inspect host only (-S debater=react)")


@asynccontextmanager
async def _no_span() -> AsyncIterator[None]:
    yield
