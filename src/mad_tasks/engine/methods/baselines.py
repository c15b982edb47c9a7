"""Single-agent baselines: one answer, chain of thought, and self-consistency (majority of n samples)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .. import prompts, viewer_text
from ..checks import OptionError, integer
from ..content import Msg
from ..options import MAX_AGENTS, MAX_ROUNDS, MAX_SAMPLES, Answering, option
from ..protocols import majority_vote
from ..records import AgentAnswer, CallRecord, DebateResult, dollars, reply_tokens
from ..requests import AnswerRequest
from ..session import Session
from ..spec import MethodSpec, members


async def single(session: Session, cot: bool) -> DebateResult:
    p = session.problem
    write = prompts.step_by_step if cot else prompts.direct
    text = write(p.question, p.fmt, p.templates)
    async with session.runtime.span("answer"):
        answer = await session.answer(
            "agent_1", "agent", [Msg("user", text)], "answer", 1, asks=AnswerRequest(p.fmt)
        )
    return DebateResult(
        method="cot" if cot else "single",
        final=answer.answer,
        answers=[answer],
        calls=session.calls,
        options={"cot": cot},
    )


@dataclass(frozen=True)
class Spend:
    """A debate's spend per sample to match: `calls`, or an `amount` of "tokens" or "dollars"."""

    unit: str
    amount: float


MAX_SPEND = {"tokens": 100_000_000.0, "dollars": 1_000.0}  # per sample: far above any debate's


def debate_budget(spec: Any) -> Spend:
    """'3x2' (agents x rounds) -> 6 calls, the first-attempt call count of that `du_debate`;
    'tokens:842' or 'dollars:0.0002' -> that spend per sample (a debate's, from its report); a
    token spend is whole (`tokens:2.5` is refused).

    Any `du_debate` within the caps can be matched. On the command line `0x2` arrives as the
    number 2 (YAML reads it as hexadecimal), so only text is read."""
    text = spec.strip().lower() if isinstance(spec, str) else ""
    unit, _, amount = text.partition(":")
    digits = amount.replace(".", "", 1)  # one decimal point at most; no sign, no exponent
    readable = len(amount) <= 20 and digits.isascii() and digits.isdigit()
    whole = unit != "tokens" or (readable and float(amount).is_integer())  # no part of a token
    if unit in MAX_SPEND and readable and whole and 0 < float(amount) <= MAX_SPEND[unit]:
        return Spend(unit, float(amount))
    parts = [p.strip() for p in text.replace("*", "x").split("x")]
    if len(parts) == 2 and all(d.isascii() and d.isdigit() and len(d) <= 4 for d in parts):
        agents, rounds = int(parts[0]), int(parts[1])
        if 1 <= agents <= MAX_AGENTS and 1 <= rounds <= MAX_ROUNDS:
            return Spend("calls", agents * rounds)
    raise OptionError(
        "match_debate",
        spec,
        f"AGENTSxROUNDS such as 3x2, with 1 to {MAX_AGENTS} agents and 1 to {MAX_ROUNDS} rounds; "
        f"tokens:N (N a whole number up to {MAX_SPEND['tokens']:,.0f}) or dollars:X (X up to "
        f"{MAX_SPEND['dollars']:,.0f}), a debate's spend per sample, or null (unset)",
    )


@dataclass(frozen=True)
class SelfConsistencyOptions(Answering):
    TEMPLATES: ClassVar[tuple[str, ...]] = ("step_by_step", "reminder")
    samples: int = option(
        5, "independent chains of thought.", lambda name, v: integer(name, v, 1, MAX_SAMPLES)
    )
    match_debate: str | None = option(
        None,
        "AGENTSxROUNDS (e.g. 3x2): as many samples as that du_debate's calls, instead of "
        "`samples`; tokens:N or dollars:X: as many as spend that per sample (a debate's, from "
        "`mad-tasks report`).",
        lambda name, v: v if v is None else (debate_budget(v), v)[1],
    )

    @property
    def spend(self) -> Spend:
        if self.match_debate is None:
            return Spend("calls", self.samples)
        return debate_budget(self.match_debate)


def chains_left(spend: Spend, calls: Sequence[CallRecord], chains: int) -> int:
    """How many more chains to sample at once: the rest of `spend` in calls; in tokens or dollars,
    as many as the rest covers at the mean spend of the `chains` so far (one first, to measure it;
    none once its spend is unknown: a reply without usage or price)."""
    if spend.unit == "calls":
        return int(spend.amount) - chains
    if chains == 0:
        return 1
    spent = reply_tokens(calls) if spend.unit == "tokens" else dollars(calls)
    if spent is None or spent <= 0:
        return 0
    return min(MAX_SAMPLES - chains, math.floor((spend.amount - spent) / (spent / chains)))


async def self_consistency(session: Session, spend: Spend) -> DebateResult:
    """Sample independent chains of thought as `spend` allows, concurrently in waves, and take the
    plurality answer."""
    p = session.problem
    prompt = [Msg("user", prompts.step_by_step(p.question, p.fmt, p.templates))]
    answers: list[AgentAnswer] = []
    before = len(session.calls)  # a host's earlier stage on this session is not this spend
    async with session.runtime.span("samples"):
        while (more := chains_left(spend, session.calls[before:], len(answers))) > 0:
            answers += await session.runtime.gather(
                *(
                    session.answer(
                        f"sample_{i + 1}",
                        f"agent_{i + 1}",  # each chain a member of the `agent` panel
                        prompt,
                        "answer",
                        1,
                        asks=AnswerRequest(p.fmt),
                    )
                    for i in range(len(answers), len(answers) + more)
                )
            )
    samples = len(answers)
    tally = majority_vote([a.answer for a in answers], key=p.fmt.key)
    session.runtime.info(
        "vote",
        viewer_text.vote_table(
            tally, p.fmt.describe, tie_rule="a tie goes to the tied answer sampled first"
        ),
    )
    return DebateResult(
        method="self_consistency",
        final=tally.winner,
        answers=list(answers),
        calls=session.calls,
        tally=tally,
        options={"samples": samples}
        if spend.unit == "calls"
        else {"samples": samples, "matched": f"{spend.unit}:{spend.amount:g}"},
    )


SPECS = (
    MethodSpec(
        "single",
        "One agent answers directly, once.",
        Answering,
        lambda o, setup: lambda s: single(s, cot=False),
        debate=False,
    ),
    MethodSpec(
        "cot",
        "One agent reasons step by step, then answers.",
        Answering,
        lambda o, setup: lambda s: single(s, cot=True),
        debate=False,
    ),
    MethodSpec(
        "self_consistency",
        "Majority over independent chains of thought; `match_debate=3x2` spends a debate's call "
        "budget.",
        SelfConsistencyOptions,
        lambda o, setup: lambda s: self_consistency(s, o.spend),
        debate=False,
        # as many chains as the spend allows: every one a member of the `agent` panel
        roles=lambda o: members(
            "agent", int(o.spend.amount) if o.spend.unit == "calls" else MAX_SAMPLES
        ),
    ),
)
