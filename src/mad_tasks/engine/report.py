"""Markdown that a person reads in the viewer's info events."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .records import AgentAnswer, Tally

Describe = Callable[[str], str]


def round_table(title: str, answers: Sequence[AgentAnswer], describe: Describe) -> str:
    rows = "\n".join(
        f"| {a.agent} | {describe(a.answer) if a.answer is not None else '*abstained*'} "
        f"| {a.attempts} |"
        for a in answers
    )
    return f"**{title}**\n\n| agent | answer | attempts |\n|---|---|---|\n{rows}"


def vote_table(
    tally: Tally, describe: Describe, no_winner: str = "no answer (all abstained)"
) -> str:
    """`no_winner` says why there is no winner when a rule other than abstention can cause it."""
    winner = describe(tally.winner) if tally.winner is not None else no_winner
    rows = "\n".join(
        f"| {describe(a)} | {n} |" for a, n in sorted(tally.counts.items(), key=lambda kv: -kv[1])
    )
    broken = tally.tie and tally.winner is not None
    tie = " (tie broken by earlier rounds, then agent order)" if broken else ""
    return (
        f"**Majority vote** → **{winner}**{tie}\n\n| answer | votes |\n|---|---|\n{rows}\n\n"
        f"abstentions: {tally.abstentions}"
    )
