"""A limit ends a debate, never a sample: the run's host stops a call at a limit (Inspect's
`--token-limit`, `--cost-limit`, `--message-limit`, ...) with `LimitReached`, and the method decides
from what is complete.

A method with a rule for a shorter debate (`du_debate`: the vote of its last complete round) catches
`LimitReached` where a stage ends and records `Stopped` on its result; any other method is ended by
`within_limits`, which records the stop and no answer (an abstention, scored wrong, never a guess),
the calls made until then kept, so every figure is scored either way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from .records import DebateResult, Stopped
from .runtime import LimitReached
from .session import Session


def stopped(limit: LimitReached, where: str, decided: str) -> Stopped:
    """The record of a stop: `where` the method stopped, what `decided` its answer."""
    return Stopped(limit.kind, limit.value, limit.limit, where, decided)


NOTHING = "no answer: the method has no rule for a debate it could not finish"


def within_limits(
    name: str, run: Callable[..., Awaitable[DebateResult]]
) -> Callable[..., Awaitable[DebateResult]]:
    """`run(session, ...)`, ended at a limit it does not handle itself with no answer and the stop
    recorded (its calls until then kept)."""

    async def guarded(session: Session, *args: Any) -> DebateResult:
        try:
            return await run(session, *args)
        except LimitReached as limit:
            calls = list(session.calls)
            stop = stopped(limit, f"call {len(calls) + 1}", NOTHING)
            return DebateResult(name, None, [], calls, stopped=stop)

    return guarded


def stop_at(
    result: DebateResult, limit: LimitReached | None, where: str, decided: str
) -> DebateResult:
    """`result` with the stop recorded, when a `limit` ended the method `where` it says."""
    return result if limit is None else replace(result, stopped=stopped(limit, where, decided))
