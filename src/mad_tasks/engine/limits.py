"""A limit ends a debate, never a sample: the run's host stops a call at a limit (Inspect's
`--token-limit`, `--cost-limit`, `--message-limit`, ...) with `LimitReached`, and the method decides
from what is complete.

A method with a rule for a shorter debate (`du_debate`: the vote of its last complete round) catches
`LimitReached` where a stage ends and records `Stopped` on its result; any other method is ended by
`within_limits`, which records the stop and no answer (an abstention, scored wrong, never a guess),
the calls made until then kept, so every figure is scored either way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

from .records import CallRecord, DebateResult, Stopped, dollars, output_tokens, reply_tokens
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
            # the call the limit refused, or the reply that passed it (recorded, discarded)
            made = len(calls) if calls and calls[-1].discarded else len(calls) + 1
            where = limit.where if isinstance(limit, NotStarted) else f"call {made}"
            stop = stopped(limit, where, NOTHING)
            return DebateResult(name, None, [], calls, stopped=stop)

    return guarded


class NotStarted(LimitReached):
    """A stage the look-ahead did not start (`stage_fits`), for a method with no rule without
    it: `where` names the stage, as the record's stop says."""

    def __init__(self, limit: LimitReached, stage: str) -> None:
        super().__init__(limit.kind, limit.value, limit.limit)
        self.where = ahead(limit, stage)


def stop_at(
    result: DebateResult, limit: LimitReached | None, where: str, decided: str
) -> DebateResult:
    """`result` with the stop recorded, when a `limit` ended the method `where` it says."""
    return result if limit is None else replace(result, stopped=stopped(limit, where, decided))


# a limit's unit -> the calls' spend in it (`Room.unit`; "formula": none the record can follow)
MEASURES: dict[str, Callable[[Sequence[CallRecord]], float | None]] = {
    "tokens": reply_tokens,  # input + output, as Inspect's default token limit meters them
    "output_tokens": output_tokens,
    "dollars": dollars,
}


def next_round_fits(
    session: Session,
    rounds: Sequence[Sequence[CallRecord]],
    first_growth: float = 2.0,
    parallel: int = 1,
) -> LimitReached | None:
    """The limit or budget the next round would pass, estimated from the calls of the `rounds`
    done: the last round's spend plus its growth over the one before (a later round reads
    more); after one round, `first_growth` times it (the method's guess: a second round reads
    the others' first answers); times the `parallel` debates spending the same limits. None
    when it fits, when its spend is unknown (a reply without usage or price, a limit metered in
    a way the record cannot follow), or when `look_ahead` is off."""
    if session.budget is None or not session.budget.look_ahead or not rounds:
        return None
    for room in session.headroom():
        measure = MEASURES.get(room.unit)
        spent = [measure(calls) for calls in rounds[-2:]] if measure else [None]
        if any(s is None for s in spent):
            continue
        if len(spent) == 2:
            before, last = float(spent[0] or 0), float(spent[1] or 0)
            estimate = last + max(0.0, last - before)
        else:
            estimate = first_growth * float(spent[0] or 0)
        estimate *= parallel
        if room.used + estimate > room.limit:
            return LimitReached(room.kind, room.used, room.limit)
    return None


def stage_fits(session: Session, calls: int) -> LimitReached | None:
    """The limit or budget a stage of `calls` calls started at once would pass, each call
    estimated as the largest call of the `session` so far (for a stage whose every call reads at
    least what each earlier call read: the question and the answers judged, and more). None when
    it fits, before any call, when a call's spend is unknown, or when `look_ahead` is off."""
    if session.budget is None or not session.budget.look_ahead or not session.calls:
        return None
    for room in session.headroom():
        measure = MEASURES.get(room.unit)
        each = [measure([c]) for c in session.calls] if measure else [None]
        if any(e is None for e in each):
            continue
        if room.used + calls * max(float(e or 0) for e in each) > room.limit:
            return LimitReached(room.kind, room.used, room.limit)
    return None


def unmeasured(session: Session) -> bool:
    """Whether a stage started now could not be estimated though a budget or a limit on spend
    needs it (look-ahead on, no call made yet): the method then makes one of its calls alone
    first, to measure the rest."""
    on = session.budget is not None and session.budget.look_ahead
    return on and not session.calls and bool(session.headroom())


def ahead(limit: LimitReached, stage: str) -> str:
    """Where a look-ahead stopped a debate: before the `stage` it estimated would not fit."""
    return f"before {stage} (look-ahead: it would pass the {limit.kind} limit)"


def looked_ahead(limit: LimitReached, round: int) -> str:
    """Where a look-ahead stopped a debate: before the round it estimated would not fit."""
    return ahead(limit, f"round {round}")
