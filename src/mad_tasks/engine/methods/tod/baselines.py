"""Tree-of-Debate's baselines (Kargupta et al., ACL 2025): `single_stage`, one call comparing the
papers from their titles, abstracts and introductions, and `two_stage`, each paper summarised alone,
then the two summaries compared. Every call presents the root topic (all its parts) first."""

from __future__ import annotations

from ...protocols.tod import read_summary
from ...records import DebateResult
from ...requests import SummaryRequest
from ...session import Session
from ...spec import MethodSpec
from . import prompts
from .options import SamplingOptions
from .papers import PaperPair
from .records import Fallback
from .summary import SUMMARIZER, ask_json, summarized

NO_PAPER_SUMMARY = "unreadable paper summary: the comparison is told it is missing"


async def single_stage(session: Session, pair: PaperPair, opts: SamplingOptions) -> DebateResult:
    """The single-stage baseline: one call compares the papers from their titles, abstracts and
    introductions."""
    async with session.runtime.span("single stage"):
        asked = await ask_json(
            session, opts, SUMMARIZER, "baseline", "summary papers", 0, "summary",
            prompts.single_stage(pair), read_summary, SummaryRequest("papers"),
        )  # fmt: skip
    return summarized(session, pair, opts, "single_stage", SUMMARIZER, asked, [])


async def two_stage(session: Session, pair: PaperPair, opts: SamplingOptions) -> DebateResult:
    """The two-stage baseline: each paper's motivation and novelties summarised alone (two
    concurrent calls), then one call compares the two summaries."""
    rt = session.runtime
    fallbacks: list[Fallback] = []
    async with rt.span("paper summaries"):
        papers = await rt.gather(
            *(
                ask_json(
                    session,
                    opts,
                    SUMMARIZER,
                    "baseline",
                    f"summary paper {i}",
                    0,
                    "summary",
                    prompts.paper_summary(pair, i),
                    read_summary,
                    SummaryRequest("paper"),
                )
                for i in range(2)
            )
        )
    summaries = [p.value for p in papers]
    fallbacks += [
        Fallback("", "summary", i, NO_PAPER_SUMMARY) for i, s in enumerate(summaries) if s is None
    ]
    rt.info(
        "paper summaries",
        "\n\n".join(
            f"**Paper {i}** ({pair.papers[i].title.strip()}): {s or '(no readable summary)'}"
            for i, s in enumerate(summaries)
        ),
    )
    async with rt.span("comparison"):
        asked = await ask_json(
            session, opts, SUMMARIZER, "baseline", "summary comparison", 1, "summary",
            prompts.compare_summaries(pair, summaries), read_summary,
            SummaryRequest("summaries"),
        )  # fmt: skip
    return summarized(session, pair, opts, "two_stage", SUMMARIZER, asked, fallbacks)


SPECS = (
    MethodSpec(
        "single_stage",
        "One call compares the two papers from their titles, abstracts and introductions.",
        SamplingOptions,
        lambda o, setup: lambda s, pair: single_stage(s, pair, o),
        reads=PaperPair,
        groups=("",),
        roles=lambda o: (SUMMARIZER,),
    ),
    MethodSpec(
        "two_stage",
        "Each paper summarised (motivation and novelties), then the two summaries compared.",
        SamplingOptions,
        lambda o, setup: lambda s, pair: two_stage(s, pair, o),
        reads=PaperPair,
        groups=("",),
        roles=lambda o: (SUMMARIZER,),
    ),
)
