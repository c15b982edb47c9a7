"""Single-agent baselines: one answer, chain of thought, and self-consistency (majority of n samples)."""

from __future__ import annotations

from .. import prompts, report
from ..protocols import majority_vote
from ..records import DebateResult
from ..runtime import Msg
from ..session import Session


async def single(session: Session, cot: bool) -> DebateResult:
    p = session.problem
    text = prompts.step_by_step(p.question, p.fmt) if cot else prompts.direct(p.question, p.fmt)
    async with session.runtime.span("answer"):
        answer = await session.answer("agent_1", "agent", [Msg("user", text)], "answer", 1)
    return DebateResult(
        method="cot" if cot else "single",
        final=answer.answer,
        answers=[answer],
        calls=session.calls,
        options={"cot": cot},
    )


async def self_consistency(session: Session, samples: int) -> DebateResult:
    """Sample `samples` independent chains of thought and take the plurality answer."""
    p = session.problem
    prompt = [Msg("user", prompts.step_by_step(p.question, p.fmt))]
    async with session.runtime.span("samples"):
        answers = await session.runtime.gather(
            *(
                session.answer(f"sample_{i + 1}", "agent", prompt, "answer", 1)
                for i in range(samples)
            )
        )
    tally = majority_vote([a.answer for a in answers], key=p.fmt.key)
    session.runtime.info("vote", report.vote_table(tally, p.fmt.describe))
    return DebateResult(
        method="self_consistency",
        final=tally.winner,
        answers=list(answers),
        calls=session.calls,
        tally=tally,
        options={"samples": samples},
    )
