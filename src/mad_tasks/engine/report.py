"""Markdown that a person reads in the viewer's info events."""

from __future__ import annotations

from typing import Callable, Sequence

from .records import AgentAnswer, Tally

Describe = Callable[[str], str]


def round_table(title: str, answers: Sequence[AgentAnswer], describe: Describe) -> str:
    rows = "\n".join(
        f"| {a.agent} | {describe(a.answer) if a.answer is not None else '*abstained*'} "
        f"| {a.attempts} |"
        for a in answers
    )
    return f"**{title}**\n\n| agent | answer | attempts |\n|---|---|---|\n{rows}"


def vote_table(tally: Tally, describe: Describe) -> str:
    winner = describe(tally.winner) if tally.winner is not None else "no answer (all abstained)"
    rows = "\n".join(
        f"| {describe(a)} | {n} |" for a, n in sorted(tally.counts.items(), key=lambda kv: -kv[1])
    )
    tie = " (tie broken by earlier rounds, then agent order)" if tally.tie else ""
    return (
        f"**Majority vote** → **{winner}**{tie}\n\n| answer | votes |\n|---|---|\n{rows}\n\n"
        f"abstentions: {tally.abstentions}"
    )
