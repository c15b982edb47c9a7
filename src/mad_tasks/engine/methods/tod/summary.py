"""What every Tree-of-Debate method shares: a call for one JSON reply, sampled as its stage asks,
and the ending of a method whose answer is a summary (the tree's synthesis, a baseline's comparison):
an unreadable summary is an abstention, recorded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ...content import Content, Msg
from ...protocols.tod import SCHEMAS
from ...records import AgentAnswer, DebateResult
from ...requests import Request
from ...session import Asked, Sampling, Session
from . import prompts
from .options import SamplingOptions
from .papers import PaperPair
from .records import Fallback, TreeRecord

T = TypeVar("T")

MODERATOR = "moderator"
SUMMARIZER = "summarizer"  # the baselines' one agent
ABSTAIN = "unreadable summary: no final answer (abstention)"


def sampling(opts: SamplingOptions, stage: str, kind: str) -> Sampling:
    """A call's settings: its stage's temperature, top_p and max_tokens, and its reply's JSON
    schema when structured output is on."""
    s = opts.stage(stage)
    return Sampling(
        s.temperature, s.top_p, s.max_tokens, SCHEMAS[kind] if opts.structured else None
    )


async def ask_json(
    session: Session,
    opts: SamplingOptions,
    agent: str,
    stage: str,
    purpose: str,
    round: int,
    kind: str,
    prompt: Content,
    parse: Callable[[str], T | None],
    asks: Request,
) -> Asked[T]:
    """One JSON reply of `kind`, sampled as `stage` (opts.stage) asks."""
    return await session.ask(
        agent,
        agent,
        [Msg("user", prompt)],
        purpose,
        round,
        parse,
        prompts.reminder(kind),
        asks=asks,
        sampling=sampling(opts, stage, kind),
    )


def raw(asked: Asked[Any]) -> str:
    """A reply as recorded: the first, and after follow-ups also the last."""
    r = asked.replies
    return r[0] if len(r) == 1 else f"{r[0]}\n\n{r[-1]}"


def summarized(
    session: Session,
    pair: PaperPair,
    opts: SamplingOptions,
    name: str,
    agent: str,
    asked: Asked[str] | None,
    fallbacks: list[Fallback],
    node: str = "",
    **tree: Any,
) -> DebateResult:
    """The result of a method whose answer is the summary `asked` gave (none readable: an
    abstention, recorded as a fallback at `node`; None: a limit ended the method before its
    summary was asked for, so there is no answer); `tree`: the rest of its `TreeRecord`."""
    if asked is not None and asked.value is None:
        fallbacks.append(Fallback(node, "summary", None, ABSTAIN))
    title = "synthesis" if agent == MODERATOR else "summary"
    summary = None if asked is None else asked.value
    session.runtime.info(
        title, NOT_ASKED if asked is None else summary_markdown(summary, len(asked.replies))
    )
    return DebateResult(
        method=name,
        final=summary,
        answers=[]
        if asked is None
        else [AgentAnswer(agent, 1, raw(asked), summary, len(asked.replies))],
        calls=session.calls,
        options=opts.record(),
        record=TreeRecord(
            variant=name,
            topic=pair.topic.text,
            titles=(pair.papers[0].title, pair.papers[1].title),
            texts=(pair.papers[0].source, pair.papers[1].source),
            fallbacks=fallbacks,
            summary=summary,
            **tree,
        ),
    )


NOT_ASKED = "**No summary**: a limit ended the debate before the summary was asked for (no answer)."


def summary_markdown(summary: str | None, attempts: int) -> str:
    if summary is None:
        return f"**No summary**: no reply could be read after {attempts} attempts (abstention)."
    return f"**Summary** ({attempts} attempt(s)):\n\n{summary}"
