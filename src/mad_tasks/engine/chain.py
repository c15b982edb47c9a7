"""Each call's place in its chain of dependent calls (`CallRecord.depth`), so that a record says
its critical path: the calls a sample's wall time cannot go below, whatever the concurrency.

A call depends on every call its coroutine awaited before it. A coroutine's chain is the innermost
`Chain` of its context: `Chained.gather` gives each concurrent branch a chain of its own that
starts where its parent's stood, and moves the parent's to the longest branch's end once all are
done. So the count follows the method's data dependencies, not the timing of one run.
"""

from __future__ import annotations

from collections.abc import Awaitable
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from .runtime import Acting, Call, Reply, Room, Runtime, Steps

T = TypeVar("T")


@dataclass
class Chain:
    """How many dependent calls and tool calls led up to this point of a coroutine."""

    depth: int = 0


_CURRENT: ContextVar[Chain | None] = ContextVar("mad_tasks_chain", default=None)


def current(root: Chain) -> Chain:
    """The running coroutine's chain: a branch's, else `root` (its session's own)."""
    return _CURRENT.get() or root


class Chained:
    """A runtime whose `gather` keeps the chains of its branches; every other step is the inner
    runtime's own."""

    def __init__(self, inner: Runtime, root: Chain) -> None:
        self.inner, self.root = inner, root

    async def gather(self, *calls: Awaitable[T]) -> list[T]:
        parent = current(self.root)
        branches = [Chain(parent.depth) for _ in calls]

        async def branch(awaitable: Awaitable[T], chain: Chain) -> T:
            token = _CURRENT.set(chain)
            try:
                return await awaitable
            finally:
                _CURRENT.reset(token)

        try:
            return await self.inner.gather(*map(branch, calls, branches))
        finally:
            parent.depth = max([parent.depth, *(b.depth for b in branches)])

    async def call(self, call: Call) -> Reply:
        return await self.inner.call(call)

    async def act(self, call: Call, acting: Acting, steps: Steps) -> Reply:
        return await self.inner.act(call, acting, steps)

    def span(self, name: str) -> AbstractAsyncContextManager[Any]:
        return self.inner.span(name)

    def agent_span(self, agent: str) -> AbstractAsyncContextManager[Any]:
        return self.inner.agent_span(agent)

    def info(self, title: str, data: str | dict[str, Any]) -> None:
        self.inner.info(title, data)

    def model_name(self, role: str) -> str:
        return self.inner.model_name(role)

    def headroom(self) -> list[Room]:
        return self.inner.headroom()


def chained(runtime: Runtime) -> Chained:
    """`runtime` with its chains kept (a runtime already chained, as a sub-session's, as it is)."""
    return runtime if isinstance(runtime, Chained) else Chained(runtime, Chain())
