"""Single-agent baselines: one answer, chain of thought, and self-consistency (majority of n samples)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .. import prompts, viewer_text
from ..checks import OptionError, integer
from ..content import Msg
from ..options import MAX_AGENTS, MAX_ROUNDS, MAX_SAMPLES, Answering, option
from ..protocols import majority_vote
from ..records import DebateResult
from ..requests import AnswerRequest
from ..session import Session
from ..spec import MethodSpec


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


def debate_budget(spec: Any) -> int:
    """'3x2' (agents x rounds) -> 6 calls, the first-attempt call count of that `du_debate`.

    Any `du_debate` within the caps can be matched. On the command line `0x2` arrives as the
    number 2 (YAML reads it as hexadecimal), so only text is read."""
    parts = spec.lower().replace("*", "x").split("x") if isinstance(spec, str) else []
    digits = [p.strip() for p in parts]
    if len(digits) == 2 and all(d.isascii() and d.isdigit() and len(d) <= 4 for d in digits):
        agents, rounds = int(digits[0]), int(digits[1])
        if 1 <= agents <= MAX_AGENTS and 1 <= rounds <= MAX_ROUNDS:
            return agents * rounds
    raise OptionError(
        "match_debate",
        spec,
        f"AGENTSxROUNDS such as 3x2, with 1 to {MAX_AGENTS} agents and 1 to {MAX_ROUNDS} rounds, "
        "or null (unset)",
    )


@dataclass(frozen=True)
class SelfConsistencyOptions(Answering):
    TEMPLATES: ClassVar[tuple[str, ...]] = ("step_by_step", "reminder")
    samples: int = option(
        5, "independent chains of thought.", lambda name, v: integer(name, v, 1, MAX_SAMPLES)
    )
    match_debate: str | None = option(
        None,
        "AGENTSxROUNDS (e.g. 3x2): as many samples as that du_debate's calls, instead of `samples`.",
        lambda name, v: v if v is None else (debate_budget(v), v)[1],
    )

    @property
    def n(self) -> int:
        return self.samples if self.match_debate is None else debate_budget(self.match_debate)


async def self_consistency(session: Session, samples: int) -> DebateResult:
    """Sample `samples` independent chains of thought and take the plurality answer."""
    p = session.problem
    prompt = [Msg("user", prompts.step_by_step(p.question, p.fmt, p.templates))]
    async with session.runtime.span("samples"):
        answers = await session.runtime.gather(
            *(
                session.answer(
                    f"sample_{i + 1}", "agent", prompt, "answer", 1, asks=AnswerRequest(p.fmt)
                )
                for i in range(samples)
            )
        )
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
        options={"samples": samples},
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
        lambda o, setup: lambda s: self_consistency(s, o.n),
        debate=False,
    ),
)
